//! The planar beam (`problem = "beam"`): `tip.csv` (load factor or time, tip `r1, r2, θ`),
//! `energy.csv` (dynamics: kinetic, strain, total energy, external work, linear and angular
//! momentum), `beam.pvd` + `beam_NNNN.vtu` (ParaView), `shapes.png` (beam shapes of the
//! snapshots) and `summary.json`.

use crate::AppError;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;
use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::integrator::{BeamIntegrator, DynamicMethod, advance_to};
use stmech::beam::model::BeamModel;
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::beam::statics::solve_static;
use stmech::error::SolveError;
use stmech::io::beam_scenario::{BeamAnalysis, BeamScenario};
use stmech::io::output::{OutputDir, write_json, write_text};
use stmech::io::vtk::{BeamSnapshot, write_series};

/// The name of a dynamic method in files and messages.
pub fn method_name(m: DynamicMethod) -> &'static str {
    match m {
        DynamicMethod::EnergyMomentum => "energy-momentum",
        DynamicMethod::SpaceTime => "space-time",
    }
}

/// The results of a planar-beam run, in memory.
#[derive(Clone, Debug)]
pub struct BeamOutcome {
    /// Whether the analysis is static (rows are load steps) or dynamic (rows are time steps).
    pub is_static: bool,
    /// Per load step or time step: load factor or time (s), tip `r1, r2` (m), `θ` (rad).
    pub tip: Vec<[f64; 4]>,
    /// Dynamics, per time step: t (s), kinetic, strain, total energy, external work (J),
    /// momentum x, y (kg m/s), angular momentum (kg m²/s). Empty in statics.
    pub energy: Vec<[f64; 8]>,
    /// The beam shapes written to the VTK series (at most `output.snapshots` + 1).
    pub snapshots: Vec<BeamSnapshot>,
    /// `summary.json`'s `results`.
    pub results: Value,
}

fn snapshot(model: &BeamModel, t: f64, x: &[f64]) -> BeamSnapshot {
    let n = model.nodes();
    BeamSnapshot {
        t,
        positions: (0..n).map(|a| [x[3 * a], x[3 * a + 1]]).collect(),
        theta: (0..n).map(|a| x[3 * a + 2]).collect(),
        s: (0..n).map(|a| model.node_s(a)).collect(),
        resultants: model.element_resultants(x),
    }
}

/// Solves a planar-beam scenario (statics by load stepping, or dynamics from rest).
pub fn solve(sc: &BeamScenario) -> Result<BeamOutcome, SolveError> {
    let model = &sc.model;
    let tip = model.tip_node();
    let mut rows = Vec::new();
    let mut energy = Vec::new();
    let mut snaps = Vec::new();
    match sc.analysis {
        BeamAnalysis::Static { steps } => {
            snaps.push(snapshot(model, 0.0, &model.x_ref));
            let res = solve_static(model, steps, &sc.newton)?;
            let every = steps.div_ceil(sc.snapshots).max(1);
            for (k, st) in res.iter().enumerate() {
                let x = &st.x;
                rows.push([st.load_factor, x[3 * tip], x[3 * tip + 1], x[3 * tip + 2]]);
                if (k + 1).is_multiple_of(every) || k + 1 == res.len() {
                    snaps.push(snapshot(model, st.load_factor, x));
                }
            }
            let x = &res.last().map_or(&model.x_ref, |s| &s.x);
            let results = json!({
                "analysis": "static",
                "load_steps": steps,
                "newton_iterations": res.iter().map(|s| s.newton.iterations).sum::<usize>(),
                "newton_at_floor": res.iter().filter(|s| s.newton.at_floor).count(),
                "tip": { "r1_m": x[3 * tip], "r2_m": x[3 * tip + 1], "theta_rad": x[3 * tip + 2] },
            });
            Ok(BeamOutcome {
                is_static: true,
                tip: rows,
                energy,
                snapshots: snaps,
                results,
            })
        }
        BeamAnalysis::Dynamic { end, step } => {
            let n_steps = (end / step).ceil() as usize;
            let every = n_steps.div_ceil(sc.snapshots).max(1);
            let mut k = 0usize;
            let mut iterations = 0usize;
            let mut at_floor = 0usize;
            let record =
                |st: &dyn BeamIntegrator, rows: &mut Vec<[f64; 4]>, energy: &mut Vec<[f64; 8]>| {
                    let p = st.node_state(tip);
                    let d = st.diagnostics();
                    rows.push([st.time(), p[0], p[1], p[2]]);
                    energy.push([
                        d.t,
                        d.kinetic,
                        d.strain,
                        d.total,
                        d.external_work,
                        d.momentum[0],
                        d.momentum[1],
                        d.angular_momentum,
                    ]);
                    d
                };
            let mut st: Box<dyn BeamIntegrator> = match sc.method {
                DynamicMethod::EnergyMomentum => {
                    Box::new(EnergyMomentumStepper::at_rest(model, step, sc.newton)?)
                }
                DynamicMethod::SpaceTime => Box::new(SpaceTimeSolver::at_rest(
                    model,
                    step,
                    SpaceTimeSettings {
                        newton: sc.newton,
                        ..Default::default()
                    },
                )?),
            };
            let d0 = record(st.as_ref(), &mut rows, &mut energy);
            snaps.push(snapshot(model, 0.0, st.x()));
            advance_to(st.as_mut(), end, &mut |s| {
                k += 1;
                iterations += s.iterations();
                at_floor += usize::from(s.newton_report().is_some_and(|r| r.at_floor));
                record(s, &mut rows, &mut energy);
                if k.is_multiple_of(every) || k == n_steps {
                    snaps.push(snapshot(model, s.time(), s.x()));
                }
            })?;
            let d1 = st.diagnostics();
            let p = st.node_state(tip);
            let results = json!({
                "analysis": "dynamic",
                "method": method_name(sc.method),
                "time": { "end_s": end, "step_s": step, "steps": k },
                "newton_iterations": iterations,
                "newton_at_floor": at_floor,
                "tip": { "r1_m": p[0], "r2_m": p[1], "theta_rad": p[2] },
                "energy": {
                    "initial_total_J": d0.total,
                    "final_total_J": d1.total,
                    "external_work_J": d1.external_work,
                    "balance_error_J": d1.total - d0.total - d1.external_work,
                },
                "final_momentum_kg_m_per_s": d1.momentum,
                "final_angular_momentum_kg_m2_per_s": d1.angular_momentum,
            });
            Ok(BeamOutcome {
                is_static: false,
                tip: rows,
                energy,
                snapshots: snaps,
                results,
            })
        }
    }
}

