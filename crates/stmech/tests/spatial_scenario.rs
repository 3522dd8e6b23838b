//! Scenarios of the spatial inverse problem (`analysis = "inverse"`, issue 16): the examples
//! load; every field is refused when invalid, with its field path, its line and a remedy, all
//! problems of a file at once; the checks the solver makes before solving (mesh ratio, start
//! pose, rotation range, the method's own) are made by the validation with the solver's
//! message; a welded body's path becomes the tip's.

use std::path::{Path, PathBuf};
use stmech::error::InputError;
use stmech::inverse::NewtonSettings;
use stmech::inverse::spatial::{solve_with, wave_speeds};
use stmech::inverse::trajectory::pose::PoseTrajectory;
use stmech::io::load::{AnyScenario, load_text};
use stmech::io::scenario::{BaseActuation, ScenarioError, SpatialInverseScenario};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial_inverse")
}

fn example(name: &str) -> String {
    std::fs::read_to_string(examples_dir().join(name)).unwrap()
}

const ALL: [&str; 4] = [
    "01_helix_twist.toml",
    "02_line.toml",
    "03_circle.toml",
    "04_csv_poses.toml",
];

fn load_in(text: &str, dir: &Path) -> Result<Box<SpatialInverseScenario>, ScenarioError> {
    match load_text(text, "s.toml", dir)? {
        AnyScenario::SpatialInverse(s) => Ok(s),
        other => panic!("not a spatial inverse scenario: {other:?}"),
    }
}

fn load(text: &str) -> Result<Box<SpatialInverseScenario>, ScenarioError> {
    load_in(text, &examples_dir())
}

/// `text` with `from` replaced by `to`; `from` must occur.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "the text does not contain {from:?}");
    text.replacen(from, to, 1)
}

