//! Issue 13, the cases of hostile input, each through the real binary: messages that report
//! every problem (every missing table, numbers too large for their type, a 10 MB line,
//! duplicated tables, deep dotted keys); `check` and `run` refusing the same files with the
//! same message (a duplicated joint, a time grid lost in round-off, one time element for the
//! characteristics, an absurd centre); trajectory CSV files with a byte-order mark, any
//! letter case in the header, from a device or a FIFO, too large; a full disk while a run
//! writes its results.

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
        "the example no longer contains {from:?}: update the test"
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
    assert!(!stderr.contains("panicked"), "{stderr}");
    (output, stderr)
}

/// `stmech check s.toml` on `text`: exit code and stderr.
fn check(text: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let (o, e) = stmech(dir.path(), &["check", "s.toml"]);
    (o.status.code(), e)
}

/// The problem lines (`  - line N: field: ...`) of a report.
fn problems(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| l.starts_with("  - ")).collect()
}

/// Both `check` and `run` refuse `text` (in `dir`, as `s.toml`) with exit code 2 and the same
/// problem line, which starts with `prefix` (`line N: field`); `run` writes nothing.
fn refused_by_both_in(dir: &Path, text: &str, prefix: &str) -> String {
    std::fs::write(dir.join("s.toml"), text).unwrap();
    let (c, check_err) = stmech(dir, &["check", "s.toml"]);
    assert_eq!(c.status.code(), Some(2), "check:\n{check_err}");
    let (r, run_err) = stmech(dir, &["run", "s.toml", "--out", "o", "--no-plots"]);
    assert_eq!(r.status.code(), Some(2), "run:\n{run_err}");
    assert!(!dir.join("o").exists() && !dir.join("o.failed").exists());
    let line = |s: &str| {
        s.lines()
            .find(|l| l.starts_with(&format!("  - {prefix}")))
            .unwrap_or_else(|| panic!("no problem `{prefix}` in:\n{s}"))
            .to_owned()
    };
    let (a, b) = (line(&check_err), line(&run_err));
    assert_eq!(a, b, "check and run disagree");
    a
}

fn refused_by_both(text: &str, prefix: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    refused_by_both_in(dir.path(), text, prefix)
}

fn rigid() -> String {
    example("rigid_body/02_rectangular_torque.toml")
}

/// 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the scenario"))
        + 1
}

// ---------------------------------------------------------------------------------------
// Messages

#[test]
fn every_missing_table_is_reported() {
    let text = rigid();
    let i = text.find("[time]").unwrap();
    let j = text.find("[newton]").unwrap();
    let text = format!("{}{}", &text[..i], &text[j..]);
    let (code, e) = check(&text);
    assert_eq!(code, Some(2), "{e}");
    let p = problems(&e);
    assert!(p.iter().any(|l| l.starts_with("  - time: required")), "{e}");
    assert!(
        p.iter().any(|l| l.starts_with("  - method: required")),
        "{e}"
    );
    assert_eq!(p.len(), 2, "{e}");
}

#[test]
fn an_overflowing_number_names_its_field_and_hides_nothing() {
    let text = edit(
        &rigid(),
        "elements_per_block = 50",
        "elements_per_block = 99999999999999999999",
    );
    let text = edit(&text, "density = 1.5", "density = -1.5");
    let text = edit(&text, "end = 4.0", "end = 1e999");
    let (code, e) = check(&text);
    assert_eq!(code, Some(2), "{e}");
    let p = problems(&e);
    let epb = line_of(&text, "elements_per_block = 9");
    assert!(
        p.iter().any(|l| l.starts_with(&format!(
            "  - line {epb}: method.elements_per_block: the integer 99999999999999999999 does not fit in 64 bits"
        ))),
        "{e}"
    );
    let end = line_of(&text, "end = 1e999");
    assert!(
        p.iter()
            .any(|l| l.starts_with(&format!("  - line {end}: time.end: the number 1e999"))),
        "{e}"
    );
    assert!(
        p.iter()
            .any(|l| l.contains("bodies[0].box.density: must be positive")),
        "{e}"
    );
    assert!(!e.contains("TOML parse error"), "{e}");
}

