//! `stmech compare` of a beam-inverse scenario (default: the built-in `[I]` Example 3.2), and
//! the dispatch of `stmech compare` by scenario kind. Runs the space-time FEM and the method of
//! characteristics on the scenario's mesh and the sequential baseline (`[I]` Sect. 2: linear
//! elements in space, one per space element of the mesh, BDF2 with the time step of the mesh,
//! consistent mass); the overlay plot shows the actuation against time per method.
//!
//! Accuracy column: the largest difference of the actuation (all three components, at the
//! method's time nodes) to the method of characteristics on the mesh refined four times in
//! `s` and `t` (second order: its own error is about 1/16 of that on the scenario mesh).

use super::{Verdict, Wording, exit, method_note, outcome};
use crate::Failure;
use crate::console::csv_field;
use crate::inverse_run::{GOAL_NOT_REACHED, Verification, servo_residual, verify};
use crate::plots::Series;
use serde_json::json;
use std::path::{Path, PathBuf};
use stmech::inverse::sequential::{SequentialSettings, solve_sequential};
use stmech::inverse::{
    CharacteristicsSettings, InverseMethod, SpaceTimeMesh, solve_characteristics, solve_with,
};
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::output::OutputDir;
use stmech_app::inverse::NOT_VERIFIED;

/// One row of the table.
struct Row {
    method: String,
    status: String,
    seconds: f64,
    grid: String,
    t: Vec<f64>,
    actuation: Vec<[f64; 3]>,
    /// Servo residual at the nodes (m, rad), space-time and characteristics only.
    servo: Option<[f64; 2]>,
    /// Closed-loop verification (methods that produced an actuation).
    verification: Option<Verification>,
    note: String,
}

impl Row {
    /// Whether the method produced an actuation (failed rows have no results to print).
    fn solved(&self) -> bool {
        self.status == "ok" || self.status == GOAL_NOT_REACHED || self.status == NOT_VERIFIED
    }

    /// Replays the actuation in the forward model ([`Self::with_verification`]).
    fn verify(self, s: &InverseScenario) -> Self {
        if self.status != "ok" {
            return self;
        }
        let samples: Vec<(f64, [f64; 3])> = self
            .t
            .iter()
            .copied()
            .zip(self.actuation.iter().copied())
            .collect();
        let v = verify(s, &samples);
        self.with_verification(v)
    }

    /// Records the closed-loop verification `v`: a result off its path becomes
    /// `goal-not-reached`; one whose replay's Newton did not converge while the tip was within
    /// the tolerance `not-verified` (neither confirmed nor refuted, as `stmech run` says,
    /// exit 6: [`Verification::status`]).
    fn with_verification(mut self, v: Verification) -> Self {
        if let Some(msg) = v.failure() {
            self.status = v.status().into();
            self.note = format!("{msg} ({})", self.note);
        }
        self.verification = Some(v);
        self
    }
}

impl Verdict for Row {
    fn method(&self) -> &str {
        &self.method
    }
    fn status(&self) -> &str {
        &self.status
    }
    fn solved(&self) -> bool {
        Row::solved(self)
    }
}

/// The beam's words in the verdict's messages.
const WORDING: Wording = Wording {
    product: "actuation",
    subject: "tip",
    remedy: "a finer mesh often makes the replay solvable; or switch the check off with \
             verify.closed_loop = false",
};

/// First and last time where `|F|` exceeds `rel` × its peak.
fn activity(t: &[f64], f: &[[f64; 3]], rel: f64) -> (f64, f64) {
    let mag = |f: &[f64; 3]| f.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let peak = f.iter().map(mag).fold(0.0, f64::max);
    let on: Vec<usize> = (0..t.len()).filter(|&j| mag(&f[j]) > rel * peak).collect();
    match (on.first(), on.last()) {
        (Some(&a), Some(&b)) => (t[a], t[b]),
        _ => (f64::NAN, f64::NAN),
    }
}

fn peaks(f: &[[f64; 3]]) -> [f64; 3] {
    let mut p = [0.0f64; 3];
    for v in f {
        for c in 0..3 {
            p[c] = p[c].max(v[c].abs());
        }
    }
    p
}