/// Every problem: (field, line, message).
fn problems_in(text: &str, dir: &Path) -> Vec<(String, Option<usize>, String)> {
    match load_in(text, dir) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(ScenarioError::Located {
            problems, lines, ..
        }) => problems
            .into_iter()
            .zip(lines)
            .map(|(p, l)| match p {
                InputError::Invalid { field, message } => (field, l, message),
                other => ("?".into(), l, other.to_string()),
            })
            .collect(),
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn problems(text: &str) -> Vec<(String, Option<usize>, String)> {
    problems_in(text, &examples_dir())
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the text"))
        + 1
}

/// `text` is refused with a problem of `field` (at `line`, if given) whose message contains
/// every one of `words`.
fn refused(text: &str, field: &str, line: Option<usize>, words: &[&str]) {
    refused_in(text, &examples_dir(), field, line, words);
}

fn refused_in(text: &str, dir: &Path, field: &str, line: Option<usize>, words: &[&str]) {
    let ps = problems_in(text, dir);
    let Some((_, l, m)) = ps.iter().find(|(f, _, _)| f == field) else {
        panic!("no problem of {field}: {ps:#?}");
    };
    if let Some(line) = line {
        assert_eq!(*l, Some(line), "{field}: {m}");
    }
    for w in words {
        assert!(m.contains(w), "{field}: {w:?} not in {m:?}");
    }
}

#[test]
fn examples_load_with_their_setup() {
    for name in ALL {
        let s = load(&example(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.beam_name, "arm");
        assert_eq!(s.actuation, BaseActuation::Force);
        // the auto mesh: sideways Courant number 1 of the slowest family (or just below)
        let c = wave_speeds(&s.beam.section).min();
        let mu = s.beam.length / s.mesh.elements_s as f64 / (c * s.mesh.ht());
        assert!(
            s.mesh_auto && mu <= 1.0 + 1e-9 && mu > 0.9,
            "{name}: μ = {mu}"
        );
        // the tip path starts at the tip's rest pose
        let tip0 = s.tip_path().state(s.mesh.t_start).pose;
        let r0 = s.beam.rest_position(s.beam.length);
        assert!(
            (0..3).all(|k| (tip0.position[k] - r0[k]).abs() < 1e-12),
            "{name}"
        );
    }
    // 01: exactly the arm and path of tests/spatial_inverse.rs (helix_arm(1.0), helix_path)
    let s = load(&example("01_helix_twist.toml")).unwrap();
    let tip = s.beam.tip.unwrap();
    let expect = stmech::model::MassProperties::from_box([0.2, 0.2, 0.2], 125.0, [0.0, 0.0, -0.1]);
    assert!((tip.mass - expect.mass).abs() < 1e-15);
    for k in 0..3 {
        assert!((tip.first_moment[k] - expect.first_moment[k]).abs() < 1e-15);
        for l in 0..3 {
            assert!((tip.euler_tensor[k][l] - expect.euler_tensor[k][l]).abs() < 1e-15);
        }
    }
    assert_eq!(s.tracked, "gripper");
    assert_eq!((s.mesh.elements_s, s.mesh.elements_t), (32, 192));
    let w = wave_speeds(&s.beam.section);
    assert!(
        (w.min() - 1.0).abs() < 1e-12 && (w.max() - 2.0).abs() < 1e-12,
        "{w:?}"
    );
    let end = s.trajectory.state(6.0).pose;
    assert!((end.position[0]).abs() < 1e-15 && (end.position[1] - 1.0).abs() < 1e-15);
    assert!((end.position[2] - 0.5).abs() < 1e-15);
    // the frame twisted by 90° about x: d1 = e2 → e3
    assert!(
        (end.directors[0][2] - 1.0).abs() < 1e-15,
        "{:?}",
        end.directors
    );
    // 03 tracks a body 0.05 m ahead of the tip: its path converts to the tip's
    let s = load(&example("03_circle.toml")).unwrap();
    assert!(s.tracks_body());
    for t in [1.5, 2.5, 3.7] {
        let (b, tip) = (s.trajectory.state(t).pose, s.tip_path().state(t).pose);
        let back = s.tracked_pose(&tip);
        for k in 0..3 {
            assert!((back.position[k] - b.position[k]).abs() < 1e-14);
        }
        // the tip is 0.05 m behind the body's centre along d3 (the frame keeps its
        // orientation: along x)
        assert!((b.position[0] - tip.position[0] - 0.05).abs() < 1e-14);
    }
    // 04 reads the CSV (quaternions) and tracks the body
    let s = load(&example("04_csv_poses.toml")).unwrap();
    assert_eq!(s.path_kind, "csv");
    assert_eq!(s.input_files, vec![examples_dir().join("04_csv_poses.csv")]);
    let (on, off) = s.trajectory.motion_interval().unwrap();
    assert!(
        (1.45..=1.6).contains(&on) && (4.4..=4.55).contains(&off),
        "{on} {off}"
    );
}

/// The spatial example of docs/scenarios.md is a valid scenario (the docs test checks only the
/// first example of each section).
#[test]
fn the_documented_example_is_valid() {
    let doc = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md"),
    )
    .unwrap();
    let at = doc.find("### Spatial inverse dynamics").unwrap();
    let block = &doc[at..];
    let start = block.find("```toml\n").unwrap() + 8;
    let end = start + block[start..].find("```").unwrap();
    let s = load(&block[start..end]).unwrap();
    assert_eq!(s.tracked, "gripper");
}

#[test]
fn every_problem_of_a_file_is_reported_with_its_field_and_line() {
    let text = example("01_helix_twist.toml");
    let bad = edit(&text, "rise = 0.5", "rise = 0.5\nspin = 2.0");
    let bad = edit(&bad, "actuation = \"force\"", "actuation = \"torque\"");
    let bad = edit(
        &bad,
        "kind = \"straight\"",
        "kind = \"curved\", curvature = [0.1, 0.0, 0.0]",
    );
    let bad = edit(&bad, "density = 125.0", "density = -125.0");
    let bad = edit(&bad, "t0 = 2.0", "t0 = 0.5");
    let ps = problems(&bad);
    let fields: Vec<&str> = ps.iter().map(|p| p.0.as_str()).collect();
    for f in [
        "inverse.trajectory.spin",
        "inverse.actuation",
        "beams[0].reference.kind",
        "bodies[0].box.density",
    ] {
        assert!(fields.contains(&f), "{f} not in {ps:#?}");
    }
    for (f, l, m) in &ps {
        assert!(l.is_some(), "{f} has no line: {m}");
    }
    let (_, l, m) = ps
        .iter()
        .find(|p| p.0 == "inverse.trajectory.spin")
        .unwrap();
    assert_eq!(*l, Some(line_of(&bad, "spin = 2.0")));
    assert!(
        m.contains("unknown field") && m.contains("remove it"),
        "{m}"
    );
    let (_, _, m) = ps.iter().find(|p| p.0 == "inverse.actuation").unwrap();
    assert!(m.contains("force") && m.contains("motion"), "{m}");
}

#[test]
fn bad_trajectory_kinds_and_fields_are_refused() {
    let text = example("01_helix_twist.toml");
    let bad = edit(&text, "kind = \"helix\"", "kind = \"spiral\"");
    refused(
        &bad,
        "inverse.trajectory.kind",
        Some(line_of(&bad, "kind = \"spiral\"")),
        &["line", "circle", "helix", "csv"],
    );
    // the kind decides the other fields: a misspelt kind is one problem, not one per field
    assert_eq!(problems(&bad).len(), 1, "{:#?}", problems(&bad));
    // a line has no centre
    let bad = edit(
        &example("02_line.toml"),
        "delta = [-0.3, 0.4, 0.0]",
        "delta = [-0.3, 0.4, 0.0]\ncenter = [0.0, 0.0, 0.0]",
    );
    refused(&bad, "inverse.trajectory.center", None, &["unknown field"]);
    // a helix needs its rise
    let bad = edit(&text, "rise = 0.5 # m along the axis\n", "");
    refused(&bad, "inverse.trajectory.rise", None, &["required"]);
    // a zero axis
    let bad = edit(&text, "axis = [0.0, 0.0, 1.0]", "axis = [0.0, 0.0, 0.0]");
    refused(
        &bad,
        "inverse.trajectory.axis",
        Some(line_of(&bad, "axis = [0.0, 0.0, 0.0]")),
        &["non-zero"],
    );
    // a frame angle without its axis, and an axis without an angle
    let bad = edit(&text, "frame_axis = [1.0, 0.0, 0.0]\n", "");
    refused(
        &bad,
        "inverse.trajectory.frame_axis",
        None,
        &["required with frame_angle"],
    );
    let bad = edit(
        &example("03_circle.toml"),
        "angle = 6.283185307179586",
        "angle = 6.283185307179586\nframe_axis = [0.0, 0.0, 1.0]",
    );
    refused(
        &bad,
        "inverse.trajectory.frame_axis",
        None,
        &["frame_angle"],
    );
    // a non-positive duration
    let bad = edit(&text, "duration = 2.0", "duration = 0.0");
    refused(&bad, "inverse.trajectory.duration", None, &["> 0"]);
    // a motion that starts before the time domain
    let bad = edit(&text, "t0 = 2.0", "t0 = -1.0");
    refused(&bad, "inverse.trajectory.t0", None, &["before time.start"]);
}

#[test]
fn frames_that_are_not_rotations_are_refused() {
    let text = example("01_helix_twist.toml");
    // the body's directors (its box needs orthonormal ones; the inverse analysis a rotation)
    let bad = edit(
        &text,
        "directors = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]] # the arm's tip frame",
        "directors = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]",
    );
    refused(&bad, "bodies[0].directors", None, &["reflection"]);
    // the beam's directors, left-handed
    let bad = edit(
        &example("02_line.toml"),
        "directors = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]",
        "directors = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]",
    );
    refused(&bad, "beams[0].reference.directors", None, &["left-handed"]);
    // a CSV row whose quaternion is not of norm 1: its line is named
    let dir = tempfile::tempdir().unwrap();
    let csv = example("04_csv_poses.csv");
    let bad_csv: Vec<String> = csv
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 150 {
                let mut c: Vec<String> = l.split(',').map(str::to_owned).collect();
                for v in &mut c[4..] {
                    *v = (v.parse::<f64>().unwrap() * 1.01).to_string();
                }
                c.join(",")
            } else {
                l.to_owned()
            }
        })
        .collect();
    std::fs::write(dir.path().join("04_csv_poses.csv"), bad_csv.join("\n")).unwrap();
    let text = example("04_csv_poses.toml");
    refused_in(
        &text,
        dir.path(),
        "inverse.trajectory.path",
        Some(line_of(&text, "path = ")),
        &["line 151", "not a rotation", "Normalise"],
    );
    // the declared rotation columns must be the file's
    let bad = edit(&text, "rotation = \"quaternion\"", "rotation = \"matrix\"");
    refused(
        &bad,
        "inverse.trajectory.rotation",
        None,
        &["\"quaternion\"", "4 columns"],
    );
}

