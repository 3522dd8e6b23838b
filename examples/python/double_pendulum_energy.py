"""Energy of the double pendulum (examples/multibody/01_double_pendulum.toml): the space-time
Galerkin method conserves the total energy at the element boundaries.

    python examples/python/double_pendulum_energy.py [energy.png]
"""

import sys

import numpy as np

import stmech

res = stmech.run("examples/multibody/01_double_pendulum.toml")
e = res.total_energy  # J, at every time node (inside elements too)
print(res)
print(f"total energy {e[0]:.12f} J; largest deviation {np.max(np.abs(e - e[0])):.3e} J")
print("energy drift at element boundaries:",
      res.summary["conservation"]["energy_at_element_boundaries_drift"], "J")
print("max |Φ|:", res.constraint_violation.max())

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(0)

fig, ax = plt.subplots(figsize=(8, 4))
ax.plot(res.t, res.kinetic_energy, label="kinetic")
ax.plot(res.t, res.potential_energy, label="potential")
ax.plot(res.t, e, label="total")
ax.set(xlabel="t [s]", ylabel="energy [J]", title="Double pendulum")
ax.legend()
out = sys.argv[1] if len(sys.argv) > 1 else "energy.png"
fig.savefig(out, dpi=120)
print("plot:", out)