#[test]
fn a_ten_megabyte_line_is_quoted_as_a_truncated_excerpt() {
    let long = "x".repeat(10_000_000);
    let text = edit(&rigid(), "name = \"box\"", &format!("name = \"{long},\""));
    let text = edit(
        &text,
        "kind = \"torque\"",
        &format!("kind = \"{}\"", &long[..100_000]),
    );
    let (code, e) = check(&text);
    assert_eq!(code, Some(2));
    assert!(e.len() < 4_000, "{} bytes of messages", e.len());
    assert!(e.contains("(truncated: 10000001 characters in all)"), "{e}");
    assert!(e.contains("(truncated: 100000 characters in all)"), "{e}");
    // a long number in a trajectory CSV row
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tip.csv"),
        format!("t,x,y,theta\n0,1,0,0\n1,{long},0,0\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), csv_scenario("tip.csv", "")).unwrap();
    let (_, e) = stmech(dir.path(), &["check", "s.toml"]);
    assert!(
        e.len() < 4_000 && e.contains("truncated"),
        "{} bytes",
        e.len()
    );
}

#[test]
fn a_duplicated_table_header_is_reported_as_such_at_its_line() {
    let text = format!("{}\n[time]\nstart = 0.0\nend = 4.0\n", rigid());
    let (code, e) = check(&text);
    assert_eq!(code, Some(2));
    let second = text.lines().count() - 2;
    let first = line_of(&text, "[time]");
    assert_eq!(problems(&e).len(), 1, "{e}");
    assert!(
        e.contains(&format!(
            "  - line {second}: time: the table [time] is defined twice (first at line {first})"
        )),
        "{e}"
    );
}

#[test]
fn a_deep_dotted_key_is_reported_at_its_line() {
    let text = edit(
        &rigid(),
        "box = { edges = [2.0, 1.0, 1.0], density = 1.5, reference_offset = [0.0, 0.0, 0.0] }",
        "box.edges = [2.0, 1.0, 1.0]\n\nbox.density = 1.5\nbox.colour.of.the.box = 1",
    );
    let (code, e) = check(&text);
    assert_eq!(code, Some(2));
    let line = line_of(&text, "box.colour");
    assert!(
        e.contains(&format!(
            "  - line {line}: bodies[0].box.colour: unknown field"
        )),
        "{e}"
    );
    let text = format!("a.b.c.d = 1\n{}", rigid());
    let (_, e) = check(&text);
    assert!(e.contains("  - line 1: a: unknown field"), "{e}");
}

// ---------------------------------------------------------------------------------------
// check and run agree

#[test]
fn a_duplicated_joint_is_refused_by_check_and_run() {
    let text = example("multibody/01_double_pendulum.toml");
    let i = text.find("[[joints]]").unwrap();
    let j = i + 1 + text[i + 1..].find("[[joints]]").unwrap();
    let rod1 = edit(&text[i..j], "name = \"rod1\"", "name = \"rod1_again\"");
    let text = format!("{text}\n{rod1}");
    let line = text
        .rfind("[[joints]]")
        .map(|k| text[..k].lines().count() + 1);
    let m = refused_by_both(&text, &format!("line {}: joints[2]:", line.unwrap()));
    assert!(
        m.contains("the same joint as joints[0]") && m.contains("remove one"),
        "{m}"
    );
    // a joint that repeats another's constraint under another kind: the rank test
    let sph = edit(&rod1, "kind = \"distance\"", "kind = \"spherical\"");
    let sph = edit(
        &sph,
        "point_b = [0.0, 0.0, 0.0]",
        "point_b = [2.8284271247461903, 0.0, 2.8284271247461903]",
    );
    let pendulum = example("multibody/01_double_pendulum.toml");
    let m = refused_by_both(&format!("{pendulum}\n{sph}"), "line");
    assert!(m.contains("joints[2]") && m.contains("depend"), "{m}");
}

#[test]
fn a_time_grid_lost_in_round_off_is_refused_by_check_and_run() {
    let text = edit(&rigid(), "start = 0.0", "start = 1e16");
    let text = edit(&text, "end = 4.0", "end = 10000000000000004.0");
    let m = refused_by_both(
        &text,
        &format!("line {}: time.start:", line_of(&text, "start = 1e16")),
    );
    assert!(m.contains("round-off") && m.contains("start = 0"), "{m}");
    let text = edit(&rigid(), "end = 4.0", "end = 1e-300");
    let m = refused_by_both(
        &text,
        &format!("line {}: time.end:", line_of(&text, "end = 1e-300")),
    );
    assert!(m.contains("too small to compute with"), "{m}");
    let midpoint = example("rigid_body/04_midpoint_rectangular.toml");
    let text = edit(&midpoint, "start = 0.0", "start = 1e16");
    let text = edit(&text, "end = 4.0", "end = 10000000000000004.0");
    let text = edit(&text, "step = 1e-3", "step = 0.1");
    refused_by_both(
        &text,
        &format!("line {}: time.start:", line_of(&text, "start = 1e16")),
    );
}

#[test]
fn too_few_time_elements_for_the_characteristics_are_refused_by_check_and_run() {
    for nt in [1, 2] {
        let text = edit(
            &example("beam_inverse/example_3_2_characteristics.toml"),
            "resolution = 20",
            &format!("elements_s = 4\nelements_t = {nt}"),
        );
        let m = refused_by_both(&text, &format!("line {}: mesh:", line_of(&text, "[mesh]")));
        assert!(m.contains("at least 1 space and 3 time elements"), "{m}");
    }
}

#[test]
fn an_absurd_centre_is_refused_by_check_and_run_without_a_debug_dump() {
    for example_file in ["example_3_2.toml", "example_3_2_characteristics.toml"] {
        let text = edit(
            &example(&format!("beam_inverse/{example_file}")),
            "duration = 2.0",
            "duration = 2.0\ncenter = [1e300, 1e300]",
        );
        let m = refused_by_both(
            &text,
            &format!("line {}: trajectory.center:", line_of(&text, "center")),
        );
        assert!(
            m.contains("is not the tip's initial pose") && m.contains("nearer the tip"),
            "{m}"
        );
        assert!(!m.contains("RestToRest") && !m.contains('{'), "{m}");
    }
}

// ---------------------------------------------------------------------------------------
// Trajectory CSV files and input files in general

/// Example 3.2 with `[trajectory]` replaced by a CSV path (and `extra` after `[beam]`).
fn csv_scenario(path: &str, extra: &str) -> String {
    let s = example("beam_inverse/example_3_2.toml");
    let i = s.find("[trajectory]").unwrap();
    let j = i + s[i..].find("\n[").unwrap();
    let s = format!(
        "{}[trajectory]\nkind = \"csv\"\npath = \"{path}\"\n{}",
        &s[..i],
        &s[j..]
    );
    edit(&s, "[beam]\n", &format!("[beam]\n{extra}"))
}

/// Rows of the rest-to-rest arc of Example 3.2 on [0, 6] s, written at full precision.
fn arc_rows(header: &str, n: usize) -> String {
    use stmech_example::arc_pose;
    let mut s = format!("{header}\n");
    for k in 0..=n {
        let t = 6.0 * k as f64 / n as f64;
        let p = arc_pose(t);
        s.push_str(&format!("{t},{},{},{}\n", p[0], p[1], p[2]));
    }
    s
}

/// The pose of [I] Example 3.2 (Eq. 35 corrected), computed here independently of stmech.
mod stmech_example {
    pub fn arc_pose(t: f64) -> [f64; 3] {
        use std::f64::consts::PI;
        let tau = ((t - 2.0) / 2.0).clamp(0.0, 1.0);
        let u = 0.5 * (1.0 - (PI * tau).cos());
        let sigma = 0.5 * (1.0 - (PI * u).cos());
        let phi = 0.5 * PI * sigma;
        [phi.cos(), phi.sin(), phi]
    }
}

#[test]
fn a_csv_with_a_byte_order_mark_and_a_capitalised_header_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tip.csv"),
        format!("\u{feff}{}", arc_rows("Time,X,Y,THETA", 1000)),
    )
    .unwrap();
    std::fs::write(dir.path().join("s.toml"), csv_scenario("tip.csv", "")).unwrap();
    let (o, e) = stmech(dir.path(), &["check", "s.toml"]);
    assert_eq!(o.status.code(), Some(0), "{e}");
}