/// A CSV of the helix path of example 01 whose frame turns at a constant rate from t = 2 s:
/// the angular velocity jumps (first missing derivative: the velocity), and, with a smooth
/// frame but a kinked acceleration, the tip body needs the second derivative.
#[test]
fn a_pose_csv_that_is_not_smooth_enough_names_the_derivative() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, f: &dyn Fn(f64) -> ([f64; 3], f64)| {
        let mut s = String::from("t,x,y,z,rx,ry,rz\n");
        for k in 0..=600 {
            let t = 6.0 * k as f64 / 600.0;
            let (p, a) = f(t);
            // the tip frame of example 02 (d1 = e2, d2 = e3, d3 = e1) turned by a about z
            let q0 = stmech::math::rotation::quat_from_frame(&[
                [0.0, 1.0, 0.0],
                [0.0, 0.0, 1.0],
                [1.0, 0.0, 0.0],
            ]);
            let qa = stmech::math::rotation::quat_from_rotation_vector(&[0.0, 0.0, a]);
            let q = stmech::math::rotation::quat_mul(&qa, &q0);
            let r = stmech::math::rotation::rotation_vector_of_quat(&q);
            s.push_str(&format!(
                "{t},{},{},{},{},{},{}\n",
                p[0], p[1], p[2], r[0], r[1], r[2]
            ));
        }
        std::fs::write(dir.path().join(name), s).unwrap();
    };
    // the frame starts turning at a constant rate at t = 2 s
    write("kink.csv", &|t| {
        ([1.0, 0.0, 0.0], 0.2 * (t - 2.0).clamp(0.0, 2.0))
    });
    let text = edit(
        &example("02_line.toml"),
        "kind = \"line\"\ndelta = [-0.3, 0.4, 0.0] # m\nframe_axis = [0.0, 0.0, 1.0]\nframe_angle = 0.5 # rad\nt0 = 2.0\nduration = 2.0",
        "kind = \"csv\"\npath = \"kink.csv\"",
    );
    refused_in(
        &text,
        dir.path(),
        "inverse.trajectory.path",
        None,
        &[
            "not smooth enough",
            "of the frame",
            "velocity γ' jumps",
            "t = 2",
        ],
    );
    // a parabolic position ramp: continuous velocity, jumping acceleration; fine for the free
    // end, refused with a tip body
    let ramp = |t: f64| {
        let u = (t - 2.0).clamp(0.0, 2.0);
        let x = if u < 1.0 {
            0.05 * u * u
        } else {
            0.05 * (2.0 - (2.0 - u) * (2.0 - u))
        };
        ([1.0, x, 0.0], 0.0)
    };
    write("ramp.csv", &ramp);
    let free = edit(&text, "kink.csv", "ramp.csv");
    load_in(&free, dir.path()).unwrap_or_else(|e| panic!("free end: {e}"));
    let with_body = format!(
        "{free}\n[[bodies]]\nname = \"tool\"\nmass = 0.5\neuler_tensor = [[0.01, 0.0, 0.0], \
         [0.0, 0.01, 0.0], [0.0, 0.0, 0.01]]\nposition = [1.0, 0.0, 0.0]\ndirectors = [[0.0, \
         1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]\n\n[[joints]]\nkind = \"rigid\"\nbody_a = \
         \"arm:end\"\nbody_b = \"tool\"\n"
    );
    let with_body = edit(&with_body, "[inverse]\n", "[inverse]\ntrack = \"tool\"\n");
    refused_in(
        &with_body,
        dir.path(),
        "inverse.trajectory.path",
        None,
        &["position", "acceleration", "order 2"],
    );
}

