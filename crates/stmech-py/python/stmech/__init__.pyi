"""Type stubs of stmech (the native module stmech._stmech). SI units: m, s, kg, N, rad."""

import os
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

FloatArray = npt.NDArray[np.float64]
ArrayLike = npt.ArrayLike
ScenarioLike = Union[str, "os.PathLike[str]", Dict[str, Any], "Scenario"]
Series = Tuple[ArrayLike, ArrayLike]

class ScenarioError(ValueError):
    """The scenario is invalid; `problems` lists every problem."""

    problems: List["Problem"]

class SolveError(RuntimeError):
    """The solver did not converge (Newton diverged, non-finite values, singular matrix)."""

class Problem:
    """One problem of a scenario."""

    field: str
    """Field path, e.g. "time.end" or "bodies[0].box.density" ("toml" for syntax errors)."""
    line: Optional[int]
    """1-based line in the scenario file; None for a dict or generated text."""
    message: str
    """What is wrong, remedy included (the CLI's message)."""
    fix: Optional[str]
    """The remedy (the message's part after its last "; "), or None."""
    def to_dict(self) -> Dict[str, Any]: ...

class Scenario:
    """A validated scenario of any problem type."""

    @staticmethod
    def from_toml(
        text: str, origin: str = "<string>", base_dir: Optional[Union[str, "os.PathLike[str]"]] = None
    ) -> "Scenario":
        """Loads TOML text; relative paths in it resolve against base_dir (default ".")."""
    @property
    def problem(self) -> str:
        """"multibody", "static", "beam" or "beam-inverse"."""
    @property
    def origin(self) -> str: ...
    @property
    def toml(self) -> str:
        """The scenario as TOML text."""

def load(
    scenario: ScenarioLike,
    *,
    trajectory: Optional[Series] = None,
    actuation: Optional[Series] = None,
) -> Scenario:
    """Loads and validates a scenario (TOML path, dict or Scenario).

    trajectory=(t, pose): tip path of an inverse problem, t in s shape (n,), pose (x, y in m,
    θ in rad) shape (n, 3); for a crane the payload's position (x, y, z in m), shape (n, 3);
    checked like a trajectory CSV. actuation=(t, values): force f_x,
    f_y (N) and moment m (N·m) at s = 0 of a planar beam, shape (n, 3), piecewise linear.
    Raises ScenarioError.
    """

def check(
    scenario: ScenarioLike,
    *,
    trajectory: Optional[Series] = None,
    actuation: Optional[Series] = None,
) -> List[Problem]:
    """Every problem of a scenario without solving; [] if it is valid."""

def run(
    scenario: ScenarioLike,
    *,
    trajectory: Optional[Series] = None,
    actuation: Optional[Series] = None,
) -> Union[
    "MultibodyResult", "StaticResult", "BeamResult", "InverseResult", "CraneResult", "SpatialResult"
]:
    """Solves a scenario with the GIL released; the result type follows the problem type.

    Raises ScenarioError (invalid input) or SolveError (no convergence).
    """

def closed_loop(
    scenario: Union[ScenarioLike, "InverseResult"],
    t: ArrayLike,
    actuation: ArrayLike,
    *,
    elements: Optional[int] = None,
    order: int = 2,
    dt: Optional[float] = None,
) -> Dict[str, float]:
    """Replays an actuation (f_x, f_y in N, m in N·m at s = 0; shape (n, 3) over t in s) in the
    forward beam model and returns the largest tip deviation from the inverse problem's path:
    max_position_error_m, max_position_error_time_s, max_angle_error_rad,
    max_angle_error_time_s, elements, order, dt_s, steps, wall_time_seconds."""

def demo(name: Optional[str] = None) -> Scenario:
    """A built-in demo: [I] Example 3.2, the inverse problem `stmech demo` solves (the default,
    "beam-inverse"), or "crane", the swing-free transfer of `stmech demo crane`."""

def set_threads(n: int) -> None:
    """Threads of the parallel element assembly per solve; each Python thread solves on its
    own pool of n threads (0: one shared pool of all cores, the default). Bit-identical
    results for any n."""

class _Result:
    @property
    def summary(self) -> Dict[str, Any]:
        """The CLI's summary.json (without output_wall_time_seconds)."""
    def save(
        self, dir: Union[str, "os.PathLike[str]"], *, force: bool = False, plots: Optional[bool] = None
    ) -> str:
        """Writes the files `stmech run` writes into the new directory `dir` (atomically);
        force replaces a directory stmech wrote; plots defaults to the scenario's."""

