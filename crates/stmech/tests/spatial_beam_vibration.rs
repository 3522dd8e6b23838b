//! Linear vibration of the spatial director beam (issue 15, "What must be shown" item 3).
//!
//! Sources (analytic, independent of the code):
//! * Euler–Bernoulli cantilever, `ω = (βL)² sqrt(EI/(ρA L⁴))`, `β₁L = 1.8751`, `β₂L = 4.6941`
//!   (e.g. Blevins, *Formulas for natural frequency and mode shape*, Table 8-1);
//! * torsion of a clamped–free shaft, `ω = (π/2) sqrt(GJ/ρJ)/L`, `ρJ = E11 + E22`;
//! * the Timoshenko beam with rotary inertia, which is the exact linearisation of the
//!   Simo–Reissner beam with the quadratic law about the straight state: its clamped–free
//!   frequency equation (with an optional tip body) is solved by bisection in
//!   `spatial_beam_common` (4 × 4 boundary determinant);
//! * the classical Euler–Bernoulli tip-mass equation
//!   `1 + cos βL cosh βL + (m β/ρA)(cos βL sinh βL − sin βL cosh βL) = 0`.
//!
//! Pass criteria: the first two bending frequencies in both planes (EI1 ≠ EI2) and the first
//! torsional frequency within 1 % of Euler–Bernoulli / the torsion formula, and within 1e-4 of
//! the Timoshenko reference (16 quadratic elements); observed convergence orders of the
//! frequency errors against the exact references over four meshes within 10 % of 2 for linear
//! and of 4 for quadratic elements; the cantilever with a welded rigid tip body within 1 % of
//! the classical tip-mass equation and within 1e-4 of the Timoshenko equation with tip mass and
//! rotary inertia; the period of a small free vibration computed by the space-time method
//! (p = 2, 32 time elements per period) within 1e-5 of the modal period, its error converging
//! at order ≥ 3.5 in the time step (expected 2p = 4).
#[path = "spatial_beam_common/mod.rs"]
mod common;

use common::{Cantilever, FRAME_Z, clamp_first_node, orders, roots, straight_beam};
use stmech::model::director_beam::{Rectangle, Section, TorsionConstant};
use stmech::model::{
    ConstrainedSystem, Constraint, JointBody, MassProperties, MultibodySystem, Rigid, RigidBody,
};
use stmech::solve::NewtonParams;
use stmech::solve::modal::{ModalParams, Modes, modal_analysis};
use stmech::solve::scheme::{Method, SpaceTimeParams, simulate};

/// 20 mm × 10 mm rectangle (b1 along d1, b2 along d2), E = 6e8 Pa, G = E/2.6, ρ = 5000 kg/m³:
/// ρA = 1 kg/m, EI1 = 1 N m² (about d1), EI2 = 4 N m², slenderness L/r = 346 and 173 for
/// L = 1 m.
fn rectangle() -> Rectangle {
    Rectangle {
        e: 6e8,
        g: 6e8 / 2.6,
        rho: 5000.0,
        b1: 0.02,
        b2: 0.01,
        shear_correction: 5.0 / 6.0,
        torsion: TorsionConstant::SaintVenant,
    }
}

const L: f64 = 1.0;

/// Which family a mode belongs to, from the kinetic-energy split of its (mass-normalised)
/// shape: nodal deflections along x (bending about d2), y (bending about d1), z (axial) and the
/// twist `δd1·e_y` (torsion).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    BendingAboutD1,
    BendingAboutD2,
    Axial,
    Torsion,
}

fn family(shape: &[f64], n_frames: usize, first: usize, sec: &Section) -> Family {
    let ra = sec.rho_a();
    let e = sec.euler_tensor();
    let rj = e[0][0] + e[1][1];
    let mut parts = [0.0; 4];
    for a in first..n_frames {
        let s = &shape[12 * a..12 * a + 12];
        parts[0] += ra * s[1] * s[1];
        parts[1] += ra * s[0] * s[0];
        parts[2] += ra * s[2] * s[2];
        parts[3] += rj * s[4] * s[4];
    }
    let k = (0..4)
        .max_by(|&i, &j| parts[i].total_cmp(&parts[j]))
        .unwrap();
    [
        Family::BendingAboutD1,
        Family::BendingAboutD2,
        Family::Axial,
        Family::Torsion,
    ][k]
}