#[test]
fn a_time_domain_too_short_for_the_slowest_wave_is_refused() {
    let text = example("01_helix_twist.toml");
    // pre-actuation: L/c_min = 1 s (torsion and bending about d1, d2: 1 m/s)
    let bad = edit(&text, "start = 0.0", "start = 1.5");
    refused(
        &bad,
        "time.start",
        Some(line_of(&bad, "start = 1.5")),
        &["pre-actuation", "L/c_min = 1.0000 s", "time.start ≤ 1.0000"],
    );
    // post-actuation
    let bad = edit(&text, "end = 6.0", "end = 4.5");
    refused(
        &bad,
        "time.end",
        None,
        &["post-actuation", "time.end ≥ 5.0000"],
    );
}

#[test]
fn a_mesh_violating_the_ratio_and_bad_mesh_counts_are_refused() {
    let text = example("01_helix_twist.toml");
    // μ = hs/(c ht) = (1/32)/(6/1000) = 5.2 > 2
    let bad = edit(&text, "# elements_t = 192", "elements_t = 1000");
    refused(
        &bad,
        "inverse.elements_t",
        Some(line_of(&bad, "elements_t = 1000")),
        &[
            "sideways CFL",
            "at most 384 time elements",
            "beams[0].elements",
        ],
    );
    // 384 is the largest that passes
    load(&edit(&text, "# elements_t = 192", "elements_t = 384")).unwrap();
    let bad = edit(&text, "# elements_t = 192", "elements_t = 0");
    refused(&bad, "inverse.elements_t", None, &["between 1 and"]);
    // too many unknowns for the auto mesh
    let bad = edit(&text, "elements = 32", "elements = 20000");
    refused(
        &bad,
        "beams[0].elements",
        None,
        &["unknowns", "coarser mesh"],
    );
}

