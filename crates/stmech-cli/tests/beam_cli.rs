//! End-to-end tests of `stmech check` / `run` on beam scenarios (`problem = "beam"`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/beam")
}

fn stmech(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the stmech binary runs")
}

fn example(name: &str) -> String {
    std::fs::read_to_string(examples().join(name)).unwrap()
}

#[test]
fn examples_check_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["check".to_owned()];
    for e in std::fs::read_dir(examples()).unwrap() {
        args.push(e.unwrap().path().display().to_string());
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = stmech(dir.path(), &a);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    std::fs::write(dir.path().join("roll.toml"), example("02_roll_up.toml")).unwrap();
    let out = stmech(
        dir.path(),
        &["run", "roll.toml", "--out", "r", "--no-plots"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tip = std::fs::read_to_string(dir.path().join("r/tip.csv")).unwrap();
    assert!(tip.starts_with("load_factor [-],r1 [m],r2 [m],theta [rad]"));
    let last: Vec<f64> = tip
        .lines()
        .last()
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(last[1].abs() < 1e-9 && last[2].abs() < 1e-9);
    assert!((last[3] - 2.0 * std::f64::consts::PI).abs() < 1e-9);
    assert!(dir.path().join("r/beam.pvd").exists() && dir.path().join("r/beam_0001.vtu").exists());
    let summary = std::fs::read_to_string(dir.path().join("r/summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"ok\""));

    // dynamic: shortened flying beam, energy.csv written
    let fly = example("03_flying_beam.toml").replace("end = 15.0", "end = 1.0");
    std::fs::write(dir.path().join("fly.toml"), fly).unwrap();
    let out = stmech(dir.path(), &["run", "fly.toml", "--out", "f"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let energy = std::fs::read_to_string(dir.path().join("f/energy.csv")).unwrap();
    assert!(energy.starts_with("t [s],kinetic [J]"));
    assert_eq!(energy.lines().count(), 1 + 41);
    assert!(dir.path().join("f/shapes.png").exists());

    // the same with the space-time slabs: same rows, energy balance closes
    let fly = example("03_flying_beam.toml")
        .replace("end = 15.0", "end = 1.0")
        .replace(
            "step = 0.025 # s",
            "step = 0.025 # s\nmethod = \"space-time\"",
        );
    std::fs::write(dir.path().join("fly_st.toml"), fly).unwrap();
    let out = stmech(dir.path(), &["run", "fly_st.toml", "--out", "g"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let energy = std::fs::read_to_string(dir.path().join("g/energy.csv")).unwrap();
    assert_eq!(energy.lines().count(), 1 + 41);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("g/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["results"]["method"], "space-time");
    assert!(summary["output_wall_time_seconds"].as_f64().unwrap() > 0.0);
    let balance = summary["results"]["energy"]["balance_error_J"]
        .as_f64()
        .unwrap();
    assert!(balance.abs() < 1e-9, "energy balance {balance}");
}

#[test]
fn bad_beam_input_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let bad = example("01_cantilever_elastica.toml")
        .replace("ea = 1e5", "ea = 0.0")
        .replace("at = \"end\"", "node = 100");
    std::fs::write(dir.path().join("bad.toml"), bad).unwrap();
    let out = stmech(dir.path(), &["check", "bad.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("beam.section.ea") && err.contains("loads[0].node"),
        "{err}"
    );

    // Newton failure: the roll-up in one load step with 1 iteration → exit 3, failure summary
    let fail = example("02_roll_up.toml").replace("steps = 20", "steps = 1")
        + "[newton]\nmax_iterations = 1\n";
    std::fs::write(dir.path().join("fail.toml"), fail).unwrap();
    let out = stmech(dir.path(), &["run", "fail.toml", "--out", "x"]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("Remedy"));
    assert!(dir.path().join("x.failed/summary.json").exists() && !dir.path().join("x").exists());
}

/// `stmech work-precision --quick` times whole runs of both forward methods on the flying beam
/// and writes the table, the plot, the scenario and the summary with the RK4 reference.
#[test]
fn work_precision_study_writes_table_plot_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = stmech(
        dir.path(),
        &["work-precision", "--quick", "--out", "wp", "--scratch", "."],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wp = dir.path().join("wp");
    assert!(wp.join("work_precision_flying_beam.png").is_file());
    assert!(wp.join("flying_beam.toml").is_file());
    let csv = std::fs::read_to_string(wp.join("work_precision.csv")).unwrap();
    // header + 2 methods × 3 steps
    assert_eq!(csv.lines().count(), 7, "{csv}");
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let error: f64 = f[6].parse().unwrap();
        assert!(error > 0.0 && error < 0.1, "{line}");
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(wp.join("summary.json")).unwrap()).unwrap();
    let diff = summary["reference"]["flying_beam"]["reference_error_estimate_m"]
        .as_f64()
        .unwrap();
    assert!(diff < 1e-6, "{diff}");
    // the scratch directory of the runs is removed
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("stmech-work-precision"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
