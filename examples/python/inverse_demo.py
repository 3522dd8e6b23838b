"""The demo inverse problem ([I] Example 3.2) from Python, with a matplotlib plot of the
actuation (as the CLI's actuation.png, [I] Fig. 1).

    python examples/python/inverse_demo.py [out.png]

matplotlib is optional (`pip install matplotlib`); without it the script prints the peaks.
"""

import sys

import numpy as np

import stmech

res = stmech.run(stmech.demo())  # or stmech.run("examples/beam_inverse/example_3_2.toml")
t, f = res.actuation_t, res.actuation  # s; (nt, 3): f_x, f_y in N, m in N·m at s = 0
print(res)
print("peak |f_x|, |f_y|, |m|:", np.abs(f).max(axis=0))
print("closed loop:", res.tip_tracking["closed_loop"]["max_position_error_m"], "m")

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
left.plot(t, f[:, 0], label="f_x")
left.plot(t, f[:, 1], label="f_y")
left.set(xlabel="t [s]", ylabel="force [N]", title="Actuating force at s = 0")
left.legend()
right.plot(t, f[:, 2], color="k", label="m")
right.set(xlabel="t [s]", ylabel="torque [N·m]", title="Actuating torque at s = 0")
fig.tight_layout()
out = sys.argv[1] if len(sys.argv) > 1 else "actuation.png"
fig.savefig(out, dpi=120)
print("plot:", out)
