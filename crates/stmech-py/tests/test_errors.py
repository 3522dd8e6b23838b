"""Bad input from Python: wrong types, missing fields, NaN in arrays, arrays of the wrong
shape, a non-monotonic time vector. Every case raises ScenarioError (a ValueError) naming the
field, or TypeError for an argument that is not a scenario at all; never a crash or a
PanicException."""

import math

import numpy as np
import pytest

import stmech

try:  # tomllib is in the standard library from Python 3.11
    import tomllib
except ImportError:  # pragma: no cover
    tomllib = None


def demo_dict():
    """The demo scenario as a dict (the file's field names)."""
    return {
        "problem": "beam-inverse",
        "beam": {"length": 1.0, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0}},
        "trajectory": {"kind": "rest-to-rest", "angle": math.pi / 2, "t0": 2.0,
                       "duration": 2.0},
        "time": {"start": 0.0, "end": 6.0},
        "mesh": {"resolution": 8},
        "verify": {"closed_loop": False},
        "output": {"plots": False},
    }


def fields(err):
    return [p.field for p in err.value.problems]


def test_scenario_error_is_value_error_with_problems():
    assert issubclass(stmech.ScenarioError, ValueError)
    d = demo_dict()
    d["time"]["end"] = -1.0
    d["beam"]["section"]["ea"] = -2.0
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run(d)
    assert "time.end" in fields(err)
    assert "beam.section.ea" in fields(err)
    p = err.value.problems[0]
    assert p.line is None and p.message
    assert "time.end" in str(err.value)


def test_check_returns_the_problems_and_run_raises_the_same():
    d = demo_dict()
    d["mesh"]["resolutoin"] = 3
    problems = stmech.check(d)
    assert [p.field for p in problems] == ["mesh.resolutoin"] or "mesh.resolutoin" in [
        p.field for p in problems]
    assert problems[0].fix and "spelling" in problems[0].fix
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.load(d)
    assert [p.field for p in err.value.problems] == [p.field for p in problems]
    assert stmech.check(demo_dict()) == []


def test_dict_and_file_give_the_same_messages(tmp_path):
    text = (
        'problem = "beam-inverse"\n'
        "[beam]\nlength = -1.0\nlaw = \"log\"\n"
        "section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }\n"
        '[trajectory]\nkind = "rest-to-rest"\nangle = 1.0\nt0 = 2.0\nduration = 2.0\n'
        "[time]\nstart = 0.0\nend = 6.0\n[mesh]\nresolution = 8\n"
    )
    path = tmp_path / "bad.toml"
    path.write_text(text)
    from_file = stmech.check(path)
    assert [p.field for p in from_file] == ["beam.length"]
    assert from_file[0].line == 3
    if tomllib is not None:
        from_dict = stmech.check(tomllib.loads(text))
        assert [(p.field, p.message) for p in from_dict] == [
            (p.field, p.message) for p in from_file]
        assert from_dict[0].line is None


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["time"].update(end="six"), "time.end"),
        (lambda d: d["beam"].pop("length"), "beam.length"),
        (lambda d: d["mesh"].update(resolution=2.5), "mesh.resolution"),
        (lambda d: d["time"].update(end=float("nan")), "time.end"),
        (lambda d: d["beam"].update(law=3), "beam.law"),
        (lambda d: d["beam"].update(length=None), "beam.length"),
        (lambda d: d["beam"].update(length=object()), "beam.length"),
        (lambda d: d["beam"].update(base=np.array([0.0, np.nan, 0.0])), "beam.base[1]"),
        (lambda d: d.update({3: 1}), "scenario"),
    ],
)
def test_wrong_values_name_the_field(change, field):
    d = demo_dict()
    change(d)
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run(d)
    assert field in fields(err), [str(p) for p in err.value.problems]


def test_not_a_scenario_is_a_type_error():
    with pytest.raises(TypeError):
        stmech.run(42)
    with pytest.raises(FileNotFoundError):
        stmech.run("no/such/file.toml")


def rest_to_rest(n=400, t_end=6.0):
    """A smooth rest-to-rest arc of the demo's tip, sampled at n points."""
    t = np.linspace(0.0, t_end, n)
    tau = np.clip((t - 2.0) / 2.0, 0.0, 1.0)
    s = tau**3 * (10 - 15 * tau + 6 * tau**2)
    phi = 0.5 * math.pi * s
    pose = np.stack([np.cos(phi), np.sin(phi), phi], axis=1)
    return t, pose


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda t, p: (t, p[:, :2]), "trajectory.values"),
        (lambda t, p: (t[:-1], p), "trajectory.values"),
        (lambda t, p: (t.reshape(-1, 1), p), "trajectory.t"),
        (lambda t, p: (t, np.where(np.arange(len(t))[:, None] == 5, np.nan, p)), "trajectory.pose"),
        (lambda t, p: (np.where(np.arange(len(t)) == 7, np.inf, t), p), "trajectory.t"),
        (lambda t, p: (t[::-1].copy(), p), "trajectory.t"),
        (lambda t, p: (np.concatenate([t[:10], t[9:-1]]), p), "trajectory.t"),
        (lambda t, p: (["a"] * len(t), p), "trajectory.t"),
        (lambda t, p: (t, p + np.where(t > 3.0, 0.01, 0.0)[:, None]), "trajectory.pose"),
        (lambda t, p: t, "trajectory"),
    ],
)
def test_bad_trajectory_arrays(make, field):
    t, pose = rest_to_rest()
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run(demo_dict(), trajectory=make(t, pose))
    assert field in fields(err), [str(p) for p in err.value.problems]


def test_trajectory_only_for_inverse_and_actuation_only_for_beam():
    t, pose = rest_to_rest()
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run("examples/beam/03_flying_beam.toml", trajectory=(t, pose))
    assert fields(err) == ["trajectory"]
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run(demo_dict(), actuation=(t, pose))
    assert fields(err) == ["actuation"]


@pytest.mark.parametrize(
    "make, field",
    [
        (lambda t, f: (t, f[:, :1]), "actuation.values"),
        (lambda t, f: (t[::-1].copy(), f), "actuation.t"),
        (lambda t, f: (t, f * np.nan), "actuation.values"),
    ],
)
def test_bad_actuation_arrays(make, field):
    t = np.linspace(0.0, 1.0, 11)
    f = np.zeros((11, 3))
    with pytest.raises(stmech.ScenarioError) as err:
        stmech.run("examples/beam/03_flying_beam.toml", actuation=make(t, f))
    assert field in fields(err)


def test_closed_loop_bad_input():
    t = np.linspace(0.0, 6.0, 11)
    with pytest.raises(stmech.ScenarioError):
        stmech.closed_loop(demo_dict(), t, np.zeros((10, 3)))
    with pytest.raises(ValueError):
        stmech.closed_loop(demo_dict(), t, np.zeros((11, 3)), dt=-1.0)
    with pytest.raises(stmech.ScenarioError):
        stmech.closed_loop("examples/beam/03_flying_beam.toml", t, np.zeros((11, 3)))


def test_save_refuses_an_existing_directory(tmp_path):
    res = stmech.run(demo_dict())
    out = res.save(tmp_path / "a")
    assert (out / "actuation.csv").exists()
    with pytest.raises(FileExistsError):
        res.save(tmp_path / "a")
    res.save(tmp_path / "a", force=True)
    with pytest.raises(ValueError):
        res.save(tmp_path, force=True)  # not written by stmech: refused even with force
