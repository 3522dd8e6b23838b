//! The closed-loop tool of the spatial inverse problem (issue 16, item 2):
//! `stmech::inverse::spatial::closed_loop` replays an actuation at `s = 0` (force and moment,
//! or the motion of a clamped base) in the one model's forward spatial beam and measures the
//! tip's deviation from the path. These tests check the tool itself, with actuations computed
//! here independently of any inverse solver:
//!
//! * (a) no actuation (zero force and moment; a base that stays put): the arm stays at rest,
//!   the tip's deviation from its rest pose is round-off;
//! * (b) the rigid-body Newton–Euler force and moment of a straight translation with the frame
//!   turning 90° about the beam's own axis, computed in this file (linear and angular momentum
//!   balance of the beam and the eccentric tip body), move the tip along the path with a
//!   deviation ∝ 1/stiffness (stiffness × 1, 4, 16: the ratios are within [3.5, 4.5]); this
//!   checks the loads, their signs, the torque on the base node and the weld of the tip body;
//! * (c) the base moved along the rigid motion of the issue's manoeuvre (a quarter helix with a
//!   90° twist of the frame; base = tip − L d3), analytically and as the spline of samples
//!   (`PoseCsvTrajectory::from_samples`): the tip follows with a deviation ∝ 1/stiffness, and a
//!   soft arm lags visibly;
//! * (d) the replay converges under refinement of `ForwardResolution` (orders printed and
//!   bounded), and `ForwardResolution::finer_than` is far finer than a second-order
//!   discretisation at the inverse's mesh;
//! * bad input is refused with the field and the problem named.
//!
//! The arm: 1 m, ρA = 1 kg/m, a 0.96 kg box welded at the tip with its centre off the axis, in
//! a frame that is no global axis; stiffness EA = 2e6 k, GA = (1, 0.8)e6 k, EI = (200, 300) k,
//! GJ = 150 k (N, N·m²). Motions: rest-to-rest (`[I]` Eq. 35) on [0.5, 2.5] s, replayed on
//! [0, 3] s.

use std::f64::consts::FRAC_PI_2;
use std::sync::Arc;
use stmech::inverse::spatial::SpatialBeam;
use stmech::inverse::spatial::closed_loop::{
    ClosedLoopError, ForwardResolution, Replay, SpatialTracking, closed_loop,
};
use stmech::inverse::trajectory::RestToRestProfile;
use stmech::inverse::trajectory::pose::{Pose, PoseState, PoseTrajectory, RestToRestPose};
use stmech::inverse::trajectory::pose_csv::PoseCsvTrajectory;
use stmech::math::rotation::rotate;
use stmech::math::{Vec3, cross, dot};
use stmech::model::MassProperties;
use stmech::model::director_beam::{DiagonalStiffness, Section, SectionInertia};

const L: f64 = 1.0;
const RHO_A: f64 = 1.0;
const E_SECTION: [[f64; 2]; 2] = [[2e-4, 0.0], [0.0, 1e-4]];

/// The rest frame: the global axes turned by 0.7 rad about (1, 2, 2)/3, so that no director is
/// a global axis.
fn rest_frame() -> [Vec3; 3] {
    let axis = [1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0];
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]].map(|e| rotate(&axis, 0.7, &e))
}

/// A 0.96 kg box whose centre sits at `c = (0.03, −0.02, 0.05)` m from the tip point in the tip
/// frame (off the beam's axis, beyond the tip).
fn tip_body() -> MassProperties {
    MassProperties::from_box([0.1, 0.12, 0.08], 1000.0, [-0.03, 0.02, -0.05])
}