#[test]
fn what_the_inverse_analysis_does_not_model_is_refused() {
    let text = example("01_helix_twist.toml");
    let line_text = example("02_line.toml");
    // two beams
    let bad = format!(
        "{line_text}\n[[beams]]\nname = \"second\"\nelements = 2\nsection = {{ ea = 1.0, ga1 = \
         1.0, ga2 = 1.0, ei1 = 1.0, ei2 = 1.0, gj = 1.0, rho_a = 1.0, rho_i1 = 1.0, rho_i2 = 1.0 \
         }}\nreference = {{ kind = \"straight\", start = [0.0, 2.0, 0.0], length = 1.0 }}\n"
    );
    refused(&bad, "beams[1].name", None, &["exactly one beam"]);
    // a curved beam
    let bad = edit(
        &text,
        "kind = \"straight\"",
        "kind = \"curved\", curvature = [0.2, 0.0, 0.0]",
    );
    refused(&bad, "beams[0].reference.kind", None, &["straight"]);
    // gravity (a load)
    let bad = format!(
        "{text}\n[[loads]]\nbody = \"arm\"\nkind = \"body-force\"\nvector = [0.0, 0.0, -9.81]\n"
    );
    refused(
        &bad,
        "loads[0].kind",
        Some(line_of(&bad, "kind = \"body-force\"")),
        &["no loads", "gravity"],
    );
    // a clamp at the base
    let bad = format!(
        "{text}\n[[joints]]\nname = \"clamp\"\nkind = \"rigid\"\nbody_a = \"arm:start\"\nbody_b = \
         \"ground\"\n"
    );
    refused(
        &bad,
        "joints[1].body_b",
        None,
        &["no clamp", "inverse.actuation = \"motion\""],
    );
    // another joint kind
    let bad = edit(&text, "kind = \"rigid\"", "kind = \"spherical\"");
    refused(&bad, "joints[0].kind", None, &["weld", "remove the joint"]);
    // quadratic elements
    let bad = edit(&text, "elements = 32 #", "order = 2\nelements = 32 #");
    refused(
        &bad,
        "beams[0].order",
        Some(line_of(&bad, "order = 2")),
        &["bilinear", "order = 1"],
    );
    load(&edit(
        &text,
        "elements = 32 #",
        "order = 1\nelements = 32 #",
    ))
    .unwrap();
    // viscosity
    let bad = edit(
        &text,
        "rho_i2 = 1.0 }",
        "rho_i2 = 1.0, tau_s = 0.01, tau_e = 0.01 }",
    );
    refused(
        &bad,
        "beams[0].section.tau_s",
        None,
        &["elastic", "remove tau_s"],
    );
    // an initial velocity of the arm and of the body
    let bad = edit(
        &text,
        "elements = 32 #",
        "velocity = [0.0, 0.1, 0.0]\nelements = 32 #",
    );
    refused(&bad, "beams[0].velocity", None, &["at rest"]);
    let bad = edit(
        &text,
        "position = [1.0, 0.0, 0.0] # m",
        "angular_velocity = [0.0, 0.0, 1.0]\nposition = [1.0, 0.0, 0.0] # m",
    );
    refused(&bad, "bodies[0].angular_velocity", None, &["at rest"]);
    // [method] and [statics]
    let bad = format!("{text}\n[method]\nkind = \"midpoint\"\nstep = 0.01\n");
    refused(
        &bad,
        "method",
        Some(line_of(&bad, "[method]")),
        &["inverse.method", "remove the table"],
    );
    // a body that is not welded
    let bad = edit(
        &text,
        "[[joints]]\nname = \"weld\"\nkind = \"rigid\"\nbody_a = \"arm:end\"\nbody_b = \"gripper\"\n",
        "",
    );
    refused(
        &bad,
        "bodies[0].name",
        None,
        &["welded", "body_a = \"arm:end\""],
    );
    // two bodies
    let bad = format!(
        "{text}\n[[bodies]]\nname = \"extra\"\nmass = 1.0\neuler_tensor = [[1.0, 0.0, 0.0], [0.0, \
         1.0, 0.0], [0.0, 0.0, 1.0]]\n"
    );
    refused(&bad, "bodies[1].name", None, &["at most one body"]);
    // a tracked frame that cannot be prescribed
    let bad = edit(&text, "track = \"gripper\"", "track = \"arm:start\"");
    refused(&bad, "inverse.track", None, &["\"arm:end\"", "\"gripper\""]);
    // no [inverse], and [inverse] in a dynamic analysis
    let bad = edit(&line_text, "[inverse]\n", "[elsewhere]\n");
    assert!(!problems(&bad).is_empty());
    let bad = edit(
        &line_text,
        "analysis = \"inverse\"",
        "analysis = \"dynamic\"",
    );
    refused(&bad, "inverse", None, &["only for analysis = \"inverse\""]);
    // verify tolerances
    let bad = format!("{text}\n[inverse.verify]\nposition_tolerance = -1.0\n");
    refused(&bad, "inverse.verify.position_tolerance", None, &["> 0"]);
}