/// The `summary.json` of a failed solve.
pub fn failed_summary(sc: &BeamScenario, e: &SolveError, solve_seconds: f64) -> Value {
    json!({
        "stmech_version": crate::VERSION,
        "status": "failed",
        "error": e.to_string(),
        "failure": format!("{e:?}"),
        "scenario": sc.echo,
        "wall_time_seconds": solve_seconds,
    })
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: Value,
    /// The files written, for messages.
    pub files: Vec<&'static str>,
}

/// `tip.csv`.
pub fn tip_csv(outcome: &BeamOutcome) -> String {
    let mut csv = String::from(if outcome.is_static {
        "load_factor [-],r1 [m],r2 [m],theta [rad]\n"
    } else {
        "t [s],r1 [m],r2 [m],theta [rad]\n"
    });
    for r in &outcome.tip {
        let _ = writeln!(csv, "{},{},{},{}", r[0], r[1], r[2], r[3]);
    }
    csv
}

/// `energy.csv` (empty in statics).
pub fn energy_csv(outcome: &BeamOutcome) -> String {
    if outcome.is_static {
        return String::new();
    }
    let mut csv = String::from(
        "t [s],kinetic [J],strain [J],total [J],external_work [J],px [kg m/s],py [kg m/s],angular_momentum [kg m^2/s]\n",
    );
    for r in &outcome.energy {
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{},{}",
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
        );
    }
    csv
}

/// Writes every result file into `dir`, `summary.json` last.
pub fn write_results(
    sc: &BeamScenario,
    outcome: &BeamOutcome,
    dir: &OutputDir,
    plots: bool,
    solve_seconds: f64,
) -> Result<Written, AppError> {
    let output_start = Instant::now();
    let write = |name: &str, text: &str| write_text(&dir.file(name), text);
    write("tip.csv", &tip_csv(outcome))?;
    let mut files = vec!["tip.csv"];
    let energy = energy_csv(outcome);
    if !energy.is_empty() {
        write("energy.csv", &energy)?;
        files.push("energy.csv");
    }
    write_series(dir.path(), "beam", &outcome.snapshots)?;
    files.push("beam.pvd");
    if plots {
        plot_shapes(&dir.file("shapes.png"), &outcome.snapshots)
            .map_err(|e| AppError::write(&e))?;
        files.push("shapes.png");
    }
    let mut summary = summary(sc, outcome, solve_seconds);
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    write_json(&dir.file("summary.json"), &summary)?;
    files.push("summary.json");
    Ok(Written { summary, files })
}

/// `summary.json` of a solved run (without `output_wall_time_seconds`).
pub fn summary(sc: &BeamScenario, outcome: &BeamOutcome, solve_seconds: f64) -> Value {
    json!({
        "stmech_version": crate::VERSION,
        "status": "ok",
        "error": Value::Null,
        "scenario": sc.echo,
        "results": outcome.results,
        "snapshots": outcome.snapshots.len(),
        "wall_time_seconds": solve_seconds,
        "units": "SI: m, rad, s, N, J",
    })
}

/// Overlays the beam shapes of all snapshots (equal axis scales, darker = later).
fn plot_shapes(path: &Path, snaps: &[BeamSnapshot]) -> anyhow::Result<()> {
    let shapes: Vec<Vec<(f64, f64)>> = snaps
        .iter()
        .map(|s| s.positions.iter().map(|p| (p[0], p[1])).collect())
        .collect();
    crate::plots::shapes_chart(path, "Beam shapes (darker = later)", &shapes, None)
}