/// The arm (1 m, 1 kg/m, tip body of 0.96 kg) with every stiffness scaled by `k`.
fn arm(k: f64) -> SpatialBeam {
    SpatialBeam {
        length: L,
        section: Section::from_diagonal(
            DiagonalStiffness {
                ea: 2e6 * k,
                ga1: 1e6 * k,
                ga2: 0.8e6 * k,
                ei1: 200.0 * k,
                ei2: 300.0 * k,
                gj: 150.0 * k,
            },
            SectionInertia {
                rho_a: RHO_A,
                euler_tensor: E_SECTION,
            },
        )
        .unwrap(),
        base: [0.2, -0.1, 0.3],
        frame: rest_frame(),
        tip: Some(tip_body()),
    }
}

fn tip_pose(beam: &SpatialBeam) -> Pose {
    Pose {
        position: beam.rest_position(beam.length),
        directors: beam.frame,
    }
}

fn profile() -> RestToRestProfile {
    RestToRestProfile {
        t0: 0.5,
        duration: 2.0,
    }
}

const T_END: f64 = 3.0;

/// The tip path of (b): the straight line by `Δ` with the frame turning by 90° about the
/// beam's own axis `d3`.
fn line_path(beam: &SpatialBeam) -> RestToRestPose {
    RestToRestPose::line(
        tip_pose(beam),
        [0.3, 0.4, -0.2],
        beam.frame[2],
        FRAC_PI_2,
        profile(),
    )
    .unwrap()
}

fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scale(s: f64, a: Vec3) -> Vec3 {
    a.map(|c| s * c)
}

/// `J v` for a spatial tensor `J` given as `Σ_ij j[i][j] a_i ⊗ a_j` in the orthonormal basis `a`.
fn tensor_times(j: &[[f64; 3]; 3], a: &[Vec3; 3], v: &Vec3) -> Vec3 {
    let mut out = [0.0; 3];
    for i in 0..3 {
        for k in 0..3 {
            out = add(out, scale(j[i][k] * dot(&a[k], v), a[i]));
        }
    }
    out
}

/// Newton–Euler of the rigid arm (beam and tip body) moving as the tip pose `s` (the straight
/// beam from `r_tip − L d3` to `r_tip`): the force and the moment about the base point that
/// the base must apply, from the linear and angular momentum balances
///
/// ```text
/// F = Σ_b m_b a_b,       M = Σ_b [(x_b − r_base) × m_b a_b + J_b α + ω × (J_b ω)]
/// ```
///
/// over the two bodies (centre of mass `x_b`, its acceleration `a_b`, inertia `J_b` about it).
fn newton_euler(beam: &SpatialBeam, s: &PoseState) -> (Vec3, Vec3) {
    let d = s.pose.directors;
    let (w, al) = (s.angular_velocity, s.angular_acceleration);
    // acceleration of a point fixed to the pose at offset ρ from the tip point
    let accel = |rho: Vec3| {
        add(
            s.acceleration,
            add(cross(&al, &rho), cross(&w, &cross(&w, &rho))),
        )
    };
    let rot = |j: &[[f64; 3]; 3]| {
        let jw = tensor_times(j, &d, &w);
        add(tensor_times(j, &d, &al), cross(&w, &jw))
    };
    // the beam: mass ρA L at the middle; about its centre, per length the section's
    // tr(E) I − E_αβ d_α ⊗ d_β, plus ρA L³/12 (I − d3 ⊗ d3)
    let m_beam = RHO_A * L;
    let a_beam = accel(scale(-0.5 * L, d[2]));
    let e = E_SECTION;
    let tr = e[0][0] + e[1][1];
    let bend = RHO_A * L.powi(3) / 12.0;
    let j_beam = [
        [L * (tr - e[0][0]) + bend, -L * e[0][1], 0.0],
        [-L * e[1][0], L * (tr - e[1][1]) + bend, 0.0],
        [0.0, 0.0, L * tr],
    ];
    // the tip body: centre at ρ = c_i d_i, c = S/M; inertia about the tip point
    // tr(E) I − E (director frame), shifted to the centre: − M (|c|² I − c ⊗ c)
    let m = beam.tip.unwrap();
    let c = m.first_moment.map(|x| x / m.mass);
    let rho = add(add(scale(c[0], d[0]), scale(c[1], d[1])), scale(c[2], d[2]));
    let a_tip = accel(rho);
    let j_ref = m.inertia_tensor();
    let c2 = dot(&c, &c);
    let j_tip: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|k| {
            let delta = if i == k { 1.0 } else { 0.0 };
            j_ref[i][k] - m.mass * (c2 * delta - c[i] * c[k])
        })
    });
    let force = add(scale(m_beam, a_beam), scale(m.mass, a_tip));
    // offsets of the centres from the base point r_tip − L d3
    let x_beam = scale(0.5 * L, d[2]);
    let x_tip = add(scale(L, d[2]), rho);
    let moment = add(
        add(
            cross(&x_beam, &scale(m_beam, a_beam)),
            cross(&x_tip, &scale(m.mass, a_tip)),
        ),
        add(rot(&j_beam), rot(&j_tip)),
    );
    (force, moment)
}