/// The solver's own checks are the validation's, with the solver's message.
#[test]
fn the_solvers_checks_are_made_by_the_validation() {
    let text = example("01_helix_twist.toml");
    // rotation range: the frame turns by 7 rad (beyond 0.9 · 2π); the time is named
    let bad = edit(
        &text,
        "frame_angle = 1.5707963267948966",
        "frame_angle = 7.0",
    );
    refused(
        &bad,
        "inverse.trajectory.frame_angle",
        None,
        &["turns by", "t = ", "split the manoeuvre"],
    );
    // start pose: a centre so far away that round-off moves the start of the arc
    let bad = edit(
        &text,
        "center = [0.0, 0.0, 0.0]",
        "center = [1e17, 0.0, 0.0]",
    );
    refused(&bad, "inverse.trajectory.center", None, &["rest pose"]);
    // the method of characteristics: its own check (not available yet, or its pre-actuation)
    let bad = edit(
        &text,
        "method = \"space-time\"",
        "method = \"characteristics\"",
    );
    let s = load(&text).unwrap();
    let solver = stmech::inverse::spatial::solve::check_method(
        stmech::inverse::InverseMethod::Characteristics,
        &s.beam,
        &s.mesh,
        &s.tip_path(),
    );
    match solver {
        Err(e) => {
            let ps = problems(&bad);
            let msg = e.to_string();
            assert!(
                ps.iter().any(|(_, _, m)| msg.contains(m.as_str())),
                "the validation does not give the solver's message {msg:?}: {ps:#?}"
            );
        }
        Ok(()) => {
            load(&bad).unwrap();
        }
    }
}

/// A welded body's path becomes the tip's: tracking the body or the tip of example 01 (the
/// body's frame is the tip's) gives the same actuation; with the body's reference point
/// offset, the solve still follows the body's path.
#[test]
fn tracking_the_body_or_the_tip_of_example_01_is_the_same_problem() {
    let text = edit(
        &example("01_helix_twist.toml"),
        "elements = 32",
        "elements = 6",
    );
    let by_body = load(&text).unwrap();
    let by_tip = load(&edit(&text, "track = \"gripper\"", "track = \"arm:end\"")).unwrap();
    assert!(by_body.tracks_body() && !by_tip.tracks_body());
    let settings = NewtonSettings::default();
    let solve = |s: &SpatialInverseScenario| {
        let path = s.tip_path();
        solve_with(s.method, &s.beam, &s.mesh, &path, &settings).unwrap()
    };
    let (a, b) = (solve(&by_body), solve(&by_tip));
    for j in 0..a.solution.t.len() {
        let (fa, ma) = a.solution.base_actuation(j);
        let (fb, mb) = b.solution.base_actuation(j);
        for k in 0..3 {
            assert!((fa[k] - fb[k]).abs() < 1e-12 && (ma[k] - mb[k]).abs() < 1e-12);
        }
    }
}