/// The smoothness case: 10⁵ rows of the built-in arc, for a free end and with a tip
/// mass (which needs a continuous acceleration), are smooth.
#[test]
fn a_densely_sampled_smooth_path_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tip.csv"), arc_rows("t,x,y,theta", 100_000)).unwrap();
    for extra in ["", "tip = { mass = 0.1, inertia = 0.01 }\n"] {
        std::fs::write(dir.path().join("s.toml"), csv_scenario("tip.csv", extra)).unwrap();
        let (o, e) = stmech(dir.path(), &["check", "s.toml"]);
        assert_eq!(o.status.code(), Some(0), "{extra}: {e}");
    }
}

#[test]
fn a_trajectory_from_a_device_a_fifo_or_a_directory_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(
        Command::new("mkfifo")
            .arg(d.join("fifo.csv"))
            .status()
            .unwrap()
            .success(),
        "mkfifo"
    );
    std::fs::create_dir(d.join("folder.csv")).unwrap();
    for (path, what) in [
        ("/dev/zero", "a character device"),
        ("fifo.csv", "a FIFO"),
        ("folder.csv", "a directory"),
    ] {
        let m = refused_by_both_in(d, &csv_scenario(path, ""), "line");
        assert!(
            m.contains("trajectory.path") && m.contains(path) && m.contains(what),
            "{m}"
        );
        assert!(
            m.contains("not a regular file") && m.contains("save the data to a file"),
            "{m}"
        );
    }
    // the scenario itself: exit 2, nothing read
    for path in ["/dev/zero", "fifo.csv"] {
        for cmd in ["check", "run"] {
            let (o, e) = stmech(d, &[cmd, path]);
            assert_eq!(o.status.code(), Some(2), "{cmd} {path}: {e}");
            assert!(e.contains("not a regular file") && e.contains(path), "{e}");
        }
    }
}

