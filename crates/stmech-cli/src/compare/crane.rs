//! `stmech compare CRANE.toml`: both inverse methods on one crane scenario (issue 17): the
//! space-time FEM and the method of characteristics on the scenario's mesh, each replayed in
//! the forward rope model (closed loop, `[verify]` of the scenario). Writes `compare.csv`,
//! `summary.json` and `compare.png` (suspension motion against time per method), like the
//! beam's [`super::beam`]; the verdict is [`super`]'s.
//!
//! Difference column: the largest distance between the two methods' suspension motions at the
//! time nodes (and of their forces). The beam's third row, the sequential baseline of `[I]`
//! Sect. 2, has no string counterpart in stmech; the output says so.

use super::{Verdict, Wording, exit, method_note, norm, outcome};
use crate::Failure;
use crate::console::csv_field;
use crate::plots::Series;
use serde_json::json;
use std::path::PathBuf;
use std::time::Instant;
use stmech::inverse::InverseMethod;
use stmech::inverse::crane::{self, CraneSolution, CraneTracking};
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::output::OutputDir;
use stmech_app::crane::{GOAL_NOT_REACHED, replay_failure, rigid_difference, tracking_json};

/// Why there is no sequential row.
const NO_SEQUENTIAL: &str = "the sequential baseline ([I] Sect. 2) of the beam's compare has no \
     string counterpart in stmech: rows for the two field methods only";

struct Row {
    method: InverseMethod,
    status: String,
    seconds: f64,
    solution: Option<CraneSolution>,
    /// The closed loop and its seconds.
    tracking: Option<Result<(CraneTracking, f64), String>>,
    note: String,
}

impl Verdict for Row {
    fn method(&self) -> &str {
        self.method.name()
    }
    fn status(&self) -> &str {
        &self.status
    }
    fn solved(&self) -> bool {
        self.solution.is_some()
    }
}

/// The crane's words in the verdict's messages.
const WORDING: Wording = Wording {
    product: "suspension motion",
    subject: "payload",
    remedy: "a finer replay (verify.refine) or a finer mesh often makes the replay solvable; \
             or switch the check off with verify.closed_loop = false",
};

fn solve_row(s: &CraneScenario, method: InverseMethod) -> Row {
    let started = Instant::now();
    let result =
        crane::solve_crane_with(method, &s.rope, &s.mesh, s.trajectory.as_ref(), &s.newton);
    let seconds = started.elapsed().as_secs_f64();
    match result {
        Ok(sol) => {
            let note = method_note(
                sol.march.as_ref(),
                sol.solution.newton.iterations,
                sol.solution.newton.unknowns,
            );
            let tol = s.position_tolerance();
            let mut status = "ok";
            let tracking = s.verify.closed_loop.then(|| {
                let t = Instant::now();
                crane::closed_loop(&sol, s.trajectory.as_ref(), s.verify.refine)
                    .map(|(r, _)| (r, t.elapsed().as_secs_f64()))
                    .map_err(|e| {
                        // a replay whose own Newton failed with the payload on its path is a
                        // check not done (not verified), not a result off its path
                        status = replay_failure(&e, tol).0;
                        e.to_string()
                    })
            });
            if let Some(Ok((r, _))) = &tracking
                && r.max_deviation > tol
            {
                status = GOAL_NOT_REACHED;
            }
            Row {
                method,
                status: status.into(),
                seconds,
                solution: Some(sol),
                tracking,
                note,
            }
        }
        Err(e) => Row {
            method,
            status: "failed".into(),
            seconds,
            solution: None,
            tracking: None,
            note: e.to_string(),
        },
    }
}

/// Largest distance of the suspension motions and of the forces of `a` and `b` over the time
/// nodes (the same mesh).
fn difference(a: &CraneSolution, b: &CraneSolution) -> (f64, f64) {
    (0..a.solution.t.len().min(b.solution.t.len())).fold((0.0f64, 0.0f64), |(dx, df), j| {
        let (xa, xb) = (a.suspension(j), b.suspension(j));
        let (fa, fb) = (a.solution.actuation[j], b.solution.actuation[j]);
        (
            dx.max(norm(&[xa[0] - xb[0], xa[1] - xb[1], xa[2] - xb[2]])),
            df.max(norm(&[fa[0] - fb[0], fa[1] - fb[1], fa[2] - fb[2]])),
        )
    })
}

