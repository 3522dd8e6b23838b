//! `stmech check` on malformed and non-physical scenarios of all three problem types: each
//! case must exit with 2 and name the field path, its line in the file and a remedy.
//!
//! The cases edit the real example files (an edit that no longer matches fails loudly), and
//! the expected line is looked up in the edited text, so comments added to the examples do
//! not break the tests. Cases already covered in `cli.rs` and `beam_cli.rs` (syntax error,
//! misspelt field, negative density, zero elements per block, end before start, load on a
//! missing body, non-rigid director velocities, zero axial stiffness, mesh ratio, CSV
//! trajectories) are not repeated here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rigid() -> String {
    example("rigid_body/02_rectangular_torque.toml")
}

fn pendulum() -> String {
    example("multibody/01_double_pendulum.toml")
}

fn beam() -> String {
    example("beam/01_cantilever_elastica.toml")
}

fn inverse() -> String {
    example("beam_inverse/example_3_2.toml")
}

/// `text` with the first `from` replaced by `to`; `from` must occur.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(
        text.contains(from),
        "the example no longer contains {from:?}: update the test"
    );
    text.replacen(from, to, 1)
}

/// 1-based line of the first line of `text` containing `needle`.
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

/// Runs `stmech check s.toml` on `text` in a fresh directory.
fn check(text: &str) -> Checked {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    check_in(dir.path(), &["check", "s.toml"])
}

fn check_in(dir: &Path, args: &[&str]) -> Checked {
    let output = Command::new(env!("CARGO_BIN_EXE_stmech"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the stmech binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    Checked { output, stderr }
}

/// Exit code 2, and stderr has the problem `line <line>: <field>: ...` (or `- <field>: ...`
/// for a field without a line) mentioning every hint.
fn assert_problem(c: &Checked, line: Option<usize>, field: &str, hints: &[&str]) {
    assert_eq!(c.output.status.code(), Some(2), "stderr:\n{}", c.stderr);
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

// ---------------------------------------------------------------------------------------
// Rigid bodies and multibody systems

#[test]
fn rigid_missing_required_field_is_reported_at_its_table() {
    let text = edit(&rigid(), "end = 4.0", "");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "[time]")),
        "time.end",
        &["missing", "add it"],
    );
}

#[test]
fn rigid_wrong_type_names_the_expected_type() {
    let text = edit(&rigid(), "blocks = 20", "blocks = \"20\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "blocks = \"20\"")),
        "method.blocks",
        &["invalid type", "expected i64"],
    );
}

#[test]
fn rigid_unknown_method_kind_lists_the_choices() {
    let text = edit(&rigid(), "kind = \"space-time\"", "kind = \"spacetime\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "\"spacetime\"")),
        "method.kind",
        &["unknown variant", "`space-time`", "`midpoint`"],
    );
}

#[test]
fn rigid_zero_newton_tolerance() {
    let text = edit(&rigid(), "tolerance = 1e-10", "tolerance = 0.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "tolerance = 0.0")),
        "newton.tolerance",
        &["between 1e-15 and 1e-2", "default is 1e-10"],
    );
}

#[test]
fn rigid_step_with_space_time_is_refused() {
    let text = edit(&rigid(), "blocks = 20", "blocks = 20\nstep = 1e-3");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "step = 1e-3")),
        "method.step",
        &["only for time stepping", "remove step"],
    );
}

#[test]
fn rigid_zero_box_edge() {
    let text = edit(
        &rigid(),
        "edges = [2.0, 1.0, 1.0]",
        "edges = [2.0, 0.0, 1.0]",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "edges = [2.0, 0.0, 1.0]")),
        "bodies[0].box.edges[1]",
        &["must be positive"],
    );
}

#[test]
fn rigid_nan_velocity_component() {
    let text = edit(
        &rigid(),
        "velocity = [5.0, 5.0, 5.0]",
        "velocity = [5.0, nan, 5.0]",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "nan")),
        "bodies[0].velocity[1]",
        &["finite"],
    );
}

#[test]
fn rigid_window_ending_before_it_starts() {
    let text = edit(&rigid(), "end = 1.5", "end = 0.2");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "end = 0.2")),
        "loads[0].time_function.end",
        &["greater than start"],
    );
}

#[test]
fn unknown_problem_type_lists_the_choices() {
    let text = format!("problem = \"multibody\"\n{}", rigid());
    assert_problem(
        &check(&text),
        Some(1),
        "problem",
        &[
            "unknown problem type",
            "\"beam\"",
            "\"beam-inverse\"",
            "omit",
        ],
    );
}

