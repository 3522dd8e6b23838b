//! The planar special case of the spatial director beam (issue 15, "What must be shown"
//! item 5): a 3D run in a plane against the verified planar beam (`stmech::beam`, quadratic
//! law), statics and dynamics.
//!
//! Mapping of the sections. The planar beam (`beam::section`) has the tangent director
//! `d3 = (cos θ, sin θ)` and `d1 = (−sin θ, cos θ)` in the x–y plane. The spatial beam is put
//! along x with `(d1, d2, d3) = (e_y, e_z, e_x)`, so its `d1` and `d3` are the planar ones and
//! `d2 = e_z` is the out-of-plane director; in-plane bending is rotation about `d2`. Hence
//!
//! | planar | spatial |
//! |---|---|
//! | `EA` (stretch `ν = d3·r′`) | `EA` (`Γ3 = d3·φ′`) |
//! | `GA` (shear `γ1 = d1·r′`) | `GA1` (`Γ1 = d1·φ′`) |
//! | `EI` (`κ = θ′`) | `EI2` (`K2 = ½ (d1·d3′ − d3·d1′) = θ′`) |
//! | `ρA` | `ρA` |
//! | `ρI` (rotary inertia about the normal) | `E11 = ∫ρ ξ1² dA` (the inertia of `ḋ1`) |
//!
//! and `GA2`, `EI1`, `GJ`, `E22` are out-of-plane data that a planar motion never engages (they
//! are given values different from the in-plane ones on purpose).
//!
//! Cases and pass criteria:
//! * statics: cantilever elastica under a dead tip force `P = 5 EI/L²` (tip deflection 0.7 L),
//!   moderately extensible and shearable section; the tip position and rotation of both codes
//!   converge to the same limit: their difference shrinks at the elements' orders (within 15 %
//!   of 2 for linear, ≥ 3.5 for quadratic elements) and is below 1e-3 with 64 linear and
//!   2e-5 with 16 quadratic elements;
//!   with a stiff section the 3D tip is within 1e-3 of Mattiasson's (1981) elastica table;
//! * dynamics: the same cantilever hit by a tip force pulse (0 → 5 N → 0 over 0.5 s), compared
//!   at t = 0.75 s between the planar energy-momentum stepper (step Δt/8) and the spatial
//!   space-time method (p = 2, step Δt), refining space and time together (3, 6, 12 quadratic
//!   elements, Δt = 1/40, 1/80, 1/160 s): the difference shrinks at order ≥ 3.5 (the quadratic
//!   elements' 4) to below 2e-4;
//! * in every run the out-of-plane coordinates (`φ_z`, `d1_z`, `d3_z`, and `d2 − e_z`) stay at
//!   round-off (< 1e-13).
#[path = "spatial_beam_common/mod.rs"]
mod common;

use common::{orders, sci, straight_beam};
use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::model::{BeamModel, BeamSpec as PlanarSpec, PointLoad};
use stmech::beam::section::SectionProperties;
use stmech::model::director_beam::{DiagonalStiffness, Section, SectionInertia};
use stmech::model::{JointBody, Load, LoadKind, MultibodySystem, Rigid, TimeFunction};
use stmech::solve::NewtonParams;
use stmech::solve::scheme::{Method, SpaceTimeParams, simulate};
use stmech::solve::statics::{StaticParams, solve_static};

/// `(d1, d2, d3) = (e_y, e_z, e_x)`: the planar directors at θ = 0, `d2` out of plane.
const FRAME_X: [[f64; 3]; 3] = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];

const PLANAR: SectionProperties = SectionProperties {
    rho_a: 1.0,
    rho_i: 0.01,
    ea: 1e3,
    ga: 5e2,
    ei: 1.0,
};

/// The spatial section of a planar one (see the table in the module docs).
fn spatial(p: &SectionProperties) -> Section {
    Section::from_diagonal(
        DiagonalStiffness {
            ea: p.ea,
            ga1: p.ga,
            ga2: 0.7 * p.ga,
            ei1: 2.5 * p.ei,
            ei2: p.ei,
            gj: 0.8 * p.ei,
        },
        SectionInertia {
            rho_a: p.rho_a,
            euler_tensor: [[p.rho_i, 0.0], [0.0, 3.0 * p.rho_i]],
        },
    )
    .unwrap()
}

fn newton(tolerance: f64) -> NewtonParams {
    NewtonParams {
        tolerance,
        max_iterations: 30,
    }
}