/// The Newton–Euler actuation of `path` sampled every `dt` on `[0, T_END]`.
fn rigid_actuation(beam: &SpatialBeam, path: &dyn PoseTrajectory, dt: f64) -> Replay {
    let n = (T_END / dt).round() as usize;
    let t: Vec<f64> = (0..=n).map(|k| T_END * k as f64 / n as f64).collect();
    let (force, moment) = t
        .iter()
        .map(|&t| newton_euler(beam, &path.state(t)))
        .unzip();
    Replay::Force { t, force, moment }
}

/// The tip path shifted to the base of the straight rigid arm: `r − L d3`, same frame.
#[derive(Debug)]
struct BaseOf(Arc<dyn PoseTrajectory>);

impl PoseTrajectory for BaseOf {
    fn state(&self, t: f64) -> PoseState {
        let mut s = self.0.state(t);
        let d3 = s.pose.directors[2];
        let (w, al) = (s.angular_velocity, s.angular_acceleration);
        let wd = cross(&w, &d3);
        let dd = add(cross(&al, &d3), cross(&w, &wd));
        for c in 0..3 {
            s.pose.position[c] -= L * d3[c];
            s.velocity[c] -= L * wd[c];
            s.acceleration[c] -= L * dd[c];
        }
        s
    }
}

/// The issue's manoeuvre: a quarter helix (turn 90° about an axis through a centre, rising
/// 0.3 m) with the frame turning 90° about an axis that is neither the path's nor the beam's.
fn helix_path(beam: &SpatialBeam) -> RestToRestPose {
    let start = tip_pose(beam);
    let center = add(start.position, [-0.6, 0.2, 0.1]);
    RestToRestPose::helix(
        start,
        center,
        [0.2, -0.3, 1.0],
        FRAC_PI_2,
        0.3,
        [1.0, 1.0, 0.0],
        FRAC_PI_2,
        profile(),
    )
    .unwrap()
}

fn res(elements: usize, step: f64) -> ForwardResolution {
    ForwardResolution {
        elements,
        order: 2,
        step,
        time_order: 2,
    }
}

fn run(
    beam: &SpatialBeam,
    replay: &Replay,
    path: &dyn PoseTrajectory,
    r: ForwardResolution,
) -> SpatialTracking {
    closed_loop(beam, replay, path, 0.0, T_END, &r).unwrap()
}

/// Largest difference of the tip poses of two runs (position in m and directors) at the
/// times that are multiples of `every` (s), where both have nodes.
fn difference(a: &SpatialTracking, b: &SpatialTracking, every: f64) -> f64 {
    let mut e = 0.0f64;
    for s in &a.samples {
        let m = s.t / every;
        if (m - m.round()).abs() > 1e-9 {
            continue;
        }
        let o = b
            .samples
            .iter()
            .find(|x| (x.t - s.t).abs() < 1e-9)
            .expect("a common node");
        for c in 0..3 {
            e = e.max((s.position[c] - o.position[c]).abs());
            for i in 0..3 {
                e = e.max((s.directors[i][c] - o.directors[i][c]).abs());
            }
        }
    }
    e
}

