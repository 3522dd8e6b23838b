"""Python results equal the CLI's files for the same scenario, to the last bit: every file
`stmech run` writes, byte for byte, except the wall times in summary.json; and the numpy
arrays equal the numbers in the CSV files (parsed back exactly: they are written in Rust's
shortest round-trip form)."""

import json
import pathlib
import subprocess

import numpy as np
import pytest

import stmech

# one scenario per problem type (the fast ones)
SCENARIOS = {
    "rigid body": "examples/rigid_body/01_constant_torque.toml",
    "multibody": "examples/multibody/01_double_pendulum.toml",
    "flexible dynamic": "examples/flexible/02_flying_spaghetti_3d.toml",
    "flexible static": "examples/flexible/01_bend_45.toml",
    "planar beam static": "examples/beam/01_cantilever_elastica.toml",
    "planar beam dynamic": "examples/beam/03_flying_beam.toml",
    "beam inverse": "examples/beam_inverse/example_3_2.toml",
    "crane": "examples/crane/01_swing_free_transfer.toml",
    "spatial inverse": "examples/spatial_inverse/04_csv_poses.toml",
}

def strip_times(value):
    """The summary without wall-clock figures (`*seconds`: they differ between any two runs)."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value


def files(d: pathlib.Path):
    return sorted(p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file())


def read_csv(path):
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


@pytest.fixture(scope="module")
def runs(tmp_path_factory, cli):
    """Each scenario run once by the CLI and once from Python (saved)."""
    out = {}
    for name, scenario in SCENARIOS.items():
        d = tmp_path_factory.mktemp(name.replace(" ", "_"))
        subprocess.run([str(cli), "run", scenario, "--out", str(d / "cli")], check=True,
                       capture_output=True)
        res = stmech.run(scenario)
        res.save(d / "py")
        out[name] = (res, d / "cli", d / "py")
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_saved_files_equal_cli_files(runs, name):
    res, cli_dir, py_dir = runs[name]
    assert files(cli_dir) == files(py_dir)
    for rel in files(cli_dir):
        a, b = (cli_dir / rel).read_bytes(), (py_dir / rel).read_bytes()
        if rel == "summary.json":
            ja, jb = json.loads(a), json.loads(b)
            assert strip_times(ja) == strip_times(jb)
            assert strip_times(res.summary) == strip_times(jb)
        else:
            assert a == b, f"{name}: {rel} differs"


def test_multibody_arrays_equal_csv(runs):
    res, cli_dir, _ = runs["multibody"]
    header = (cli_dir / "trajectory.csv").read_text().splitlines()[0].split(",")
    table = read_csv(cli_dir / "trajectory.csv")
    col = {h.split(" [")[0]: k for k, h in enumerate(header)}
    assert np.array_equal(res.t, table[:, col["t"]])
    names = res.frame_names
    n = len(res.t)
    assert res.positions.shape == (n, len(names), 3)
    assert res.directors.shape == (n, len(names), 3, 3)
    for f, name in enumerate(names):
        for c, axis in enumerate("xyz"):
            assert np.array_equal(res.positions[:, f, c], table[:, col[f"{name}.{axis}"]])
            assert np.array_equal(res.momenta[:, 12 * f + c], table[:, col[f"{name}.p{axis}"]])
            for i in range(3):
                assert np.array_equal(res.directors[:, f, i, c],
                                      table[:, col[f"{name}.d{i + 1}{axis}"]])
    for key in ["kinetic_energy", "potential_energy", "total_energy", "constraint_violation"]:
        assert np.array_equal(getattr(res, key), table[:, col[key]]), key
    for c, axis in enumerate("xyz"):
        assert np.array_equal(res.angular_momentum[:, c], table[:, col[f"L{axis}"]])


def test_beam_arrays_equal_csv(runs):
    res, cli_dir, _ = runs["planar beam dynamic"]
    tip = read_csv(cli_dir / "tip.csv")
    assert np.array_equal(res.t, tip[:, 0])
    assert np.array_equal(res.tip, tip[:, 1:4])
    energy = read_csv(cli_dir / "energy.csv")
    assert np.array_equal(res.total_energy, energy[:, 3])
    assert np.array_equal(res.momentum, energy[:, 5:7])
    assert res.node_positions.shape[1:] == (len(res.s), 3)
    static, cli_static, _ = runs["planar beam static"]
    assert static.is_static
    assert np.array_equal(static.tip, read_csv(cli_static / "tip.csv")[:, 1:4])


def test_inverse_arrays_equal_csv(runs):
    res, cli_dir, _ = runs["beam inverse"]
    act = read_csv(cli_dir / "actuation.csv")
    assert np.array_equal(res.actuation_t, act[:, 0])
    assert np.array_equal(res.actuation, act[:, 1:4])
    tip = read_csv(cli_dir / "tip.csv")
    assert np.array_equal(res.t, tip[:, 0])
    assert np.array_equal(res.tip, tip[:, 1:4])
    assert np.array_equal(res.tip_prescribed, tip[:, 4:7])
    assert res.positions.shape == (len(res.t), len(res.s), 3)
    assert np.array_equal(res.positions[:, -1, :], res.tip)
    assert res.status == "ok"


def test_static_arrays(runs):
    res, cli_dir, _ = runs["flexible static"]
    summary = json.loads((cli_dir / "summary.json").read_text())
    end = [n for n in summary["final"] if n["name"].endswith(":end")][0]
    names = [n for n in summary["final"]]
    assert res.positions.shape[1] == 3
    assert any(np.array_equal(p, end["position"]) for p in res.positions)
    assert res.load_factor[-1] == 1.0
    assert res.history.shape == (len(res.load_factor), res.q.shape[0])
    assert names


def test_crane_arrays_equal_csv(runs):
    res, cli_dir, _ = runs["crane"]
    sus = read_csv(cli_dir / "suspension.csv")
    assert np.array_equal(res.t, sus[:, 0])
    assert np.array_equal(res.suspension, sus[:, 1:4])
    assert np.array_equal(res.suspension_velocity, sus[:, 4:7])
    assert np.array_equal(res.suspension_acceleration, sus[:, 7:10])
    assert np.array_equal(res.force, sus[:, 10:13])
    pay = read_csv(cli_dir / "payload.csv")
    assert np.array_equal(res.payload_prescribed, pay[:, 1:4])
    assert np.array_equal(res.payload_replayed, pay[:, 4:7])
    n, ns = len(res.t), len(res.s)
    assert res.positions.shape == (n, ns, 3)
    assert np.array_equal(res.positions[:, 0, :], res.suspension)
    assert res.status == "ok"


def test_spatial_arrays_equal_csv(runs):
    res, cli_dir, _ = runs["spatial inverse"]
    act = read_csv(cli_dir / "actuation.csv")
    assert np.array_equal(res.t, act[:, 0])
    assert np.array_equal(res.force, act[:, 1:4])
    assert np.array_equal(res.moment, act[:, 4:7])
    assert np.array_equal(res.force_rigid, act[:, 7:10])
    assert np.array_equal(res.moment_rigid, act[:, 10:13])
    base = read_csv(cli_dir / "base.csv")
    assert np.array_equal(res.base_position, base[:, 1:4])
    assert np.array_equal(res.base_quaternion, base[:, 4:8])
    assert np.array_equal(res.base_rotation, base[:, 8:11])
    assert np.array_equal(res.base_velocity, base[:, 11:14])
    assert np.array_equal(res.base_angular_velocity, base[:, 14:17])
    tip = read_csv(cli_dir / "tip.csv")
    assert np.array_equal(res.tracked_prescribed[:, :3], tip[:, 1:4])
    assert np.array_equal(res.tracked[:, :3], tip[:, 8:11])
    n, ns = len(res.t), len(res.s)
    assert res.positions.shape == (n, ns, 3)
    assert np.array_equal(res.positions[:, 0, :], res.base_position)
    assert res.status == "ok"
    assert res.scenario.problem == "spatial-inverse"