/// Tip `(x, y, θ)` of the planar cantilever (length 1) under the tip force `(0, p)`, static.
fn planar_static(sec: SectionProperties, p: f64, order: usize, n_el: usize) -> [f64; 3] {
    let mut spec = PlanarSpec::cantilever(1.0, sec, n_el, order);
    let tip = n_el * order;
    spec.point_loads.push(PointLoad {
        node: tip,
        force: [0.0, p],
        moment: 0.0,
        time_function: TimeFunction::Constant,
    });
    let model = BeamModel::try_new(spec).unwrap();
    let steps =
        stmech::beam::statics::solve_static(&model, (2.0 * p).ceil() as usize, &newton(1e-10))
            .unwrap();
    let x = &steps.last().unwrap().x;
    [x[3 * tip], x[3 * tip + 1], x[3 * tip + 2]]
}

/// The spatial cantilever along x, clamped at the origin, with `loads` built from its tip
/// frame index.
fn spatial_cantilever(
    sec: &SectionProperties,
    order: usize,
    n_el: usize,
    loads: impl Fn(usize) -> Vec<Load>,
) -> MultibodySystem {
    let beam = straight_beam("beam", order, n_el, 1.0, [0.0; 3], FRAME_X, &spatial(sec))
        .build()
        .unwrap();
    let clamp = Rigid::new(0, JointBody::Ground, &beam.initial_q[..12], &[]);
    let tip = beam.n_frames - 1;
    MultibodySystem::with_deformables(vec![], vec![beam], loads(tip), vec![Box::new(clamp)])
        .unwrap()
}

/// Tip `(x, y, θ)` of a spatial configuration and its largest out-of-plane coordinate.
fn tip_and_out_of_plane(sys: &MultibodySystem, q: &[f64]) -> ([f64; 3], f64) {
    let tip = sys.n_frames() - 1;
    let t = &q[12 * tip..12 * tip + 12];
    let theta = t[10].atan2(t[9]);
    let mut off: f64 = 0.0;
    for f in 0..sys.n_frames() {
        let n = &q[12 * f..12 * f + 12];
        // φ_z, d1_z, d3_z, and d2 − e_z
        for v in [n[2], n[5], n[11], n[6], n[7], n[8] - 1.0] {
            off = off.max(v.abs());
        }
    }
    ([t[0], t[1], theta], off)
}

fn tip_force(p: f64, tf: TimeFunction) -> impl Fn(usize) -> Vec<Load> {
    move |tip| {
        vec![Load {
            body: tip,
            kind: LoadKind::Force([0.0, p, 0.0]),
            time_function: tf.clone(),
        }]
    }
}

fn spatial_static(sec: SectionProperties, p: f64, order: usize, n_el: usize) -> ([f64; 3], f64) {
    let sys = spatial_cantilever(&sec, order, n_el, tip_force(p, TimeFunction::Constant));
    let (q0, _) = sys.initial_state();
    let sol = solve_static(
        &sys,
        &q0,
        &StaticParams {
            load_steps: (2.0 * p).ceil() as usize,
            newton: newton(1e-10),
            ..Default::default()
        },
    )
    .unwrap();
    tip_and_out_of_plane(&sys, &sol.q)
}

fn max_diff(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).abs()).fold(0.0, f64::max)
}

#[test]
fn elastica_statics_agrees_with_the_planar_beam() {
    let p = 5.0;
    let limit = planar_static(PLANAR, p, 2, 128);
    eprintln!("planar reference (128 quadratic elements): tip {limit:.8?}");
    for (order, meshes) in [(1, [8, 16, 32, 64]), (2, [2, 4, 8, 16])] {
        let (mut diff, mut e_planar, mut e_spatial) = (Vec::new(), Vec::new(), Vec::new());
        for n in meshes {
            let a = planar_static(PLANAR, p, order, n);
            let (b, off) = spatial_static(PLANAR, p, order, n);
            assert!(off < 1e-13, "out of plane {off:e}");
            diff.push(max_diff(&a, &b));
            e_planar.push(max_diff(&a, &limit));
            e_spatial.push(max_diff(&b, &limit));
        }
        let rates = orders(&diff, 2.0);
        eprintln!(
            "order {order}, {meshes:?} elements: |3D − planar| {} (orders {rates:.2?}); planar error {} (orders {:.2?}); 3D error {} (orders {:.2?})",
            sci(&diff),
            sci(&e_planar),
            orders(&e_planar, 2.0),
            sci(&e_spatial),
            orders(&e_spatial, 2.0)
        );
        let want = 2.0 * order as f64;
        if order == 1 {
            assert!(
                rates.iter().all(|r| (r - want).abs() < 0.15 * want),
                "{rates:?}"
            );
        } else {
            assert!(rates.iter().all(|&r| r > 3.5), "{rates:?}");
        }
        assert!(diff[3] < [0.0, 1e-3, 2e-5][order], "{diff:?}");
    }
    // a nearly inextensible, unshearable section against the elastica table (Mattiasson 1981)
    let stiff = SectionProperties {
        ea: 1e5,
        ga: 1e5,
        ..PLANAR
    };
    let (b, _) = spatial_static(stiff, p, 2, 10);
    let want = [1.0 - 0.38763, 0.71379, 1.21537];
    eprintln!(
        "3D elastica (10 quadratic elements, EA = GA = 1e5): tip {b:.5?}, Mattiasson {want:?}"
    );
    assert!(max_diff(&b, &want) < 1e-3);
}

