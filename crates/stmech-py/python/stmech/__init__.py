"""stmech: space-time Galerkin dynamics of rigid bodies and beams, and inverse dynamics of
beams and cranes, from Python.

    import stmech
    res = stmech.run("examples/beam_inverse/example_3_2.toml")   # or a dict, or stmech.demo()
    res.actuation            # numpy array (nt, 3): f_x, f_y in N, m in N·m at s = 0
    res.summary              # dict: the CLI's summary.json
    res.save("out/demo")     # the files `stmech run` writes

Scenarios are TOML files or dicts with the same field names (docs/scenarios.md); invalid
input raises ScenarioError, whose `problems` list every problem (field, line, message, fix).
The solver releases the GIL, so `concurrent.futures.ThreadPoolExecutor` runs solves in
parallel. SI units throughout: m, s, kg, N, rad.
"""

from ._stmech import (
    BeamResult,
    CraneResult,
    InverseResult,
    MultibodyResult,
    Problem,
    Scenario,
    ScenarioError,
    SolveError,
    SpatialResult,
    StaticResult,
    __version__,
    check,
    closed_loop,
    demo,
    load,
    run,
    set_threads,
)

__all__ = [
    "BeamResult",
    "CraneResult",
    "InverseResult",
    "MultibodyResult",
    "Problem",
    "Scenario",
    "ScenarioError",
    "SolveError",
    "SpatialResult",
    "StaticResult",
    "__version__",
    "check",
    "closed_loop",
    "demo",
    "load",
    "run",
    "set_threads",
]
