//! Resource estimates before solving (issue 13): `check` prints the size of the problem and
//! `check` and `run` both refuse, with the same message and exit code 2, a problem whose
//! estimated peak memory exceeds `--max-memory` or the hard cap, naming the field that drives
//! the size and the fix. Each refusal happens before anything is allocated for the solve
//! (the tests finish in milliseconds and `run` creates no output directory).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `text` with the first `from` replaced by `to`; `from` must occur.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the example no longer contains {from:?}"
    );
    text.replacen(from, to, 1)
}

fn stmech(dir: &Path, args: &[&str]) -> (Output, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the stmech binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stderr)
}

/// Both `check` and `run` refuse `text` with exit code 2 and the same message, which names
/// `field`; `run` writes nothing. Returns the message.
fn refused_by_both(text: &str, limit: Option<&str>, field: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let mut check_args = vec!["check", "s.toml"];
    let mut run_args = vec!["run", "s.toml", "--out", "o"];
    if let Some(l) = limit {
        check_args.extend(["--max-memory", l]);
        run_args.extend(["--max-memory", l]);
    }
    let (c, check_err) = stmech(dir.path(), &check_args);
    assert_eq!(c.status.code(), Some(2), "check stderr:\n{check_err}");
    let (r, run_err) = stmech(dir.path(), &run_args);
    assert_eq!(r.status.code(), Some(2), "run stderr:\n{run_err}");
    assert!(!dir.path().join("o").exists(), "run wrote its output");
    let msg = |s: &str| {
        s.lines()
            .find(|l| l.contains(field))
            .unwrap_or_else(|| panic!("no refusal in:\n{s}"))
            .to_owned()
    };
    let (m_check, m_run) = (msg(&check_err), msg(&run_err));
    assert_eq!(m_check, m_run, "check and run disagree");
    assert!(m_check.contains(field), "{field} not named in {m_check}");
    m_check
}

#[test]
fn time_span_of_1e18_with_a_coarse_step_is_refused_by_check_and_run() {
    let text = edit(
        &example("rigid_body/04_midpoint_rectangular.toml"),
        "end = 4.0",
        "end = 1e18",
    );
    let text = edit(&text, "step = 1e-3", "step = 1.0");
    // the validation refuses it whatever the memory limit
    let m = refused_by_both(&text, Some("none"), "method.step");
    assert!(m.contains("use a larger step"), "{m}");
}

#[test]
fn inverse_time_span_of_1e18_is_refused() {
    let text = edit(
        &example("beam_inverse/example_3_2.toml"),
        "end = 6.0",
        "end = 1e18",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    let (c, err) = stmech(dir.path(), &["check", "s.toml", "--max-memory", "none"]);
    assert_eq!(c.status.code(), Some(2), "{err}");
    assert!(err.contains("mesh"), "{err}");
    let (r, err_run) = stmech(dir.path(), &["run", "s.toml", "--out", "o"]);
    assert_eq!(r.status.code(), Some(2), "{err_run}");
    assert!(!err_run.contains("panicked"), "{err_run}");
}

#[test]
fn elements_per_block_drives_the_refusal() {
    let text = edit(
        &example("rigid_body/01_constant_torque.toml"),
        "elements_per_block = 1000",
        "elements_per_block = 1000000",
    );
    // (the element-wise solve keeps one element's system: the 10⁶ time nodes are the size)
    let m = refused_by_both(&text, Some("200M"), "method.elements_per_block");
    assert!(
        m.contains("reduce method.elements_per_block from 1000000 to ≈"),
        "{m}"
    );
    assert!(m.contains("--max-memory"), "{m}");
}

#[test]
fn number_of_blocks_drives_the_refusal() {
    let text = edit(
        &example("rigid_body/02_rectangular_torque.toml"),
        "blocks = 20",
        "blocks = 90000",
    );
    let m = refused_by_both(&text, Some("1G"), "method.blocks");
    assert!(
        m.contains("too large") && m.contains("reduce method.blocks from 90000 to ≈"),
        "{m}"
    );
}

#[test]
fn number_of_bodies_drives_the_refusal() {
    // 300 bodies in one block of 50 quadratic elements (solved element by element): the
    // element matrix is the size
    let base = example("rigid_body/02_rectangular_torque.toml");
    let body_start = base.find("[[bodies]]").unwrap();
    let loads = base.find("[[loads]]").unwrap();
    let body = &base[body_start..loads];
    let mut text = edit(&base[..body_start], "blocks = 20", "blocks = 1");
    for i in 0..300 {
        text.push_str(&body.replace("name = \"box\"", &format!("name = \"box{i}\"")));
    }
    let m = refused_by_both(&text, Some("15M"), "bodies");
    assert!(m.contains("reduce bodies from 300"), "{m}");
}

#[test]
fn beam_elements_above_the_cap_are_refused_while_loading() {
    let text = edit(
        &example("beam/01_cantilever_elastica.toml"),
        "elements = 10",
        "elements = 1000000000",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), &text).unwrap();
    for args in [
        &["check", "s.toml"][..],
        &["run", "s.toml", "--out", "o"][..],
    ] {
        let (o, err) = stmech(dir.path(), args);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains("beam.elements") && err.contains("at most"),
            "{err}"
        );
    }
}

