//! The curvature terms `vᵀ (∂²Φ_k/∂q²) v` of the consistent initial multiplier
//! (`solve::consistent`) come from the constraints' second derivatives in one pass
//! (`MultibodySystem::constraint_curvatures`, linear in the size). Before, they were read off
//! the tangent as `K(e_k) − K(0)`, one whole tangent per constraint equation (quadratic in the
//! size: 304 s of set-up for a clamped beam of 2000 elements); that computation is kept as
//! `model::curvatures_from_tangent`, the trait's default.
//!
//! Both must agree to round-off on every kind of constraint: rigid bodies with spherical,
//! revolute and distance joints (the multibody examples), beams with a clamp and a weld and free
//! beams (the flexible examples), a body point on a prescribed path and a moving clamp of a beam
//! (rheonomic), at a configuration and velocity away from the initial state so that no term
//! vanishes. The bound is the round-off of the old computation itself: it subtracts two
//! tangents that hold the elastic stiffness, so each term may be off by a few ε times
//! `Σ |v_i| (|K(e_k)_ij| + |K(0)_ij|) |v_j|`.
//!
//! The consistent multipliers with the new and with the old curvature terms are compared too
//! (to 1e-12 of the largest), and the new path is pinned without timing: it evaluates the system
//! once, without tangent. Measured (2026-11-29): the terms (of order 1) differ by at most
//! 8.9e-16, the multipliers by at most 3.6e-15 (of up to 5.5e5), most of them not at all.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use stmech::io::load::{AnyScenario, load_path, load_text};
use stmech::model::strain::StrainSlot;
use stmech::model::{
    ConstrainedSystem, FrameMotion, FrameMotionState, MultibodySystem, PointEval, PrescribedFrame,
    curvatures_from_tangent,
};
use stmech::solve::consistent::consistent_multiplier;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

fn system_of(scenario: AnyScenario) -> MultibodySystem {
    match scenario {
        AnyScenario::Multibody(s) => s.system,
        _ => panic!("not a multibody scenario"),
    }
}

fn example(name: &str) -> MultibodySystem {
    system_of(load_path(&examples().join(name)).unwrap_or_else(|e| panic!("{name}: {e}")))
}

/// A deterministic pseudo-random number in [-1, 1).
fn wiggle(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

/// The initial configuration moved by up to `dq` and a velocity of order `vs` per coordinate
/// (plus the initial velocity).
fn state(sys: &MultibodySystem, dq: f64, vs: f64) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut v) = sys.initial_state();
    let mut seed = 0x5eed;
    for (qi, vi) in q.iter_mut().zip(&mut v) {
        *qi += dq * wiggle(&mut seed);
        *vi += vs * wiggle(&mut seed);
    }
    (q, v)
}

/// `sys` with every method delegated, except (unless `curvatures`) the curvature terms, which
/// then take the trait's default (the old computation); counts the evaluations.
struct Delegate<'a> {
    sys: &'a MultibodySystem,
    curvatures: bool,
    evals: AtomicUsize,
    tangents: AtomicUsize,
}

impl<'a> Delegate<'a> {
    fn new(sys: &'a MultibodySystem, curvatures: bool) -> Self {
        Self {
            sys,
            curvatures,
            evals: AtomicUsize::new(0),
            tangents: AtomicUsize::new(0),
        }
    }
}

