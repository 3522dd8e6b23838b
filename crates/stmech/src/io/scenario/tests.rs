use super::*;
use crate::model::MassProperties;
use crate::solve::scheme::{Formulation, ThetaScheme};

const BASE: &str = r#"
[time]
start = 0.0
end = 4.0
[method]
kind = "space-time"
order = 1
elements_per_block = 40
blocks = 1
[[bodies]]
name = "box"
box = { edges = [2.0, 1.0, 1.0], density = 1.5 }
velocity = [5.0, 5.0, 5.0]
[[loads]]
body = "box"
kind = "torque"
vector = [1.0, 1.0, 1.0]
time_function = { kind = "window", start = 0.5, end = 1.5 }
"#;

fn problems(text: &str) -> Vec<String> {
    match Scenario::from_toml_str(text, "test.toml") {
        Err(ScenarioError::Invalid { problems, .. }) => {
            problems.iter().map(|p| p.to_string()).collect()
        }
        Err(e) => panic!("expected validation problems, got {e}"),
        Ok(_) => panic!("expected validation problems, got a valid scenario"),
    }
}

fn has(problems: &[String], field: &str) -> bool {
    problems.iter().any(|p| p.starts_with(&format!("{field}:")))
}

#[test]
fn base_scenario_is_valid() {
    let s = Scenario::from_toml_str(BASE, "test.toml").unwrap();
    assert_eq!((s.t_start, s.t_end), (0.0, 4.0));
    assert!(s.plots);
    assert_eq!(s.n_loads, 1);
    assert_eq!(s.newton, NewtonParams::default());
    let Method::SpaceTime(p) = &s.method else {
        panic!("space-time expected")
    };
    assert_eq!(
        (p.order, p.elements_per_block, p.blocks, p.quadrature_points),
        (1, 40, 1, None)
    );
    let b = &s.system.bodies()[0];
    assert_eq!(b.name, "box");
    assert!((b.mass.mass - 3.0).abs() < 1e-15);
    assert_eq!(b.velocity, [5.0; 3]);
    assert_eq!(s.echo["bodies"][0]["name"], "box");
}

#[test]
fn syntax_error_names_line_and_column() {
    let err = Scenario::from_toml_str("[time]\nstart = 0.0\nend = = 4\n", "bad.toml").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, ScenarioError::Syntax { .. }));
    assert!(msg.contains("line 3") && msg.contains("column"), "{msg}");
    assert!(msg.starts_with("bad.toml: "), "{msg}");
}

#[test]
fn unknown_field_is_named() {
    let text = BASE.replace("density = 1.5", "densty = 1.5");
    let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
    assert!(msg.contains("densty") && msg.contains("line"), "{msg}");
}

#[test]
fn collects_all_problems() {
    let text = BASE
        .replace("end = 4.0", "end = -1.0")
        .replace("density = 1.5", "density = -1.5")
        .replace("elements_per_block = 40", "elements_per_block = 0")
        .replace("body = \"box\"", "body = \"cube\"")
        .replace("end = 1.5", "end = 0.2");
    let p = problems(&text);
    for field in [
        "time.end",
        "bodies[0].box.density",
        "method.elements_per_block",
        "loads[0].body",
        "loads[0].time_function.end",
    ] {
        assert!(has(&p, field), "{field} missing in {p:#?}");
    }
    assert_eq!(p.len(), 5, "{p:#?}");
}

#[test]
fn non_finite_numbers_are_rejected_once() {
    let p = problems(&BASE.replace("density = 1.5", "density = nan"));
    assert_eq!(p.len(), 1, "{p:#?}");
    assert!(has(&p, "bodies[0].box.density"));
    let p = problems(&BASE.replace("velocity = [5.0, 5.0, 5.0]", "velocity = [5.0, inf, 5.0]"));
    assert!(has(&p, "bodies[0].velocity[1]"), "{p:#?}");
}

#[test]
fn time_stepping_fields_are_not_mixed() {
    let p = problems(&BASE.replace("blocks = 1", "blocks = 1\nstep = 1e-3"));
    assert!(has(&p, "method.step"), "{p:#?}");
    let text = BASE.replace("kind = \"space-time\"", "kind = \"midpoint\"");
    let p = problems(&text);
    for field in [
        "method.order",
        "method.elements_per_block",
        "method.blocks",
        "method.step",
    ] {
        assert!(has(&p, field), "{field} missing in {p:#?}");
    }
    let ok = "[time]\nend = 1.0\n[method]\nkind = \"midpoint\"\nstep = 0.01\n[[bodies]]\nname = \"b\"\n\
              box = { edges = [1, 1, 1], density = 1 }\n";
    let s = Scenario::from_toml_str(ok, "t").unwrap();
    assert_eq!(
        s.method,
        Method::TimeStepping {
            scheme: ThetaScheme::MIDPOINT,
            step: 0.01
        }
    );
    let p = problems(&ok.replace("step = 0.01", "step = 2.0"));
    assert!(has(&p, "method.step"), "{p:#?}");
}