/// Structural errors (unknown field, wrong type) and invalid values do not hide each other.
#[test]
fn rigid_structural_and_value_errors_are_reported_together() {
    let text = edit(&rigid(), "blocks = 20", "block = 20");
    let text = edit(&text, "order = 2", "order = 2.5");
    let text = edit(&text, "density = 1.5", "density = -1.5");
    let c = check(&text);
    assert_problem(
        &c,
        Some(line_of(&text, "block = 20")),
        "method.block",
        &[
            "unknown field",
            "`blocks`",
            "remove it or correct its spelling",
        ],
    );
    assert_problem(
        &c,
        Some(line_of(&text, "order = 2.5")),
        "method.order",
        &["invalid type"],
    );
    assert_problem(
        &c,
        Some(line_of(&text, "density = -1.5")),
        "bodies[0].box.density",
        &["must be positive"],
    );
    assert!(c.stderr.contains("3 problems"), "{}", c.stderr);
}

#[test]
fn multibody_joint_to_a_missing_body() {
    let text = edit(&pendulum(), "body_b = \"upper\"", "body_b = \"middle\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "\"middle\"")),
        "joints[1].body_b",
        &["no body or beam named \"middle\"", "ground, upper, lower"],
    );
}

#[test]
fn multibody_joint_violated_at_the_start() {
    // rod1 is 4 m long initially
    let text = edit(
        &pendulum(),
        "point_b = [0.0, 0.0, 0.0] # global position of the pivot (m)",
        "point_b = [0.0, 0.0, 0.0]\nlength = 3.0",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "point_b = [0.0, 0.0, 0.0]")),
        "joints[0].point_b",
        &[
            "violated in the initial configuration",
            "length is 3",
            "move the bodies",
        ],
    );
}

#[test]
fn multibody_initial_velocity_violates_a_joint() {
    // the upper body moves away from the pivot: G v ≠ 0 for rod1
    let text = edit(
        &example("multibody/03_double_pendulum_3d.toml"),
        "velocity = [0.0, 1.0, 0.0]           # m/s",
        "velocity = [1.0, 1.0, 0.0]",
    );
    let c = check(&text);
    assert_eq!(c.output.status.code(), Some(2), "{}", c.stderr);
    let line = line_of(&text, "body_b = \"ground\"");
    assert_problem(
        &c,
        Some(line),
        "joints[0].body_b",
        &[
            "initial velocities violate the distance joint",
            "compatible",
        ],
    );
}

#[test]
fn multibody_duplicate_body_name() {
    let text = edit(&pendulum(), "name = \"lower\"", "name = \"upper\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "box = { edges = [0.8") - 1),
        "bodies[1].name",
        &["duplicate body name", "unique"],
    );
}

// ---------------------------------------------------------------------------------------
// Planar beams

#[test]
fn beam_with_zero_elements() {
    let text = edit(&beam(), "elements = 10", "elements = 0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "elements = 0")),
        "beam.elements",
        &["at least one element", "e.g. 10"],
    );
}

#[test]
fn beam_with_zero_length() {
    let text = edit(&beam(), "length = 1.0 # m", "length = 0.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "length = 0.0")),
        "beam.length",
        &["> 0"],
    );
}

#[test]
fn beam_with_negative_bending_stiffness() {
    let text = edit(&beam(), "ei = 1.0", "ei = -1.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "ei = -1.0")),
        "beam.section.ei",
        &["bending stiffness", "> 0"],
    );
}

#[test]
fn beam_with_zero_mass_density() {
    let text = edit(&beam(), "rho_a = 1.0", "rho_a = 0.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "rho_a = 0.0")),
        "beam.section.rho_a",
        &["mass per unit length", "small positive value"],
    );
}

#[test]
fn beam_with_unknown_law() {
    let text = edit(&beam(), "law = \"quadratic\"", "law = \"linear\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "\"linear\"")),
        "beam.law",
        &["unknown variant", "`quadratic`", "`log`"],
    );
}

#[test]
fn beam_missing_section_stiffness() {
    let text = edit(&beam(), " ga = 1e5,", "");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "section = ")),
        "beam.section.ga",
        &["missing"],
    );
}

#[test]
fn beam_load_at_both_an_end_and_a_node() {
    let text = edit(&beam(), "at = \"end\"", "at = \"end\"\nnode = 3");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "at = \"end\"")),
        "loads[0].at",
        &["exactly one of"],
    );
}

#[test]
fn beam_dynamic_analysis_without_its_table() {
    let text = edit(&beam(), "analysis = \"static\"", "analysis = \"dynamic\"");
    let text = edit(&text, "[static]\nsteps = 20", "");
    assert_problem(&check(&text), None, "dynamic", &["[dynamic] table", "step"]);
}

#[test]
fn beam_negative_time_step() {
    let text = edit(
        &example("beam/03_flying_beam.toml"),
        "step = 0.025",
        "step = -0.025",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "step = -0.025")),
        "dynamic.step",
        &["> 0"],
    );
}