#[test]
fn an_input_file_above_the_size_limit_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = arc_rows("t,x,y,theta", 40_000);
    assert!(
        (1 << 20..2 << 20).contains(&rows.len()),
        "{} bytes",
        rows.len()
    );
    std::fs::write(d.join("tip.csv"), &rows).unwrap();
    std::fs::write(d.join("s.toml"), csv_scenario("tip.csv", "")).unwrap();
    let (o, e) = stmech(d, &["check", "s.toml", "--max-input-size", "1M"]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("trajectory.path")
            && e.contains("tip.csv")
            && e.contains(&format!("{} bytes", rows.len()))
            && e.contains("1.0 MB")
            && e.contains("--max-input-size"),
        "{e}"
    );
    let (o, e) = stmech(d, &["check", "s.toml", "--max-input-size", "2M"]);
    assert_eq!(o.status.code(), Some(0), "{e}");
    // the scenario file too
    let (o, e) = stmech(d, &["check", "s.toml", "--max-input-size", "100"]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("cannot read scenario file s.toml") && e.contains("limit"),
        "{e}"
    );
    let (o, e) = stmech(d, &["check", "s.toml", "--max-input-size", "lots"]);
    assert_eq!(o.status.code(), Some(2), "{e}");
}

/// A disk that fills while a run writes its results (simulated with a file size limit,
/// `ulimit -f`, which makes writes fail like a full disk): exit 4, a message that names the
/// file, no staging directory left behind, the old result untouched.
#[test]
fn a_full_disk_while_writing_keeps_the_old_result_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), rigid()).unwrap();
    let (o, e) = stmech(d, &["run", "s.toml", "--out", "o", "--no-plots"]);
    assert_eq!(o.status.code(), Some(0), "{e}");
    let before = std::fs::read(d.join("o/trajectory.csv")).unwrap();
    let bin = env!("CARGO_BIN_EXE_stmech");
    // 64 blocks of 512 bytes: the new trajectory.csv (≈ 1 MB) does not fit
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f 64 && exec '{bin}' run s.toml --out o --force --no-plots"
        ))
        .current_dir(d)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{e}");
    assert!(
        (e.contains("trajectory.csv") || e.contains("elements.csv")) && !e.contains("panicked"),
        "{e}"
    );
    assert_eq!(std::fs::read(d.join("o/trajectory.csv")).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|x| x.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".tmp-") && !n.contains(".old-")),
        "{names:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Trust at any scale (issue 29): hostile input the issue-13 cases missed