#[test]
fn method_ranges() {
    let p = problems(
        &BASE
            .replace("order = 1", "order = 9")
            .replace("blocks = 1", "blocks = -2"),
    );
    assert!(
        has(&p, "method.order") && has(&p, "method.blocks"),
        "{p:#?}"
    );
    let p = problems(&BASE.replace("blocks = 1", "blocks = 1\nquadrature_points = 0"));
    assert!(has(&p, "method.quadrature_points"), "{p:#?}");
    let p = problems(
        &BASE
            .replace("blocks = 1", "blocks = 100000\n")
            .replace("elements_per_block = 40", "elements_per_block = 1000"),
    );
    assert!(has(&p, "method.blocks"), "{p:#?}");
}

#[test]
fn newton_table() {
    let s =
        Scenario::from_toml_str(&format!("{BASE}\n[newton]\nmax_iterations = 3\n"), "t").unwrap();
    assert_eq!(
        s.newton,
        NewtonParams {
            tolerance: 1e-10,
            max_iterations: 3
        }
    );
    let p = problems(&format!(
        "{BASE}\n[newton]\ntolerance = 0.0\nmax_iterations = 0\n"
    ));
    assert!(
        has(&p, "newton.tolerance") && has(&p, "newton.max_iterations"),
        "{p:#?}"
    );
    let p = problems(&format!("{BASE}\n[newton]\nmax_iterations = 1000000\n"));
    assert!(has(&p, "newton.max_iterations"), "{p:#?}");
    // a tolerance no double-precision residual can reach, and one that is no solution
    for (tol, why) in [("1e-300", "round-off"), ("0.5", "not a solution")] {
        let p = problems(&format!("{BASE}\n[newton]\ntolerance = {tol}\n"));
        assert!(has(&p, "newton.tolerance"), "{p:#?}");
        assert!(format!("{p:?}").contains(why), "{p:#?}");
    }
}

#[test]
fn explicit_mass_and_directors() {
    let explicit = BASE.replace(
        "box = { edges = [2.0, 1.0, 1.0], density = 1.5 }",
        "mass = 3.0\neuler_tensor = [[1, 0, 0], [0, 0.25, 0], [0, 0, 0.25]]",
    );
    let s = Scenario::from_toml_str(&explicit, "t").unwrap();
    assert_eq!(
        s.system.bodies()[0].mass,
        MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3])
    );
    // skewed but independent directors are fine with explicit mass properties
    let skew = explicit.replace(
        "velocity =",
        "directors = [[1, 0, 0], [1, 1, 0], [0, 0, 1]]\nvelocity =",
    );
    assert!(Scenario::from_toml_str(&skew, "t").is_ok());
    let p = problems(&skew.replace("[1, 1, 0]", "[2, 0, 0]"));
    assert!(has(&p, "bodies[0].directors"), "{p:#?}");
    // ... but not with a box
    let p = problems(&BASE.replace(
        "velocity =",
        "directors = [[1, 0, 0], [1, 1, 0], [0, 0, 1]]\nvelocity =",
    ));
    assert!(has(&p, "bodies[0].directors"), "{p:#?}");
    let p = problems(&explicit.replace("0.25, 0]", "-0.25, 0]"));
    assert!(has(&p, "bodies[0].euler_tensor"), "{p:#?}");
    let p = problems(&explicit.replace(
        "mass = 3.0",
        "mass = 3.0\nbox = { edges = [1, 1, 1], density = 1 }",
    ));
    assert!(has(&p, "bodies[0].box"), "{p:#?}");
    let p = problems(&BASE.replace("box = { edges = [2.0, 1.0, 1.0], density = 1.5 }", ""));
    assert!(has(&p, "bodies[0].box"), "{p:#?}");
    let p = problems(&explicit.replace("mass = 3.0\n", ""));
    assert!(has(&p, "bodies[0].mass"), "{p:#?}");
}

