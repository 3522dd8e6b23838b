"""Closed loop: the actuation computed by the inverse solver drives the forward beam, and its
tip follows the prescribed path. The same figures as crates/stmech/tests/closed_loop.rs (log
law, 20 elements, forward mesh of 32 quadratic elements with Δt = 4 ms: 6.43e-3 m,
5.37e-3 rad; docs/verification.md).

    python examples/python/closed_loop.py
"""

import stmech

inv = stmech.run("examples/beam_inverse/example_3_2.toml")
r = stmech.closed_loop(inv, inv.actuation_t, inv.actuation, elements=32, dt=4e-3)
print(f"max tip deviation {r['max_position_error_m']:.3e} m, {r['max_angle_error_rad']:.3e} rad")

# The same replay as a planar-beam scenario of your own, with the actuation as arrays:
beam = {
    "problem": "beam",
    "analysis": "dynamic",
    "beam": {"length": 1.0, "elements": 32, "order": 2, "law": "log",
             "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0},
             "start": "free", "end": "free"},
    "dynamic": {"end": 6.0, "step": 4e-3},
    "output": {"plots": False},
}
fwd = stmech.run(beam, actuation=(inv.actuation_t, inv.actuation))
print("forward tip at t = 6 s:", fwd.tip[-1], "(prescribed:", inv.tip_prescribed[-1], ")")