/// The lowest `n` frequencies (rad/s) of each family.
fn by_family(
    modes: &Modes,
    sys: &MultibodySystem,
    first: usize,
    sec: &Section,
    n: usize,
) -> [Vec<f64>; 4] {
    let mut out: [Vec<f64>; 4] = Default::default();
    let w = modes.omega();
    for (k, s) in modes.shapes.iter().enumerate() {
        let f = family(s, sys.n_frames(), first, sec) as usize;
        if out[f].len() < n {
            out[f].push(w[k]);
        }
    }
    out
}

/// Clamped cantilever along z with `n_el` elements of order `order`; optionally a rigid body
/// welded to the tip (frame 0, reference point at the tip).
fn cantilever(order: usize, n_el: usize, tip: Option<RigidBody>) -> MultibodySystem {
    let sec = Section::rectangle(&rectangle()).unwrap();
    let beam = straight_beam("beam", order, n_el, L, [0.0; 3], FRAME_Z, &sec)
        .build()
        .unwrap();
    let nb = usize::from(tip.is_some());
    let mut constraints: Vec<Box<dyn Constraint>> = vec![Box::new(clamp_first_node(&beam, nb))];
    let bodies: Vec<RigidBody> = tip.into_iter().collect();
    if let Some(b) = bodies.first() {
        let last = nb + beam.n_frames - 1;
        let q_tip = &beam.initial_q[12 * (beam.n_frames - 1)..];
        constraints.push(Box::new(Rigid::new(
            last,
            JointBody::Body(0),
            q_tip,
            &b.initial_q(),
        )));
    }
    MultibodySystem::with_deformables(bodies, vec![beam], vec![], constraints).unwrap()
}

fn modes_of(sys: &MultibodySystem) -> Modes {
    let (q, _) = sys.initial_state();
    let lam = vec![0.0; sys.n_lambda()];
    let params = ModalParams {
        mode_shapes: 40,
        ..Default::default()
    };
    let m = modal_analysis(sys, &q, &lam, &params).unwrap();
    assert!(m.equilibrium_residual < 1e-12 && m.asymmetry < 1e-12);
    m
}

/// The Timoshenko references of the two bending planes.
fn planes() -> [Cantilever; 2] {
    let r = rectangle();
    let k = r.stiffness();
    let i = r.inertia();
    let base = Cantilever {
        length: L,
        ei: k.ei1,
        ga: k.ga2,
        rho_a: i.rho_a,
        rho_i: i.euler_tensor[1][1],
        tip_mass: 0.0,
        tip_inertia: 0.0,
    };
    [
        base,
        Cantilever {
            ei: k.ei2,
            ga: k.ga1,
            rho_i: i.euler_tensor[0][0],
            ..base
        },
    ]
}

fn torsion_frequency() -> f64 {
    let r = rectangle();
    let e = r.inertia().euler_tensor;
    std::f64::consts::FRAC_PI_2 * (r.stiffness().gj / (e[0][0] + e[1][1])).sqrt() / L
}

/// The modal frequencies of the discrete beam against the analytic ones, with the first
/// two bending modes in both planes and the first torsional mode.
#[test]
fn cantilever_frequencies_match_euler_bernoulli_and_torsion() {
    let sec = Section::rectangle(&rectangle()).unwrap();
    let sys = cantilever(2, 16, None);
    let modes = modes_of(&sys);
    let fam = by_family(&modes, &sys, 0, &sec, 2);
    let planes = planes();
    for (p, plane) in planes.iter().enumerate() {
        let timo = roots(|w| plane.timoshenko_det(w), 0.5, 2);
        for (m, beta_l) in [1.8751041, 4.6940911].into_iter().enumerate() {
            let eb = plane.euler_bernoulli(beta_l);
            let w = fam[p][m];
            eprintln!(
                "plane {}, mode {}: ω = {w:.6} rad/s, Euler–Bernoulli {eb:.6} (rel {:+.2e}), Timoshenko {:.6} (rel {:+.2e})",
                p + 1,
                m + 1,
                (w - eb) / eb,
                timo[m],
                (w - timo[m]) / timo[m]
            );
            assert!(((w - eb) / eb).abs() < 1e-2);
            assert!(((w - timo[m]) / timo[m]).abs() < 1e-4);
        }
    }
    let wt = torsion_frequency();
    let w = fam[3][0];
    eprintln!(
        "torsion: ω = {w:.6} rad/s, exact {wt:.6} (rel {:+.2e})",
        (w - wt) / wt
    );
    assert!(((w - wt) / wt).abs() < 1e-2);
}