#[test]
fn beam_elements_drive_the_refusal_below_the_cap() {
    let text = edit(
        &example("beam/03_flying_beam.toml"),
        "elements = 10",
        "elements = 500000",
    );
    refused_by_both(&text, Some("100M"), "beam.elements");
}

#[test]
fn beam_dynamic_step_drives_the_refusal() {
    let text = edit(
        &example("beam/03_flying_beam.toml"),
        "step = 0.025",
        "step = 0.0000015",
    );
    refused_by_both(&text, Some("100M"), "dynamic.step");
}

#[test]
fn inverse_mesh_drives_the_refusal() {
    let inv = example("beam_inverse/example_3_2.toml");
    // the streamed sideways solve holds ≈ 150 B per space-time node: about 100 MB and 230 MB
    refused_by_both(
        &edit(&inv, "resolution = 20", "resolution = 300"),
        Some("50M"),
        "mesh.resolution",
    );
    refused_by_both(
        &edit(
            &inv,
            "resolution = 20",
            "elements_s = 1000\nelements_t = 1500",
        ),
        Some("100M"),
        "mesh.elements_t",
    );
}

#[test]
fn check_prints_the_size_and_accepts_within_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/multibody/01_double_pendulum.toml");
    let (o, err) = stmech(
        dir.path(),
        &["check", path.to_str().unwrap(), "--max-memory", "2G"],
    );
    assert_eq!(o.status.code(), Some(0), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    let size = out
        .lines()
        .find(|l| l.trim_start().starts_with("size:"))
        .expect("a size line");
    for part in [
        "unknowns",
        "nonzeros",
        "time nodes",
        "peak memory ≈",
        "output ≈",
    ] {
        assert!(size.contains(part), "{part} missing in {size}");
    }
}

#[test]
fn bad_max_memory_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let (o, err) = stmech(dir.path(), &["check", "x.toml", "--max-memory", "lots"]);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("invalid memory size"), "{err}");
}

/// The estimate is an upper-bound-ish model: within a factor of two of the peak resident
/// memory the run really reaches (reported by the child through `/proc/self/status`), at
/// two sizes of the rigid-body ladder and two of the inverse space-time FEM (streamed
/// sideways solve; sizes not in the table of docs/verification.md §12).
#[test]
fn estimate_is_within_a_factor_of_two_of_the_measured_peak() {
    let rigid = example("rigid_body/01_constant_torque.toml");
    let inverse = example("beam_inverse/example_3_2.toml");
    let mut cases = Vec::new();
    for n in ["2000", "20000"] {
        let text = edit(
            &rigid,
            "elements_per_block = 1000",
            &format!("elements_per_block = {n}"),
        );
        cases.push((format!("rigid body, {n} elements"), text));
    }
    for n in ["48", "96"] {
        let text = edit(&inverse, "resolution = 20", &format!("resolution = {n}"))
            + "\n[verify]\nclosed_loop = false\n";
        cases.push((format!("inverse FEM, resolution {n}"), text));
    }
    for (case, text) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.toml"), &text).unwrap();
        let (c, _) = stmech(dir.path(), &["check", "s.toml", "--max-memory", "none"]);
        let out = String::from_utf8_lossy(&c.stdout).into_owned();
        let est = parse_bytes(&out);
        let output = Command::new(env!("CARGO_BIN_EXE_stmech"))
            .args([
                "run",
                "s.toml",
                "--out",
                "o",
                "--no-plots",
                "--max-memory",
                "none",
            ])
            .env("STMECH_REPORT_PEAK_MEMORY", "1")
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{case}: {err}");
        let Some(peak) = err
            .lines()
            .find_map(|l| l.strip_prefix("stmech: peak resident memory "))
            .and_then(|l| l.trim_end_matches(" bytes").parse::<f64>().ok())
        else {
            // no /proc on this system: nothing to compare
            return;
        };
        let ratio = est / peak;
        assert!(
            (0.5..=2.0).contains(&ratio),
            "{case}: estimate {est} / measured {peak} = {ratio}"
        );
    }
}

/// The `peak memory ≈ X UNIT` of a size line, in bytes.
fn parse_bytes(out: &str) -> f64 {
    let after = out.split("peak memory ≈ ").nth(1).expect("a peak estimate");
    let mut it = after.split_whitespace();
    let x: f64 = it.next().unwrap().parse().unwrap();
    let unit = it.next().unwrap().trim_end_matches(',');
    let mult = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        u => panic!("unit {u}"),
    };
    x * mult
}

