"""Sweep: 100 inverse solves of [I] Example 3.2 over the duration of the manoeuvre, on 1 and
on 2 threads (the solver releases the GIL), and the overhead of the Python call.

    python examples/python/sweep.py [--n 100] [--threads 2]

Prints the peak actuation torque of each duration, the wall time on 1 and on N threads, the
speed-up, and the Python-call overhead: the wall time of `stmech.run` minus the solve time
the Rust side measures (summary["wall_time_seconds"]), relative to that solve time.
"""

import argparse
import concurrent.futures
import math
import time

import numpy as np

import stmech


def scenario(duration):
    """[I] Example 3.2 with the manoeuvre lasting `duration` seconds (2 s in the paper)."""
    return {
        "problem": "beam-inverse",
        "beam": {"length": 1.0, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0}},
        "trajectory": {"kind": "rest-to-rest", "angle": math.pi / 2, "t0": 2.0,
                       "duration": duration},
        "time": {"start": 0.0, "end": 4.0 + duration},
        "mesh": {"resolution": 20},
        "newton": {"tolerance": 1e-10, "max_iterations": 30},
        # the sweep wants the actuation; the closed-loop check is a separate forward run
        "verify": {"closed_loop": False},
    }


def peak_torque(duration):
    res = stmech.run(scenario(duration))
    return float(np.max(np.abs(res.actuation[:, 2])))


def sweep(durations, threads):
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        peaks = list(pool.map(peak_torque, durations))
    return peaks, time.perf_counter() - started


def overhead(repeats=30):
    """Median of (Python wall time − Rust solve time) / Rust solve time, over `repeats` calls
    with the scenario given as a dict (the dict → TOML → validation path included)."""
    ratios = []
    d = scenario(2.0)
    for _ in range(repeats):
        started = time.perf_counter()
        res = stmech.run(d)
        _ = res.actuation, res.t, res.summary
        wall = time.perf_counter() - started
        solve = res.summary["wall_time_seconds"]
        ratios.append((wall - solve) / solve)
    return float(np.median(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100, help="number of durations (default 100)")
    ap.add_argument("--threads", type=int, default=2, help="threads of the parallel sweep")
    args = ap.parse_args()
    # one core per solve: the parallelism is the sweep's (results are the same for any number)
    stmech.set_threads(1)
    durations = np.linspace(1.0, 3.0, args.n)
    peaks1, t1 = sweep(durations, 1)
    peaksn, tn = sweep(durations, args.threads)
    assert peaks1 == peaksn, "threads change nothing in the results"
    for d, p in list(zip(durations, peaks1))[:: max(1, args.n // 10)]:
        print(f"duration {d:5.3f} s: peak |m| = {p:.4f} N·m")
    print(f"{args.n} inverse solves: 1 thread {t1:.3f} s, {args.threads} threads {tn:.3f} s, "
          f"speed-up {t1 / tn:.2f}x")
    print(f"Python-call overhead over the Rust solve (median of 30): {100 * overhead():.2f} %")


if __name__ == "__main__":
    main()
