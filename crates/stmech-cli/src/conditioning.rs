//! `stmech conditioning`: condition number of the Newton iteration matrix against the step
//! size, like [P, Fig. 3], for the midpoint rule (one step), the Petrov–Galerkin space-time
//! form (one element, p = 1 and 2; and blocks of 10 elements) and the paper's Bubnov form.
//! Box of [P, §4.1] spinning with ω = (0.3, 1.0, 0.2) rad/s. Writes `conditioning.csv`,
//! `conditioning.png` (log-log) and `summary.json` with the fitted slopes.

use crate::Failure;
use crate::plots;
use serde_json::json;
use std::path::Path;
use stmech::io::output::OutputDir;
use stmech::solve::conditioning::{ConditionCase, iteration_matrix_condition};

/// Step sizes of the study (s).
pub const STEPS: [f64; 6] = [0.1, 0.05, 0.025, 0.0125, 0.00625, 0.003125];

/// The cases of the study.
pub const CASES: [ConditionCase; 6] = [
    ConditionCase::Midpoint,
    ConditionCase::PetrovGalerkin {
        order: 1,
        elements: 1,
    },
    ConditionCase::PetrovGalerkin {
        order: 2,
        elements: 1,
    },
    ConditionCase::PetrovGalerkin {
        order: 1,
        elements: 10,
    },
    ConditionCase::Bubnov {
        order: 1,
        elements: 10,
    },
    ConditionCase::Bubnov {
        order: 2,
        elements: 10,
    },
];

/// Runs the study and writes the results into `out` (atomically).
pub fn run(out: &Path, force: bool) -> Result<(), Failure> {
    let staging = OutputDir::prepare(out, force).map_err(crate::run::output_failure)?;
    let sys = crate::study::paper_box([5.0; 3], [0.3, 1.0, 0.2], Vec::new());
    let (q0, v0) = sys.initial_state();
    let mut csv = String::from("case,h [s],condition_number [-]\n");
    let mut series = Vec::new();
    let mut cases = serde_json::Map::new();
    for case in CASES {
        let pts: Vec<(f64, f64)> = STEPS
            .iter()
            .map(|&h| (h, iteration_matrix_condition(&sys, case, 0.0, &q0, &v0, h)))
            .collect();
        for (h, c) in &pts {
            csv.push_str(&format!("{},{h:e},{c:e}\n", case.label()));
        }
        let s = crate::study::slope(&pts);
        outln!(
            "{:45} cond {:?}  slope {s:.2}",
            case.label(),
            pts.iter()
                .map(|p| format!("{:.2e}", p.1))
                .collect::<Vec<_>>()
        );
        cases.insert(
            case.label(),
            json!({ "slope": s, "h": STEPS, "condition_number": pts.iter().map(|p| p.1).collect::<Vec<_>>() }),
        );
        series.push(plots::Series {
            label: format!("{} (slope {s:.2})", case.label()),
            points: pts.iter().map(|(h, c)| (h.log10(), c.log10())).collect(),
        });
    }
    crate::study::write(
        staging,
        crate::study::StudyOutput {
            name: "conditioning",
            csv,
            title: "Condition number of the iteration matrix",
            x_label: "log10 h [s]",
            y_label: "log10 cond [-]",
            series,
            summary: json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "study": "2-norm condition number of the first Newton matrix against the step size",
                "model": "box 2 x 1 x 1 m, rho0 = 1.5 kg/m^3, omega = (0.3, 1.0, 0.2) rad/s, no load",
                "cases": cases,
            }),
        },
    )
}