/// `[1.234e-5, …]` for messages.
fn sci(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.2e}")).collect();
    format!("[{}]", parts.join(", "))
}

/// Observed orders of successive halvings.
fn orders(e: &[f64]) -> Vec<f64> {
    e.windows(2).map(|w| (w[0] / w[1]).log2()).collect()
}

fn at_rest(beam: &SpatialBeam) -> RestToRestPose {
    RestToRestPose::line(tip_pose(beam), [0.0; 3], [0.0, 0.0, 1.0], 0.0, profile()).unwrap()
}

fn base_at_rest(beam: &SpatialBeam) -> RestToRestPose {
    RestToRestPose::line(
        Pose {
            position: beam.base,
            directors: beam.frame,
        },
        [0.0; 3],
        [0.0, 0.0, 1.0],
        0.0,
        profile(),
    )
    .unwrap()
}

#[test]
fn no_actuation_leaves_the_arm_at_rest() {
    let beam = arm(1.0);
    let rest = at_rest(&beam);
    let zero = Replay::Force {
        t: vec![0.0, 1.0, T_END],
        force: vec![[0.0; 3]; 3],
        moment: vec![[0.0; 3]; 3],
    };
    let still = Replay::Motion(Arc::new(base_at_rest(&beam)));
    for (name, replay) in [("zero force", zero), ("base at rest", still)] {
        let r = run(&beam, &replay, &rest, res(4, 0.05));
        eprintln!(
            "(a) {name}: tip deviation from its rest pose {:.1e} m, {:.1e} rad over {} nodes",
            r.max_position,
            r.max_angle,
            r.samples.len()
        );
        assert_eq!(r.samples.len(), 2 * 60 + 1);
        assert!(r.max_position < 1e-13 && r.max_angle < 1e-13, "{name}");
    }
}

#[test]
fn rigid_body_actuation_tracks_the_line_to_within_the_compliance() {
    // samples every 1.25 ms: the piecewise-linear interpolation of the actuation then adds
    // less than 1 % to the deviation of the stiffest arm (the free arm's spin about its own
    // axis, whose inertia is small, is the most sensitive part)
    let mut dev = Vec::new();
    for k in [1.0, 4.0, 16.0] {
        let beam = arm(k);
        let path = line_path(&beam);
        let replay = rigid_actuation(&beam, &path, 0.00125);
        let r = run(&beam, &replay, &path, res(8, 0.01));
        eprintln!(
            "(b) stiffness × {k}: max deviation {:.3e} m at {:.2} s, {:.3e} rad at {:.2} s \
             ({} Newton iterations, {:.2} s)",
            r.max_position, r.position_at, r.max_angle, r.angle_at, r.newton_iterations, r.seconds
        );
        dev.push([r.max_position, r.max_angle]);
    }
    // the path is 0.54 m long and turns 90°: the replay keeps to it within 0.3 %
    assert!(dev[0][0] < 3e-3 && dev[0][1] < 0.1, "{dev:?}");
    for w in dev.windows(2) {
        for (a, b) in w[0].iter().zip(&w[1]) {
            let ratio = a / b;
            assert!(
                (3.5..=4.5).contains(&ratio),
                "∝ 1/stiffness: {ratio} ({dev:?})"
            );
        }
    }
}

