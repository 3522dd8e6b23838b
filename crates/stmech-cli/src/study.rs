//! Shared pieces of the log-log studies (`convergence`, `conditioning`): the box of
//! [P, §4.1], least-squares slopes, and the atomic write of table + plot + summary.

use crate::Failure;
use crate::plots::{self, Series};
use stmech::io::output::{OutputDir, write_json, write_text};
use stmech::model::{Load, MassProperties, MultibodySystem, RigidBody};

/// The box of [P, §4.1] (2 × 1 × 1 m, ρ₀ = 1.5 kg/m³) at the origin with identity directors,
/// COM velocity `velocity` (m/s), angular velocity `omega` (rad/s, global), and `loads`.
pub fn paper_box(velocity: [f64; 3], omega: [f64; 3], loads: Vec<Load>) -> MultibodySystem {
    let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let body = RigidBody {
        name: "box".into(),
        mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3]),
        position: [0.0; 3],
        directors: d,
        velocity,
        director_velocities: RigidBody::director_velocities_from_angular_velocity(&d, &omega),
    };
    MultibodySystem::new(vec![body], loads, vec![]).expect("valid built-in model")
}

/// Least-squares slope of log(y) over log(x).
pub fn slope(pts: &[(f64, f64)]) -> f64 {
    let n = pts.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = pts.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let (mx, my) = (lx.iter().sum::<f64>() / n, ly.iter().sum::<f64>() / n);
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}

/// Output of a study: `<name>.csv`, `<name>.png` (log-log chart) and `summary.json`, written
/// into `staging` and committed.
pub struct StudyOutput<'a> {
    /// File stem of the CSV and PNG.
    pub name: &'a str,
    /// CSV text with header.
    pub csv: String,
    /// Chart title and axis labels.
    pub title: &'a str,
    /// x-axis label.
    pub x_label: &'a str,
    /// y-axis label.
    pub y_label: &'a str,
    /// Curves (already in log10).
    pub series: Vec<Series>,
    /// Summary JSON.
    pub summary: serde_json::Value,
}

/// Writes the study's files and moves the directory into place.
pub fn write(staging: OutputDir, out: StudyOutput<'_>) -> Result<(), Failure> {
    write_text(&staging.file(&format!("{}.csv", out.name)), &out.csv)
        .map_err(crate::run::output_failure)?;
    plots::xy_chart(
        &staging.file(&format!("{}.png", out.name)),
        out.title,
        out.x_label,
        out.y_label,
        &out.series,
    )
    .map_err(|e| Failure::new(Failure::IO, e))?;
    write_json(&staging.file("summary.json"), &out.summary).map_err(crate::run::output_failure)?;
    let dir = staging.commit().map_err(crate::run::output_failure)?;
    outln!("results in {}", dir.display());
    Ok(())
}
