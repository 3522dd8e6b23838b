//! Rigid bodies, joints and spatial beams in time: `trajectory.csv`, `scene.pvd` (+
//! `scene_NNNN.vtu`), `elements.csv`, the plots and `summary.json`.

use crate::AppError;
use crate::plots;
use std::io::BufWriter;
use std::time::Instant;
use stmech::error::SolveError;
use stmech::io::output::{self, OutputDir};
use stmech::io::scenario::Scenario;
use stmech::solve::Trajectory;
use stmech::solve::diagnostics::{ElementDiagnostics, element_diagnostics};
use stmech::solve::scheme::simulate;

/// Integrates a dynamic scenario from its initial state; `progress` receives the fraction of
/// the time interval done (between blocks).
pub fn solve(scenario: &Scenario, progress: &mut dyn FnMut(f64)) -> Result<Trajectory, SolveError> {
    let sys = &scenario.system;
    let (q0, v0) = sys.initial_state();
    simulate(
        sys,
        &q0,
        &v0,
        scenario.t_start,
        scenario.t_end,
        &scenario.method,
        &scenario.newton,
        progress,
    )
}

/// What [`write_results`] wrote.
pub struct Written {
    /// The run summary (also in `summary.json`).
    pub summary: serde_json::Value,
    /// The plot files drawn.
    pub plot_files: Vec<&'static str>,
}

/// Writes every result file of a solved dynamic scenario into `dir`, `summary.json` last (so
/// that an "ok" summary implies every other file is complete). `solve_seconds` goes into the
/// summary.
pub fn write_results(
    scenario: &Scenario,
    traj: &Trajectory,
    dir: &OutputDir,
    plots: bool,
    solve_seconds: f64,
) -> Result<Written, AppError> {
    let sys = &scenario.system;
    let output_start = Instant::now();
    let diagnostics = output::node_diagnostics(sys, traj);
    // Two threads, separate files, the same bytes as one after the other: trajectory.csv (the
    // largest file) and the node plots on a second thread; the element diagnostics,
    // elements.csv, the element plots and the summary here. The summary is written last.
    let (nodes_side, elements_side) = std::thread::scope(|scope| {
        let nodes_side = scope.spawn(|| -> Result<Vec<&'static str>, AppError> {
            let csv_path = dir.file("trajectory.csv");
            std::fs::File::create(&csv_path)
                .and_then(|f| {
                    output::write_trajectory_csv_labelled(
                        BufWriter::new(f),
                        sys,
                        traj,
                        &diagnostics,
                        &scenario.constraint_labels,
                    )
                })
                .map_err(|source| AppError::io(csv_path, source))?;
            let snaps = output::scene::snapshots(sys, traj);
            stmech::io::vtk::write_scene_series(dir.path(), "scene", &snaps)?;
            if plots {
                plots::write_all(dir.path(), sys, traj, &diagnostics)
                    .map_err(|e| AppError::write(&e))
            } else {
                Ok(Vec::new())
            }
        });
        let elements_side = elements_side(scenario, traj, dir, plots).map(|(elements, files)| {
            let summary =
                output::summary_ok(scenario, traj, &diagnostics, &elements, solve_seconds);
            (summary, files)
        });
        let nodes_side = nodes_side
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (nodes_side, elements_side)
    });
    let mut plot_files = nodes_side?;
    let (mut summary, element_plots) = elements_side?;
    plot_files.extend(element_plots);
    // Last, so that an "ok" summary implies every other file is complete.
    summary["output_wall_time_seconds"] = output_start.elapsed().as_secs_f64().into();
    output::write_json(&dir.file("summary.json"), &summary)?;
    Ok(Written {
        summary,
        plot_files,
    })
}

/// The `summary.json` of a failed solve (with the Newton history).
pub fn failed_summary(
    scenario: &Scenario,
    error: &SolveError,
    solve_seconds: f64,
) -> serde_json::Value {
    output::summary_failed(scenario, error, solve_seconds)
}

/// Element diagnostics, `elements.csv` and (if `plots`) the element plots; returns the
/// element diagnostics and the plot files written.
fn elements_side(
    scenario: &Scenario,
    traj: &Trajectory,
    dir: &OutputDir,
    plots: bool,
) -> Result<(Vec<ElementDiagnostics>, Vec<&'static str>), AppError> {
    let sys = &scenario.system;
    let elements = element_diagnostics(sys, traj);
    let el_path = dir.file("elements.csv");
    std::fs::File::create(&el_path)
        .and_then(|f| output::write_elements_csv(BufWriter::new(f), traj, &elements))
        .map_err(|source| AppError::io(el_path, source))?;
    let plot_files = if plots {
        plots::write_elements(
            dir.path(),
            sys,
            traj,
            &elements,
            &scenario.constraint_labels,
        )
        .map_err(|e| AppError::write(&e))?
    } else {
        Vec::new()
    };
    Ok((elements, plot_files))
}
