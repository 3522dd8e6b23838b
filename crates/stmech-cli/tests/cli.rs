//! End-to-end tests of the `stmech` binary, each in its own temporary directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The demo scenario with few elements, so that a run takes milliseconds.
fn small_scenario() -> String {
    let text =
        std::fs::read_to_string(examples_dir().join("rigid_body/02_rectangular_torque.toml"))
            .unwrap();
    assert!(
        text.contains("elements_per_block = 50"),
        "example changed: update the tests"
    );
    text.replace("elements_per_block = 50", "elements_per_block = 4")
}

fn stmech(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the stmech binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `text` to `<dir>/<name>` and runs `stmech check` on it.
fn check_text(dir: &Path, name: &str, text: &str) -> Output {
    std::fs::write(dir.join(name), text).unwrap();
    stmech(dir, &["check", name])
}

/// Asserts exit code 2 and that stderr mentions every needle.
fn assert_invalid(out: &Output, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} missing in stderr:\n{err}");
    }
}

#[test]
fn toml_syntax_error_reports_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("end = 4.0", "end = = 4.0");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["line", "column", "s.toml"],
    );
}

#[test]
fn unknown_field_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("density = 1.5", "densty = 1.5");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["densty", "line"],
    );
}

#[test]
fn negative_density_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("density = 1.5", "density = -1.5");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["bodies[0].box.density", "positive"],
    );
}

#[test]
fn zero_elements_per_block_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("elements_per_block = 4", "elements_per_block = 0");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["method.elements_per_block"],
    );
}

#[test]
fn end_before_start_names_time_end() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("start = 0.0 # s", "start = 5.0 # s");
    assert_invalid(&check_text(dir.path(), "s.toml", &text), &["time.end"]);
}

#[test]
fn load_on_missing_body_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("body = \"box\"", "body = \"cube\"");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["loads[0].body", "cube"],
    );
}

#[test]
fn inconsistent_director_velocities_suggest_angular_velocity() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace(
        "velocity = [5.0, 5.0, 5.0]",
        "velocity = [5.0, 5.0, 5.0]\ndirector_velocities = [[0, 1, 0], [0, 0, 0], [0, 0, 0]]",
    );
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &["bodies[0].director_velocities", "angular_velocity"],
    );
}

#[test]
fn all_problems_are_reported_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario()
        .replace("end = 4.0", "end = -1.0")
        .replace("density = 1.5", "density = -1.5")
        .replace("elements_per_block = 4", "elements_per_block = 0")
        .replace("body = \"box\"", "body = \"cube\"")
        .replace("max_iterations = 25", "max_iterations = 0");
    assert_invalid(
        &check_text(dir.path(), "s.toml", &text),
        &[
            "5 problems",
            "time.end",
            "bodies[0].box.density",
            "method.elements_per_block",
            "loads[0].body",
            "newton.max_iterations",
        ],
    );
}

#[test]
fn missing_scenario_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = stmech(dir.path(), &["check", "nope.toml"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("nope.toml"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(stmech(dir.path(), &["frobnicate"]).status.code(), Some(2));
    assert_eq!(stmech(dir.path(), &["run"]).status.code(), Some(2));
    assert_eq!(stmech(dir.path(), &["--help"]).status.code(), Some(0));
}

#[test]
fn every_example_passes_check() {
    let mut files = Vec::new();
    let mut stack = vec![examples_dir()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "toml") {
                files.push(p);
            }
        }
    }
    assert!(
        files.len() >= 4,
        "examples not found in {}",
        examples_dir().display()
    );
    let args: Vec<&str> = std::iter::once("check")
        .chain(files.iter().map(|p| p.to_str().unwrap()))
        .collect();
    let out = stmech(&examples_dir(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("ok: "))
            .count(),
        files.len()
    );
}

fn no_staging_leftovers(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            !name.contains(".tmp-") && !name.contains(".old-"),
            "leftover {name} in {}",
            dir.display()
        );
    }
}