#[test]
fn base_motion_tracks_the_helix_to_within_the_compliance() {
    let mut dev = Vec::new();
    for k in [1.0 / 16.0, 1.0, 4.0, 16.0] {
        let beam = arm(k);
        let path: Arc<dyn PoseTrajectory> = Arc::new(helix_path(&beam));
        let replay = Replay::Motion(Arc::new(BaseOf(path.clone())));
        let r = run(&beam, &replay, path.as_ref(), res(8, 0.01));
        eprintln!(
            "(c) stiffness × {k}: max deviation {:.3e} m at {:.2} s, {:.3e} rad at {:.2} s \
             ({} Newton iterations, {:.2} s)",
            r.max_position, r.position_at, r.max_angle, r.angle_at, r.newton_iterations, r.seconds
        );
        dev.push([r.max_position, r.max_angle]);
    }
    // the soft arm lags visibly: centimetres behind the path, degrees off its frame
    assert!(dev[0][0] > 0.05 && dev[0][1] > 0.1, "{:?}", dev[0]);
    // the stiff ones within the compliance, ∝ 1/stiffness
    for w in dev[1..].windows(2) {
        for (a, b) in w[0].iter().zip(&w[1]) {
            let ratio = a / b;
            assert!(
                (3.5..=4.5).contains(&ratio),
                "∝ 1/stiffness: {ratio} ({dev:?})"
            );
        }
    }
    assert!(dev[3][0] < 1e-3 && dev[3][1] < 1e-3, "{dev:?}");
}

#[test]
fn sampled_base_motion_replays_like_the_analytic_one() {
    // the base motion as an inverse solver gives it: nodal poses every 10 ms, splined
    let beam = arm(4.0);
    let path: Arc<dyn PoseTrajectory> = Arc::new(helix_path(&beam));
    let base = BaseOf(path.clone());
    let t: Vec<f64> = (0..=300).map(|k| T_END * k as f64 / 300.0).collect();
    let poses: Vec<Pose> = t.iter().map(|&t| base.state(t).pose).collect();
    let x: Vec<Vec3> = poses.iter().map(|p| p.position).collect();
    let d: Vec<[Vec3; 3]> = poses.iter().map(|p| p.directors).collect();
    let sampled = PoseCsvTrajectory::from_samples("base motion", &t, &x, &d).unwrap();
    let a = run(
        &beam,
        &Replay::Motion(Arc::new(base)),
        path.as_ref(),
        res(8, 0.01),
    );
    let b = run(
        &beam,
        &Replay::Motion(Arc::new(sampled)),
        path.as_ref(),
        res(8, 0.01),
    );
    let diff = difference(&a, &b, 0.01);
    eprintln!(
        "(c) sampled base motion: deviation {:.3e} m (analytic base {:.3e} m); tip poses \
         differ by {diff:.1e}",
        b.max_position, a.max_position
    );
    assert!(diff < 1e-3 * a.max_position, "{diff:e}");
}

#[test]
fn replay_converges_under_refinement() {
    // (d) a fixed smooth actuation: the base along the helix's rigid motion (stiffness × 1)
    let beam = arm(1.0);
    let path: Arc<dyn PoseTrajectory> = Arc::new(helix_path(&beam));
    let replay = Replay::Motion(Arc::new(BaseOf(path.clone())));
    let go = |r: ForwardResolution| run(&beam, &replay, path.as_ref(), r);
    let reference = go(res(8, 0.00125));
    let mut e = Vec::new();
    for step in [0.04, 0.02, 0.01, 0.005] {
        e.push(difference(&go(res(8, step)), &reference, 0.04));
    }
    let time = orders(&e);
    eprintln!(
        "(d) base motion, time steps 40, 20, 10, 5 ms (8 quadratic elements) against 1.25 ms: \
         tip differences {}, orders {time:.2?}; deviation {:.4e} m",
        sci(&e),
        reference.max_position
    );
    // cG(2): fourth order while the motion's time scales dominate the error, then second
    // order (the stage order: Gauss collocation's order reduction on the unresolved axial and
    // shear modes, at 1e-7 m)
    assert!(time[0] > 3.5 && time.iter().all(|&o| o > 1.5), "{time:?}");
    assert!(e[3] < 1e-4 * reference.max_position, "{e:?}");
    let fine = go(res(16, 0.01));
    let mut e = Vec::new();
    for n in [2, 4, 8] {
        e.push(difference(&go(res(n, 0.01)), &fine, 0.04));
    }
    let space = orders(&e);
    eprintln!(
        "(d) base motion, 2, 4, 8 quadratic elements against 16 (step 10 ms): tip differences \
         {}, orders {space:.2?}",
        sci(&e)
    );
    assert!(space.iter().all(|&o| o > 3.0), "{space:?}");
    // finer_than against a second-order discretisation at the inverse mesh (linear elements,
    // cG(1), the inverse's step): the replay's own error must be far below it
    for ns in [8, 16] {
        let ht = 0.5 / ns as f64;
        let f = difference(&go(ForwardResolution::finer_than(ns, ht)), &reference, 0.04);
        let coarse = difference(
            &go(ForwardResolution {
                elements: ns,
                order: 1,
                step: ht,
                time_order: 1,
            }),
            &reference,
            0.04,
        );
        eprintln!(
            "(d) inverse mesh {ns} × ht = {ht} s: finer_than differs from the converged replay \
             by {f:.2e}, linear elements with cG(1) at the inverse mesh by {coarse:.2e}"
        );
        assert!(f < 1e-2 * coarse, "{f:e} vs {coarse:e}");
    }
}