/// Runs both methods on the crane scenario `s` and writes the comparison into `out`.
pub fn run(s: &CraneScenario, out: PathBuf, force: bool) -> Result<(), Failure> {
    let staging = OutputDir::prepare(&out, force).map_err(crate::run::output_failure)?;
    errln!(
        "stmech compare: {}",
        crate::crane_run::describe(s).trim_start_matches("ok: ")
    );
    let rows: Vec<Row> = InverseMethod::ALL
        .iter()
        .map(|&m| solve_row(s, m))
        .collect();
    let diff = match (&rows[0].solution, &rows[1].solution) {
        (Some(a), Some(b)) => Some(difference(a, b)),
        _ => None,
    };
    let tol = s.position_tolerance();
    let mut csv = String::from(
        "method,status,wall_time_s,grid,peak_suspension_speed_m_per_s,peak_force_N,\
         max_distance_from_rigid_rope_m,max_suspension_difference_between_methods_m,\
         max_force_difference_between_methods_N,closed_loop_payload_deviation_m,note\n",
    );
    let grid = format!("{} x {}", s.mesh.elements_s, s.mesh.elements_t);
    let mut methods = Vec::new();
    let mut series = Vec::new();
    let opt = |v: Option<f64>| v.map(|x| format!("{x:e}")).unwrap_or_default();
    for row in &rows {
        let sol = row.solution.as_ref();
        let n = sol.map_or(0, |x| x.solution.t.len());
        let peak = |f: &dyn Fn(&CraneSolution, usize) -> f64| {
            sol.map(|x| (0..n).map(|j| f(x, j)).fold(0.0f64, f64::max))
        };
        let speed = peak(&|x, j| norm(&x.suspension_velocity(j)));
        let force_peak = peak(&|x, j| norm(&x.solution.actuation[j]));
        let rigid = sol.map(|x| rigid_difference(s, x).0);
        let dev = match &row.tracking {
            Some(Ok((r, _))) => Some(r.max_deviation),
            _ => None,
        };
        csv.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{}\n",
            row.method.name(),
            csv_field(&row.status),
            opt(Some(row.seconds)),
            csv_field(&grid),
            opt(speed),
            opt(force_peak),
            opt(rigid),
            opt(diff.map(|d| d.0)),
            opt(diff.map(|d| d.1)),
            opt(dev),
            csv_field(&row.note)
        ));
        let tracking_text = match &row.tracking {
            Some(Ok((r, _))) => format!(
                "closed-loop payload deviation {:.3e} m (tolerance {tol:.3e} m)",
                r.max_deviation
            ),
            Some(Err(e)) => format!("forward replay failed: {e}"),
            None => "closed loop not verified (verify.closed_loop = false)".into(),
        };
        match sol {
            Some(_) => outln!(
                "{:16} {:18} {:>9.4} s  peak |F| {:.4} N, peak speed {:.4} m/s; {tracking_text}; {}",
                row.method.name(),
                row.status,
                row.seconds,
                force_peak.unwrap_or(f64::NAN),
                speed.unwrap_or(f64::NAN),
                row.note
            ),
            None => outln!("{:16} {}: {}", row.method.name(), row.status, row.note),
        }
        methods.push(json!({
            "method": row.method.name(),
            "description": row.method.description(),
            "status": row.status,
            "wall_time_seconds": row.seconds,
            "grid": grid,
            "peak_suspension_speed_m_per_s": speed,
            "peak_force_N": force_peak,
            "max_distance_from_rigid_rope_m": rigid,
            "payload_tracking": match &row.tracking {
                Some(Ok((r, secs))) => tracking_json(r, tol, *secs),
                Some(Err(e)) => json!({ "status": "failed", "error": e }),
                None => json!("not verified (verify.closed_loop = false)"),
            },
            "march": sol.and_then(|x| x.march.as_ref()),
            "error": sol.is_none().then(|| row.note.clone()),
            "note": row.note,
        }));
        if let Some(x) = sol {
            for (c, name) in ["x", "y", "z"].iter().enumerate() {
                series.push(Series {
                    label: format!("{} {name}", row.method.name()),
                    points: (0..n)
                        .map(|j| (x.solution.t[j], x.suspension(j)[c]))
                        .collect(),
                });
            }
        }
    }
    if let Some((dx, df)) = diff {
        outln!(
            "difference between the methods: suspension motion {dx:.3e} m, force {df:.3e} N \
             (largest over the time nodes)"
        );
    }
    let ratio = match (&rows[0].solution, &rows[1].solution) {
        (Some(_), Some(_)) => Some(rows[0].seconds / rows[1].seconds),
        _ => None,
    };
    if let Some(r) = ratio {
        outln!("wall time space-time / characteristics: {r:.2} (same mesh)");
    }
    outln!("sequential: {NO_SEQUENTIAL}");
    let offered: Vec<&dyn Verdict> = rows.iter().map(|r| r as &dyn Verdict).collect();
    let outcome = outcome(&offered);
    crate::study::write(
        staging,
        crate::study::StudyOutput {
            name: "compare",
            csv,
            title: "Suspension point per method (crane)",
            x_label: "t [s]",
            y_label: "position [m]",
            series,
            summary: json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "study": "both inverse methods on one crane scenario",
                "problem": "crane",
                "scenario": { "origin": s.origin, "input": s.echo },
                "actuation_convention": "force the suspension point applies to the rope (N)",
                "methods": methods,
                "max_suspension_difference_between_methods_m": diff.map(|d| d.0),
                "max_force_difference_between_methods_N": diff.map(|d| d.1),
                "wall_time_ratio_space_time_to_characteristics": ratio,
                "sequential": NO_SEQUENTIAL,
                "status": outcome,
            }),
        },
    )?;
    exit(outcome, &offered, &WORDING)
}
