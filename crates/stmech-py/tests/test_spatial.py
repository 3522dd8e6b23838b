"""The spatial inverse problem (`analysis = "inverse"`) from Python: a dict scenario solves
like the file, the arrays are sane (a planar manoeuvre stays planar, the actuation starts at
rest), and invalid input raises ScenarioError naming the field."""

import numpy as np
import pytest

import stmech

LINE = "examples/spatial_inverse/02_line.toml"


def line_dict():
    return {
        "analysis": "inverse",
        "time": {"end": 6.0},
        "beams": [{
            "name": "arm",
            "elements": 8,
            "section": {"ea": 1.0, "ga1": 1.0, "ga2": 1.0, "ei1": 1.0, "ei2": 1.0,
                        "gj": 2.0, "rho_a": 1.0, "rho_i1": 1.0, "rho_i2": 1.0},
            "reference": {"kind": "straight", "length": 1.0,
                          "directors": [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]},
        }],
        "inverse": {"trajectory": {"kind": "line", "delta": [-0.3, 0.4, 0.0],
                                   "frame_axis": [0.0, 0.0, 1.0], "frame_angle": 0.5,
                                   "t0": 2.0, "duration": 2.0}},
    }


def test_a_planar_manoeuvre_stays_planar():
    res = stmech.run(line_dict())
    assert isinstance(res, stmech.SpatialResult)
    assert res.scenario.problem == "spatial-inverse"
    n = len(res.t)
    assert res.force.shape == (n, 3) and res.moment.shape == (n, 3)
    assert res.base_quaternion.shape == (n, 4) and res.tracked.shape == (n, 7)
    assert np.all(res.force[0] == 0.0) and np.all(res.moment[0] == 0.0)
    peak = max(np.abs(res.force).max(), np.abs(res.moment).max())
    assert np.abs(res.force[:, 2]).max() < 1e-12 * peak
    assert np.abs(res.moment[:, :2]).max() < 1e-12 * peak
    assert res.tip_tracking["status"] == "ok"
    replay = res.tip_tracking["closed_loop"]
    assert 0.0 < replay["max_position_m"] < 2e-2 and replay["max_angle_rad"] < 2e-2
    assert res.summary["actuation_kind"] == "force"


def test_invalid_input_names_the_field():
    d = line_dict()
    d["inverse"]["trajectory"]["kind"] = "spiral"
    with pytest.raises(stmech.ScenarioError) as e:
        stmech.run(d)
    assert [p.field for p in e.value.problems] == ["inverse.trajectory.kind"]
    d = line_dict()
    d["inverse"]["trajectory"]["t0"] = 0.5
    problems = stmech.check(d)
    assert any(p.field == "time.start" and "pre-actuation" in p.message for p in problems)
    d = line_dict()
    d["beams"][0]["order"] = 2
    assert [p.field for p in stmech.check(d)] == ["beams[0].order"]
