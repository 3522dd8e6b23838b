//! `stmech run` / `check` for planar-beam scenarios (`problem = "beam"`).
//!
//! Writes into the output directory (atomically, via [`OutputDir`]):
//! `tip.csv` (load factor or time, tip `r1, r2, θ`), `energy.csv` (dynamics: kinetic, strain,
//! total energy, external work, linear and angular momentum), `beam.pvd` + `beam_NNNN.vtu`
//! (ParaView), `shapes.png` (beam shapes of the snapshots) and `summary.json`.

use crate::Failure;
use anyhow::Context;
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
use stmech::io::output::{OutputDir, write_json};
use stmech::io::vtk::{BeamSnapshot, write_series};

use crate::run::output_failure as out_fail;

fn io_fail(e: impl Into<anyhow::Error>) -> Failure {
    Failure::new(Failure::IO, e)
}

/// The `check` line of a beam scenario.
pub fn describe(s: &BeamScenario) -> String {
    let m = &s.model;
    let analysis = match s.analysis {
        BeamAnalysis::Static { steps } => format!("static, {steps} load steps"),
        BeamAnalysis::Dynamic { end, step } => format!(
            "dynamic to t = {end} s, Δt = {step} s, {}",
            method_name(s.method)
        ),
    };
    format!(
        "ok: {}: beam L = {} m, {} elements of order {}, {} point load(s), {analysis}",
        s.origin,
        m.spec.length,
        m.spec.elements,
        m.spec.order,
        m.spec.point_loads.len()
    )
}

fn method_name(m: DynamicMethod) -> &'static str {
    match m {
        DynamicMethod::EnergyMomentum => "energy-momentum",
        DynamicMethod::SpaceTime => "space-time",
    }
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

