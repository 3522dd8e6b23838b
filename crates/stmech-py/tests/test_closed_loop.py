"""The closed loop from Python: the inverse actuation replayed in the forward beam.

1. `stmech.closed_loop` on the demo with the verification tables' forward mesh (32 quadratic
   elements, Δt = 4 ms) gives the figures of crates/stmech/tests/closed_loop.rs and
   docs/verification.md: 6.43e-3 m and 5.37e-3 rad (log law, 20 elements).
2. With the automatic forward mesh it gives, to the bit, the figures `stmech run` writes into
   summary.json (tip_tracking.closed_loop).
3. A planar-beam scenario driven by the actuation arrays (`actuation=`) follows the path."""

import json
import math
import subprocess

import numpy as np
import pytest

import stmech


@pytest.fixture(scope="module")
def demo():
    return stmech.run("examples/beam_inverse/example_3_2.toml")


def test_table_forward_mesh_reproduces_the_rust_figures(demo):
    r = stmech.closed_loop(demo, demo.actuation_t, demo.actuation, elements=32, dt=4e-3)
    assert r["elements"] == 32 and r["order"] == 2 and r["dt_s"] == 4e-3
    assert f"{r['max_position_error_m']:.2e}" == "6.43e-03"
    assert f"{r['max_angle_error_rad']:.2e}" == "5.37e-03"


def test_automatic_forward_mesh_equals_the_cli_summary(demo, cli, tmp_path):
    subprocess.run([str(cli), "demo", "--out", str(tmp_path / "d")], check=True,
                   capture_output=True)
    summary = json.loads((tmp_path / "d" / "summary.json").read_text())
    expected = summary["tip_tracking"]["closed_loop"]
    r = stmech.closed_loop(demo, demo.actuation_t, demo.actuation)
    for key in ["max_position_error_m", "max_position_error_time_s", "max_angle_error_rad",
                "max_angle_error_time_s"]:
        assert r[key] == expected[key], key
    assert demo.tip_tracking["closed_loop"]["max_position_error_m"] == expected[
        "max_position_error_m"]


def test_forward_beam_driven_by_the_actuation_follows_the_path(demo):
    beam = {
        "problem": "beam",
        "analysis": "dynamic",
        "beam": {"length": 1.0, "elements": 20, "order": 2, "law": "log",
                 "section": {"rho_a": 1.0, "rho_i": 1.0, "ea": 1.0, "ga": 1.0, "ei": 1.0},
                 "start": "free", "end": "free"},
        "dynamic": {"end": 6.0, "step": 0.005},
        "output": {"plots": False},
    }
    fwd = stmech.run(beam, actuation=(demo.actuation_t, demo.actuation))
    phi_end = math.pi / 2
    assert np.allclose(fwd.tip[-1, :2], [math.cos(phi_end), math.sin(phi_end)], atol=2e-2)
    # at every step near the path
    gamma = np.interp(fwd.t, demo.t, demo.tip_prescribed[:, 0])
    assert np.max(np.abs(fwd.tip[:, 0] - gamma)) < 2e-2
