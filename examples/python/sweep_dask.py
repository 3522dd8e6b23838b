"""The sweep of sweep.py on a cluster with Dask distributed (optional: `pip install
"dask[distributed]"`, not part of the default install). Each task is one inverse solve;
stmech releases the GIL, so a worker's threads run solves in parallel too.

    python examples/python/sweep_dask.py                      # a local cluster
    python examples/python/sweep_dask.py tcp://scheduler:8786 # an existing cluster

Every worker needs stmech installed (`pip install` of the wheel).
"""

import math
import sys

import numpy as np
from dask.distributed import Client, LocalCluster


def peak_torque(duration):
    import stmech

    res = stmech.run({
        "problem": "beam-inverse",
        "beam": {"length": 1.0, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0}},
        "trajectory": {"kind": "rest-to-rest", "angle": math.pi / 2, "t0": 2.0,
                       "duration": float(duration)},
        "time": {"start": 0.0, "end": 4.0 + float(duration)},
        "mesh": {"resolution": 20},
        "verify": {"closed_loop": False},
    })
    return float(np.max(np.abs(res.actuation[:, 2])))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    durations = np.linspace(1.0, 3.0, 100)
    peaks = client.gather(client.map(peak_torque, durations))
    for d, p in list(zip(durations, peaks))[::10]:
        print(f"duration {d:5.3f} s: peak |m| = {p:.4f} N·m")