impl ConstrainedSystem for Delegate<'_> {
    fn n_q(&self) -> usize {
        self.sys.n_q()
    }
    fn n_lambda(&self) -> usize {
        self.sys.n_lambda()
    }
    fn mass(&self) -> &[(usize, usize, f64)] {
        self.sys.mass()
    }
    fn g_pattern(&self) -> &[(usize, usize)] {
        self.sys.g_pattern()
    }
    fn k_pattern(&self) -> &[(usize, usize)] {
        self.sys.k_pattern()
    }
    fn point_k_pattern(&self) -> &[(usize, usize)] {
        self.sys.point_k_pattern()
    }
    fn constraint_units(&self) -> Vec<u8> {
        self.sys.constraint_units()
    }
    fn coordinate_units(&self) -> Vec<u8> {
        self.sys.coordinate_units()
    }
    fn new_point_eval(&self) -> PointEval {
        self.sys.new_point_eval()
    }
    fn eval(&self, t: f64, q: &[f64], lambda: &[f64], out: &mut PointEval, tangent: bool) {
        self.evals.fetch_add(1, Ordering::Relaxed);
        if tangent {
            self.tangents.fetch_add(1, Ordering::Relaxed);
        }
        self.sys.eval(t, q, lambda, out, tangent);
    }
    fn eval_without_strain(
        &self,
        t: f64,
        q: &[f64],
        lambda: &[f64],
        out: &mut PointEval,
        tangent: bool,
    ) {
        self.sys.eval_without_strain(t, q, lambda, out, tangent);
    }
    fn strain_slots(&self) -> &[StrainSlot] {
        self.sys.strain_slots()
    }
    fn director_frames(&self) -> usize {
        self.sys.director_frames()
    }
    fn eval_velocity_jacobian(&self, q: &[f64], v: &[f64], out: &mut PointEval) {
        self.sys.eval_velocity_jacobian(q, v, out);
    }
    fn constraint_curvatures(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        if self.curvatures {
            self.sys.constraint_curvatures(t, q, v, out);
        } else {
            curvatures_from_tangent(self, t, q, v, out);
        }
    }
    fn breakpoints(&self) -> Vec<f64> {
        self.sys.breakpoints()
    }
    fn potential_energy(&self, q: &[f64]) -> f64 {
        self.sys.potential_energy(q)
    }
}

/// Per equation: the round-off bound of `K(e_k) − K(0)` contracted with `v` (module docs).
fn old_round_off(sys: &MultibodySystem, t: f64, q: &[f64], v: &[f64]) -> Vec<f64> {
    let nl = sys.n_lambda();
    let mut ev = sys.new_point_eval();
    let mut unit = vec![0.0; nl];
    sys.eval(t, q, &unit, &mut ev, true);
    let k0 = ev.k.clone();
    (0..nl)
        .map(|k| {
            unit[k] = 1.0;
            sys.eval(t, q, &unit, &mut ev, true);
            unit[k] = 0.0;
            let s: f64 = sys
                .k_pattern()
                .iter()
                .zip(ev.k.iter().zip(&k0))
                .map(|(&(i, j), (a, b))| v[i].abs() * (a.abs() + b.abs()) * v[j].abs())
                .sum();
            16.0 * f64::EPSILON * s
        })
        .collect()
}

/// New against old curvature terms and consistent multipliers; returns the largest term.
fn compare(name: &str, sys: &MultibodySystem, t: f64, dq: f64, vs: f64) -> f64 {
    let (q, v) = state(sys, dq, vs);
    let nl = sys.n_lambda();
    let (mut new, mut old) = (vec![0.0; nl], vec![0.0; nl]);
    sys.constraint_curvatures(t, &q, &v, &mut new);
    curvatures_from_tangent(sys, t, &q, &v, &mut old);
    let bound = old_round_off(sys, t, &q, &v);
    let scale = new.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for k in 0..nl {
        let tol = bound[k] + 1e-14 * new[k].abs();
        assert!(
            (new[k] - old[k]).abs() <= tol,
            "{name}: equation {k}: one pass {:e}, from the tangent {:e} (round-off bound {tol:e})",
            new[k],
            old[k]
        );
    }
    // the multipliers: the same saddle-point system, right-hand sides equal to round-off
    let lam_new = consistent_multiplier(sys, t, &q, &v).expect("regular");
    let lam_old =
        consistent_multiplier(&Delegate::new(sys, false), t, &q, &v).expect("regular (old)");
    let lam_scale = lam_new
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()))
        .max(1e-300);
    let diff = lam_new
        .iter()
        .zip(&lam_old)
        .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(
        diff <= 1e-12 * lam_scale,
        "{name}: consistent multipliers differ by {diff:e} (largest {lam_scale:e})"
    );
    scale
}