fn field_row(s: &InverseScenario, method: InverseMethod) -> Row {
    let grid = format!("{} x {}", s.mesh.elements_s, s.mesh.elements_t);
    match solve_with(method, &s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton) {
        Ok(run) => {
            let note = method_note(
                run.march.as_ref(),
                run.solution.newton.iterations,
                run.solution.newton.unknowns,
            );
            Row {
                method: method.name().into(),
                status: "ok".into(),
                seconds: run.seconds,
                grid,
                servo: Some(servo_residual(s, &run.solution)),
                verification: None,
                t: run.solution.t,
                actuation: run.solution.actuation,
                note,
            }
        }
        Err(e) => Row {
            method: method.name().into(),
            status: "failed".into(),
            seconds: f64::NAN,
            grid,
            t: Vec::new(),
            actuation: Vec::new(),
            servo: None,
            verification: None,
            note: e.to_string(),
        },
    }
}

fn sequential_row(s: &InverseScenario) -> Row {
    let settings = SequentialSettings::new(s.mesh.elements_s, s.mesh.ht());
    let grid = format!(
        "{} linear elements, h = {:.4} s (BDF2, consistent mass)",
        settings.elements, settings.step
    );
    match solve_sequential(
        &s.beam,
        s.mesh.t_start,
        s.mesh.t_end,
        s.trajectory.as_ref(),
        &settings,
    ) {
        Ok(run) => {
            let (status, note) = match &run.failure {
                None => (
                    "ok".to_string(),
                    format!("iteration matrix cond {:.2e}", run.condition_number),
                ),
                Some(f) => (
                    format!("failed at t = {:.4} s", f.time),
                    format!(
                        "{} (iteration matrix cond {:.2e})",
                        f.reason, run.condition_number
                    ),
                ),
            };
            Row {
                method: "sequential".into(),
                status,
                seconds: run.seconds,
                grid,
                t: run.t,
                actuation: run.actuation,
                servo: None,
                verification: None,
                note,
            }
        }
        Err(e) => Row {
            method: "sequential".into(),
            status: "failed".into(),
            seconds: f64::NAN,
            grid,
            t: Vec::new(),
            actuation: Vec::new(),
            servo: None,
            verification: None,
            note: e.to_string(),
        },
    }
}

/// `out/compare-<scenario file stem>` (`example_3_2` for the built-in demo).
pub(crate) fn default_out(scenario: Option<&Path>) -> PathBuf {
    let stem = scenario
        .and_then(|p| p.file_stem())
        .map(|x| x.to_string_lossy().into_owned())
        .unwrap_or_else(|| "example_3_2".into());
    PathBuf::from("out").join(format!("compare-{stem}"))
}

