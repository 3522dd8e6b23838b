use super::*;

const BASE: &str = r#"
problem = "beam-inverse"
[beam]
length = 1.0
law = "log"
section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }
[trajectory]
kind = "rest-to-rest"
angle = 1.5707963267948966
t0 = 2.0
duration = 2.0
[time]
start = 0.0
end = 6.0
[mesh]
resolution = 20
"#;

fn problems(text: &str) -> Vec<String> {
    match InverseScenario::from_toml_str(text, "t.toml", Path::new(".")) {
        Ok(_) => vec![],
        Err(e) => {
            let p: Vec<String> = e.problems().iter().map(|p| p.to_string()).collect();
            if p.is_empty() { vec![e.to_string()] } else { p }
        }
    }
}

/// `newton.linear_solver` and `mesh.allow_unstable`: valid values select, bad values and
/// meshes too large for the chosen solver are named.
#[test]
fn linear_solver_and_allow_unstable_fields() {
    let with = |newton: &str| BASE.to_owned() + "\n[newton]\n" + newton + "\n";
    let s = InverseScenario::from_toml_str(
        &with("linear_solver = \"sparse-lu\""),
        "t.toml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(s.newton.linear_solver, LinearSolverKind::SparseLu);
    let p = problems(&with("linear_solver = \"cholesky\""));
    assert!(
        p.iter()
            .any(|m| m.contains("cholesky") && m.contains("sideways") && m.contains("sparse-lu")),
        "{p:?}"
    );
    // 200 × 1200 elements: 1.45e6 unknowns, fine for the sideways solver, too many for LU
    let big = |t: String| t.replace("resolution = 20", "resolution = 200");
    assert!(problems(&big(BASE.to_owned())).is_empty());
    let p = problems(&big(with("linear_solver = \"sparse-lu\"")));
    assert!(
        p.iter()
            .any(|m| m.starts_with("mesh") && m.contains("300000")),
        "{p:?}"
    );
    // a mesh violating the sideways CFL condition: refused, with the way to force it ...
    let bad = BASE.replace("resolution = 20", "elements_s = 10\nelements_t = 240");
    let p = problems(&bad);
    assert!(p.iter().any(|m| m.contains("mesh.allow_unstable")), "{p:?}");
    // ... which is accepted, and a non-boolean value is named
    let forced = bad.replace(
        "elements_t = 240",
        "elements_t = 240\nallow_unstable = true",
    );
    let s = InverseScenario::from_toml_str(&forced, "t.toml", Path::new(".")).unwrap();
    assert!(s.allow_unstable && !s.mesh_ratio().holds());
    let p = problems(&forced.replace("allow_unstable = true", "allow_unstable = 1"));
    assert!(p.iter().any(|m| m.contains("allow_unstable")), "{p:?}");
}

#[test]
fn example_is_valid_and_auto_mesh() {
    assert!(is_inverse(BASE));
    assert!(!is_inverse("[time]\nstart = 0.0"));
    let s = InverseScenario::from_toml_str(BASE, "t.toml", Path::new(".")).unwrap();
    assert_eq!((s.mesh.elements_s, s.mesh.elements_t), (20, 120));
    assert!(s.mesh_auto);
}

#[test]
fn collects_all_problems_with_paths() {
    let text = BASE
        .replace("ea = 1.0", "ea = -1.0")
        .replace("length = 1.0", "length = 0.0")
        .replace("duration = 2.0", "duration = 0.0");
    let p = problems(&text);
    assert!(p.iter().any(|m| m.starts_with("beam.section.ea")), "{p:?}");
    assert!(p.iter().any(|m| m.starts_with("beam.length")), "{p:?}");
    assert!(
        p.iter().any(|m| m.starts_with("trajectory.duration")),
        "{p:?}"
    );
    let p = problems(&BASE.replace("resolution = 20", "elements_s = 10\nelements_t = 240"));
    assert!(
        p.iter()
            .any(|m| m.starts_with("mesh:") && m.contains("at most 120 time elements")),
        "{p:?}"
    );
    let p = problems(&BASE.replace("resolution = 20", "resolution = 20\nbogus = 1"));
    assert!(p[0].contains("bogus"), "{p:?}");
}

#[test]
fn method_field_selects_and_validates() {
    let s = InverseScenario::from_toml_str(BASE, "t.toml", Path::new(".")).unwrap();
    assert_eq!(s.method, InverseMethod::SpaceTime);
    let chars = BASE.replace(
        "problem = \"beam-inverse\"",
        "problem = \"beam-inverse\"\nmethod = \"characteristics\"",
    );
    let s = InverseScenario::from_toml_str(&chars, "t.toml", Path::new(".")).unwrap();
    assert_eq!(s.method, InverseMethod::Characteristics);
    // the sideways CFL condition of the FEM does not bind the characteristics
    let fine_t = |t: &str| t.replace("resolution = 20", "elements_s = 10\nelements_t = 240");
    assert!(InverseScenario::from_toml_str(&fine_t(&chars), "t.toml", Path::new(".")).is_ok());
    assert!(!problems(&fine_t(BASE)).is_empty());
    // unknown method: serde names the choices
    let p = problems(&chars.replace("\"characteristics\"", "\"shooting\""));
    assert!(
        p[0].contains("shooting") && p[0].contains("characteristics"),
        "{p:?}"
    );
    // no room for the pre-actuation (tip moves at 0.5 s, L/c = 1 s)
    let p = problems(&chars.replace("t0 = 2.0", "t0 = 0.5"));
    assert!(
        p.iter()
            .any(|m| m.starts_with("time.start") && m.contains("pre-actuation")),
        "{p:?}"
    );
    // ... and for the space-time FEM too: its actuation also starts L/c before t0
    let p = problems(&BASE.replace("t0 = 2.0", "t0 = 0.5"));
    assert!(p.iter().any(|m| m.starts_with("time.start")), "{p:?}");
}

/// The samples of the demo's rest-to-rest arc, `(t, [x, y, θ])`, at `n` times over [0, 6] s.
fn arc_samples(n: usize) -> (Vec<f64>, Vec<[f64; 3]>) {
    let arc = crate::inverse::trajectory::RestToRestArc::example_3_2();
    let t: Vec<f64> = (0..n).map(|k| 6.0 * k as f64 / (n - 1) as f64).collect();
    let pose = t.iter().map(|&tk| arc.pose(tk)).collect();
    (t, pose)
}

/// `BASE` with `trajectory = { kind = "samples", t, pose }`.
fn with_samples(t: &[f64], pose: &[[f64; 3]]) -> String {
    let mut table: toml::Table = BASE.parse().unwrap();
    let mut tr = toml::Table::new();
    tr.insert("kind".into(), "samples".into());
    tr.insert("t".into(), t.to_vec().into());
    let rows: Vec<toml::Value> = pose.iter().map(|p| p.to_vec().into()).collect();
    tr.insert("pose".into(), rows.into());
    table.insert("trajectory".into(), tr.into());
    toml::to_string(&table).unwrap()
}

/// `kind = "samples"` is the CSV path with the numbers in the scenario: the same spline (to
/// the bit, for a CSV written in the shortest round-trip form) and the same checks, each
/// problem named by its field.
#[test]
fn samples_trajectory_is_the_csv_path() {
    let (t, pose) = arc_samples(601);
    let s = InverseScenario::from_toml_str(&with_samples(&t, &pose), "s.toml", Path::new("."))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut csv = String::from("t,x,y,theta\n");
    for (tk, p) in t.iter().zip(&pose) {
        csv.push_str(&format!("{tk},{},{},{}\n", p[0], p[1], p[2]));
    }
    let from_csv = CsvTrajectory::from_csv_str(&csv, "tip.csv").unwrap();
    for k in 0..=1000 {
        let tk = 6.0 * k as f64 / 1000.0;
        assert_eq!(s.trajectory.pose(tk), from_csv.pose(tk), "t = {tk}");
        assert_eq!(s.trajectory.velocity(tk), from_csv.velocity(tk));
    }
    // non-finite, non-monotonic, jumping samples: the field is named
    let mut bad = pose.clone();
    bad[7][1] = f64::NAN;
    let p = problems(&with_samples(&t, &bad));
    assert!(p.iter().any(|m| m.starts_with("trajectory.pose")), "{p:?}");
    let mut back = t.clone();
    back.swap(10, 11);
    let p = problems(&with_samples(&back, &pose));
    assert!(p.iter().any(|m| m.starts_with("trajectory.t")), "{p:?}");
    let jump: Vec<[f64; 3]> = t
        .iter()
        .zip(&pose)
        .map(|(&tk, p)| {
            if tk > 3.0 {
                [p[0] + 0.01, p[1], p[2]]
            } else {
                *p
            }
        })
        .collect();
    let p = problems(&with_samples(&t, &jump));
    assert!(
        p.iter()
            .any(|m| m.starts_with("trajectory.pose") && m.contains("smooth")),
        "{p:?}"
    );
    let p = problems(&with_samples(&t[..3], &pose[..3]));
    assert!(p.iter().any(|m| m.contains("at least 4 samples")), "{p:?}");
}