#[test]
fn beam_arc_without_curvature() {
    let text = edit(&beam(), "kind = \"straight\"", "kind = \"arc\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "reference = ")),
        "beam.reference.curvature",
        &["required for kind = \"arc\""],
    );
}

#[test]
fn beam_zero_newton_iterations() {
    let text = edit(&beam(), "max_iterations = 30", "max_iterations = 0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "max_iterations = 0")),
        "newton.max_iterations",
        &["between 1 and 1000"],
    );
}

// ---------------------------------------------------------------------------------------
// Beam inverse dynamics

#[test]
fn inverse_without_room_for_the_pre_actuation() {
    // L/c_min = 1 s, the motion starts at t0 = 2 s
    let text = edit(&inverse(), "start = 0.0", "start = 1.5");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "start = 1.5")),
        "time.start",
        &[
            "pre-actuation",
            "L/c_min = 1.0000 s",
            "time.start ≤ 1.0000 s",
        ],
    );
}

#[test]
fn inverse_without_room_for_the_post_actuation() {
    // the motion ends at 4 s
    let text = edit(&inverse(), "end = 6.0", "end = 4.5");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "end = 4.5")),
        "time.end",
        &["post-actuation", "time.end ≥ 5.0000 s"],
    );
}

#[test]
fn inverse_infinite_trajectory_angle() {
    let text = edit(&inverse(), "angle = 1.5707963267948966", "angle = inf");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "angle = inf")),
        "trajectory.angle",
        &["finite"],
    );
}

#[test]
fn inverse_negative_newton_tolerance() {
    let text = edit(&inverse(), "tolerance = 1e-10", "tolerance = -1e-10");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "tolerance = -1e-10")),
        "newton.tolerance",
        &["between 1e-15 and 1e-2", "default is 1e-10"],
    );
}

#[test]
fn inverse_end_before_start() {
    let text = edit(&inverse(), "end = 6.0", "end = -1.0");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "end = -1.0")),
        "time.end",
        &["greater than time.start"],
    );
}

#[test]
fn inverse_mesh_given_twice() {
    let text = edit(
        &inverse(),
        "resolution = 20",
        "resolution = 20\nelements_s = 10",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "[mesh]")),
        "mesh",
        &[
            "either `resolution`",
            "or both `elements_s` and `elements_t`",
        ],
    );
}

#[test]
fn inverse_unknown_trajectory_kind() {
    let text = edit(&inverse(), "kind = \"rest-to-rest\"", "kind = \"circle\"");
    assert_problem(
        &check(&text),
        Some(line_of(&text, "\"circle\"")),
        "trajectory.kind",
        &["unknown variant", "`rest-to-rest-line`", "`csv`"],
    );
}

#[test]
fn inverse_negative_tip_mass() {
    let text = edit(
        &inverse(),
        "[trajectory]",
        "tip = { mass = -0.1 }\n\n[trajectory]",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "mass = -0.1")),
        "beam.tip.mass",
        &["≥ 0"],
    );
}

#[test]
fn inverse_mesh_ratio_violation_has_its_line_and_fix() {
    let text = edit(
        &inverse(),
        "resolution = 20",
        "elements_s = 10\nelements_t = 240",
    );
    assert_problem(
        &check(&text),
        Some(line_of(&text, "[mesh]")),
        "mesh",
        &["sideways CFL", "at most 120 time elements"],
    );
}

// ---------------------------------------------------------------------------------------
// The output directory

/// `check` finds an output directory that `run` could not create (here `out` is a file), and
/// only notes one that exists; it creates nothing.
#[test]
fn check_probes_the_output_directory_without_creating_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("s.toml"), rigid()).unwrap();
    let ok = check_in(d, &["check", "s.toml"]);
    assert_eq!(ok.output.status.code(), Some(0), "{}", ok.stderr);
    let entries = |d: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(entries(d), ["s.toml"], "check must not create anything");

    std::fs::write(d.join("out"), "not a directory").unwrap();
    let blocked = check_in(d, &["check", "s.toml"]);
    assert_eq!(blocked.output.status.code(), Some(4), "{}", blocked.stderr);
    assert!(
        blocked.stderr.contains("could not write its results") && blocked.stderr.contains("out"),
        "{}",
        blocked.stderr
    );

    std::fs::remove_file(d.join("out")).unwrap();
    std::fs::create_dir_all(d.join("out/s")).unwrap();
    let exists = check_in(d, &["check", "s.toml"]);
    assert_eq!(exists.output.status.code(), Some(0), "{}", exists.stderr);
    assert!(exists.stderr.contains("--force"), "{}", exists.stderr);
}