/// A dotted key nested five deep is reported at its own line with its own key, at the top
/// level and inside a table (where the key used to be named by the last of its implicit
/// tables: `method.q.r.s.t.q`).
#[test]
fn a_deep_dotted_key_inside_a_table_is_reported_with_its_own_key() {
    let text = edit(&rigid(), "[method]", "[method]\nq.r.s.t.u = 2");
    let text = format!("a.b.c.d.e = 1\n{text}");
    let (code, e) = check(&text);
    assert_eq!(code, Some(2), "{e}");
    assert_eq!(problems(&e).len(), 2, "{e}");
    assert!(e.contains("  - line 1: a: unknown field `a`"), "{e}");
    let line = line_of(&text, "q.r.s.t.u");
    assert!(
        e.contains(&format!("  - line {line}: method.q: unknown field `q`")),
        "{e}"
    );
    // in an array of tables too
    let text = edit(&rigid(), "[[loads]]", "[[loads]]\nx.y.z.w.v = 1");
    let (_, e) = check(&text);
    let line = line_of(&text, "x.y.z.w.v");
    assert!(
        e.contains(&format!("  - line {line}: loads[0].x: unknown field `x`")),
        "{e}"
    );
}

/// A TOML date-time (or date, or time) where a number, a count or a string belongs is
/// called a date-time, with its value, at its own line, in every problem type (serde calls it
/// a "map"), also inside an internally tagged table.
#[test]
fn a_date_time_where_a_number_belongs_is_called_a_date_time() {
    for (file, from, to, field) in [
        (
            "rigid_body/02_rectangular_torque.toml",
            "end = 4.0",
            "end = 1979-05-27T07:32:00Z",
            "time.end",
        ),
        (
            "rigid_body/02_rectangular_torque.toml",
            "vector = [1.0, 1.0, 1.0]",
            "vector = [1979-05-27, 1.0, 1.0]",
            "loads[0].vector[0]",
        ),
        (
            "rigid_body/02_rectangular_torque.toml",
            "name = \"box\"",
            "name = 1979-05-27",
            "bodies[0].name",
        ),
        (
            "beam/01_cantilever_elastica.toml",
            "length = 1.0",
            "length = 1979-05-27T00:00:00",
            "beam.length",
        ),
        (
            "beam_inverse/example_3_2.toml",
            "end = 6.0",
            "end = 1979-05-27",
            "time.end",
        ),
        (
            "crane/01_swing_free_transfer.toml",
            "length = 10.0",
            "length = 07:32:00",
            "rope.length",
        ),
        (
            "spatial_inverse/02_line.toml",
            "t0 = 2.0",
            "t0 = 1979-05-27",
            "inverse.trajectory.t0",
        ),
        (
            "flexible/03_arm_with_gripper.toml",
            "elements = 8",
            "elements = 1979-05-27",
            "beams[0].elements",
        ),
    ] {
        let text = edit(&example(file), from, to);
        let (code, e) = check(&text);
        assert_eq!(code, Some(2), "{file}: {e}");
        let p = problems(&e);
        assert_eq!(p.len(), 1, "{file}: one problem, not a cascade:\n{e}");
        let value = to.split(" = ").nth(1).unwrap();
        let value = value.trim_start_matches('[').split(',').next().unwrap();
        let expected = format!(
            "  - line {}: {field}: invalid type: a date-time ({value}), expected",
            line_of(&text, to)
        );
        assert!(p[0].starts_with(&expected), "{file}: {e}");
        assert!(!p[0].contains("map") && !p[0].contains("table"), "{e}");
    }
}

/// One invalid field of a `[[beams]]` entry is one problem: the joints and loads that name
/// the beam (or its nodes) are not reported as naming no beam, and in the inverse analysis
/// neither the missing weld of the body nor what a kind of reference it does not take would
/// need (a curved arm's curvature) are reported besides.
#[test]
fn one_invalid_beam_field_is_one_problem() {
    let arm = example("flexible/03_arm_with_gripper.toml");
    let helix = example("spatial_inverse/01_helix_twist.toml");
    for (text, from, to, field) in [
        (&arm, "elements = 8", "elements = 0", "beams[0].elements"),
        (
            &arm,
            "order = 2\nsection",
            "order = 3\nsection",
            "beams[0].order",
        ),
        (&arm, "ea = 2.1e7", "ea = -2.1e7", "beams[0].section.ea"),
        (&arm, "ea = 2.1e7", "ea = \"x\"", "beams[0].section.ea"),
        (&arm, "name = \"arm\"", "name = \"a rm\"", "beams[0].name"),
        (
            &arm,
            "length = 1.2 }",
            "length = -1.2 }",
            "beams[0].reference.length",
        ),
        (
            &arm,
            "kind = \"straight\", start",
            "kind = \"curved\", start",
            "beams[0].reference.curvature",
        ),
        (&helix, "ea = 4.0", "ea = \"x\"", "beams[0].section.ea"),
        (&helix, "elements = 32", "elements = 0", "beams[0].elements"),
        (&helix, "name = \"arm\"", "name = 5", "beams[0].name"),
        (
            &helix,
            "kind = \"straight\"",
            "kind = \"curved\"",
            "beams[0].reference.kind",
        ),
        (&helix, "name = \"gripper\"", "name = 7", "bodies[0].name"),
    ] {
        let text = edit(text, from, to);
        let (code, e) = check(&text);
        assert_eq!(code, Some(2), "{to}: {e}");
        let p = problems(&e);
        assert_eq!(p.len(), 1, "{to}: one problem, not a cascade:\n{e}");
        let line = line_of(&text, to.lines().next().unwrap());
        assert!(
            p[0].starts_with(&format!("  - line {line}: {field}: ")),
            "{to}: {e}"
        );
    }
}

