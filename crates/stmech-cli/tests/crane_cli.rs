//! End-to-end tests of `problem = "crane"` (issue 17): the built-in `stmech demo crane`, its
//! outputs, and the exit codes of refused input (2) and of a result that misses its goal (5).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples/crane/01_swing_free_transfer.toml"),
    )
    .unwrap()
}

fn stmech(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the stmech binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("stmech-crane-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn demo_crane_writes_the_outputs_and_tracks_the_path() {
    let d = tmp("demo");
    let out = stmech(&d, &["demo", "crane", "--out", "res"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    for f in [
        "suspension.csv",
        "payload.csv",
        "suspension.png",
        "payload.png",
        "rope.png",
        "summary.json",
    ] {
        assert!(d.join("res").join(f).is_file(), "{f} missing");
    }
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["status"], "ok");
    assert_eq!(s["problem"], "crane");
    let dev = s["payload_tracking"]["max_deviation_m"].as_f64().unwrap();
    assert!(dev < 5e-4, "{dev}");
    let csv = std::fs::read_to_string(d.join("res/suspension.csv")).unwrap();
    assert!(csv.starts_with("t,x,y,z,v_x,v_y,v_z,a_x,a_y,a_z,f_x,f_y,f_z\n"));
    // the default demo is still the beam's
    let out = stmech(&d, &["demo", "--out", "beam"]);
    assert!(out.status.success());
    assert!(d.join("beam/actuation.csv").is_file());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn slack_path_and_missing_pre_actuation_exit_2_with_field_and_line() {
    let d = tmp("slack");
    let text = example().replace("delta = [8.0, 4.0, 2.0]", "delta = [0.0, 0.0, -200.0]");
    std::fs::write(d.join("slack.toml"), text).unwrap();
    let out = stmech(&d, &["check", "slack.toml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("trajectory") && err.contains("t ∈ ["), "{err}");
    let out = stmech(&d, &["run", "slack.toml", "--out", "res"]);
    assert_eq!(out.status.code(), Some(2));
    let text = example().replace("t0 = 2.0", "t0 = 0.5");
    std::fs::write(d.join("pre.toml"), text).unwrap();
    let out = stmech(&d, &["check", "pre.toml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("time.start") && err.contains("pre-actuation"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_tolerance_the_mesh_cannot_reach_exits_5() {
    let d = tmp("goal");
    let text = example().replace("resolution = 32", "resolution = 8")
        + "\n[verify]\nposition_tolerance = 1e-6\n";
    std::fs::write(d.join("tight.toml"), text).unwrap();
    let out = stmech(&d, &["run", "tight.toml", "--out", "res"]);
    assert_eq!(
        out.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["status"], "goal-not-reached");
    let _ = std::fs::remove_dir_all(&d);
}

/// A payload CSV (`trajectory.kind = "csv"`): the run reads it relative to the scenario, and
/// the output may not replace the folder holding it (exit 2, nothing deleted).
#[test]
fn payload_csv_runs_and_is_protected_from_the_output() {
    let d = tmp("csv");
    // the example's path sampled at 1200 rows (rest-to-rest profile, [I] Eq. 35)
    let mut csv = String::from("t,x,y,z\n");
    for k in 0..=1200 {
        let t = 12.0 * k as f64 / 1200.0;
        let tau = ((t - 2.0) / 8.0).clamp(0.0, 1.0);
        let u = 0.5 * (1.0 - (std::f64::consts::PI * tau).cos());
        let s = 0.5 * (1.0 - (std::f64::consts::PI * u).cos());
        csv.push_str(&format!("{t},{},{},{}\n", 8.0 * s, 4.0 * s, 2.0 * s));
    }
    std::fs::create_dir_all(d.join("data")).unwrap();
    std::fs::write(d.join("data/payload.csv"), &csv).unwrap();
    let text = example();
    let start = text.find("kind = \"rest-to-rest-line\"").unwrap();
    let end = text.find("[time]").unwrap();
    let scen = format!(
        "{}kind = \"csv\"\npath = \"payload.csv\"\n\n{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(d.join("data/crane.toml"), scen).unwrap();
    let out = stmech(&d, &["run", "data/crane.toml", "--out", "res"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let summary = std::fs::read_to_string(d.join("res/summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"ok\""), "{summary}");
    // the output may not be the data folder, even with --force
    let out = stmech(&d, &["run", "data/crane.toml", "--out", "data", "--force"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("payload.csv"), "{err}");
    assert!(d.join("data/payload.csv").exists());
}

/// `method = "characteristics"` (the beam-inverse key) runs the crane by the method of
/// characteristics, on a mesh the FEM's mesh ratio would refuse.
#[test]
fn characteristics_method_runs_without_mesh_ratio() {
    let d = tmp("chars");
    let text = example()
        .replace(
            "problem = \"crane\"",
            "problem = \"crane\"\nmethod = \"characteristics\"",
        )
        .replace("resolution = 32", "elements_s = 16\nelements_t = 800");
    std::fs::write(d.join("chars.toml"), &text).unwrap();
    // the same mesh with the FEM: refused by the mesh ratio (μ = 4.1 > 2)
    std::fs::write(
        d.join("fem.toml"),
        text.replace("method = \"characteristics\"", "method = \"space-time\""),
    )
    .unwrap();
    let out = stmech(&d, &["check", "fem.toml"]);
    assert_eq!(out.status.code(), Some(2));
    let out = stmech(&d, &["check", "chars.toml"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("method of characteristics"), "{said}");
    let out = stmech(&d, &["run", "chars.toml", "--out", "res"]);
    let text_out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text_out.contains("fixed-point iterations"), "{text_out}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["status"], "ok");
    assert_eq!(s["method"], "characteristics");
    assert!(s["march"]["nodes"].as_u64().unwrap() > 16 * 800);
    let dev = s["payload_tracking"]["max_deviation_m"].as_f64().unwrap();
    assert!(dev < 5e-3, "{dev}");
    let _ = std::fs::remove_dir_all(&d);
}

/// `stmech compare` on the crane example: a row per method, their difference, the sequential
/// baseline's absence explained.
#[test]
fn compare_shows_both_methods_on_the_crane_example() {
    let d = tmp("compare");
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/crane/01_swing_free_transfer.toml");
    let out = stmech(&d, &["compare", example.to_str().unwrap(), "--out", "cmp"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("space-time ") && stdout.contains("characteristics "),
        "{stdout}"
    );
    assert!(
        stdout.contains("difference between the methods"),
        "{stdout}"
    );
    assert!(stdout.contains("sequential"), "{stdout}");
    let csv = std::fs::read_to_string(d.join("cmp/compare.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(d.join("cmp/compare.png").is_file());
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cmp/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["status"], "ok");
    // the two methods agree to their discretisation error on 32 × 376 (3.3e-4 m measured)
    let dx = s["max_suspension_difference_between_methods_m"]
        .as_f64()
        .unwrap();
    assert!(dx > 0.0 && dx < 1e-3, "{dx}");
    for m in s["methods"].as_array().unwrap() {
        let dev = m["payload_tracking"]["max_deviation_m"].as_f64().unwrap();
        assert!(dev < 1e-3, "{m}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A closed-loop replay whose own Newton fails, with the payload on its path up to there, is a
/// check that could not be done (issue 29): `summary.json` says "not-verified", exit 6 — not
/// "goal not reached" (exit 5), for `run` and, per method, for `compare`. The replay's stop is
/// relative with a round-off floor since it runs on the one Newton driver, so the failure is
/// provoked at the limit of double precision: a rope of EA = 1e10 N placed 1.4e7 m from the
/// origin, where a position quantum (ε · 1.4e7 m ≈ 3e-9 m) is EA · 3e-9 / hs ≈ 25 N of
/// element force against a tension of a few hundred newtons: the replay stalls at its floor
/// (the space-time FEM still solves it; the characteristics do not at that scale).
#[test]
fn a_replay_whose_newton_fails_is_not_verified_exit_6() {
    let d = tmp("unverified");
    let text = example()
        .replace("resolution = 32", "resolution = 8")
        .replace("start = [0.0, 0.0, 0.0]", "start = [1.0e7, 1.0e7, 0.0]")
        .replace("ea = 1.0e6", "ea = 1.0e10");
    assert!(text.contains("start = [1.0e7, 1.0e7, 0.0]") && text.contains("ea = 1.0e10"));
    std::fs::write(d.join("far.toml"), text).unwrap();
    let out = stmech(&d, &["run", "far.toml", "--out", "res"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("not verified"), "{err}");
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(s["status"], "not-verified", "{s}");
    assert!(d.join("res/suspension.csv").is_file());
    let _ = stmech(&d, &["compare", "far.toml", "--out", "cmp"]);
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("cmp/summary.json")).unwrap())
            .unwrap();
    let fem = s["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["method"] == "space-time")
        .unwrap();
    assert_eq!(fem["status"], "not-verified", "{fem}");
    let _ = std::fs::remove_dir_all(&d);
}