#[test]
fn successful_run_writes_all_outputs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.toml"), small_scenario()).unwrap();
    // default output directory: out/<file stem>
    let out = stmech(dir.path(), &["run", "small.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("Newton iterations") && stdout.contains("out/small"),
        "{stdout}"
    );
    let res = dir.path().join("out/small");

    let csv = std::fs::read_to_string(res.join("trajectory.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "t [s]",
        "box.x [m]",
        "box.d3z [-]",
        "box.px [kg m/s]",
        "total_energy [J]",
        "Lz [kg m^2/s]",
    ] {
        assert!(header.contains(&col), "{col} missing in {header:?}");
    }
    assert!(header.contains(&"constraint_violation [-]"));
    // one |Φ| column per constraint, labelled like the scenario
    assert_eq!(header.last(), Some(&"|Phi| box.orthonormality [-]"));
    let elements = std::fs::read_to_string(res.join("elements.csv")).unwrap();
    assert_eq!(elements.lines().count(), 1 + 80, "one row per element");
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    // 20 blocks × 4 quadratic elements: 160 node intervals
    assert_eq!(rows.len(), 161);
    let last = rows.last().unwrap();
    assert_eq!(last.len(), header.len());
    assert_eq!(last[0], 4.0);
    let x = header.iter().position(|c| *c == "box.x [m]").unwrap();
    assert!((last[x] - 20.0).abs() < 1e-9, "x(4) = {}", last[x]);

    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(res.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "ok");
    assert!(summary["newton"]["total_iterations"].as_u64().unwrap() >= 1);
    // solve and output times, for benches/whole_run.sh
    assert!(summary["wall_time_seconds"].as_f64().unwrap() > 0.0);
    assert!(summary["output_wall_time_seconds"].as_f64().unwrap() > 0.0);
    assert!((summary["bodies"][0]["final_position"][1].as_f64().unwrap() - 20.0).abs() < 1e-9);
    assert_eq!(
        summary["scenario"]["input"]["method"]["elements_per_block"],
        4
    );

    for png in [
        "positions.png",
        "directors.png",
        "energy.png",
        "angular_momentum.png",
        "constraint.png",
    ] {
        let bytes = std::fs::read(res.join(png)).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 5000,
            "{png} is not a plausible PNG"
        );
    }
    no_staging_leftovers(&dir.path().join("out"));

    // an existing output directory is kept without --force ...
    let again = stmech(dir.path(), &["run", "small.toml"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--force"), "{}", stderr(&again));
    assert!(res.join("positions.png").exists());
    // ... and replaced with it (here by a run without plots)
    let forced = stmech(dir.path(), &["run", "small.toml", "--force", "--no-plots"]);
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(res.join("trajectory.csv").exists() && !res.join("positions.png").exists());
    no_staging_leftovers(&dir.path().join("out"));
}

#[test]
fn existing_output_directory_is_refused_before_solving() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), small_scenario()).unwrap();
    std::fs::create_dir(dir.path().join("mine")).unwrap();
    std::fs::write(dir.path().join("mine/keep.txt"), "data").unwrap();
    let out = stmech(dir.path(), &["run", "s.toml", "--out", "mine"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // a directory stmech did not write: refused, with or without --force
    assert!(stderr(&out).contains("refusing to use"), "{}", stderr(&out));
    assert!(stderr(&out).contains("manifest"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mine/keep.txt")).unwrap(),
        "data"
    );
    no_staging_leftovers(dir.path());
}

#[test]
fn failed_run_exits_3_and_leaves_only_a_failed_summary() {
    let dir = tempfile::tempdir().unwrap();
    let text = small_scenario().replace("max_iterations = 25", "max_iterations = 1");
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let out = stmech(dir.path(), &["run", "s.toml", "--out", "res"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("Newton"), "{}", stderr(&out));
    assert!(!dir.path().join("res").exists());
    let summary: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("res.failed/summary.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(summary["status"], "failed");
    assert!(summary["error"].as_str().unwrap().contains("Newton"));
    assert_eq!(
        summary["failure"]["relative_residual_history"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    no_staging_leftovers(dir.path());
}

#[test]
fn non_utf8_scenario_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), b"\xff\xfe[time]").unwrap();
    let out = stmech(dir.path(), &["check", "s.toml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// A run killed midway (SIGKILL: no chance to clean up) leaves no complete-looking result:
/// the target directory does not exist, and the staging directory beside it carries the
/// `INCOMPLETE` marker and a `.tmp-<pid>` name.
#[test]
fn killed_run_leaves_no_complete_looking_result() {
    let dir = tempfile::tempdir().unwrap();
    // ~10⁵ quadratic elements: seconds of work, so the kill lands mid-solve
    let text = small_scenario()
        .replace("elements_per_block = 4", "elements_per_block = 2000")
        .replace("blocks = 20", "blocks = 50");
    std::fs::write(dir.path().join("long.toml"), text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(["run", "long.toml", "--out", "res"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // wait until the staging directory exists (the run has started), then kill
    let start = std::time::Instant::now();
    let staging = loop {
        let found = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("res.tmp-")
            });
        if let Some(p) = found {
            break p;
        }
        assert!(start.elapsed().as_secs() < 30, "the run never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let finished_early = child.try_wait().unwrap().is_some();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !finished_early,
        "the run finished before it could be killed: make it longer"
    );
    assert!(
        !dir.path().join("res").exists(),
        "a killed run must not leave the target directory"
    );
    assert!(
        staging.join("INCOMPLETE").is_file(),
        "the staging directory must be marked incomplete"
    );
    assert!(!staging.join("summary.json").exists());
}

/// Two runs of the same scenario write byte-identical trajectories (and identical summaries
/// apart from timing fields).
#[test]
fn runs_are_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), small_scenario()).unwrap();
    for out in ["a", "b"] {
        let o = stmech(dir.path(), &["run", "s.toml", "--out", out, "--no-plots"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
    assert_eq!(read("a/trajectory.csv"), read("b/trajectory.csv"));
    assert!(!dir.path().join("a/INCOMPLETE").exists());
    let strip = |p: &str| {
        let mut v: serde_json::Value = serde_json::from_slice(&read(p)).unwrap();
        scrub_timings(&mut v);
        v
    };
    assert_eq!(strip("a/summary.json"), strip("b/summary.json"));
}

/// Removes wall-clock fields (`*_seconds`) from a JSON value.
fn scrub_timings(v: &mut serde_json::Value) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !k.ends_with("seconds"));
            m.values_mut().for_each(scrub_timings);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(scrub_timings),
        _ => {}
    }
}

/// `stmech convergence` writes the table, the plot and the slopes of [P, Fig. 2].
#[test]
fn convergence_study_writes_table_plot_and_slopes() {
    let dir = tempfile::tempdir().unwrap();
    let o = stmech(dir.path(), &["convergence", "--out", "conv"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let conv = dir.path().join("conv");
    assert!(conv.join("convergence.png").is_file());
    let csv = std::fs::read_to_string(conv.join("convergence.csv")).unwrap();
    assert!(csv.starts_with("method,h [s],error_eq26 [-]"));
    let s: serde_json::Value =
        serde_json::from_slice(&std::fs::read(conv.join("summary.json")).unwrap()).unwrap();
    let slope = |m: &str| s["methods"][m]["slope"].as_f64().unwrap();
    for (m, expected) in [
        ("implicit Euler", 1.0),
        ("midpoint", 2.0),
        ("space-time p=1", 2.0),
        ("space-time p=2", 4.0),
    ] {
        assert!((slope(m) - expected).abs() < 0.3, "{m}: {}", slope(m));
    }
}

// ---------------------------------------------------------------------------------------
// Beam inverse scenarios (issue 5).

fn inverse_scenario() -> String {
    std::fs::read_to_string(examples_dir().join("beam_inverse/example_3_2.toml"))
        .unwrap()
        .replace("resolution = 20", "resolution = 8")
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

#[test]
fn inverse_run_writes_outputs_and_bad_inputs_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("inv.toml"), inverse_scenario()).unwrap();
    let out = stmech(d, &["run", "inv.toml", "--out", "res"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let csv = std::fs::read_to_string(d.join("res/actuation.csv")).unwrap();
    assert!(csv.starts_with("t,f_x,f_y,m\n"));
    for f in ["tip.csv", "summary.json", "actuation.png", "snapshots.png"] {
        assert!(d.join("res").join(f).exists(), "{f}");
    }
    // VTK series: one snapshot per time node of the 8 × 48 mesh (≤ 200), listed in the .pvd
    let pvd = std::fs::read_to_string(d.join("res/beam.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 49, "{pvd}");
    let vtu = std::fs::read_to_string(d.join("res/beam_0048.vtu")).unwrap();
    assert!(
        vtu.contains("NumberOfPoints=\"9\" NumberOfCells=\"8\""),
        "{vtu}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["newton"]["linear_solver"], "sideways");
    // Newton starts from the characteristics' solution (issue 14)
    assert_eq!(summary["newton"]["start"], "characteristics");
    assert!(summary["output_wall_time_seconds"].as_f64().unwrap() > 0.0);
    assert!(
        summary["newton"]["linear_residual_relative"]
            .as_f64()
            .unwrap()
            < 1e-10
    );
    // non-positive material data
    let out = check_text(
        d,
        "a.toml",
        &inverse_scenario().replace("ea = 1.0", "ea = 0.0"),
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("beam.section.ea"), "{}", stderr(&out));
    // mesh violating the sideways CFL condition: exit 2 with the fix
    let bad = inverse_scenario().replace("resolution = 8", "elements_s = 10\nelements_t = 240");
    let out = check_text(d, "b.toml", &bad);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("at most 120 time elements"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("mesh.allow_unstable"),
        "{}",
        stderr(&out)
    );
    // ... unless forced: then it runs, warns, and says so in summary.json
    let forced = bad.replace(
        "elements_t = 240",
        "elements_t = 240\nallow_unstable = true",
    );
    std::fs::write(d.join("forced.toml"), &forced).unwrap();
    let out = stmech(d, &["run", "forced.toml", "--out", "forced", "--no-plots"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("warning"), "{}", stderr(&out));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("forced/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["mesh"]["allow_unstable"], true);
    assert_eq!(summary["mesh"]["sideways_cfl_condition_holds"], false);
    // CSV trajectories: wrong start, kink
    let mut wrong = String::from("t,x,y,theta\n");
    let mut kink = String::from("t,x,y,theta\n");
    for k in 0..=600 {
        let t = 6.0 * k as f64 / 600.0;
        wrong.push_str(&format!("{t},0.9,0,0\n"));
        kink.push_str(&format!("{t},{},0,0\n", 1.0 + 0.05 * (t - 2.0).max(0.0)));
    }
    std::fs::write(d.join("wrong.csv"), wrong).unwrap();
    std::fs::write(d.join("kink.csv"), kink).unwrap();
    let csv_scenario = |file: &str| {
        let s = inverse_scenario();
        let i = s.find("[trajectory]").unwrap();
        let j = s.find("[time]").unwrap();
        format!(
            "{}[trajectory]\nkind = \"csv\"\npath = \"{file}\"\n\n{}",
            &s[..i],
            &s[j..]
        )
    };
    let out = check_text(d, "c.toml", &csv_scenario("wrong.csv"));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("initial pose"), "{}", stderr(&out));
    let out = check_text(d, "k.toml", &csv_scenario("kink.csv"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("velocity γ' jumps"),
        "{}",
        stderr(&out)
    );
    // Newton failure: exit 3, no panic
    let hard = inverse_scenario().replace("max_iterations = 30", "max_iterations = 1");
    std::fs::write(d.join("h.toml"), hard).unwrap();
    let out = stmech(d, &["run", "h.toml", "--out", "hres"]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("Newton did not converge"),
        "{}",
        stderr(&out)
    );
}

// ---------------------------------------------------------------------------------------
// Method of characteristics and `stmech compare` (issue 6).

#[test]
fn characteristics_method_runs_and_compare_writes_table_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chars = inverse_scenario().replace(
        "problem = \"beam-inverse\"",
        "problem = \"beam-inverse\"\nmethod = \"characteristics\"",
    );
    std::fs::write(d.join("ch.toml"), &chars).unwrap();
    let out = stmech(d, &["run", "ch.toml", "--out", "res", "--no-plots"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("res/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["method"], "characteristics");
    assert!(summary["characteristics"]["nodes"].as_u64().unwrap() > 0);
    assert!(summary["newton"].is_null());
    assert!(d.join("res/actuation.csv").exists());
    // unknown method: exit 2, the choices named
    let out = check_text(
        d,
        "m.toml",
        &chars.replace("\"characteristics\"", "\"shooting\""),
    );
    assert_invalid(&out, &["shooting", "characteristics", "space-time"]);
    // no room for the pre-actuation: exit 2 naming time.start
    let out = check_text(d, "p.toml", &chars.replace("t0 = 2.0", "t0 = 0.5"));
    assert_invalid(&out, &["time.start", "pre-actuation"]);
    // compare: one table with all methods, one plot, a summary
    let out = stmech(d, &["compare", "ch.toml", "--out", "cmp"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let table = std::fs::read_to_string(d.join("cmp/compare.csv")).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[1].starts_with("space-time,\"ok\""), "{table}");
    assert!(lines[2].starts_with("characteristics,\"ok\""), "{table}");
    assert!(
        lines[3].starts_with("sequential,\"failed at t = "),
        "{table}"
    );
    assert!(d.join("cmp/compare.png").exists() && d.join("cmp/summary.json").exists());
    no_staging_leftovers(d);
    // compare needs a beam-inverse scenario
    std::fs::write(d.join("rb.toml"), small_scenario()).unwrap();
    let out = stmech(d, &["compare", "rb.toml", "--out", "cmp2"]);
    assert_invalid(&out, &["beam-inverse"]);
}