#[test]
fn force_replay_converges_under_refinement() {
    // (d) the Newton–Euler actuation of (b) on the free arm (stiffness × 1)
    let beam = arm(1.0);
    let path = line_path(&beam);
    let replay = rigid_actuation(&beam, &path, 0.00125);
    let go = |r: ForwardResolution| run(&beam, &replay, &path, r);
    let reference = go(res(8, 0.0025));
    let mut e = Vec::new();
    for step in [0.04, 0.02, 0.01] {
        e.push(difference(&go(res(8, step)), &reference, 0.04));
    }
    let time = orders(&e);
    eprintln!(
        "(d) force, time steps 40, 20, 10 ms (8 quadratic elements) against 2.5 ms: tip \
         differences {}, orders {time:.2?}; deviation {:.4e} m",
        sci(&e),
        reference.max_position
    );
    // the free arm integrates Newton's residual in its spin about its own axis: the
    // differences stop at about 1e-6 m, 1e-3 of the deviation
    assert!(time[0] > 3.0, "{time:?}");
    assert!(e[2] < 5e-3 * reference.max_position, "{e:?}");
    let fine = go(res(16, 0.01));
    let mut e = Vec::new();
    for n in [2, 4, 8] {
        e.push(difference(&go(res(n, 0.01)), &fine, 0.04));
    }
    let space = orders(&e);
    eprintln!(
        "(d) force, 2, 4, 8 quadratic elements against 16 (step 10 ms): tip differences \
         {}, orders {space:.2?}",
        sci(&e)
    );
    assert!(space.iter().all(|&o| o > 3.0), "{space:?}");
}

fn error_of(
    beam: &SpatialBeam,
    replay: &Replay,
    path: &dyn PoseTrajectory,
    t: (f64, f64),
    r: ForwardResolution,
) -> String {
    let e = closed_loop(beam, replay, path, t.0, t.1, &r).unwrap_err();
    assert!(matches!(e, ClosedLoopError::Invalid { .. }), "{e:?}");
    e.to_string()
}