/// A time interval no time grid can resolve is refused by `check` and `run` alike, at the
/// field to change and with the fix, in every problem type: a subnormal `time.end`, and an
/// interval lost in the round-off of its own times (`start = 1e20`, `end` the next float).
#[test]
fn a_time_interval_too_short_to_compute_with_is_refused_by_check_and_run() {
    for (file, end) in [
        ("rigid_body/02_rectangular_torque.toml", "end = 4.0"),
        ("rigid_body/04_midpoint_rectangular.toml", "end = 4.0"),
        ("beam_inverse/example_3_2.toml", "end = 6.0"),
        ("beam_inverse/example_3_2_characteristics.toml", "end = 6.0"),
        ("crane/01_swing_free_transfer.toml", "end = 12.0"),
        ("spatial_inverse/02_line.toml", "end = 6.0"),
    ] {
        let text = edit(&example(file), end, "end = 1e-310");
        let m = refused_by_both(
            &text,
            &format!("line {}: time.end:", line_of(&text, "end = 1e-310")),
        );
        assert!(
            m.contains("1e-310 s is too small to compute with") && m.contains("set time.end"),
            "{file}: {m}"
        );
        assert!(!m.contains("0.0000000000"), "{file}: {m}");
        // the same interval far from 0: lost in round-off (the start is the field to shift)
        let text = edit(&example(file), end, "end = 1.0000000000000002e20");
        let text = match text.find("\nstart = 0.0") {
            Some(_) => edit(&text, "\nstart = 0.0", "\nstart = 1e20"),
            None => edit(&text, "end = 1.0000", "start = 1e20\nend = 1.0000"),
        };
        let m = refused_by_both(
            &text,
            &format!("line {}: time.start:", line_of(&text, "start = 1e20")),
        );
        assert!(
            m.contains("lost in the round-off") && m.contains("time.start = 0 and time.end"),
            "{file}: {m}"
        );
    }
    // the planar beam starts at 0: its dynamic.end
    let text = edit(
        &example("beam/03_flying_beam.toml"),
        "end = 15.0",
        "end = 1e-310",
    );
    let m = refused_by_both(
        &text,
        &format!("line {}: dynamic.end:", line_of(&text, "end = 1e-310")),
    );
    assert!(m.contains("too small to compute with"), "{m}");
}

/// An output directory whose name leaves no room for the names of the staging directories
/// beside it (a 250-character scenario name: `out/<stem>.tmp-<pid>` exceeds the 255-byte
/// limit of a name) is refused by `check` and by `run` before solving, with exit 2 and the
/// longest name that fits; `compare`'s default directory (`out/compare-<stem>`) is checked
/// for the inverse problems too.
#[test]
fn an_output_name_without_room_for_its_staging_names_is_refused_before_solving() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stem = "s".repeat(250);
    std::fs::write(d.join(format!("{stem}.toml")), rigid()).unwrap();
    let file = format!("{stem}.toml");
    let (o, e) = stmech(d, &["check", &file]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("`stmech run` could not write its results")
            && e.contains("bytes long")
            && e.contains("at most 236 bytes with --out DIR"),
        "{e}"
    );
    let (o, e) = stmech(d, &["run", &file, "--no-plots"]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("at most 236 bytes"), "{e}");
    assert!(
        !d.join("out").exists(),
        "run created something before refusing"
    );
    let (o, e) = stmech(d, &["run", &file, "--no-plots", "--out", "short"]);
    assert_eq!(o.status.code(), Some(0), "{e}");
    // an inverse scenario whose run directory fits but whose compare directory does not
    let stem = "c".repeat(232);
    let file = format!("{stem}.toml");
    std::fs::write(d.join(&file), example("beam_inverse/example_3_2.toml")).unwrap();
    let (o, e) = stmech(d, &["check", &file]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("`stmech compare` could not write its results")
            && !e.contains("`stmech run` could not"),
        "{e}"
    );
    let (o, e) = stmech(d, &["compare", &file]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("at most 236 bytes"), "{e}");
    assert!(!d.join("out").join(format!("compare-{stem}")).exists());
}

