"""The crane from Python: the built-in demo, payload samples as numpy arrays (checked like a
CSV file: the missing derivative named), and the physics of the result (the payload follows
the path in the closed-loop replay; the suspension point carries the weight at rest)."""

import numpy as np
import pytest

import stmech


@pytest.fixture(scope="module")
def demo_result():
    return stmech.run(stmech.demo("crane"))


def profile(t, t0=2.0, duration=8.0):
    """The rest-to-rest profile of [I] Eq. 35 (C³)."""
    tau = np.clip((t - t0) / duration, 0.0, 1.0)
    u = 0.5 * (1.0 - np.cos(np.pi * tau))
    return 0.5 * (1.0 - np.cos(np.pi * u))


def test_demo_crane_follows_its_path(demo_result):
    res = demo_result
    assert isinstance(res, stmech.CraneResult)
    assert res.status == "ok"
    track = res.payload_tracking
    assert track["max_deviation_m"] < track["tolerance_m"]
    # the servo constraint holds in the mean over each time element, so the payload nodes meet
    # the path to O(ht²) (9.8e-5 m here, on a 9.17 m transfer), not exactly
    assert np.max(np.abs(res.payload - res.payload_prescribed)) < 1e-3
    # at rest at the start the suspension holds the weight of rope and payload, straight up
    rope = res.summary["rope"]
    weight = 9.81 * (rope["payload_mass"] + rope["rho_a"] * rope["length"])
    np.testing.assert_allclose(res.force[0], [0.0, 0.0, weight], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(res.suspension[-1, :2], [8.0, 4.0], atol=1e-6)


def test_payload_samples_give_the_demo_result(demo_result):
    t = np.linspace(0.0, 12.0, 2401)
    path = profile(t)[:, None] * np.array([8.0, 4.0, 2.0])
    res = stmech.run(stmech.demo("crane"), trajectory=(t, path))
    assert res.status == "ok"
    # the spline of 2401 samples reproduces the C³ profile far below the discretisation error
    assert np.max(np.abs(res.suspension - demo_result.suspension)) < 1e-6


def test_payload_samples_are_checked():
    t = np.linspace(0.0, 12.0, 2401)
    path = profile(t)[:, None] * np.array([8.0, 4.0, 2.0])
    path[:, 2] += 0.05 * np.maximum(t - 4.0, 0.0) ** 2  # acceleration jumps at t = 4 s
    with pytest.raises(stmech.ScenarioError) as e:
        stmech.load(stmech.demo("crane"), trajectory=(t, path))
    p = e.value.problems[0]
    assert p.field == "trajectory.position"
    assert "acceleration" in p.message and "component z" in p.message
    with pytest.raises(stmech.ScenarioError) as e:
        stmech.load(stmech.demo("crane"), trajectory=(t, path[:, :2]))
    assert e.value.problems[0].field == "trajectory.values"


def test_unknown_demo_is_named():
    with pytest.raises(ValueError, match="crane"):
        stmech.demo("tower")