#[test]
fn bad_input_is_refused_with_the_field_named() {
    let beam = arm(1.0);
    let rest = at_rest(&beam);
    let ok_res = res(2, 0.1);
    let span = (0.0, 1.0);
    let force = |t: Vec<f64>, f: Vec<Vec3>, m: Vec<Vec3>| Replay::Force {
        t,
        force: f,
        moment: m,
    };
    let cases: Vec<(Replay, &str, &[&str])> = vec![
        (
            force(vec![0.0, 0.5, 1.0], vec![[0.0; 3]; 2], vec![[0.0; 3]; 3]),
            "replay.force",
            &["2 values for 3 sample times"],
        ),
        (
            force(vec![0.0, 1.0], vec![[0.0; 3]; 2], vec![[0.0; 3]; 3]),
            "replay.moment",
            &["3 values for 2 sample times"],
        ),
        (force(vec![], vec![], vec![]), "replay.t", &["no samples"]),
        (
            force(
                vec![0.0, 0.5, 0.5, 1.0],
                vec![[0.0; 3]; 4],
                vec![[0.0; 3]; 4],
            ),
            "replay.t",
            &["increase strictly", "sample 2"],
        ),
        (
            force(
                vec![0.0, f64::NAN, 1.0],
                vec![[0.0; 3]; 3],
                vec![[0.0; 3]; 3],
            ),
            "replay.t",
            &["sample 1", "not finite"],
        ),
        (
            force(
                vec![0.0, 0.5, 1.0],
                vec![[0.0; 3], [0.0, f64::INFINITY, 0.0], [0.0; 3]],
                vec![[0.0; 3]; 3],
            ),
            "replay.force",
            &["sample 1", "t = 0.5 s", "not finite"],
        ),
        (
            force(
                vec![0.0, 0.5, 1.0],
                vec![[0.0; 3]; 3],
                vec![[0.0; 3], [0.0; 3], [f64::NAN, 0.0, 0.0]],
            ),
            "replay.moment",
            &["sample 2", "not finite"],
        ),
        (
            force(vec![0.1, 1.0], vec![[0.0; 3]; 2], vec![[0.0; 3]; 2]),
            "replay.t",
            &["cover [0.1, 1] s", "[0, 1] s"],
        ),
        (
            force(vec![0.0, 0.9], vec![[0.0; 3]; 2], vec![[0.0; 3]; 2]),
            "replay.t",
            &["cover [0, 0.9] s"],
        ),
    ];
    for (replay, field, words) in &cases {
        let e = error_of(&beam, replay, &rest, span, ok_res);
        assert!(e.starts_with(&format!("{field}: ")), "{e}");
        for w in *words {
            assert!(e.contains(w), "{w:?} not in {e}");
        }
    }
    // the base motion must start at the base's rest pose, at rest, and be finite
    let zero = force(vec![0.0, 1.0], vec![[0.0; 3]; 2], vec![[0.0; 3]; 2]);
    let mut moved = beam;
    moved.base[2] += 0.01;
    let e = error_of(
        &beam,
        &Replay::Motion(Arc::new(base_at_rest(&moved))),
        &rest,
        span,
        ok_res,
    );
    assert!(
        e.starts_with("replay.motion: ") && e.contains("must start"),
        "{e}"
    );
    #[derive(Debug)]
    struct Tampered(RestToRestPose, f64, fn(&mut PoseState));
    impl PoseTrajectory for Tampered {
        fn state(&self, t: f64) -> PoseState {
            let mut s = self.0.state(t);
            if t >= self.1 {
                (self.2)(&mut s);
            }
            s
        }
    }
    let spin = Tampered(base_at_rest(&beam), 0.0, |s| s.angular_velocity[2] = 0.1);
    let e = error_of(&beam, &Replay::Motion(Arc::new(spin)), &rest, span, ok_res);
    assert!(
        e.starts_with("replay.motion: ") && e.contains("at rest"),
        "{e}"
    );
    let nan = |s: &mut PoseState| s.velocity[1] = f64::NAN;
    let e = error_of(
        &beam,
        &Replay::Motion(Arc::new(Tampered(base_at_rest(&beam), 0.5, nan))),
        &rest,
        span,
        ok_res,
    );
    assert!(
        e.starts_with("replay.motion: ") && e.contains("not finite at t = 0.5 s"),
        "{e}"
    );
    let e = error_of(&beam, &zero, &Tampered(rest, 0.7, nan), span, ok_res);
    assert!(
        e.starts_with("path: ") && e.contains("not finite at t = 0.7"),
        "{e}"
    );
    // the resolution, the interval and the beam
    for (r, field, word) in [
        (res(0, 0.1), "resolution.elements", "at least 1"),
        (
            ForwardResolution { order: 3, ..ok_res },
            "resolution.order",
            "order 1 or 2, got 3",
        ),
        (res(2, 0.0), "resolution.step", "> 0"),
        (res(2, f64::NAN), "resolution.step", "finite"),
        (
            ForwardResolution {
                time_order: 0,
                ..ok_res
            },
            "resolution.time_order",
            "between 1 and",
        ),
    ] {
        let e = error_of(&beam, &zero, &rest, span, r);
        assert!(
            e.starts_with(&format!("{field}: ")) && e.contains(word),
            "{e}"
        );
    }
    let e = error_of(&beam, &zero, &rest, (1.0, 1.0), ok_res);
    assert!(
        e.starts_with("t_end: ") && e.contains("t_end > t_start"),
        "{e}"
    );
    let mut short = beam;
    short.length = -1.0;
    let e = error_of(&short, &zero, &rest, span, ok_res);
    assert!(e.starts_with("beam.length: "), "{e}");
}

