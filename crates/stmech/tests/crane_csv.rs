//! Sampled payload paths of the crane (`trajectory.kind = "csv"` with `t,x,y,z` rows, and
//! `kind = "samples"`): accepted when smooth, refused with the missing derivative named
//! otherwise, and solved to the same suspension motion as the built-in path they sample.

use stmech::inverse::crane::solve_crane;
use stmech::inverse::trajectory::{RestToRestLine, RestToRestProfile, TipTrajectory};
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::scenario::ScenarioError;

const EXAMPLE: &str = include_str!("../../../examples/crane/01_swing_free_transfer.toml");

fn example_line() -> RestToRestLine {
    RestToRestLine::crane_example()
}

/// `n + 1` rows `t,x,y,z` on `[0, 12]` s of `f`, written at full precision.
fn rows(n: usize, f: impl Fn(f64) -> [f64; 3]) -> String {
    let mut s = String::from("t,x,y,z\n");
    for k in 0..=n {
        let t = 12.0 * k as f64 / n as f64;
        let p = f(t);
        s.push_str(&format!("{t},{},{},{}\n", p[0], p[1], p[2]));
    }
    s
}

/// The example with its line replaced by `kind = "csv"` reading `csv` from a temporary folder.
fn scenario_with_csv(csv: &str, name: &str) -> Result<CraneScenario, ScenarioError> {
    let dir = std::env::temp_dir().join(format!("stmech_crane_csv_{}_{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("payload.csv"), csv).unwrap();
    let text = example_text("kind = \"csv\"\npath = \"payload.csv\"\n");
    let out = CraneScenario::from_toml_str_limited(&text, "test", &dir, Default::default());
    std::fs::remove_dir_all(&dir).ok();
    out
}

fn example_text(trajectory: &str) -> String {
    let start = EXAMPLE.find("kind = \"rest-to-rest-line\"").unwrap();
    let end = EXAMPLE.find("[time]").unwrap();
    format!("{}{trajectory}\n{}", &EXAMPLE[..start], &EXAMPLE[end..])
}

fn problems(e: ScenarioError) -> Vec<String> {
    match e {
        ScenarioError::Invalid { problems, .. } => problems.iter().map(|p| p.to_string()).collect(),
        other => vec![other.to_string()],
    }
}

#[test]
fn sampled_example_path_is_accepted_at_every_density() {
    let line = example_line();
    for n in [120, 1200, 12_000, 120_000] {
        let s = scenario_with_csv(&rows(n, |t| line.pose(t)), &format!("dense{n}"))
            .unwrap_or_else(|e| panic!("{n} rows refused: {:?}", problems(e)));
        assert_eq!(s.input_files.len(), 1);
        assert_eq!(s.rope.payload_start, [0.0; 3]);
    }
}

#[test]
fn csv_path_gives_the_suspension_motion_of_the_line_it_samples() {
    let line = example_line();
    let s = scenario_with_csv(&rows(2400, |t| line.pose(t)), "solve").unwrap();
    let from_csv = solve_crane(&s.rope, &s.mesh, s.trajectory.as_ref(), &s.newton).unwrap();
    let from_line = solve_crane(&s.rope, &s.mesh, &line, &s.newton).unwrap();
    let (a, b) = (
        from_csv.solution.actuation_samples(),
        from_line.solution.actuation_samples(),
    );
    let mut diff = 0.0f64;
    let mut scale = 0.0f64;
    for j in 0..=s.mesh.elements_t {
        let (xa, xb) = (from_csv.solution.x_at(0, j), from_line.solution.x_at(0, j));
        for c in 0..3 {
            diff = diff.max((xa[c] - xb[c]).abs());
        }
        for c in 0..3 {
            scale = scale.max(b[j].1[c].abs());
            diff = diff.max((a[j].1[c] - b[j].1[c]).abs() / 400.0);
        }
    }
    // the spline of 2400 samples (h = 5 ms) reproduces the C³ profile to O(h⁴)·y⁗ in
    // position and O(h²) in acceleration: far below the discretisation (C6: 1e-3 m)
    assert!(
        diff < 1e-6,
        "suspension difference {diff:.3e} (force scale {scale:.1} N)"
    );
}

/// Whether the message's "at t = …" is within 0.02 s of `t`.
fn near(m: &str, t: f64) -> bool {
    m.split("at t = ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|v| v.parse::<f64>().ok())
        .is_some_and(|v| (v - t).abs() < 0.02)
}

#[test]
fn csv_checks_name_the_missing_derivative_of_the_payload() {
    let line = example_line();
    // C² but not C³: a cubic onset at t = 3 s on top of the line (jerk jumps)
    let cubic = |t: f64| {
        let p = line.pose(t);
        let d = 0.2 * (t - 3.0).max(0.0).powi(3);
        [p[0] + d, p[1], p[2]]
    };
    let e = problems(scenario_with_csv(&rows(2400, cubic), "cubic").unwrap_err());
    assert!(
        e.iter().any(|m| m.starts_with("trajectory.path")
            && m.contains("jerk γ''' jumps")
            && near(m, 3.0)),
        "{e:?}"
    );
    // an acceleration jump: a parabola onset in z
    let parab = |t: f64| {
        let p = line.pose(t);
        [p[0], p[1], p[2] + 0.05 * (t - 4.0).max(0.0).powi(2)]
    };
    let e = problems(scenario_with_csv(&rows(2400, parab), "parab").unwrap_err());
    assert!(
        e.iter().any(|m| m.contains("component z")
            && m.contains("acceleration γ'' jumps")
            && near(m, 4.0)),
        "{e:?}"
    );
    // a position column missing: the header names t,x,y,z
    let e = problems(scenario_with_csv("t,x,y,z\n0,0,0\n", "short").unwrap_err());
    assert!(
        e.iter()
            .any(|m| m.contains("`t,x,y,z`") && m.contains("line 2")),
        "{e:?}"
    );
    // data not covering the time domain
    let e = problems(
        scenario_with_csv(
            &rows(100, |t| line.pose(t))
                .lines()
                .take(50)
                .collect::<Vec<_>>()
                .join("\n"),
            "cover",
        )
        .unwrap_err(),
    );
    assert!(e.iter().any(|m| m.contains("covers t = [0,")), "{e:?}");
    // a missing file names the field and the file
    let text = example_text("kind = \"csv\"\npath = \"no-such-payload.csv\"\n");
    let e = problems(
        CraneScenario::from_toml_str_limited(&text, "t", &std::env::temp_dir(), Default::default())
            .unwrap_err(),
    );
    assert!(
        e.iter()
            .any(|m| m.starts_with("trajectory.path") && m.contains("no-such-payload.csv")),
        "{e:?}"
    );
}

#[test]
fn samples_in_the_scenario_are_the_csv_rows() {
    let line = example_line();
    let n = 1200;
    let t: Vec<String> = (0..=n)
        .map(|k| format!("{}", 12.0 * k as f64 / n as f64))
        .collect();
    let p: Vec<String> = (0..=n)
        .map(|k| {
            let q = line.pose(12.0 * k as f64 / n as f64);
            format!("[{}, {}, {}]", q[0], q[1], q[2])
        })
        .collect();
    let text = example_text(&format!(
        "kind = \"samples\"\nt = [{}]\nposition = [{}]\n",
        t.join(", "),
        p.join(", ")
    ));
    let s = CraneScenario::from_toml_str(&text, "samples").unwrap();
    let c = scenario_with_csv(&rows(n, |t| line.pose(t)), "same").unwrap();
    for k in 0..=240 {
        let tt = 12.0 * k as f64 / 240.0;
        assert_eq!(s.trajectory.pose(tt), c.trajectory.pose(tt));
    }
    // a row of the wrong length is a TOML type error; a non-finite one names the sample
    let bad = text.replacen("[0, 0, 0]", "[0, 0, nan]", 1);
    let e = problems(CraneScenario::from_toml_str(&bad, "bad").unwrap_err());
    assert!(
        e.iter()
            .any(|m| m.starts_with("trajectory.position") && m.contains("position[0][2]")),
        "{e:?}"
    );
}

#[test]
fn a_slack_sampled_path_is_refused_with_its_interval() {
    // dropping the payload faster than free fall somewhere: ÿ_z < −g
    let line = example_line();
    let drop = |t: f64| {
        let p = line.pose(t);
        let prof = RestToRestProfile {
            t0: 3.0,
            duration: 2.0,
        };
        [p[0], p[1], p[2] - 30.0 * prof.eval(t)[0]]
    };
    let e = problems(scenario_with_csv(&rows(2400, drop), "slack").unwrap_err());
    assert!(
        e.iter()
            .any(|m| m.contains("slack or pushing rope on t ∈ [")),
        "{e:?}"
    );
}
