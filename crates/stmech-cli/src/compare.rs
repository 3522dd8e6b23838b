//! `stmech compare [SCENARIO]`: every inverse method on one beam-inverse scenario (default:
//! the built-in `[I]` Example 3.2). Runs the space-time FEM and the method of characteristics
//! on the scenario's mesh and the sequential baseline (`[I]` Sect. 2: linear elements in space,
//! one per space element of the mesh, BDF2 with the time step of the mesh, consistent mass),
//! and writes one table `compare.csv`, `summary.json` and one overlay plot `compare.png`
//! (actuation against time per method).
//!
//! Accuracy column: the largest difference of the actuation (all three components, at the
//! method's time nodes) to the method of characteristics on the mesh refined four times in
//! `s` and `t` (second order: its own error is about 1/16 of that on the scenario mesh).

use crate::Failure;
use crate::plots::Series;
use serde_json::json;
use std::path::{Path, PathBuf};
use stmech::inverse::sequential::{SequentialSettings, solve_sequential};
use stmech::inverse::{
    CharacteristicsSettings, InverseMethod, SpaceTimeMesh, SpaceTimeSolution,
    solve_characteristics, solve_with,
};
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::output::OutputDir;

/// One row of the table.
struct Row {
    method: String,
    status: String,
    seconds: f64,
    grid: String,
    t: Vec<f64>,
    actuation: Vec<[f64; 3]>,
    tip_error: Option<f64>,
    note: String,
}

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

fn tip_error(s: &InverseScenario, sol: &SpaceTimeSolution) -> f64 {
    (0..sol.t.len()).fold(0.0f64, |m, j| {
        let (a, b) = (sol.tip(j), s.trajectory.pose(sol.t[j]));
        (0..3).fold(m, |m, c| m.max((a[c] - b[c]).abs()))
    })
}

fn field_row(s: &InverseScenario, method: InverseMethod) -> Row {
    let grid = format!("{} x {}", s.mesh.elements_s, s.mesh.elements_t);
    match solve_with(method, &s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton) {
        Ok(run) => {
            let note = match &run.march {
                Some(m) => format!(
                    "{} nodes, fixed-point iterations max {}",
                    m.nodes, m.iterations_max
                ),
                None => format!(
                    "{} Newton iterations, {} unknowns",
                    run.solution.newton.iterations, run.solution.newton.unknowns
                ),
            };
            Row {
                method: method.name().into(),
                status: "ok".into(),
                seconds: run.seconds,
                grid,
                tip_error: Some(tip_error(s, &run.solution)),
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
            tip_error: None,
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
                tip_error: None,
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
            tip_error: None,
            note: e.to_string(),
        },
    }
}

fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Runs all methods on `scenario` (a beam-inverse file, or the built-in demo if `None`).
pub fn run(
    scenario: Option<&Path>,
    out: Option<PathBuf>,
    force: bool,
    limit: stmech::resources::MemoryLimit,
) -> Result<(), Failure> {
    let s = match scenario {
        Some(p) => match stmech::io::load::load_path(p).map_err(crate::scenario_failure)? {
            stmech::io::load::AnyScenario::BeamInverse(s) => *s,
            _ => {
                return Err(Failure::new(
                    Failure::INPUT,
                    anyhow::anyhow!(
                        "{}: `stmech compare` needs a beam-inverse scenario (problem = \
                         \"beam-inverse\"), see examples/beam_inverse/",
                        p.display()
                    ),
                ));
            }
        },
        None => crate::inverse_run::load_demo()?,
    };
    crate::limits::gate(&s.origin, &stmech::resources::estimate_compare(&s), limit)?;
    let out = out.unwrap_or_else(|| {
        let stem = scenario
            .and_then(|p| p.file_stem())
            .map(|x| x.to_string_lossy().into_owned())
            .unwrap_or_else(|| "example_3_2".into());
        PathBuf::from("out").join(format!("compare-{stem}"))
    });
    let staging = OutputDir::prepare(&out, force).map_err(crate::run::output_failure)?;
    eprintln!(
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
        field_row(&s, InverseMethod::SpaceTime),
        field_row(&s, InverseMethod::Characteristics),
        sequential_row(&s),
    ];

    let ref_peak = reference
        .as_ref()
        .map(|r| peaks(&r.actuation).into_iter().fold(0.0, f64::max));
    let mut csv = String::from(
        "method,status,wall_time_s,grid,peak_abs_fx_N,peak_abs_fy_N,peak_abs_m_Nm,\
         active_from_s,active_to_s,max_diff_to_reference,tip_error,note\n",
    );
    let mut methods = Vec::new();
    let mut series = Vec::new();
    for row in &rows {
        let p = peaks(&row.actuation);
        let (a0, a1) = activity(&row.t, &row.actuation, 1e-3);
        let diff = reference.as_ref().filter(|_| !row.t.is_empty()).map(|r| {
            row.t.iter().zip(&row.actuation).fold(0.0f64, |m, (&t, f)| {
                let g = r.actuation_at(t);
                (0..3).fold(m, |m, c| m.max((f[c] - g[c]).abs()))
            })
        });
        let opt = |v: Option<f64>| v.map(|x| format!("{x:e}")).unwrap_or_default();
        csv.push_str(&format!(
            "{},{},{:e},{},{:e},{:e},{:e},{},{},{},{},{}\n",
            row.method,
            csv_field(&row.status),
            row.seconds,
            csv_field(&row.grid),
            p[0],
            p[1],
            p[2],
            a0,
            a1,
            opt(diff),
            opt(row.tip_error),
            csv_field(&row.note)
        ));
        println!(
            "{:16} {:28} {:>9.4} s  peak |F| ({:.4}, {:.4}, {:.4})  diff to reference {}",
            row.method,
            row.status,
            row.seconds,
            p[0],
            p[1],
            p[2],
            diff.map(|d| format!("{d:.3e}"))
                .unwrap_or_else(|| "-".into())
        );
        methods.push(json!({
            "method": row.method,
            "status": row.status,
            "wall_time_seconds": row.seconds,
            "grid": row.grid,
            "peak_abs_actuation": p,
            "active_from": a0,
            "active_to": a1,
            "max_difference_to_reference": diff,
            "tip_error": row.tip_error,
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
        println!("wall time space-time / characteristics: {r:.1}");
    }
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
            }),
        },
    )
}