/// Errors of the frequencies against the exact (Timoshenko, torsion) references over three
/// meshes per element order, with the observed orders.
#[test]
fn cantilever_frequencies_converge() {
    let sec = Section::rectangle(&rectangle()).unwrap();
    let planes = planes();
    let exact: Vec<Vec<f64>> = planes
        .iter()
        .map(|p| roots(|w| p.timoshenko_det(w), 0.5, 2))
        .collect();
    let wt = torsion_frequency();
    for (order, meshes) in [(1, [8, 16, 32, 64]), (2, [2, 4, 8, 16])] {
        let mut errs = vec![Vec::new(); 5];
        for n_el in meshes {
            let sys = cantilever(order, n_el, None);
            let fam = by_family(&modes_of(&sys), &sys, 0, &sec, 2);
            let got = [fam[0][0], fam[0][1], fam[1][0], fam[1][1], fam[3][0]];
            let want = [exact[0][0], exact[0][1], exact[1][0], exact[1][1], wt];
            for k in 0..5 {
                errs[k].push(((got[k] - want[k]) / want[k]).abs());
            }
        }
        for (k, name) in [
            "EI1 mode 1",
            "EI1 mode 2",
            "EI2 mode 1",
            "EI2 mode 2",
            "torsion 1",
        ]
        .iter()
        .enumerate()
        {
            let rates = orders(&errs[k], 2.0);
            eprintln!(
                "order {order}, {name}: errors {} for {meshes:?} elements, orders {rates:.2?}",
                common::sci(&errs[k]),
            );
            // linear elements converge at order 2, quadratic ones at order 4 (2p)
            let want = 2.0 * order as f64;
            assert!(
                rates.iter().all(|r| (r - want).abs() < 0.1 * want),
                "order {order}, {name}: rates {rates:?}"
            );
        }
    }
}

/// A rigid body welded to the tip: reference point at the tip, centroid there too, a 5 cm cube
/// of half the beam's mass (rotary inertia 2.1e-4 kg m² about the bending axes).
fn tip_body() -> RigidBody {
    let (m, a) = (0.5, 0.05);
    RigidBody {
        name: "tip".into(),
        mass: MassProperties::from_box([a, a, a], m / (a * a * a), [0.0; 3]),
        position: [0.0, 0.0, L],
        directors: FRAME_Z,
        velocity: [0.0; 3],
        director_velocities: [[0.0; 3]; 3],
    }
}

/// Cantilever with a rigid tip body against the classical tip-mass equation (no rotary
/// inertia; 1 %) and against the Timoshenko equation with tip mass and rotary inertia (1e-4).
#[test]
fn cantilever_with_rigid_tip_body() {
    let sec = Section::rectangle(&rectangle()).unwrap();
    let body = tip_body();
    let j = body.mass.inertia_tensor();
    let sys = cantilever(2, 16, Some(body.clone()));
    let modes = modes_of(&sys);
    // body is frame 0, the beam starts at frame 1
    let fam = by_family(&modes, &sys, 1, &sec, 2);
    for (p, plane) in planes().iter().enumerate() {
        let with_tip = Cantilever {
            tip_mass: body.mass.mass,
            tip_inertia: j[p][p],
            ..*plane
        };
        let classical = roots(|w| with_tip.euler_bernoulli_tip_mass(w), 0.5, 2);
        let timo = roots(|w| with_tip.timoshenko_det(w), 0.5, 2);
        for m in 0..2 {
            let w = fam[p][m];
            eprintln!(
                "tip body, plane {}, mode {}: ω = {w:.6} rad/s, classical tip-mass equation {:.6} (rel {:+.2e}), Timoshenko + tip mass + rotary inertia {:.6} (rel {:+.2e})",
                p + 1,
                m + 1,
                classical[m],
                (w - classical[m]) / classical[m],
                timo[m],
                (w - timo[m]) / timo[m]
            );
            assert!(((w - classical[m]) / classical[m]).abs() < 1e-2);
            assert!(((w - timo[m]) / timo[m]).abs() < 1e-4);
        }
    }
}

