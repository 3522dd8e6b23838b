//! Kelvin–Voigt damping of the spatial director beam (issue 15, "What must be shown" item 8).
//!
//! Source: the viscoelastic rod of the research report (Lang, Leyendecker, Linn, *Numerical
//! experiments for viscoelastic Cosserat rods with Kelvin–Voigt damping*, Applied Dynamics
//! research report 2011/12, Eqs. (1)–(3)): viscous stresses `V π̇` with
//! `V̂F = ĈF diag(τS, τS, τE)`, `V̂M = ĈM diag(τE, τE, τS)` (`Section::with_kelvin_voigt`), and
//! its purely torsional, slightly damped vibration of a rod clamped at one end. Reference
//! (`docs/theory.md`, "Kelvin–Voigt modal damping"): a mode whose strains are all damped with
//! the same retardation time `τ` (`V = τ C` on them) has the modal damping ratio `ζ = ω τ / 2`
//! and decays like `e^{−ζωt}`; the torsion mode excites only the torsion `K3` (damped by
//! `τS`), the bending mode the curvature (damped by `τE`) and, negligibly for a slender beam,
//! the shear (`τS`).
//!
//! Pass criteria:
//! * energy balance per time element, `E(t_{n+1}) − E(t_n) = −D_n` with `D_n` the energy the
//!   scheme dissipates in the element (`PetrovGalerkinBlock::dissipated`), to the Newton
//!   tolerance's order (`|ΔE + D_n| < 1e-10 E(0)`) for p = 1 and 2, on a large-amplitude
//!   torsional-bending vibration (`∑ D_n` is several percent of `E(0)`);
//! * the decay rate `ζω` measured from the peaks of a small free vibration (log decrement over
//!   several periods, space-time p = 2) within 1e-3 of `ω² τ / 2` (ω from the modal analysis)
//!   and of the modal analysis's own damping ratio times ω, for the first torsion mode (τS,
//!   ζ = 0.031) and the first bending mode (τE, ζ = 0.018) of a clamped cantilever.
#[path = "spatial_beam_common/mod.rs"]
mod common;

use common::{FRAME_Z, clamp_first_node, straight_beam};
use stmech::discretize::PetrovGalerkinBlock;
use stmech::model::director_beam::{Rectangle, Section, TorsionConstant};
use stmech::model::{ConstrainedSystem, MultibodySystem};
use stmech::solve::modal::{ModalParams, Modes, modal_analysis};
use stmech::solve::scheme::{Method, SpaceTimeParams, simulate};
use stmech::solve::{NewtonParams, Trajectory};

/// The rectangle of `spatial_beam_vibration.rs`: 20 mm × 10 mm, E = 6e8 Pa, G = E/2.6,
/// ρ = 5000 kg/m³ (ρA = 1 kg/m, EI1 = 1 N m², EI2 = 4 N m², GJ ≈ 1.1 N m²), L = 1 m.
fn section(tau_s: f64, tau_e: f64) -> Section {
    Section::rectangle(&Rectangle {
        e: 6e8,
        g: 6e8 / 2.6,
        rho: 5000.0,
        b1: 0.02,
        b2: 0.01,
        shear_correction: 5.0 / 6.0,
        torsion: TorsionConstant::SaintVenant,
    })
    .unwrap()
    .with_kelvin_voigt(tau_s, tau_e)
    .unwrap()
}

/// Cantilever along z clamped at the origin, `n_el` quadratic elements.
fn cantilever(n_el: usize, sec: &Section) -> MultibodySystem {
    let beam = straight_beam("beam", 2, n_el, 1.0, [0.0; 3], FRAME_Z, sec)
        .build()
        .unwrap();
    let clamp = clamp_first_node(&beam, 0);
    MultibodySystem::with_deformables(vec![], vec![beam], vec![], vec![Box::new(clamp)]).unwrap()
}

fn modes(sys: &MultibodySystem) -> Modes {
    let (q, _) = sys.initial_state();
    let lam = vec![0.0; sys.n_lambda()];
    modal_analysis(
        sys,
        &q,
        &lam,
        &ModalParams {
            mode_shapes: 12,
            ..Default::default()
        },
    )
    .unwrap()
}

fn space_time(p: usize, blocks: usize) -> Method {
    Method::SpaceTime(SpaceTimeParams {
        order: p,
        elements_per_block: 1,
        blocks,
        quadrature_points: None,
        formulation: Default::default(),
    })
}