/// Runs all methods on `scenario` (a beam-inverse file, a crane file
/// ([`super::crane`]) or a spatial inverse file ([`super::spatial`]), or the built-in demo if `None`).
pub fn run(
    scenario: Option<&Path>,
    out: Option<PathBuf>,
    force: bool,
    limit: stmech::resources::MemoryLimit,
    input_limit: stmech::io::text::InputLimit,
) -> Result<(), Failure> {
    let s = match scenario {
        Some(p) => match stmech::io::load::load_path_limited(p, input_limit)
            .map_err(crate::scenario_failure)?
        {
            stmech::io::load::AnyScenario::BeamInverse(s) => *s,
            stmech::io::load::AnyScenario::Crane(c) => {
                crate::limits::gate(&c.origin, &stmech::resources::estimate_crane(&c), limit)?;
                let out = out.unwrap_or_else(|| default_out(scenario));
                stmech::io::output::refuse_inputs(&out, &[p.to_path_buf()])
                    .map_err(crate::run::output_failure)?;
                return super::crane::run(&c, out, force);
            }
            stmech::io::load::AnyScenario::SpatialInverse(c) => {
                crate::limits::gate(&c.origin, &stmech::resources::estimate_spatial(&c), limit)?;
                let out = out.unwrap_or_else(|| default_out(scenario));
                let mut inputs = c.input_files.clone();
                inputs.push(p.to_path_buf());
                stmech::io::output::refuse_inputs(&out, &inputs)
                    .map_err(crate::run::output_failure)?;
                return super::spatial::compare(&c, out, force);
            }
            _ => {
                return Err(Failure::new(
                    Failure::INPUT,
                    anyhow::anyhow!(
                        "{}: `stmech compare` needs a beam-inverse, crane or spatial inverse \
                         scenario (problem = \"beam-inverse\" or \"crane\", or analysis = \
                         \"inverse\"), see examples/beam_inverse/, examples/crane/ and \
                         examples/spatial_inverse/",
                        p.display()
                    ),
                ));
            }
        },
        None => crate::inverse_run::load_demo()?,
    };
    crate::limits::gate(&s.origin, &stmech::resources::estimate_compare(&s), limit)?;
    let out = out.unwrap_or_else(|| default_out(scenario));
    let mut inputs = s.input_files.clone();
    inputs.extend(scenario.map(Path::to_path_buf));
    stmech::io::output::refuse_inputs(&out, &inputs).map_err(crate::run::output_failure)?;
    let staging = OutputDir::prepare(&out, force).map_err(crate::run::output_failure)?;
    errln!(
        "stmech compare: {}",
        crate::inverse_run::describe(&s).trim_start_matches("ok: ")
    );

    // reference: characteristics, mesh refined 4× in s and t
    let ref_mesh = SpaceTimeMesh {
        elements_s: 4 * s.mesh.elements_s,
        elements_t: 4 * s.mesh.elements_t,
        ..s.mesh
    };
    let reference = solve_characteristics(
        &s.beam,
        &ref_mesh,
        s.trajectory.as_ref(),
        &CharacteristicsSettings::default(),
    )
    .ok()
    .map(|c| c.solution);

    let rows = vec![
        field_row(&s, InverseMethod::SpaceTime).verify(&s),
        field_row(&s, InverseMethod::Characteristics).verify(&s),
        sequential_row(&s).verify(&s),
    ];

    let ref_peak = reference
        .as_ref()
        .map(|r| peaks(&r.actuation).into_iter().fold(0.0, f64::max));
    let mut csv = String::from(
        "method,status,wall_time_s,grid,peak_abs_fx_N,peak_abs_fy_N,peak_abs_m_Nm,\
         active_from_s,active_to_s,max_diff_to_reference,closed_loop_position_error_m,\
         closed_loop_angle_error_rad,servo_residual_at_nodes_m,note\n",
    );
    let mut methods = Vec::new();
    let mut series = Vec::new();
    for row in &rows {
        // a failed method has no results: its peaks, times and differences stay empty
        let solved = row.solved();
        let p = solved.then(|| peaks(&row.actuation));
        let act = solved.then(|| activity(&row.t, &row.actuation, 1e-3));
        let diff = reference.as_ref().filter(|_| solved).map(|r| {
            row.t.iter().zip(&row.actuation).fold(0.0f64, |m, (&t, f)| {
                let g = r.actuation_at(t);
                (0..3).fold(m, |m, c| m.max((f[c] - g[c]).abs()))
            })
        });
        let cl = row.verification.as_ref().and_then(|v| v.report());
        let opt = |v: Option<f64>| v.map(|x| format!("{x:e}")).unwrap_or_default();
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            row.method,
            csv_field(&row.status),
            opt(row.seconds.is_finite().then_some(row.seconds)),
            csv_field(&row.grid),
            opt(p.map(|p| p[0])),
            opt(p.map(|p| p[1])),
            opt(p.map(|p| p[2])),
            act.map(|a| a.0.to_string()).unwrap_or_default(),
            act.map(|a| a.1.to_string()).unwrap_or_default(),
            opt(diff),
            opt(cl.map(|r| r.max_position_error_m)),
            opt(cl.map(|r| r.max_angle_error_rad)),
            opt(row.servo.map(|r| r[0])),
            csv_field(&row.note)
        ));
        match p {
            Some(p) => outln!(
                "{:16} {:18} {:>9.4} s  peak |F| ({:.4}, {:.4}, {:.4})  diff to reference {}  \
                 closed-loop tip error {}",
                row.method,
                row.status,
                row.seconds,
                p[0],
                p[1],
                p[2],
                diff.map(|d| format!("{d:.3e}"))
                    .unwrap_or_else(|| "-".into()),
                match (cl, &row.verification) {
                    (Some(r), _) => format!(
                        "{:.3e} m, {:.3e} rad",
                        r.max_position_error_m, r.max_angle_error_rad
                    ),
                    (None, Some(v)) => v.line(),
                    (None, None) => "-".into(),
                }
            ),
            None => outln!("{:16} {}: {}", row.method, row.status, row.note),
        }
        methods.push(json!({
            "method": row.method,
            "status": row.status,
            "wall_time_seconds": row.seconds,
            "grid": row.grid,
            "peak_abs_actuation": p,
            "active_from": act.map(|a| a.0),
            "active_to": act.map(|a| a.1),
            "max_difference_to_reference": diff,
            "tip_tracking": row.verification.as_ref().map(|v| v.to_json()),
            "servo_residual_at_nodes": row.servo.map(|r| json!({"max_position_m": r[0], "max_angle_rad": r[1]})),
            "error": (!solved).then(|| row.note.clone()),
            "note": row.note,
        }));
        // the overlay: a diverging method is clipped at 3× the reference peak
        let limit = 3.0 * ref_peak.unwrap_or(f64::INFINITY);
        for (c, name) in ["f_x", "f_y", "m"].iter().enumerate() {
            let clipped = row.actuation.iter().any(|f| f[c].abs() > limit);
            series.push(Series {
                label: format!(
                    "{} {name}{}",
                    row.method,
                    if clipped { " (clipped)" } else { "" }
                ),
                points: row
                    .t
                    .iter()
                    .zip(&row.actuation)
                    .filter(|(_, f)| f[c].abs() <= limit)
                    .map(|(&t, f)| (t, f[c]))
                    .collect(),
            });
        }
    }
    let time = |name: &str| {
        rows.iter()
            .find(|r| r.method == name && r.status == "ok")
            .map(|r| r.seconds)
    };
    let ratio = time("space-time")
        .zip(time("characteristics"))
        .map(|(a, b)| a / b);
    if let Some(r) = ratio {
        outln!("wall time space-time / characteristics: {r:.1}");
    }
    // exit code: the two inverse methods stmech offers (`method =`) decide; the sequential
    // baseline is shown for comparison and fails on most problems by design ([I] Sect. 2)
    let offered: Vec<&dyn Verdict> = rows
        .iter()
        .filter(|r| r.method != "sequential")
        .map(|r| r as &dyn Verdict)
        .collect();
    let outcome = outcome(&offered);
    crate::study::write(
        staging,
        crate::study::StudyOutput {
            name: "compare",
            csv,
            title: "Actuation at s = 0 per method (applied to the beam)",
            x_label: "t [s]",
            y_label: "force [N], moment [N m]",
            series,
            summary: json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "study": "all inverse methods on one scenario",
                "scenario": { "origin": s.origin, "input": s.echo },
                "actuation_convention": "force and moment applied by the actuator to the beam at s = 0, global frame (F = -f)",
                "reference": format!(
                    "method of characteristics on {} x {} (mesh refined 4x)",
                    ref_mesh.elements_s, ref_mesh.elements_t
                ),
                "reference_available": reference.is_some(),
                "methods": methods,
                "wall_time_ratio_space_time_to_characteristics": ratio,
                "status": outcome,
            }),
        },
    )?;
    exit(outcome, &offered, &WORDING)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stmech::inverse::closed_loop::TrackingTolerance;

    fn row(method: &str) -> Row {
        Row {
            method: method.into(),
            status: "ok".into(),
            seconds: 0.1,
            grid: "12 x 72".into(),
            t: vec![0.0, 1.0],
            actuation: vec![[0.0; 3], [1.0, 0.0, 0.0]],
            servo: Some([0.0; 2]),
            verification: None,
            note: String::new(),
        }
    }

    /// Issue 29: a method whose closed-loop replay's Newton diverges with the tip within its
    /// tolerance is `not-verified` (exit 6), as in `stmech run`, not `goal-not-reached`.
    #[test]
    fn a_replay_that_diverges_within_tolerance_is_not_verified() {
        let tol = TrackingTolerance {
            position_m: 0.05,
            angle_rad: 0.05,
        };
        let diverged = Verification::Unverified(
            "the forward beam's Newton did not converge at t = 2.5 s (tip within 1e-4 m)".into(),
            tol,
        );
        let fem = row("space-time").with_verification(diverged);
        assert_eq!(fem.status, NOT_VERIFIED);
        assert!(
            Row::solved(&fem) && fem.note.contains("not verified"),
            "{}",
            fem.note
        );
        let chars = row("characteristics");
        assert_eq!(outcome(&[&fem, &chars]), NOT_VERIFIED);
        let err = exit(NOT_VERIFIED, &[&fem, &chars], &WORDING).unwrap_err();
        assert_eq!(err.code, Failure::NOT_VERIFIED);
        assert!(
            err.error.to_string().contains("[space-time]"),
            "{}",
            err.error
        );
        // a result off its path outweighs one that is not verified
        let off = row("characteristics")
            .with_verification(Verification::Failed("the tip strays".into(), tol));
        assert_eq!(off.status, GOAL_NOT_REACHED);
        assert_eq!(outcome(&[&fem, &off]), GOAL_NOT_REACHED);
        assert_eq!(
            exit(GOAL_NOT_REACHED, &[&fem, &off], &WORDING)
                .unwrap_err()
                .code,
            Failure::GOAL_NOT_REACHED
        );
        assert_eq!(outcome(&[&row("space-time"), &chars]), "ok");
    }
}
