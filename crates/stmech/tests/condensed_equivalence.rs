//! The condensed Petrov–Galerkin time element (`discretize::condensed`, the default solve path
//! whenever it applies) gives the discrete solution of the full form
//! (`discretize::petrov_galerkin`, reached through `space_time::solve_full_form`).
//!
//! Both are the same equations: the condensed element only eliminates the velocities, which
//! its velocity rows give exactly. The two paths must then agree to round-off and the Newton
//! tolerance, for every order. Checked for p = 1, 2, 3 over 1 s / 0.4 s of
//!
//! * a free, spinning director beam (two linear elements, the flying beam of
//!   `spatial_beam_conservation.rs`, under its load ramp), elastic, and with Kelvin–Voigt
//!   viscosity and a rigid body welded to its end (strain elements and constraints), with one
//!   and with several elements per block;
//! * a rigid double pendulum away from the origin (spherical joint to the ground, revolute
//!   joint between the bodies, gravity), with one and with several elements per block.
//!
//! Newton tolerance 1e-14 (both paths converge to round-off), 1e-12 for the beam with the body
//! (its p = 3 elements are solved by the chord method, which stalls at ~6e-14).
//!
//! Pass criterion: at every node, `max |Δq| < 1e-10 max |q|` and `max |Δv| < 1e-10 max |v|`
//! (maxima over the run); measured ≤ 3e-13 and ≤ 1e-12. The condensed element once wrote its
//! velocities and inertia terms with the absolute nodal positions, through coefficients whose
//! rows sum to zero only to round-off: a systematic force `~ε 𝕄 q / h²` made its p ≥ 2
//! solutions drift from the full form's, here by 1.4e-10 to 3e-10 in v already for p = 2.
#[path = "spatial_beam_common/mod.rs"]
mod common;

use common::straight_beam;
use stmech::model::director_beam::{DiagonalStiffness, Section, SectionInertia};
use stmech::model::{
    JointBody, Load, LoadKind, MassProperties, MultibodySystem, Revolute, Rigid, RigidBody,
    Spherical, TimeFunction,
};
use stmech::solve::scheme::SpaceTimeParams;
use stmech::solve::scheme::space_time::{solve, solve_full_form};
use stmech::solve::{NewtonParams, Trajectory};

const I3: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// The flying beam's section (`spatial_beam_conservation.rs`), with Kelvin–Voigt retardation
/// times `tau` (s) if given.
fn section(tau: Option<(f64, f64)>) -> Section {
    let s = Section::from_diagonal(
        DiagonalStiffness {
            ea: 1e4,
            ga1: 1e4,
            ga2: 1e4,
            ei1: 500.0,
            ei2: 500.0,
            gj: 500.0,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[10.0, 0.0], [0.0, 10.0]],
        },
    )
    .unwrap();
    match tau {
        Some((tau_s, tau_e)) => s.with_kelvin_voigt(tau_s, tau_e).unwrap(),
        None => s,
    }
}

/// The flying beam of `spatial_beam_conservation.rs` (two linear elements, from (6, 0, 0) to
/// (0, 8, 0), force and torque ramped up from t = 0), here also spinning and drifting from
/// the start; with `body`, a rigid box welded to its far end.
fn flying_beam(tau: Option<(f64, f64)>, body: bool) -> MultibodySystem {
    let (d3, d1) = ([-0.6, 0.8, 0.0], [-0.8, -0.6, 0.0]);
    let frame = [d1, [0.0, 0.0, 1.0], d3];
    let mut spec = straight_beam("beam", 1, 2, 10.0, [6.0, 0.0, 0.0], frame, &section(tau));
    spec.velocity = [0.3, -0.2, 0.5];
    spec.angular_velocity = [0.2, -0.1, 0.6];
    let beam = spec.build().unwrap();
    let nb = usize::from(body);
    let mut bodies = Vec::new();
    let mut constraints: Vec<Box<dyn stmech::model::Constraint>> = Vec::new();
    if body {
        // the box's frame is the beam's end frame, and moves with it
        let end = &beam.initial_q[12 * (beam.n_frames - 1)..];
        let vel = &beam.initial_v[12 * (beam.n_frames - 1)..];
        let b = RigidBody {
            name: "box".into(),
            mass: MassProperties::from_box([1.0, 1.0, 1.0], 4.0, [0.0, 0.0, -0.5]),
            position: [end[0], end[1], end[2]],
            directors: frame,
            velocity: [vel[0], vel[1], vel[2]],
            director_velocities: [
                [vel[3], vel[4], vel[5]],
                [vel[6], vel[7], vel[8]],
                [vel[9], vel[10], vel[11]],
            ],
        };
        constraints.push(Box::new(Rigid::new(
            nb + beam.n_frames - 1,
            JointBody::Body(0),
            end,
            &b.initial_q(),
        )));
        bodies.push(b);
    }
    let ramp = || TimeFunction::Table {
        times: vec![0.0, 1.25],
        values: vec![0.0, 2.0],
    };
    let loads = vec![
        Load {
            body: nb,
            kind: LoadKind::Force([8.0, 0.0, 0.0]),
            time_function: ramp(),
        },
        Load {
            body: nb,
            kind: LoadKind::Torque([0.0, -40.0, 80.0]),
            time_function: ramp(),
        },
    ];
    MultibodySystem::with_deformables(bodies, vec![beam], loads, constraints).unwrap()
}