/// Small free vibration in the first mode, integrated by the space-time Petrov–Galerkin method
/// (p = 2, 32 elements per period): the period measured from the zero crossings of the tip
/// deflection agrees with the modal one.
#[test]
fn free_vibration_period_matches_modal_period() {
    let sys = cantilever(2, 8, None);
    let modes = modes_of(&sys);
    let w1 = modes.omega()[0];
    let period = 2.0 * std::f64::consts::PI / w1;
    let tip = sys.n_frames() - 1;
    let shape = &modes.shapes[0];
    // tip velocity amplitude 1e-3 ω m/s, i.e. a tip deflection of 1e-3 L (geometric
    // nonlinearity ~1e-6 relative)
    let amp = 1e-3 * w1 / shape[12 * tip + 1].abs();
    let (q0, _) = sys.initial_state();
    let v0: Vec<f64> = shape.iter().map(|s| amp * s).collect();
    let periods = 2;
    let mut errors = Vec::new();
    for per_period in [16, 32, 64] {
        let params = SpaceTimeParams {
            order: 2,
            elements_per_block: 1,
            blocks: periods * per_period,
            quadrature_points: None,
            formulation: Default::default(),
        };
        let newton = NewtonParams {
            // the residual's round-off floor is ~1e-10 (EA = 1.2e5 N times coordinates of 1 m, times h)
            tolerance: 1e-9,
            max_iterations: 20,
        };
        let traj = simulate(
            &sys,
            &q0,
            &v0,
            0.0,
            periods as f64 * period,
            &Method::SpaceTime(params),
            &newton,
            &mut |_| {},
        )
        .unwrap();
        // zero crossings of the tip deflection y(t) = A sin ωt, located on the quadratic
        // interpolant of each time element
        let y = |k: usize| traj.q_at(k)[12 * tip + 1];
        let mut crossings = Vec::new();
        for e in 0..traj.n_elements() {
            let (k0, t0, t2) = (2 * e, traj.times[2 * e], traj.times[2 * e + 2]);
            let (y0, y1, y2) = (y(k0), y(k0 + 1), y(k0 + 2));
            let interp = |tau: f64| {
                y0 * 2.0 * (tau - 0.5) * (tau - 1.0) - y1 * 4.0 * tau * (tau - 1.0)
                    + y2 * 2.0 * tau * (tau - 0.5)
            };
            if e > 0 && y0.signum() != y2.signum() {
                let (mut a, mut b) = (0.0, 1.0);
                for _ in 0..60 {
                    let m = 0.5 * (a + b);
                    if interp(m).signum() == y0.signum() {
                        a = m;
                    } else {
                        b = m;
                    }
                }
                crossings.push(t0 + 0.5 * (a + b) * (t2 - t0));
            }
        }
        assert_eq!(crossings.len(), 2 * periods - 1, "{crossings:?}");
        let measured =
            2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
        let rel = (measured - period) / period;
        eprintln!(
            "free vibration (p = 2, {per_period} elements per period): period {measured:.8} s, modal {period:.8} s, rel {rel:+.2e}, Newton iterations {}",
            traj.total_newton_iterations()
        );
        errors.push(rel.abs());
    }
    let rates = orders(&errors, 2.0);
    eprintln!(
        "period errors {} for 16, 32, 64 elements per period: orders {rates:.2?}",
        common::sci(&errors)
    );
    assert!(errors[1] < 1e-5 && rates[0] > 3.5, "{errors:?}");
}