/// One representative size of every problem type (issue 29): the estimate that `run` or
/// `compare` enforce (read from the refusal of a 1-byte limit, which solves nothing) is within
/// a factor of two of the peak resident memory of the real process (default settings, plots
/// included, closed-loop replays on). The sizes are the middle rows of the table of
/// docs/verification.md ("Memory estimates of every problem type"), which
/// `benches/memory.sh` regenerates with three sizes each.
#[test]
fn every_problem_type_is_estimated_within_two_of_its_peak() {
    let pendulum = example("multibody/01_double_pendulum.toml");
    let bend = example("flexible/01_bend_45.toml");
    let torsion = example("flexible/05_damped_torsion.toml");
    let elastica = example("beam/01_cantilever_elastica.toml");
    let flying = example("beam/03_flying_beam.toml");
    let inverse = example("beam_inverse/example_3_2.toml");
    let crane = example("crane/01_swing_free_transfer.toml");
    let helix = example("spatial_inverse/01_helix_twist.toml");
    let method = |text: &str, m: &str| format!("method = \"{m}\"\n{text}");
    let crane_with = |m: &str| {
        edit(
            &edit(&crane, "resolution = 32", "resolution = 24"),
            "problem = \"crane\"",
            &format!("problem = \"crane\"\nmethod = \"{m}\""),
        )
    };
    let helix_with = |m: &str| {
        edit(
            &edit(&helix, "elements = 32 ", "elements = 16 "),
            "method = \"space-time\"",
            &format!("method = \"{m}\""),
        )
    };
    let inverse_64 = edit(&inverse, "resolution = 20", "resolution = 64");
    let cases: Vec<(&str, &str, String)> = vec![
        (
            "rigid multibody, double pendulum, 4000 elements",
            "run",
            // as shipped: 40 blocks of 100 elements
            pendulum,
        ),
        (
            "flexible statics, 45° bend, 256 elements",
            "run",
            edit(&bend, "elements = 8", "elements = 256"),
        ),
        (
            "flexible dynamics, clamped rod, 250 elements, 2 steps",
            "run",
            edit(
                &edit(
                    &edit(&torsion, "elements = 8", "elements = 250"),
                    "end = 1.0",
                    "end = 0.004",
                ),
                "blocks = 500",
                "blocks = 2",
            ),
        ),
        (
            "planar beam statics, elastica, 400 elements",
            "run",
            edit(&elastica, "elements = 10", "elements = 400"),
        ),
        (
            "planar beam dynamics, flying beam, 160 elements, 200 steps",
            "run",
            edit(
                &edit(&flying, "elements = 10", "elements = 160"),
                "end = 15.0",
                "end = 5.0",
            ),
        ),
        (
            "beam inverse, space-time FEM, resolution 64",
            "run",
            method(&inverse_64, "space-time"),
        ),
        (
            "beam inverse, characteristics, resolution 64",
            "run",
            method(&inverse_64, "characteristics"),
        ),
        (
            "spatial inverse, space-time FEM + closed loop, 16 elements",
            "run",
            helix_with("space-time"),
        ),
        (
            "spatial inverse, characteristics + closed loop, 16 elements",
            "run",
            helix_with("characteristics"),
        ),
        (
            "crane, space-time FEM + closed loop, 24 elements",
            "run",
            crane_with("space-time"),
        ),
        (
            "crane, characteristics + closed loop, 24 elements",
            "run",
            crane_with("characteristics"),
        ),
        (
            "compare, beam inverse, resolution 64",
            "compare",
            inverse_64.clone(),
        ),
        (
            "compare, spatial inverse, 16 elements",
            "compare",
            helix_with("space-time"),
        ),
    ];
    let mut failures = Vec::new();
    for (case, command, text) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s.toml"), &text).unwrap();
        let args = [command, "s.toml", "--out", "o", "--max-memory"];
        let (refused, err) = stmech(dir.path(), &[&args[..], &["1"]].concat());
        assert_eq!(refused.status.code(), Some(2), "{case}: {err}");
        let est = parse_bytes(&err);
        let output = Command::new(env!("CARGO_BIN_EXE_stmech"))
            .args([&args[..], &["none"]].concat())
            .env("STMECH_REPORT_PEAK_MEMORY", "1")
            .current_dir(dir.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{case}: {err}");
        let Some(peak) = err
            .lines()
            .find_map(|l| l.strip_prefix("stmech: peak resident memory "))
            .and_then(|l| l.trim_end_matches(" bytes").parse::<f64>().ok())
        else {
            // no /proc on this system: nothing to compare
            return;
        };
        let ratio = est / peak;
        eprintln!("{case}: estimate {est:.3e} B, measured {peak:.3e} B, ratio {ratio:.2}");
        if !(0.5..=2.0).contains(&ratio) {
            failures.push(format!("{case}: ratio {ratio:.2}"));
        }
    }
    assert!(failures.is_empty(), "outside [0.5, 2]: {failures:?}");
}