class MultibodyResult(_Result):
    """Rigid bodies, joints and spatial beams in time. Frames: bodies, then beam nodes."""

    @property
    def t(self) -> FloatArray:
        """Time nodes (s), shape (n,)."""
    @property
    def frame_names(self) -> List[str]: ...
    @property
    def q(self) -> FloatArray:
        """Coordinates (12 per frame: position, d1, d2, d3), shape (n, 12 × frames)."""
    @property
    def v(self) -> FloatArray:
        """Velocities dq/dt, shape (n, 12 × frames)."""
    @property
    def positions(self) -> FloatArray:
        """Reference points of the frames (m), shape (n, frames, 3)."""
    @property
    def directors(self) -> FloatArray:
        """Directors (rows d1, d2, d3), shape (n, frames, 3, 3)."""
    @property
    def momenta(self) -> FloatArray:
        """p = M v, shape (n, 12 × frames)."""
    @property
    def kinetic_energy(self) -> FloatArray:
        """(J), shape (n,)."""
    @property
    def potential_energy(self) -> FloatArray:
        """(J), shape (n,)."""
    @property
    def total_energy(self) -> FloatArray:
        """(J), shape (n,)."""
    @property
    def angular_momentum(self) -> FloatArray:
        """About the origin (kg m²/s), shape (n, 3)."""
    @property
    def constraint_violation(self) -> FloatArray:
        """Largest |Φ| at each node, shape (n,)."""

class StaticResult(_Result):
    """Equilibrium of a static multibody scenario and its load path."""

    @property
    def q(self) -> FloatArray: ...
    @property
    def positions(self) -> FloatArray:
        """(m), shape (frames, 3)."""
    @property
    def directors(self) -> FloatArray:
        """Shape (frames, 3, 3)."""
    @property
    def load_factor(self) -> FloatArray:
        """Shape (steps,)."""
    @property
    def history(self) -> FloatArray:
        """Coordinates after every load step, shape (steps, 12 × frames)."""
    @property
    def constraint_violation(self) -> float: ...

class BeamResult(_Result):
    """Planar beam, static (rows: load steps) or dynamic (rows: time steps)."""

    @property
    def is_static(self) -> bool: ...
    @property
    def t(self) -> FloatArray:
        """Time (s) or load factor, shape (n,)."""
    @property
    def tip(self) -> FloatArray:
        """Tip x, y (m), θ (rad), shape (n, 3)."""
    @property
    def kinetic_energy(self) -> FloatArray: ...
    @property
    def strain_energy(self) -> FloatArray: ...
    @property
    def total_energy(self) -> FloatArray: ...
    @property
    def external_work(self) -> FloatArray: ...
    @property
    def momentum(self) -> FloatArray:
        """(kg m/s), shape (n, 2)."""
    @property
    def angular_momentum(self) -> FloatArray: ...
    @property
    def snapshot_t(self) -> FloatArray: ...
    @property
    def node_positions(self) -> FloatArray:
        """x, y (m), θ (rad) of every node at the snapshots, shape (k, nodes, 3)."""
    @property
    def s(self) -> FloatArray:
        """Arc length of the nodes (m)."""

class InverseResult(_Result):
    """Inverse dynamics of a beam: the actuation at s = 0 that makes the tip follow a path."""

    @property
    def t(self) -> FloatArray:
        """Time nodes (s), shape (nt,)."""
    @property
    def s(self) -> FloatArray:
        """Arc-length nodes (m), shape (ns,)."""
    @property
    def actuation(self) -> FloatArray:
        """f_x, f_y (N), m (N·m) applied to the beam at s = 0, shape (nt, 3)."""
    @property
    def actuation_t(self) -> FloatArray:
        """Times of the actuation samples (s), shape (nt,)."""
    @property
    def tip(self) -> FloatArray:
        """Tip x, y (m), θ (rad) of the solution, shape (nt, 3)."""
    @property
    def tip_prescribed(self) -> FloatArray:
        """Prescribed path γ(t) at the time nodes, shape (nt, 3)."""
    @property
    def positions(self) -> FloatArray:
        """x, y (m), θ (rad) at every space-time node, shape (nt, ns, 3)."""
    @property
    def tip_tracking(self) -> Dict[str, Any]:
        """The closed-loop verification (summary.json's tip_tracking)."""
    @property
    def status(self) -> str:
        """"ok" or "goal-not-reached"."""
    @property
    def scenario(self) -> Scenario: ...