fn run(sys: &MultibodySystem, v0: &[f64], t_end: f64, method: &Method, tol: f64) -> Trajectory {
    let (q0, _) = sys.initial_state();
    let newton = NewtonParams {
        tolerance: tol,
        max_iterations: 30,
    };
    simulate(sys, &q0, v0, 0.0, t_end, method, &newton, &mut |_| {}).unwrap()
}

fn energy(sys: &MultibodySystem, traj: &Trajectory, k: usize) -> f64 {
    sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k))
}

/// `(ΔE + D_n)` per time element, and `∑ D_n`: the dissipation of each element recomputed by
/// a one-element Petrov–Galerkin block at the converged nodal values.
fn energy_balance(sys: &MultibodySystem, traj: &Trajectory) -> (Vec<f64>, f64) {
    let p = traj.order;
    let h = traj.times[p] - traj.times[0];
    let mut blk = PetrovGalerkinBlock::new(sys, p, 1, h, p);
    let mut r = vec![0.0; blk.n_unknowns()];
    let mut x = vec![0.0; blk.n_unknowns()];
    let mut defects = Vec::new();
    let mut total = 0.0;
    for e in 0..traj.n_elements() {
        let (k0, k1) = (e * p, (e + 1) * p);
        for a in 1..=p {
            blk.set_node(&mut x, a, traj.q_at(k0 + a), traj.v_at(k0 + a));
        }
        blk.assemble(
            traj.times[k0],
            traj.q_at(k0),
            traj.v_at(k0),
            &x,
            &mut r,
            None,
        );
        let d = blk.dissipated()[0];
        assert!(d >= 0.0, "element {e} dissipates {d}");
        total += d;
        defects.push(energy(sys, traj, k1) - energy(sys, traj, k0) + d);
    }
    (defects, total)
}

/// Large-amplitude torsional–bending vibration (initial twist rate 200 rad/s and bending rate
/// 2 rad/s at the tip, growing linearly from the clamp), damped in shear and extension.
#[test]
fn energy_balance_per_time_element() {
    let sec = section(2e-4, 5e-3);
    let sys = cantilever(4, &sec);
    let (q0, mut v0) = sys.initial_state();
    for f in 0..sys.n_frames() {
        let z = q0[12 * f + 2];
        // rigid rotation rate of node f about the axis (twist) and about d1 (bending)
        let w = [2.0 * z, 0.0, 200.0 * z];
        let node = &q0[12 * f..12 * f + 12];
        for i in 0..3 {
            let d = [node[3 + 3 * i], node[4 + 3 * i], node[5 + 3 * i]];
            let wd = [
                w[1] * d[2] - w[2] * d[1],
                w[2] * d[0] - w[0] * d[2],
                w[0] * d[1] - w[1] * d[0],
            ];
            v0[12 * f + 3 + 3 * i..12 * f + 6 + 3 * i].copy_from_slice(&wd);
        }
        // the bending rotation moves the centreline: v = ∫ ω × e_z
        v0[12 * f + 1] = -z * z;
    }
    let t_end = 0.2;
    for p in [1, 2] {
        let traj = run(&sys, &v0, t_end, &space_time(p, 100), 1e-10);
        let e0 = energy(&sys, &traj, 0);
        let (defects, dissipated) = energy_balance(&sys, &traj);
        let worst = defects.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let e_end = energy(&sys, &traj, traj.len() - 1);
        eprintln!(
            "p = {p}, h = {:.1e} s: E(0) = {e0:.6} J, E(T) = {e_end:.6} J, dissipated {dissipated:.6} J ({:.1} % of E(0)); largest |ΔE + D_n| = {worst:.2e} J ({:.1e} E(0)); E(T) − E(0) + ∑D = {:.2e} J",
            t_end / 100.0,
            100.0 * dissipated / e0,
            worst / e0,
            e_end - e0 + dissipated
        );
        assert!(dissipated > 0.02 * e0, "the viscosity works: {dissipated}");
        assert!(worst < 1e-10 * e0, "energy balance per element: {worst:e}");
    }
}

/// Positive peaks `(t, y)` of a sampled signal, each refined by the parabola through the
/// discrete maximum and its neighbours.
fn peaks(t: &[f64], y: &[f64]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for k in 1..y.len() - 1 {
        if y[k] > 0.0 && y[k] >= y[k - 1] && y[k] > y[k + 1] {
            let (a, b, c) = (y[k - 1], y[k], y[k + 1]);
            let h = t[k + 1] - t[k];
            let s = 0.5 * (a - c) / (a - 2.0 * b + c);
            out.push((t[k] + s * h, b - 0.25 * (a - c) * s));
        }
    }
    out
}