/// Two boxes under gravity, away from the origin: the upper hangs from a spherical joint at
/// `P = (3, −2, 4)` with its centre at `P + (1, 0.5, −1)`, the lower hinges on it about `d2`
/// at `P + (2, 0.5, −2)`, centre at `P + (2.5, 0.5, −2.8)`; released from rest.
fn double_pendulum() -> MultibodySystem {
    let pivot = [3.0, -2.0, 4.0];
    let at = |d: [f64; 3]| [pivot[0] + d[0], pivot[1] + d[1], pivot[2] + d[2]];
    let body = |name: &str, edges: [f64; 3], position: [f64; 3]| RigidBody {
        name: name.into(),
        mass: MassProperties::from_box(edges, 1.5, [0.0; 3]),
        position,
        directors: I3,
        velocity: [0.0; 3],
        director_velocities: [[0.0; 3]; 3],
    };
    let (c1, c2) = (at([1.0, 0.5, -1.0]), at([2.5, 0.5, -2.8]));
    let hinge = at([2.0, 0.5, -2.0]);
    let rel = |c: [f64; 3], x: [f64; 3]| [x[0] - c[0], x[1] - c[1], x[2] - c[2]];
    let bodies = vec![
        body("upper", [0.6, 0.4, 1.2], c1),
        body("lower", [0.5, 0.3, 1.0], c2),
    ];
    let gravity = |b: usize| Load {
        body: b,
        kind: LoadKind::BodyForce([0.0, 0.0, -9.81]),
        time_function: TimeFunction::Constant,
    };
    let joints: Vec<Box<dyn stmech::model::Constraint>> = vec![
        Box::new(Spherical::new(
            JointBody::Body(0),
            rel(c1, pivot),
            JointBody::Ground,
            pivot,
        )),
        Box::new(Revolute::new(
            JointBody::Body(1),
            rel(c2, hinge),
            [0.0, 1.0, 0.0],
            JointBody::Body(0),
            rel(c1, hinge),
            [0.0, 1.0, 0.0],
        )),
    ];
    MultibodySystem::new(bodies, vec![gravity(0), gravity(1)], joints).unwrap()
}

/// Largest nodal difference of `a` and `b` over the largest value of `a`, for `q` and `v`.
fn relative_differences(a: &Trajectory, b: &Trajectory) -> [f64; 2] {
    assert_eq!(a.len(), b.len());
    let mut out = [0.0; 2];
    for (o, (x, y)) in out.iter_mut().zip([(&a.q, &b.q), (&a.v, &b.v)]) {
        let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let diff = x
            .iter()
            .zip(y)
            .fold(0.0f64, |m, (u, w)| m.max((u - w).abs()));
        *o = diff / scale;
    }
    out
}

/// Runs `sys` over `blocks` blocks of `elements` elements of length `h` and order 1, 2, 3
/// through both paths with the Newton tolerance `tol` and checks that they agree.
fn check(label: &str, sys: &MultibodySystem, h: f64, blocks: usize, elements: usize, tol: f64) {
    let (q0, v0) = sys.initial_state();
    let t_end = h * (blocks * elements) as f64;
    let newton = NewtonParams {
        tolerance: tol,
        max_iterations: 30,
    };
    for order in 1..=3 {
        let params = SpaceTimeParams {
            order,
            elements_per_block: elements,
            blocks,
            quadrature_points: None,
            formulation: Default::default(),
        };
        let condensed = solve(sys, &q0, &v0, 0.0, t_end, &params, &newton, &mut |_| {}).unwrap();
        let full =
            solve_full_form(sys, &q0, &v0, 0.0, t_end, &params, &newton, &mut |_| {}).unwrap();
        let [dq, dv] = relative_differences(&condensed, &full);
        eprintln!(
            "{label}, p = {order}, h = {h} s, {blocks} × {elements} elements: relative differences q {dq:.2e}, v {dv:.2e}"
        );
        // identical to the bit only if the condensed blocks fell back to the full form
        assert!(
            dq + dv > 0.0,
            "{label}, p = {order}: the full form solved the blocks"
        );
        assert!(
            dq < 1e-10 && dv < 1e-10,
            "{label}, p = {order}: condensed and full form differ by {dq:.2e} (q), {dv:.2e} (v)"
        );
    }
}

#[test]
fn condensed_element_solves_the_full_form_for_a_beam() {
    check(
        "beam",
        &flying_beam(None, false),
        1.0 / 512.0,
        512,
        1,
        1e-14,
    );
}

#[test]
fn condensed_element_solves_the_full_form_for_a_viscous_beam_with_a_body() {
    let sys = flying_beam(Some((0.01, 0.005)), true);
    check("viscous beam with body", &sys, 1.0 / 512.0, 512, 1, 1e-12);
    check("viscous beam with body", &sys, 1.0 / 512.0, 128, 4, 1e-12);
}

#[test]
fn condensed_element_solves_the_full_form_for_a_double_pendulum() {
    let sys = double_pendulum();
    check("double pendulum", &sys, 2e-3, 200, 1, 1e-14);
    check("double pendulum", &sys, 2e-3, 40, 5, 1e-14);
}