class CraneResult(_Result):
    """Crane inverse dynamics: how the suspension point must move, and the force it applies to
    the rope, for the payload to follow its path; with the closed-loop replay."""

    @property
    def t(self) -> FloatArray:
        """Time nodes (s), shape (nt,)."""
    @property
    def s(self) -> FloatArray:
        """Rope nodes (m, unstretched; 0 at the suspension point, L at the payload), (ns,)."""
    @property
    def suspension(self) -> FloatArray:
        """Suspension-point x, y, z (m), shape (nt, 3)."""
    @property
    def suspension_velocity(self) -> FloatArray:
        """Suspension-point velocity (m/s), shape (nt, 3)."""
    @property
    def suspension_acceleration(self) -> FloatArray:
        """Suspension-point acceleration (m/s²), shape (nt, 3)."""
    @property
    def force(self) -> FloatArray:
        """Force the suspension point applies to the rope (N), shape (nt, 3)."""
    @property
    def payload(self) -> FloatArray:
        """Payload position of the inverse solution (m), shape (nt, 3)."""
    @property
    def payload_prescribed(self) -> FloatArray:
        """Prescribed payload path y(t) (m), shape (nt, 3)."""
    @property
    def payload_replayed(self) -> Optional[FloatArray]:
        """Payload in the closed-loop replay (m), shape (nt, 3); None if not replayed."""
    @property
    def positions(self) -> FloatArray:
        """Rope x, y, z (m) at every space-time node, shape (nt, ns, 3)."""
    @property
    def payload_tracking(self) -> Dict[str, Any]:
        """The closed-loop check (summary.json's payload_tracking)."""
    @property
    def status(self) -> str:
        """"ok", "goal-not-reached", or "not-verified" (the closed-loop replay itself failed)."""
    @property
    def scenario(self) -> Scenario: ...

class SpatialResult(_Result):
    """Spatial inverse dynamics (`analysis = "inverse"`): the force and moment the actuator
    applies to the beam at s = 0 (global frame; the moment about the base point) for the tracked
    frame to follow its pose path, the rigid-arm reference and the base pose. Frames as unit
    quaternions (w, x, y, z), sign continuous in time."""

    @property
    def t(self) -> FloatArray:
        """Time nodes (s), shape (nt,)."""
    @property
    def s(self) -> FloatArray:
        """Arm nodes (m; 0 at the base, L at the tip), shape (ns,)."""
    @property
    def force(self) -> FloatArray:
        """Force on the beam at s = 0 (N), shape (nt, 3)."""
    @property
    def moment(self) -> FloatArray:
        """Moment on the beam at s = 0, about the base point (N·m), shape (nt, 3)."""
    @property
    def force_rigid(self) -> FloatArray:
        """The rigid-arm reference force (N), shape (nt, 3)."""
    @property
    def moment_rigid(self) -> FloatArray:
        """The rigid-arm reference moment (N·m), shape (nt, 3)."""
    @property
    def base_position(self) -> FloatArray:
        """Base point (m), shape (nt, 3)."""
    @property
    def base_quaternion(self) -> FloatArray:
        """Base frame (w, x, y, z), shape (nt, 4)."""
    @property
    def base_rotation(self) -> FloatArray:
        """Rotation vector of the base frame from its rest frame (rad), shape (nt, 3)."""
    @property
    def base_velocity(self) -> FloatArray:
        """Base velocity (m/s), shape (nt, 3)."""
    @property
    def base_angular_velocity(self) -> FloatArray:
        """Base angular velocity (rad/s), shape (nt, 3)."""
    @property
    def tracked(self) -> FloatArray:
        """The tracked frame in the inverse solution: x, y, z, qw, qx, qy, qz, shape (nt, 7)."""
    @property
    def tracked_prescribed(self) -> FloatArray:
        """The tracked frame's prescribed pose, shape (nt, 7)."""
    @property
    def positions(self) -> FloatArray:
        """Arm x, y, z (m) at every space-time node, shape (nt, ns, 3)."""
    @property
    def tip_tracking(self) -> Dict[str, Any]:
        """The closed-loop check (summary.json's tip_tracking)."""
    @property
    def status(self) -> str:
        """"ok" or "goal-not-reached"."""
    @property
    def scenario(self) -> Scenario: ...