/// An `--out` inside the unfinished staging directory of another run, running or killed, is
/// refused before solving (that run moves or deletes its staging directory with whatever is
/// in it).
#[test]
fn an_out_inside_another_runs_staging_directory_is_refused_before_solving() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), rigid()).unwrap();
    let long = edit(
        &example("rigid_body/01_constant_torque.toml"),
        "elements_per_block = 1000",
        "elements_per_block = 20000",
    );
    let long = edit(&long, "blocks = 1", "blocks = 50");
    std::fs::write(d.join("long.toml"), long).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(["run", "long.toml", "--out", "res", "--no-plots"])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let staging = (0..2000)
        .find_map(|_| {
            let found = std::fs::read_dir(d).unwrap().find_map(|e| {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                name.starts_with("res.tmp-").then_some(name)
            });
            if found.is_none() {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            found
        })
        .expect("the long run's staging directory appears");
    let inside = format!("{staging}/mine");
    let (o, e) = stmech(d, &["run", "s.toml", "--out", &inside, "--no-plots"]);
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    child.wait().unwrap();
    assert!(
        running,
        "the long run ended before the test could use its staging directory"
    );
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("staging directory of another stmech run") && e.contains(&staging),
        "{e}"
    );
    // the killed run left its staging directory, marked: still refused
    assert!(d.join(&staging).join("INCOMPLETE").is_file());
    let (o, e) = stmech(d, &["run", "s.toml", "--out", &inside, "--no-plots"]);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(!d.join(&inside).exists());
}

/// Runs `stmech args` in `dir` with `dir/full` a tmpfs of `size` bytes, in a private mount
/// namespace (`unshare --mount`, or `--user --map-root-user --mount` without root), so the
/// mount ends with the process. `None` where neither is possible (the error mapping is then
/// covered by the unit tests of `stmech_app::error`).
fn on_tiny_disk(dir: &Path, size: &str, args: &[&str]) -> Option<Output> {
    const NO_MOUNT: i32 = 97;
    let script =
        format!("mount -t tmpfs -o size={size} tmpfs full || exit {NO_MOUNT}; exec \"$0\" \"$@\"");
    for prefix in [
        &["--mount"][..],
        &["--user", "--map-root-user", "--mount"][..],
    ] {
        let output = Command::new("unshare")
            .args(prefix)
            .args(["sh", "-c", &script, env!("CARGO_BIN_EXE_stmech")])
            .args(args)
            .current_dir(dir)
            .output()
            .ok()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() != Some(NO_MOUNT) && !stderr.starts_with("unshare:") {
            return Some(output);
        }
    }
    None
}

