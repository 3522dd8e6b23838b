//! `stmech-app`: run a loaded scenario and write its results.
//!
//! The layer between the library (`stmech`: scenario → model → discretisation → solve) and its
//! front ends. The `stmech` command line and the Python module both call it, so a run writes
//! the same files from either: `solve` functions return the results in memory, `write_results`
//! functions write them into a staged [`OutputDir`](stmech::io::output::OutputDir) (the caller
//! commits it), and [`plots`] draws the PNG charts.
//!
//! * [`multibody`]: rigid bodies, joints and spatial beams in time (`trajectory.csv`,
//!   `elements.csv`, `scene.pvd`, plots, `summary.json`);
//! * [`statics`]: the same systems in equilibrium (`nodes.csv`, `load_steps.csv`, ...);
//! * [`beam`]: the planar beam (`tip.csv`, `energy.csv`, `beam.pvd`, `shapes.png`);
//! * [`inverse`]: inverse dynamics of a beam (`actuation.csv`, `tip.csv`, the closed-loop
//!   verification, `actuation.png`, `snapshots.png`);
//! * [`crane`]: inverse dynamics of a rope with a payload (`suspension.csv`, `payload.csv`,
//!   `rope.pvd`, the closed-loop replay, `suspension.png`, `payload.png`);
//! * [`spatial_inverse`]: inverse dynamics of a spatial beam with a welded tip body
//!   (`analysis = "inverse"`: `actuation.csv`, `base.csv`, `tip.csv`, `scene.pvd`,
//!   `actuation.png`, `tip.png`, `arm.png`; the closed loop as one seam).
//!
//! Nothing here prints: progress, messages and exit codes belong to the front ends.

pub mod beam;
pub mod crane;
pub mod error;
pub mod inverse;
pub mod multibody;
pub mod plots;
pub mod spatial_inverse;
pub mod statics;

pub use error::AppError;

/// The version written into every `summary.json`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
