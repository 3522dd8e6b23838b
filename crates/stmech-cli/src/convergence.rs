//! `stmech convergence`: the convergence study of [P, Fig. 2] on the constant-torque example of
//! [P, §4.1] (box 2 × 1 × 1 m, ρ₀ = 1.5 kg/m³, COM velocity (5, 5, 5) m/s, torque (1, 1, 1) N·m on
//! [0, 1] s): the error of [P, Eq. (26)] at T = 1 s for every time discretisation over four
//! step sizes, as `convergence.csv`, `convergence.png` (log-log, like Fig. 2) and
//! `summary.json` (least-squares slopes).
//!
//! Reference: Petrov–Galerkin p = 4 with 64 elements (error below 1e-13; the verification test
//! `p_eq26_convergence_orders_constant_torque` uses an independent Gauss-collocation integrator
//! instead and asserts the slopes).

use crate::Failure;
use crate::plots;
use serde_json::json;
use std::path::Path;
use stmech::io::output::OutputDir;
use stmech::model::{Load, LoadKind, TimeFunction};
use stmech::solve::NewtonParams;
use stmech::solve::scheme::{Formulation, Method, SpaceTimeParams, ThetaScheme, simulate};

fn st(order: usize, n: usize, formulation: Formulation) -> Method {
    Method::SpaceTime(SpaceTimeParams {
        order,
        elements_per_block: n,
        blocks: 1,
        quadrature_points: None,
        formulation,
    })
}

/// Runs the study and writes the results into `out` (atomically).
pub fn run(out: &Path, force: bool) -> Result<(), Failure> {
    let staging = OutputDir::prepare(out, force).map_err(crate::run::output_failure)?;
    let torque = Load {
        body: 0,
        kind: LoadKind::Torque([1.0; 3]),
        time_function: TimeFunction::Constant,
    };
    let sys = crate::study::paper_box([5.0; 3], [0.0; 3], vec![torque]);
    let (q0, v0) = sys.initial_state();
    let newton = NewtonParams {
        tolerance: 1e-12,
        max_iterations: 25,
    };
    let solve = |m: &Method| -> Result<Vec<f64>, Failure> {
        simulate(&sys, &q0, &v0, 0.0, 1.0, m, &newton, &mut |_| {})
            .map(|t| t.q_final().to_vec())
            .map_err(|e| Failure::new(Failure::SOLVER, e))
    };
    let reference = solve(&st(4, 64, Formulation::PetrovGalerkin))?;
    // [P, Eq. (26)]: ‖φ̄ − φ̄_ref‖ + Σ_i ‖d_i − d_i,ref‖
    let eq26 = |q: &[f64]| -> f64 {
        (0..4)
            .map(|a| {
                (0..3)
                    .map(|k| (q[3 * a + k] - reference[3 * a + k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .sum()
    };
    type Case = (&'static str, Box<dyn Fn(usize) -> Method>, [usize; 4]);
    let fine = [16, 32, 64, 128];
    let cases: Vec<Case> = vec![
        (
            "implicit Euler",
            Box::new(|n| Method::TimeStepping {
                scheme: ThetaScheme::IMPLICIT_EULER,
                step: 1.0 / n as f64,
            }),
            fine,
        ),
        (
            "midpoint",
            Box::new(|n| Method::TimeStepping {
                scheme: ThetaScheme::MIDPOINT,
                step: 1.0 / n as f64,
            }),
            fine,
        ),
        (
            "space-time p=1",
            Box::new(|n| st(1, n, Formulation::PetrovGalerkin)),
            fine,
        ),
        (
            "space-time p=2",
            Box::new(|n| st(2, n, Formulation::PetrovGalerkin)),
            [4, 8, 16, 32],
        ),
        (
            "space-time p=3",
            Box::new(|n| st(3, n, Formulation::PetrovGalerkin)),
            [4, 8, 12, 16],
        ),
        (
            "Bubnov p=1 [P]",
            Box::new(|n| st(1, n, Formulation::Bubnov)),
            fine,
        ),
        (
            "Bubnov p=2 [P]",
            Box::new(|n| st(2, n, Formulation::Bubnov)),
            fine,
        ),
    ];
    let mut csv = String::from("method,h [s],error_eq26 [-]\n");
    let mut series = Vec::new();
    let mut slopes = serde_json::Map::new();
    for (name, method, ns) in &cases {
        let mut pts = Vec::new();
        for &n in ns {
            let h = 1.0 / n as f64;
            let e = eq26(&solve(&method(n))?);
            csv.push_str(&format!("{name},{h:e},{e:e}\n"));
            pts.push((h, e));
        }
        let s = crate::study::slope(&pts);
        outln!(
            "{name:16} errors {:?} slope {s:.2}",
            pts.iter()
                .map(|p| format!("{:.2e}", p.1))
                .collect::<Vec<_>>()
        );
        slopes.insert((*name).to_owned(), json!({ "slope": s, "h": pts.iter().map(|p| p.0).collect::<Vec<_>>(), "error": pts.iter().map(|p| p.1).collect::<Vec<_>>() }));
        series.push(plots::Series {
            label: format!("{name} (slope {s:.2})"),
            points: pts.iter().map(|(h, e)| (h.log10(), e.log10())).collect(),
        });
    }
    crate::study::write(
        staging,
        crate::study::StudyOutput {
            name: "convergence",
            csv,
            title: "Error of [P, Eq. (26)] at T = 1 s, constant torque",
            x_label: "log10 h [s]",
            y_label: "log10 error [-]",
            series,
            summary: json!({
                "stmech_version": env!("CARGO_PKG_VERSION"),
                "study": "convergence of [P, Eq. (26)], constant torque (1,1,1) N·m on [0, 1] s",
                "reference": "Petrov-Galerkin p = 4, 64 elements",
                "methods": slopes,
            }),
        },
    )
}