/// A disk that fills while any command writes its results (a real full file system: a tiny
/// tmpfs): exit 4 and a message that names the file, says "No space left on device" once and
/// what to do, and holds no Rust debug dump of the error (plotters' bitmap errors used to print
/// `ImageError(IoError(Custom { kind: Other, … }))`, the VTK series and some CSV writers no
/// file name).
#[test]
fn a_full_disk_names_the_file_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("full")).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let ex = |rel: &str| examples.join(rel).display().to_string();
    let commands: Vec<Vec<String>> = [
        "rigid_body/02_rectangular_torque.toml",
        "multibody/04_four_body_chain.toml",
        "beam/01_cantilever_elastica.toml",
        "beam_inverse/example_3_2.toml",
        "crane/01_swing_free_transfer.toml",
        "flexible/01_bend_45.toml",
        "spatial_inverse/02_line.toml",
    ]
    .iter()
    .map(|f| vec!["run".to_owned(), ex(f)])
    .chain([
        vec!["compare".to_owned()],
        vec![
            "compare".to_owned(),
            ex("crane/01_swing_free_transfer.toml"),
        ],
        vec!["convergence".to_owned()],
    ])
    .collect();
    let mut named = std::collections::BTreeSet::new();
    for size in ["16k", "64k", "256k", "1m"] {
        for command in &commands {
            let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
            args.extend(["--out", "full/res"]);
            let Some(o) = on_tiny_disk(d, size, &args) else {
                eprintln!("skipped: no tmpfs can be mounted here (unshare)");
                return;
            };
            let e = String::from_utf8_lossy(&o.stderr);
            let what = format!("{args:?} on {size}");
            assert!(!e.contains("panicked"), "{what}: {e}");
            match o.status.code() {
                Some(0) => continue,
                Some(4) => {}
                other => panic!("{what}: exit {other:?}\n{e}"),
            }
            let line = e
                .lines()
                .find(|l| l.starts_with("error: "))
                .unwrap_or_else(|| panic!("{what}: no error line\n{e}"));
            assert!(
                line.starts_with("error: cannot write ") && line.contains("/full/res.tmp-"),
                "{what}: the file is not named: {line}"
            );
            assert_eq!(line.matches("No space left on device").count(), 1, "{line}");
            assert!(line.contains("the disk is full"), "{what}: {line}");
            for dump in ["Os {", "Custom {", "kind:", "IoError", "Error("] {
                assert!(!line.contains(dump), "{what}: a debug dump: {line}");
            }
            let file = line["error: cannot write ".len()..]
                .split(':')
                .next()
                .unwrap();
            named.insert(file.rsplit('.').next().unwrap().to_owned());
        }
    }
    // the failures fell on every kind of file: tables, the VTK series, plots, the summary
    for kind in ["csv", "vtu", "png"] {
        assert!(
            named.contains(kind),
            "no failure while writing a .{kind}: {named:?}"
        );
    }
}

/// [P]'s double pendulum (`examples/multibody/01_double_pendulum.toml`) in millimetres:
/// every length × 1000, the density in kg/mm³, gravity in mm/s².
fn pendulum_in_mm() -> String {
    let mut text = example("multibody/01_double_pendulum.toml");
    for (from, to) in [
        (
            "edges = [1.0, 1.0, 1.0], density = 1.5",
            "edges = [1000.0, 1000.0, 1000.0], density = 1.5e-9",
        ),
        (
            "edges = [0.8, 0.8, 0.8], density = 1.5",
            "edges = [800.0, 800.0, 800.0], density = 1.5e-9",
        ),
        (
            "[2.8284271247461903, 0.0, 2.8284271247461903]",
            "[2828.4271247461903, 0.0, 2828.4271247461903]",
        ),
        (
            "[5.656854249492381, 0.0, 5.656854249492381]",
            "[5656.854249492381, 0.0, 5656.854249492381]",
        ),
        ("[0.0, 0.0, -9.81]", "[0.0, 0.0, -9810.0]"),
        ("[0.0, 0.0, -9.81]", "[0.0, 0.0, -9810.0]"),
    ] {
        text = edit(&text, from, to);
    }
    text
}

/// The initial joint check is relative to the size of the joint's terms: the double pendulum
/// in millimetres passes `check` (its rods' `½(|r|² − L²)` carry the round-off of 4000² mm²,
/// 9.3e-10, which an absolute 1e-10 refused "with length 0"), and a really violated joint
/// (a rod 1 mm too long) is refused in both unit systems, with the length it was given.
#[test]
fn the_initial_joint_check_is_relative_to_the_model_size() {
    let (code, e) = check(&pendulum_in_mm());
    assert_eq!(code, Some(0), "the pendulum in mm:\n{e}");
    let (code, e) = check(&example("multibody/01_double_pendulum.toml"));
    assert_eq!(code, Some(0), "the pendulum in m:\n{e}");
    for (text, length) in [
        (example("multibody/01_double_pendulum.toml"), "4.001"),
        (pendulum_in_mm(), "4001"),
    ] {
        let text = edit(
            &text,
            "body_b = \"upper\"",
            &format!("body_b = \"upper\"\nlength = {length}"),
        );
        // (the rod has no point_b line: the problem is at its table)
        let rod2 = text[..text.rfind("[[joints]]").unwrap()].lines().count() + 1;
        let m = refused_by_both(&text, &format!("line {rod2}: joints[1].point_b:"));
        assert!(
            m.contains("the distance joint is violated in the initial configuration")
                && m.contains(&format!("the rod's length is {length} m"))
                && !m.contains("length is 0"),
            "{m}"
        );
    }
}