#[test]
fn rigid_bodies_with_joints() {
    for name in [
        "rigid_body/01_constant_torque.toml",
        "multibody/01_double_pendulum.toml",
        "multibody/02_double_pendulum_off_centre.toml",
        "multibody/03_double_pendulum_3d.toml",
        "multibody/04_four_body_chain.toml",
    ] {
        let sys = example(name);
        let scale = compare(name, &sys, 0.3, 1e-2, 1.0);
        assert!(
            scale > 1e-3,
            "{name}: the curvature terms vanish ({scale:e})"
        );
    }
}

#[test]
fn beams_with_clamp_and_weld_and_free_beams() {
    for name in [
        "flexible/01_bend_45.toml",
        "flexible/02_flying_spaghetti_3d.toml",
        "flexible/03_arm_with_gripper.toml",
        "flexible/04_helix_rollup.toml",
        "flexible/05_damped_torsion.toml",
    ] {
        let sys = example(name);
        let scale = compare(name, &sys, 0.1, 1e-3, 1.0);
        assert!(
            scale > 1e-3,
            "{name}: the curvature terms vanish ({scale:e})"
        );
    }
}

/// A body point on a quadratic path (`Prescribed`, rheonomic: `∂²Φ/∂t² ≠ 0`) beside a
/// distance and a revolute joint.
#[test]
fn prescribed_path_of_a_body_point() {
    let text = r#"
[time]
end = 1.0
[method]
kind = "space-time"
order = 1
elements_per_block = 10
blocks = 1
[[bodies]]
name = "a"
box = { edges = [1.0, 0.2, 0.2], density = 1000.0 }
position = [0.5, 0.0, 0.0]
[[bodies]]
name = "b"
box = { edges = [1.0, 0.2, 0.2], density = 1000.0 }
position = [1.5, 0.0, 0.0]
[[joints]]
name = "path"
kind = "prescribed"
body_a = "a"
point_a = [-0.5, 0.0, 0.0]
path = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.3, -0.2, 0.1]]
[[joints]]
name = "hinge"
kind = "revolute"
body_a = "a"
point_a = [0.5, 0.0, 0.0]
axis_a = [0.0, 0.0, 1.0]
body_b = "b"
point_b = [-0.5, 0.0, 0.0]
axis_b = [0.0, 0.0, 1.0]
[[loads]]
body = "b"
kind = "body-force"
vector = [0.0, 0.0, -9.81]
"#;
    let sys = system_of(load_text(text, "prescribed.toml", Path::new(".")).unwrap());
    assert!(sys.constraints().any(|(c, _)| c.name() == "prescribed"));
    let scale = compare("prescribed path", &sys, 0.4, 1e-2, 1.0);
    assert!(scale > 1e-3);
}

/// A steady spin about the global z axis at `omega` with the frame's reference point fixed.
#[derive(Debug)]
struct Spin {
    omega: f64,
    directors: [[f64; 3]; 3],
    position: [f64; 3],
}

impl FrameMotion for Spin {
    fn frame_state(&self, t: f64) -> FrameMotionState {
        let (s, c) = (self.omega * t).sin_cos();
        let rot = |d: &[f64; 3]| [c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]];
        FrameMotionState {
            position: self.position,
            directors: [
                rot(&self.directors[0]),
                rot(&self.directors[1]),
                rot(&self.directors[2]),
            ],
            velocity: [0.0; 3],
            acceleration: [0.0; 3],
            angular_velocity: [0.0, 0.0, self.omega],
            angular_acceleration: [0.0; 3],
        }
    }
}

