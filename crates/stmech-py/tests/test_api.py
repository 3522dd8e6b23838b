"""The module's surface: docstrings with units, type stubs installed, the demo scenario."""

import pathlib

import stmech


def test_docstrings_say_what_and_units():
    assert "GIL" in stmech.run.__doc__ and "ScenarioError" in stmech.run.__doc__
    assert "N·m" in stmech.load.__doc__
    assert "(s)" in stmech.InverseResult.t.__doc__
    assert "N·m" in stmech.InverseResult.actuation.__doc__
    assert "kg m²/s" in stmech.MultibodyResult.angular_momentum.__doc__


def test_type_stubs_are_installed():
    package = pathlib.Path(stmech.__file__).parent
    assert (package / "__init__.pyi").exists()
    assert (package / "py.typed").exists()
    stub = (package / "__init__.pyi").read_text()
    for name in stmech.__all__:
        assert name in stub, name


def test_demo_scenario_and_reuse():
    sc = stmech.demo()
    assert sc.problem == "beam-inverse"
    a = stmech.run(sc)
    b = stmech.run(sc)
    assert (a.actuation == b.actuation).all()
    assert stmech.load("examples/multibody/01_double_pendulum.toml").problem == "multibody"
    assert stmech.load("examples/flexible/01_bend_45.toml").problem == "static"
    assert stmech.load("examples/beam/01_cantilever_elastica.toml").problem == "beam"
    same = stmech.Scenario.from_toml(sc.toml)
    assert (stmech.run(same).actuation == a.actuation).all()