#[test]
fn initial_velocities() {
    let spin = BASE.replace(
        "velocity =",
        "angular_velocity = [0.3, 1.0, 0.2]\nvelocity =",
    );
    let s = Scenario::from_toml_str(&spin, "t").unwrap();
    assert!(s.system.bodies()[0].initial_velocity_constraint_violation() < 1e-15);
    let bad = BASE.replace(
        "velocity =",
        "director_velocities = [[0, 1, 0], [0, 0, 0], [0, 0, 0]]\nvelocity =",
    );
    let p = problems(&bad);
    assert!(has(&p, "bodies[0].director_velocities"), "{p:#?}");
    assert!(p[0].contains("angular_velocity"), "{p:#?}");
    let good = BASE.replace(
        "velocity =",
        "director_velocities = [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]\nvelocity =",
    );
    assert!(Scenario::from_toml_str(&good, "t").is_ok());
    let both = spin.replace(
        "\nvelocity =",
        "\ndirector_velocities = [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]\nvelocity =",
    );
    assert!(has(&problems(&both), "bodies[0].director_velocities"));
}

#[test]
fn body_names() {
    let two = format!(
        "{BASE}\n[[bodies]]\nname = \"box\"\nmass = 1.0\neuler_tensor = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\n"
    );
    assert!(has(&problems(&two), "bodies[1].name"));
    assert!(has(
        &problems(&BASE.replacen("name = \"box\"", "name = \"a,b\"", 1)),
        "bodies[0].name"
    ));
    let none = "[time]\nend = 1.0\n[method]\nkind = \"space-time\"\nelements_per_block = 4\n";
    assert!(has(&problems(none), "bodies"));
}

#[test]
fn time_functions() {
    let table = BASE.replace(
        "{ kind = \"window\", start = 0.5, end = 1.5 }",
        "{ kind = \"table\", times = [0.0, 1.0, 1.0], values = [0.0, 1.0] }",
    );
    let p = problems(&table);
    assert!(
        has(&p, "loads[0].time_function.times[2]") && has(&p, "loads[0].time_function.values"),
        "{p:#?}"
    );
    let p = problems(&table.replace(
        "times = [0.0, 1.0, 1.0], values = [0.0, 1.0]",
        "times = [], values = []",
    ));
    assert!(has(&p, "loads[0].time_function.times"), "{p:#?}");
    let ok = table.replace("[0.0, 1.0, 1.0]", "[0.0, 1.0]");
    assert!(Scenario::from_toml_str(&ok, "t").is_ok());
    let p = problems(&BASE.replace(
        "kind = \"window\", start = 0.5,",
        "kind = \"constant\", start = 0.5,",
    ));
    assert!(
        has(&p, "loads[0].time_function.start") && has(&p, "loads[0].time_function.end"),
        "{p:#?}"
    );
    let p = problems(&BASE.replace(", end = 1.5", ""));
    assert!(has(&p, "loads[0].time_function.end"), "{p:#?}");
    let gravity = BASE.replace("kind = \"torque\"", "kind = \"body-force\"");
    let s = Scenario::from_toml_str(&gravity, "t").unwrap();
    assert_eq!(s.n_loads, 1);
}

#[test]
fn wrong_kind_is_a_syntax_error_with_choices() {
    let msg = Scenario::from_toml_str(&BASE.replace("\"space-time\"", "\"spacetime\""), "t")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("spacetime") && msg.contains("space-time") && msg.contains("line"),
        "{msg}"
    );
}

#[test]
fn output_table() {
    let s = Scenario::from_toml_str(&format!("{BASE}\n[output]\nplots = false\n"), "t").unwrap();
    assert!(!s.plots);
}

/// `method.formulation`: both names parse, a misspelling lists the choices with its line,
/// and it is refused for time stepping.
#[test]
fn formulation_field_is_validated() {
    for (name, expected) in [
        ("petrov-galerkin", Formulation::PetrovGalerkin),
        ("bubnov", Formulation::Bubnov),
    ] {
        let text = BASE.replace("order = 1", &format!("order = 1\nformulation = \"{name}\""));
        match Scenario::from_toml_str(&text, "t").unwrap().method {
            Method::SpaceTime(p) => assert_eq!(p.formulation, expected),
            m => panic!("unexpected method {m:?}"),
        }
    }
    let text = BASE.replace("order = 1", "order = 1\nformulation = \"galerkin\"");
    let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
    assert!(
        msg.contains("galerkin") && msg.contains("petrov-galerkin") && msg.contains("line"),
        "{msg}"
    );
    let text = BASE
        .replace(
            "kind = \"space-time\"",
            "kind = \"midpoint\"\nstep = 0.01\nformulation = \"bubnov\"",
        )
        .replace("order = 1\n", "");
    let msg = Scenario::from_toml_str(&text, "t").unwrap_err().to_string();
    assert!(msg.contains("method.formulation"), "{msg}");
}
