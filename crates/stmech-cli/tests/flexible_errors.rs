//! `stmech check` and `run` on malformed flexible multibody scenarios (issue 15, "What must be
//! shown" 6): zero or negative section data, a beam with no elements, frames that are not
//! orthonormal, a joint or load on a missing beam node, a weld between parts that move
//! differently at t0, a reference with a kink, static and dynamic tables mixed. Each case exits
//! with 2, names the field path and its line, and says how to fix it; none panics.
//!
//! The cases edit the example files in `examples/flexible/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/flexible")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bend() -> String {
    example("01_bend_45.toml")
}

fn arm() -> String {
    example("03_arm_with_gripper.toml")
}

fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the example no longer contains {from:?}"
    );
    text.replacen(from, to, 1)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the scenario"))
        + 1
}

struct Checked {
    output: Output,
    stderr: String,
}

fn stmech(text: &str, args: &[&str]) -> Checked {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(dir.path())
        .output()
        .expect("the stmech binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Checked { output, stderr }
}

fn check(text: &str) -> Checked {
    stmech(text, &["check", "s.toml"])
}

fn assert_problem(c: &Checked, line: Option<usize>, field: &str, hints: &[&str]) {
    assert_eq!(c.output.status.code(), Some(2), "stderr:\n{}", c.stderr);
    assert!(!c.stderr.contains("panicked"), "{}", c.stderr);
    let prefix = match line {
        Some(l) => format!("  - line {l}: {field}: "),
        None => format!("  - {field}: "),
    };
    let Some(problem) = c.stderr.lines().find(|l| l.starts_with(&prefix)) else {
        panic!("no problem `{prefix}...` in stderr:\n{}", c.stderr);
    };
    for h in hints {
        assert!(problem.contains(h), "{h:?} missing in {problem:?}");
    }
}

#[test]
fn the_examples_are_valid() {
    for text in [bend(), arm()] {
        let c = check(&text);
        assert_eq!(c.output.status.code(), Some(0), "{}", c.stderr);
    }
}

#[test]
fn zero_and_negative_section_data_name_their_field() {
    let text = edit(&bend(), "ea = 1e7", "ea = 0.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "section = ")),
        "beams[0].section.ea",
        &["must be positive", "got 0"],
    );
    let text = edit(&bend(), "rho_a = 1.0", "rho_a = -1.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "section = ")),
        "beams[0].section.rho_a",
        &["must be positive", "kg/m"],
    );
    let text = edit(&bend(), "gj = 833333.3333333334, ", "");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "section = ")),
        "beams[0].section.gj",
        &["required"],
    );
}

#[test]
fn a_beam_without_elements_is_refused() {
    let text = edit(&bend(), "elements = 8", "elements = 0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "elements = 0")),
        "beams[0].elements",
        &["at least 1"],
    );
}

#[test]
fn directors_that_are_not_orthonormal_are_refused() {
    let text = edit(
        &bend(),
        "directors = [[0.0, 0.0, 1.0], [0.0, -1.0, 0.0]",
        "directors = [[0.0, 0.1, 1.0], [0.0, -1.0, 0.0]",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "reference = ")),
        "beams[0].reference.directors",
        &["orthonormal", "d1·d1"],
    );
    // left-handed
    let text = edit(
        &bend(),
        "[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]",
        "[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "reference = ")),
        "beams[0].reference.directors",
        &["left-handed", "d3 = d1 × d2"],
    );
}

#[test]
fn joints_and_loads_on_missing_beam_nodes_name_the_valid_ones() {
    let text = edit(&bend(), "body_a = \"bend:start\"", "body_a = \"bend:17\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "body_a = \"bend:17\"")),
        "joints[0].body_a",
        &["nodes 0..=16", ":start, :end"],
    );
    let text = edit(&bend(), "body = \"bend:end\"", "body = \"bent:end\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "body = \"bent:end\"")),
        "loads[0].body",
        &["no beam named \"bent\"", "bend:start", "bend:end"],
    );
    // a whole beam where a node is needed
    let text = edit(&bend(), "body_a = \"bend:start\"", "body_a = \"bend\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "body_a = \"bend\"")),
        "joints[0].body_a",
        &["is a beam", "bend:start"],
    );
}

#[test]
fn a_weld_between_parts_moving_differently_at_t0_is_refused() {
    // the gripper moves, the arm's tip does not: the weld cannot hold its relative placement
    let text = edit(
        &arm(),
        "directors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]\n",
        "directors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]\nvelocity = [0.0, 0.0, 1.0]\n",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "body_b = \"gripper\"")),
        "joints[1].body_b",
        &["initial velocities violate the rigid joint"],
    );
}

#[test]
fn a_frame_tied_twice_is_refused() {
    let text = format!(
        "{}\n[[joints]]\nname = \"again\"\nkind = \"rigid\"\nbody_a = \"arm:start\"\nbody_b = \"gripper\"\n",
        arm()
    );
    let c = check(&text);
    assert_eq!(c.output.status.code(), Some(2), "{}", c.stderr);
    assert!(c.stderr.contains("already tied"), "{}", c.stderr);
}

#[test]
fn a_reference_with_a_kink_is_refused() {
    let text = edit(
        &bend(),
        "reference = { kind = \"curved\", start = [0.0, 0.0, 0.0], directors = [[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]], length = 78.53981633974483, curvature = [0.01, 0.0, 0.0] }",
        "elements_unused = 0\nreference = { kind = \"nodes\", positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]], frames = [[[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] }",
    )
    .replace("elements_unused = 0\n", "")
    .replace("elements = 8\norder = 2", "elements = 1\norder = 2");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "reference = ")),
        "beams[0].reference.positions[1]",
        &["turns by 90.0°", "kink"],
    );
}

#[test]
fn static_and_dynamic_tables_do_not_mix() {
    let text = format!("{}\n[time]\nend = 1.0\n", bend());
    assert_problem(
        &check(&text),
        Some(line_of(&text, "[time]")),
        "time",
        &["not used by analysis = \"static\""],
    );
    let text = edit(&arm(), "[time]", "[statics]\nload_steps = 3\n\n[time]");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "[statics]")),
        "statics",
        &["only for analysis = \"static\""],
    );
}

#[test]
fn a_static_solve_that_fails_reports_the_load_factor_with_exit_3() {
    // a free beam (no clamp) has no static equilibrium under a load
    let text = edit(
        &bend(),
        "kind = \"rigid\"\nbody_a = \"bend:start\"\nbody_b = \"ground\"",
        "kind = \"spherical\"\nbody_a = \"bend:start\"\nbody_b = \"ground\"",
    );
    let c = stmech(&text, &["run", "s.toml", "--no-plots"]);
    assert_eq!(c.output.status.code(), Some(3), "{}", c.stderr);
    assert!(!c.stderr.contains("panicked"), "{}", c.stderr);
    assert!(
        c.stderr.contains("load factor") || c.stderr.contains("support or joint"),
        "{}",
        c.stderr
    );
}