/// Free vibration in `mode` (velocity amplitude chosen so that the observed coordinate moves by
/// `amplitude`), `periods` periods of `per_period` p = 2 elements; returns the measured decay
/// rate `ln(A_first/A_last)/(t_last − t_first)` of the peaks of `observe`.
fn measured_decay(
    sys: &MultibodySystem,
    modes: &Modes,
    mode: usize,
    observe: impl Fn(&[f64]) -> f64,
    amplitude: f64,
    periods: usize,
    per_period: usize,
) -> f64 {
    let w = modes.omega()[mode];
    let shape = &modes.shapes[mode];
    let (q0, _) = sys.initial_state();
    // the observed response of the shape (linear: difference quotient at a small step)
    let eps = 1e-7;
    let qs: Vec<f64> = q0.iter().zip(shape).map(|(q, s)| q + eps * s).collect();
    let gain = (observe(&qs) - observe(&q0)) / eps;
    let scale = amplitude * w / gain.abs();
    let v0: Vec<f64> = shape.iter().map(|s| scale * s).collect();
    let t_end = periods as f64 * 2.0 * std::f64::consts::PI / w;
    // Newton tolerance above the residual's round-off floor (~2e-11 with EA = 1.2e5 N)
    let traj = run(sys, &v0, t_end, &space_time(2, periods * per_period), 1e-10);
    let y: Vec<f64> = (0..traj.len())
        .map(|k| observe(traj.q_at(k)) - observe(&q0))
        .collect();
    let pk = peaks(&traj.times, &y);
    assert!(pk.len() + 1 >= periods, "{} peaks", pk.len());
    let (first, last) = (pk[0], pk[pk.len() - 1]);
    (first.1 / last.1).ln() / (last.0 - first.0)
}

/// Purely torsional damped vibration of the cantilever (the report's Fig. 1–2 case): only τS
/// acts on the mode, whose decay rate is `ζω = ω² τS / 2`.
#[test]
fn torsional_decay_matches_modal_damping() {
    let tau_s = 2.5e-4;
    let sys = cantilever(4, &section(tau_s, 0.0));
    let modes = modes(&sys);
    // the torsion mode: the lowest one whose tip shape is mostly d1 turning towards e_y
    let tip = sys.n_frames() - 1;
    let k = (0..modes.shapes.len())
        .find(|&k| {
            let s = &modes.shapes[k][12 * tip..12 * tip + 12];
            s[4].abs() > 10.0 * s[0].abs().max(s[1].abs())
        })
        .expect("a torsion mode among the lowest twelve");
    let w = modes.omega()[k];
    let twist = |q: &[f64]| q[12 * tip + 4].atan2(q[12 * tip + 3]);
    let measured = measured_decay(&sys, &modes, k, twist, 1e-3, 6, 40);
    let formula = 0.5 * w * w * tau_s;
    let modal = modes.damping_ratios[k] * w;
    eprintln!(
        "torsion mode {k}: ω = {w:.4} rad/s, τS = {tau_s} s: measured decay rate {measured:.6} 1/s, ω²τS/2 = {formula:.6} (rel {:+.2e}), modal ζω = {modal:.6} (ζ = {:.5})",
        (measured - formula) / formula,
        modes.damping_ratios[k]
    );
    assert!(((measured - formula) / formula).abs() < 1e-3);
    assert!(((modal - formula) / formula).abs() < 1e-3);
}

/// Damped cantilever in bending (first mode, about d1): the curvature is damped by τE, the
/// (negligible) shear by τS; decay rate `≈ ω² τE / 2`.
#[test]
fn bending_decay_matches_modal_damping() {
    let (tau_s, tau_e) = (1e-3, 1e-2);
    let sys = cantilever(4, &section(tau_s, tau_e));
    let modes = modes(&sys);
    let tip = sys.n_frames() - 1;
    let w = modes.omega()[0];
    let deflection = |q: &[f64]| q[12 * tip + 1];
    let measured = measured_decay(&sys, &modes, 0, deflection, 1e-3, 5, 32);
    let formula = 0.5 * w * w * tau_e;
    let modal = modes.damping_ratios[0] * w;
    eprintln!(
        "bending mode 1: ω = {w:.5} rad/s, τE = {tau_e} s: measured decay rate {measured:.6} 1/s, ω²τE/2 = {formula:.6} (rel {:+.2e}), modal ζω = {modal:.6} (ζ = {:.5}, rel {:+.2e})",
        (measured - formula) / formula,
        modes.damping_ratios[0],
        (measured - modal) / modal
    );
    assert!(((measured - formula) / formula).abs() < 1e-3);
    assert!(((measured - modal) / modal).abs() < 1e-3);
}