#[test]
fn a_forward_run_that_fails_reports_the_solver() {
    // 10 kN·m about the axis of a light arm in one 0.5 s element: Newton cannot follow
    let beam = arm(1.0);
    let path = at_rest(&beam);
    let m = scale(1e4, beam.frame[2]);
    let replay = Replay::Force {
        t: vec![0.0, 1.0],
        force: vec![[0.0; 3], [0.0; 3]],
        moment: vec![[0.0; 3], m],
    };
    let e = closed_loop(&beam, &replay, &path, 0.0, 1.0, &res(2, 0.5)).unwrap_err();
    assert!(matches!(e, ClosedLoopError::Solve(_)), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with("the forward run of the replay failed: Newton"),
        "{text}"
    );
}

/// Cost of typical replays (not run by default; numbers in `docs/verification.md`): the
/// issue's manoeuvre over 8 s (motion on [1, 7] s), the Newton–Euler actuation of the
/// stiffness-× 4 arm replayed at `finer_than` of inverse meshes 16 × 96, 32 × 192, 64 × 384.
#[test]
#[ignore]
fn replay_cost_ladder() {
    let beam = arm(4.0);
    let start = tip_pose(&beam);
    let path = RestToRestPose::helix(
        start,
        add(start.position, [-0.6, 0.2, 0.1]),
        [0.2, -0.3, 1.0],
        FRAC_PI_2,
        0.3,
        [1.0, 1.0, 0.0],
        FRAC_PI_2,
        RestToRestProfile {
            t0: 1.0,
            duration: 6.0,
        },
    )
    .unwrap();
    for ns in [16usize, 32, 64] {
        let ht = 8.0 / (6 * ns) as f64;
        let n = 6 * ns;
        let t: Vec<f64> = (0..=n).map(|k| 8.0 * k as f64 / n as f64).collect();
        let (force, moment) = t
            .iter()
            .map(|&t| newton_euler(&beam, &path.state(t)))
            .unzip();
        let replay = Replay::Force { t, force, moment };
        let r = closed_loop(
            &beam,
            &replay,
            &path,
            0.0,
            8.0,
            &ForwardResolution::finer_than(ns, ht),
        )
        .unwrap();
        eprintln!(
            "inverse mesh {ns} × {n}: forward {} quadratic elements, {} time elements of {:.2} ms, \
             {} unknowns: {:.2} s wall, {} Newton iterations; deviation {:.3e} m, {:.3e} rad",
            r.resolution.elements,
            r.time_elements,
            1e3 * r.step,
            r.unknowns,
            r.seconds,
            r.newton_iterations,
            r.max_position,
            r.max_angle
        );
    }
}