/// The tip force pulse: 0 → 5 N → 0 at t = 0, 0.25, 0.5 s.
fn pulse() -> TimeFunction {
    TimeFunction::Table {
        times: vec![0.0, 0.25, 0.5],
        values: vec![0.0, 5.0, 0.0],
    }
}

/// Tip `(x, y, θ)` of the planar cantilever at `t_end` after the pulse, energy-momentum
/// stepper with step `dt`.
fn planar_dynamic(order: usize, n_el: usize, dt: f64, t_end: f64) -> [f64; 3] {
    let mut spec = PlanarSpec::cantilever(1.0, PLANAR, n_el, order);
    let tip = n_el * order;
    spec.point_loads.push(PointLoad {
        node: tip,
        force: [0.0, 1.0],
        moment: 0.0,
        time_function: pulse(),
    });
    let model = BeamModel::try_new(spec).unwrap();
    let mut stepper = EnergyMomentumStepper::at_rest(&model, dt, newton(1e-10)).unwrap();
    stepper.run_until(t_end, |_| {}).unwrap();
    stepper.node(tip)
}

/// The same with the spatial beam and the space-time method (p = 2, element size `dt`); also
/// the largest out-of-plane coordinate over all time nodes.
fn spatial_dynamic(order: usize, n_el: usize, dt: f64, t_end: f64) -> ([f64; 3], f64) {
    let sys = spatial_cantilever(&PLANAR, order, n_el, tip_force(1.0, pulse()));
    let (q0, v0) = sys.initial_state();
    let params = SpaceTimeParams {
        order: 2,
        elements_per_block: 1,
        blocks: (t_end / dt).round() as usize,
        quadrature_points: None,
        formulation: Default::default(),
    };
    let traj = simulate(
        &sys,
        &q0,
        &v0,
        0.0,
        t_end,
        &Method::SpaceTime(params),
        &newton(1e-10),
        &mut |_| {},
    )
    .unwrap();
    let off = (0..traj.len())
        .map(|k| tip_and_out_of_plane(&sys, traj.q_at(k)).1)
        .fold(0.0, f64::max);
    (tip_and_out_of_plane(&sys, traj.q_final()).0, off)
}

#[test]
fn tip_pulse_dynamics_agrees_with_the_planar_beam() {
    let t_end = 0.75;
    let mut diff = Vec::new();
    let runs = [(3, 1.0 / 40.0), (6, 1.0 / 80.0), (12, 1.0 / 160.0)];
    for (n, dt) in runs {
        // the planar stepper is second order in time and cheap: Δt/8 keeps its time error
        // below the spatial one; the space-time method (p = 2) is fourth order at the nodes
        let a = planar_dynamic(2, n, dt / 8.0, t_end);
        let (b, off) = spatial_dynamic(2, n, dt, t_end);
        eprintln!(
            "{n} quadratic elements, Δt = {dt}: planar tip {a:.6?}, 3D tip {b:.6?}, out of plane {off:.1e}"
        );
        assert!(off < 1e-13, "out of plane {off:e}");
        diff.push(max_diff(&a, &b));
    }
    let rates = orders(&diff, 2.0);
    eprintln!(
        "tip at t = {t_end} s: |3D − planar| {} (orders {rates:.2?}) for (elements, Δt) = {runs:?}",
        sci(&diff)
    );
    assert!(rates.iter().all(|&r| r > 3.5), "{rates:?}");
    assert!(diff[2] < 2e-4, "{diff:?}");
}