/// A beam clamped to a frame that spins (`PrescribedFrame`, rheonomic) with a body welded to
/// its far end, under gravity: the arm with gripper of `examples/flexible/03_arm_with_gripper.toml`
/// with a moving clamp, as in the spatial inverse's closed-loop replay.
#[test]
fn moving_clamp_of_a_beam() {
    use stmech::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
    use stmech::model::director_beam::{DiagonalStiffness, SectionInertia};
    use stmech::model::{
        JointBody, Load, LoadKind, MassProperties, Rigid, RigidBody, TimeFunction,
    };
    let directors = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
    let section = Section::from_diagonal(
        DiagonalStiffness {
            ea: 2.1e7,
            ga1: 8e6,
            ga2: 8e6,
            ei1: 2.5e3,
            ei2: 2.5e3,
            gj: 2e3,
        },
        SectionInertia {
            rho_a: 0.8,
            euler_tensor: [[1.0e-4, 0.0], [0.0, 1.0e-4]],
        },
    )
    .unwrap();
    let n_el = 8;
    let beam = BeamSpec {
        name: "arm".into(),
        order: 2,
        nodes: ConstantCurvature::straight([0.0; 3], directors).nodes(1.2, n_el, 2),
        section,
        integration: Integration::Reduced,
        velocity: [0.0; 3],
        angular_velocity: [0.0; 3],
        distributed: vec![],
        gravity: None,
    }
    .build()
    .unwrap();
    let gripper = RigidBody {
        name: "gripper".into(),
        mass: MassProperties::from_box([0.1, 0.1, 0.1], 1500.0, [0.05, 0.0, 0.03]),
        position: [1.2, 0.0, 0.0],
        directors: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        velocity: [0.0; 3],
        director_velocities: [[0.0; 3]; 3],
    };
    // frames: 0 the gripper, 1 … 2 n_el + 1 the arm's nodes
    let (base, end) = (1, 1 + 2 * n_el);
    let q_end = beam.initial_q[12 * (end - 1)..12 * end].to_vec();
    let weld = Rigid::new(end, JointBody::Body(0), &q_end, &gripper.initial_q());
    let clamp = PrescribedFrame::new(
        base,
        Arc::new(Spin {
            omega: 2.0,
            directors,
            position: [0.0; 3],
        }),
    );
    let gravity = Load {
        body: 0,
        kind: LoadKind::BodyForce([0.0, 0.0, -9.81]),
        time_function: TimeFunction::Constant,
    };
    let sys = MultibodySystem::with_deformables(
        vec![gripper],
        vec![beam],
        vec![gravity],
        vec![Box::new(weld), Box::new(clamp)],
    )
    .unwrap();
    assert!(
        sys.constraints()
            .any(|(c, _)| c.name() == "prescribed-frame")
    );
    let scale = compare("moving clamp", &sys, 0.2, 1e-3, 1.0);
    assert!(scale > 1e-3);
}

/// The new path evaluates the system once, without tangent, whatever its size; the old one
/// evaluated the tangent `n_λ + 1` times.
#[test]
fn consistent_multiplier_evaluates_no_tangent() {
    let sys = example("flexible/03_arm_with_gripper.toml");
    let (q, v) = state(&sys, 1e-3, 1.0);
    let new = Delegate::new(&sys, true);
    consistent_multiplier(&new, 0.0, &q, &v).unwrap();
    assert_eq!(new.evals.load(Ordering::Relaxed), 1);
    assert_eq!(new.tangents.load(Ordering::Relaxed), 0);
    let old = Delegate::new(&sys, false);
    consistent_multiplier(&old, 0.0, &q, &v).unwrap();
    assert_eq!(
        old.tangents.load(Ordering::Relaxed),
        sys.n_lambda() + 1,
        "the default reads the curvature off n_λ + 1 tangents"
    );
}