/// Runs a beam scenario.
pub fn run(sc: &BeamScenario, out: &Path, force: bool, no_plots: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let dir = OutputDir::prepare(out, force).map_err(out_fail)?;
    let model = &sc.model;
    let tip = model.tip_node();
    let mut tip_csv = String::new();
    let mut energy_csv = String::new();
    let mut snaps = Vec::new();
    errln!(
        "stmech: {} (planar beam, {} unknowns)",
        sc.origin,
        model.n_dofs()
    );
    let result: Result<Value, SolveError> = match sc.analysis {
        BeamAnalysis::Static { steps } => {
            tip_csv.push_str("load_factor [-],r1 [m],r2 [m],theta [rad]\n");
            snaps.push(snapshot(model, 0.0, &model.x_ref));
            solve_static(model, steps, &sc.newton).map(|res| {
                let every = steps.div_ceil(sc.snapshots).max(1);
                for (k, st) in res.iter().enumerate() {
                    let x = &st.x;
                    let _ = writeln!(
                        tip_csv,
                        "{},{},{},{}",
                        st.load_factor,
                        x[3 * tip],
                        x[3 * tip + 1],
                        x[3 * tip + 2]
                    );
                    if (k + 1).is_multiple_of(every) || k + 1 == res.len() {
                        snaps.push(snapshot(model, st.load_factor, x));
                    }
                }
                let x = &res.last().map_or(&model.x_ref, |s| &s.x);
                json!({
                    "analysis": "static",
                    "load_steps": steps,
                    "newton_iterations": res.iter().map(|s| s.residuals.len() - 1).sum::<usize>(),
                    "tip": { "r1_m": x[3 * tip], "r2_m": x[3 * tip + 1], "theta_rad": x[3 * tip + 2] },
                })
            })
        }
        BeamAnalysis::Dynamic { end, step } => {
            tip_csv.push_str("t [s],r1 [m],r2 [m],theta [rad]\n");
            energy_csv.push_str(
                "t [s],kinetic [J],strain [J],total [J],external_work [J],px [kg m/s],py [kg m/s],angular_momentum [kg m^2/s]\n",
            );
            let n_steps = (end / step).ceil() as usize;
            let every = n_steps.div_ceil(sc.snapshots).max(1);
            let mut k = 0usize;
            let mut first = None;
            let mut last = None;
            let mut iterations = 0usize;
            let record =
                |st: &dyn BeamIntegrator, tip_csv: &mut String, energy_csv: &mut String| {
                    let p = st.node_state(tip);
                    let d = st.diagnostics();
                    let _ = writeln!(tip_csv, "{},{},{},{}", st.time(), p[0], p[1], p[2]);
                    let _ = writeln!(
                        energy_csv,
                        "{},{},{},{},{},{},{},{}",
                        d.t,
                        d.kinetic,
                        d.strain,
                        d.total,
                        d.external_work,
                        d.momentum[0],
                        d.momentum[1],
                        d.angular_momentum
                    );
                    d
                };
            let integrator: Result<Box<dyn BeamIntegrator>, SolveError> = match sc.method {
                DynamicMethod::EnergyMomentum => {
                    EnergyMomentumStepper::at_rest(model, step, sc.newton)
                        .map(|s| Box::new(s) as Box<dyn BeamIntegrator>)
                }
                DynamicMethod::SpaceTime => SpaceTimeSolver::at_rest(
                    model,
                    step,
                    SpaceTimeSettings {
                        newton: sc.newton,
                        ..Default::default()
                    },
                )
                .map(|s| Box::new(s) as Box<dyn BeamIntegrator>),
            };
            integrator.and_then(|mut st| {
                first = Some(record(st.as_ref(), &mut tip_csv, &mut energy_csv));
                snaps.push(snapshot(model, 0.0, st.x()));
                advance_to(st.as_mut(), end, &mut |s| {
                    k += 1;
                    iterations += s.iterations();
                    last = Some(record(s, &mut tip_csv, &mut energy_csv));
                    if k.is_multiple_of(every) || k == n_steps {
                        snaps.push(snapshot(model, s.time(), s.x()));
                    }
                })?;
                let (d0, d1) = (first.unwrap_or_else(|| st.diagnostics()), st.diagnostics());
                let p = st.node_state(tip);
                Ok(json!({
                    "analysis": "dynamic",
                    "method": method_name(sc.method),
                    "time": { "end_s": end, "step_s": step, "steps": k },
                    "newton_iterations": iterations,
                    "tip": { "r1_m": p[0], "r2_m": p[1], "theta_rad": p[2] },
                    "energy": {
                        "initial_total_J": d0.total,
                        "final_total_J": d1.total,
                        "external_work_J": d1.external_work,
                        "balance_error_J": d1.total - d0.total - d1.external_work,
                    },
                    "final_momentum_kg_m_per_s": d1.momentum,
                    "final_angular_momentum_kg_m2_per_s": d1.angular_momentum,
                }))
            })
        }
    };
    let solve_seconds = started.elapsed().as_secs_f64();
    let output_start = Instant::now();
    let results = match result {
        Ok(v) => v,
        Err(e) => {
            let summary = json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "status": "failed",
                "error": e.to_string(),
                "failure": format!("{e:?}"),
                "scenario": sc.echo,
                "wall_time_seconds": solve_seconds,
            });
            let msg = match dir.fail(&summary) {
                Ok(failed) => anyhow::anyhow!(
                    "{e}\nNewton history and details: {}",
                    failed.join("summary.json").display()
                ),
                Err(w) => anyhow::anyhow!("{e}\n(saving the failure summary failed too: {w})"),
            };
            return Err(Failure::new(Failure::SOLVER, msg));
        }
    };
    let write = |name: &str, text: &str| {
        std::fs::write(dir.file(name), text).with_context(|| format!("cannot write {name}"))
    };
    write("tip.csv", &tip_csv).map_err(io_fail)?;
    let mut files = vec!["tip.csv"];
    if !energy_csv.is_empty() {
        write("energy.csv", &energy_csv).map_err(io_fail)?;
        files.push("energy.csv");
    }
    write_series(dir.path(), "beam", &snaps)
        .context("cannot write the VTK series")
        .map_err(io_fail)?;
    files.push("beam.pvd");
    if sc.plots && !no_plots {
        plot_shapes(&dir.file("shapes.png"), &snaps).map_err(io_fail)?;
        files.push("shapes.png");
    }
    let summary = json!({
        "stmech_version": env!("CARGO_PKG_VERSION"),
        "status": "ok",
        "error": Value::Null,
        "scenario": sc.echo,
        "results": results,
        "snapshots": snaps.len(),
        "wall_time_seconds": solve_seconds,
        "output_wall_time_seconds": output_start.elapsed().as_secs_f64(),
        "units": "SI: m, rad, s, N, J",
    });
    write_json(&dir.file("summary.json"), &summary).map_err(out_fail)?;
    files.push("summary.json");
    let out = dir.commit().map_err(out_fail)?;
    outln!("tip: {}", results["tip"]);
    if let Some(e) = results.get("energy") {
        outln!("energy: {e}");
    }
    outln!(
        "wall time {:.3} s; output: {} ({})",
        started.elapsed().as_secs_f64(),
        out.display(),
        files.join(", ")
    );
    Ok(())
}

/// Overlays the beam shapes of all snapshots (equal axis scales, darker = later).
fn plot_shapes(path: &Path, snaps: &[BeamSnapshot]) -> anyhow::Result<()> {
    let shapes: Vec<Vec<(f64, f64)>> = snaps
        .iter()
        .map(|s| s.positions.iter().map(|p| (p[0], p[1])).collect())
        .collect();
    crate::plots::shapes_chart(path, "Beam shapes (darker = later)", &shapes, None)
}
