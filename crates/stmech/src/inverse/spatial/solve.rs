//! The spatial inverse problem by the space-time finite element method: the checks before
//! solving (data, start pose, wave speeds and the mesh ratio), the solve on the generic
//! space-time solver ([`crate::inverse::solver`], streamed sideways elimination), and the
//! physical quantities of the solution (frames, the actuating force and moment, energy).
//!
//! # Wave speeds
//! At rest the six characteristic speeds are `c² = λ` of the generalised eigenproblem
//! `C e = λ diag(ρA, ρA, ρA, J0) e` in the director frame ([`wave_speeds`]): for a diagonal
//! `C` shear `sqrt(GA_α/ρA)`, axial `sqrt(EA/ρA)`, bending `sqrt(EI1/E22)`, `sqrt(EI2/E11)`,
//! torsion `sqrt(GJ/(E11 + E22))`. The sideways condition `h_s ≤ 2 c h_t`
//! ([`crate::inverse::mesh_ratio`]) must hold for every family, so the *slowest* binds it;
//! the slowest also sets the pre- and post-actuation `L/c_min`.

use super::SpatialBeam;
use super::characteristics::{MarchArm, SpatialTip};
use super::law::{SpatialPointLaw, section_rotary_inertia};
use super::servo::PoseServo;
use crate::inverse::characteristics_solver::{
    CharacteristicsSettings, CharacteristicsSolution, MarchReport, march,
};
use crate::inverse::element::PointLaw;
use crate::inverse::mesh_ratio::{self, MeshRatioError};
use crate::inverse::methods::{InverseMethod, START_COARSENING, START_TOLERANCE};
use crate::inverse::solver::{
    InverseError, NewtonSettings, NewtonStart, SpaceTimeMesh, SpaceTimeSolution,
    solve_inverse_started, validate_mesh,
};
use crate::inverse::trajectory::TrajectoryError;
use crate::inverse::trajectory::pose::PoseTrajectory;
use crate::math::Vec3;
use crate::math::so3::Rotation;
use crate::model::director_beam::section::Section;

/// The names of the six wave families, in the order of the strain components they carry.
pub const FAMILY_NAMES: [&str; 6] = [
    "shear along d1",
    "shear along d2",
    "axial",
    "bending about d1",
    "bending about d2",
    "torsion",
];

/// The six wave speeds at rest, ascending, with the family of each (module docs).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct WaveSpeeds {
    /// Speeds `c_k` (m/s), ascending.
    pub speeds: [f64; 6],
    /// The family of each speed ([`FAMILY_NAMES`]: the strain component its mode moves most).
    pub families: [&'static str; 6],
}

impl WaveSpeeds {
    /// The slowest speed (m/s).
    pub fn min(&self) -> f64 {
        self.speeds[0]
    }
    /// The fastest speed (m/s).
    pub fn max(&self) -> f64 {
        self.speeds[5]
    }
}

/// The wave speeds of `section` at rest (module docs).
pub fn wave_speeds(section: &Section) -> WaveSpeeds {
    let j0 = section_rotary_inertia(section);
    let mut m = [[0.0; 6]; 6];
    for k in 0..3 {
        m[k][k] = section.rho_a();
        for l in 0..3 {
            m[3 + k][3 + l] = j0[k][l];
        }
    }
    let (lam, modes) = crate::math::eigen::generalized(section.stiffness(), &m)
        .expect("a validated section has a positive definite inertia");
    let families = std::array::from_fn(|k| {
        let e = &modes[k];
        // the component with the largest share of the mode's kinetic energy
        let share = |i: usize| e[i] * (0..6).map(|j| m[i][j] * e[j]).sum::<f64>();
        let best = (0..6)
            .max_by(|&a, &b| share(a).abs().total_cmp(&share(b).abs()))
            .unwrap_or(0);
        FAMILY_NAMES[best]
    });
    WaveSpeeds {
        speeds: lam.map(|l| l.max(0.0).sqrt()),
        families,
    }
}

/// The sideways condition `μ = h_s/(c_min h_t) ≤ 2` for the slowest family (module docs).
/// Returns `μ`.
pub fn check_mesh_ratio(beam: &SpatialBeam, mesh: &SpaceTimeMesh) -> Result<f64, MeshRatioError> {
    let w = wave_speeds(&beam.section);
    mesh_ratio::check_speed(
        w.min(),
        w.families[0],
        beam.length,
        mesh.t_end - mesh.t_start,
        mesh.elements_s,
        mesh.elements_t,
    )
}

/// Time elements for `elements_s` space elements at the sideways Courant number 1 of the
/// slowest family.
pub fn auto_elements_t(beam: &SpatialBeam, duration: f64, elements_s: usize) -> usize {
    mesh_ratio::auto_elements_t_for_speed(
        wave_speeds(&beam.section).min(),
        beam.length,
        duration,
        elements_s,
    )
}

/// Largest deviation of the prescribed pose at `time.start` from the tip's rest pose (position
/// relative to `1 + L`, frame entries).
pub const START_POSE_TOLERANCE: f64 = 1e-9;

/// Checks that the path starts at the tip's rest pose (position and frame): the beam starts at
/// rest, so the servo constraint would otherwise demand a jump.
pub fn check_start_pose(
    beam: &SpatialBeam,
    path: &dyn PoseTrajectory,
    t_start: f64,
) -> Result<(), TrajectoryError> {
    let st = path.state(t_start);
    let r0 = beam.rest_position(beam.length);
    let dp = (0..3).fold(0.0f64, |m, k| m.max((st.pose.position[k] - r0[k]).abs()));
    let df = (0..3).fold(0.0f64, |m, k| {
        (0..3).fold(m, |m, a| {
            m.max((st.pose.directors[k][a] - beam.frame[k][a]).abs())
        })
    });
    if dp <= START_POSE_TOLERANCE * (1.0 + beam.length) && df <= START_POSE_TOLERANCE {
        return Ok(());
    }
    Err(TrajectoryError::Data {
        path: "of the tip".into(),
        message: format!(
            "the pose at time.start is not the tip's rest pose: position {:?} vs {r0:?} m \
             (deviation {dp:.3e}), frame deviation {df:.3e}; the beam starts at rest, so the \
             servo constraint would demand a jump: start the path at the tip's rest pose \
             (position base + L d3, directors of the beam)",
            st.pose.position
        ),
    })
}

/// A mesh with `elements_s` space elements and the time step of [`auto_elements_t`].
pub fn auto_mesh(beam: &SpatialBeam, t_start: f64, t_end: f64, elements_s: usize) -> SpaceTimeMesh {
    SpaceTimeMesh {
        t_start,
        t_end,
        elements_s,
        elements_t: auto_elements_t(beam, t_end - t_start, elements_s),
    }
}

/// The spatial inverse problem by the space-time FEM: the force and moment at `s = 0` such that
/// the tip pose follows `path`. Checks before solving: the beam data, the mesh, the mesh ratio
/// of the slowest family, the start pose and the rotation range of the path.
pub fn solve_space_time(
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution<SpatialBeam, 6>, InverseError> {
    let servo = checked_servo(beam, mesh, path)?;
    solve_inverse_started(beam, mesh, &servo, settings, None)
}

/// The checks of the space-time FEM before solving (the beam data, the mesh, the mesh ratio
/// of the slowest family, the start pose) and the servo target of `path` on the mesh's time
/// domain (its rotation range checked).
fn checked_servo<'a>(
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &'a dyn PoseTrajectory,
) -> Result<PoseServo<'a>, InverseError> {
    beam.validate("beam")?;
    validate_mesh(mesh)?;
    check_mesh_ratio(beam, mesh)?;
    check_start_pose(beam, path, mesh.t_start)?;
    Ok(PoseServo::new(path, &beam.frame, mesh.t_start, mesh.t_end)?)
}

/// A solved spatial inverse problem and how it was solved.
#[derive(Clone, Debug)]
pub struct SpatialRun {
    /// The solution on the space-time grid (`x = (r, ψ)`, the generalised actuation).
    pub solution: SpaceTimeSolution<SpatialBeam, 6>,
    /// The method.
    pub method: InverseMethod,
    /// The march statistics (method of characteristics only).
    pub march: Option<MarchReport>,
    /// Wall time of the solve (s).
    pub seconds: f64,
}

/// The checks before solving that depend on the method: the sideways mesh ratio of the
/// space-time FEM ([`check_mesh_ratio`]), or the mesh counts and the pre-actuation room of the
/// characteristics. Exposed for the scenario validation (the same messages as the solvers).
pub fn check_method(
    method: InverseMethod,
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
) -> Result<(), InverseError> {
    match method {
        InverseMethod::SpaceTime => {
            check_mesh_ratio(beam, mesh)?;
            Ok(())
        }
        InverseMethod::Characteristics => {
            crate::inverse::characteristics_solver::check_mesh(mesh)?;
            check_pre_actuation(beam, path, mesh.t_start)?;
            Ok(())
        }
    }
}

/// Checks that the tip rests on `[t_start, t_start + L/c_min]` (`c_min` the slowest family):
/// the method of characteristics starts from the rest state below `t_start`, so the
/// pre-actuation must fit into the time domain.
pub fn check_pre_actuation(
    beam: &SpatialBeam,
    path: &dyn PoseTrajectory,
    t_start: f64,
) -> Result<(), TrajectoryError> {
    let w = wave_speeds(&beam.section);
    let delay = beam.length / w.min();
    let s0 = path.state(t_start);
    // directors are unit vectors: their components at rest to 10⁻⁹ (plus round-off)
    let (tol_x, tol_d) =
        crate::inverse::characteristics_solver::rest_tolerance(beam.length, &s0.pose.position, 1.0);
    let n = 2000;
    for k in 1..=n {
        let t = t_start + delay * k as f64 / n as f64;
        let st = path.state(t);
        let dp = (0..3).fold(0.0f64, |m, c| {
            m.max((st.pose.position[c] - s0.pose.position[c]).abs())
        });
        let df = (0..3).fold(0.0f64, |m, d| {
            (0..3).fold(m, |m, c| {
                m.max((st.pose.directors[d][c] - s0.pose.directors[d][c]).abs())
            })
        });
        if dp > tol_x || df > tol_d {
            return Err(TrajectoryError::Data {
                path: "of the tip".into(),
                message: format!(
                    "the tip moves at t = {t:.4} s (position by {dp:.2e} m, frame by {df:.2e}), \
                     less than L/c_min = {delay:.4} s after time.start = {t_start} s \
                     (c_min = {:.4} m/s, the {} wave). The actuation must start L/c_min before \
                     the tip moves (pre-actuation, [I] Sect. 3) and the beam is at rest at \
                     time.start, so the method of characteristics needs the tip at rest on \
                     [{t_start}, {:.4}] s: start the time domain at or before {:.4} s, or \
                     delay the motion",
                    w.min(),
                    w.families[0],
                    t_start + delay,
                    t - delay
                ),
            });
        }
    }
    Ok(())
}

/// The spatial inverse problem by `method` (the one entry point of the front ends): the
/// checks of [`solve_space_time`] and [`check_method`], then the solve.
pub fn solve_with(
    method: InverseMethod,
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
    settings: &NewtonSettings,
) -> Result<SpatialRun, InverseError> {
    let started = std::time::Instant::now();
    check_method(method, beam, mesh, path)?;
    let (solution, march) = match method {
        InverseMethod::SpaceTime => (solve_space_time_started(beam, mesh, path, settings)?, None),
        InverseMethod::Characteristics => {
            let run = solve_characteristics(beam, mesh, path, &CharacteristicsSettings::default())?;
            (run.solution, Some(run.report))
        }
    };
    Ok(SpatialRun {
        solution,
        method,
        march,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// [`solve_space_time`] with Newton started like the planar beam's
/// ([`crate::inverse::methods::solve_space_time`]): from the method of characteristics on the
/// mesh coarsened [`START_COARSENING`] times in `s` and `t` (fixed-point tolerance
/// [`START_TOLERANCE`]), cubically interpolated; from rest where the march cannot run (no room
/// for the pre-actuation, too few time elements) or Newton fails from it. The history's
/// `start` says which; the result is the FEM solution either way (to the Newton tolerance).
pub fn solve_space_time_started(
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution<SpatialBeam, 6>, InverseError> {
    let started = std::time::Instant::now();
    let servo = checked_servo(beam, mesh, path)?;
    let coarse = SpaceTimeMesh {
        elements_s: (mesh.elements_s / START_COARSENING).max(1),
        elements_t: (mesh.elements_t / START_COARSENING).max(3),
        ..*mesh
    };
    let march_settings = CharacteristicsSettings {
        tolerance: START_TOLERANCE,
        ..CharacteristicsSettings::default()
    };
    if let Ok(chars) = solve_characteristics(beam, &coarse, path, &march_settings) {
        let march_seconds = chars.report.seconds;
        match solve_inverse_started(beam, mesh, &servo, settings, Some(chars.solution)) {
            Ok(mut sol) => {
                sol.newton.start = NewtonStart::Characteristics;
                sol.newton.start_seconds = march_seconds;
                return Ok(sol);
            }
            Err(
                InverseError::NewtonFailed { .. }
                | InverseError::Newton(_)
                | InverseError::Element { .. },
            ) => {}
            Err(e) => return Err(e),
        }
    }
    let attempt = started.elapsed().as_secs_f64();
    let mut sol = solve_inverse_started(beam, mesh, &servo, settings, None)?;
    sol.newton.start_seconds = attempt;
    Ok(sol)
}

/// The position-only variant (module docs of [`super`], theory.md): the tip's *position*
/// follows `path` (its frame is free), the base is clamped to a moving support whose
/// orientation is held at rest and whose translation is the unknown. Three servo rows for the
/// position at the tip, three rows holding the base's rotation vector at zero: the square
/// system has no Cauchy data at the tip, so it is solved by the sparse LU on the whole domain
/// ([`crate::inverse::LinearSolverKind::SparseLu`]). The frame of `path` is not used.
pub fn solve_position_only(
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
    settings: &NewtonSettings,
) -> Result<SpaceTimeSolution<SpatialBeam, 6>, InverseError> {
    beam.validate("beam")?;
    validate_mesh(mesh)?;
    check_mesh_ratio(beam, mesh)?;
    let r0 = beam.rest_position(beam.length);
    let p0 = path.state(mesh.t_start).pose.position;
    let dp = (0..3).fold(0.0f64, |m, k| m.max((p0[k] - r0[k]).abs()));
    if dp > START_POSE_TOLERANCE * (1.0 + beam.length) {
        return Err(TrajectoryError::Data {
            path: "of the tip".into(),
            message: format!(
                "the position at time.start {p0:?} is not the tip's rest position {r0:?} \
                 (deviation {dp:.3e} m): start the path at the tip"
            ),
        }
        .into());
    }
    let servo = PositionServo { path };
    crate::inverse::solver::solve_inverse_held(
        beam,
        mesh,
        &servo,
        settings,
        None,
        [false, false, false, true, true, true],
    )
}

/// The position of a pose path as the servo target (the rotation components are held at the
/// base, [`solve_position_only`]).
#[derive(Debug)]
struct PositionServo<'a> {
    path: &'a dyn PoseTrajectory,
}

impl crate::inverse::trajectory::ServoPath<6> for PositionServo<'_> {
    fn target(&self, t: f64) -> [f64; 6] {
        let r = self.path.state(t).pose.position;
        [r[0], r[1], r[2], 0.0, 0.0, 0.0]
    }
}

/// The spatial inverse problem by the method of characteristics (`inverse/spatial/
/// characteristics.rs`, the generic march of [`crate::inverse::characteristics_solver`]):
/// the checks of [`solve_space_time`] but the mesh ratio (the march is semi-Lagrangian), the
/// mesh counts and the pre-actuation room ([`check_pre_actuation`]), then the march from the
/// tip line to the base.
pub fn solve_characteristics(
    beam: &SpatialBeam,
    mesh: &SpaceTimeMesh,
    path: &dyn PoseTrajectory,
    settings: &CharacteristicsSettings,
) -> Result<CharacteristicsSolution<SpatialBeam, 6>, InverseError> {
    beam.validate("beam")?;
    validate_mesh(mesh)?;
    crate::inverse::characteristics_solver::check_mesh(mesh)?;
    check_start_pose(beam, path, mesh.t_start)?;
    check_pre_actuation(beam, path, mesh.t_start)?;
    let arm = MarchArm::new(beam);
    let w = wave_speeds(&beam.section);
    // the tip line runs past time.end by the travel time of the slowest wave (and a margin)
    let reach = mesh.t_end + 2.0 * beam.length / w.min() + 4.0 * mesh.ht();
    let servo = PoseServo::new(path, &beam.frame, mesh.t_start, reach)?;
    let tip = SpatialTip {
        beam,
        servo: &servo,
        c_min: w.min(),
    };
    let run = march(&arm, mesh, &tip, settings)?;
    let s = run.solution;
    Ok(CharacteristicsSolution {
        solution: SpaceTimeSolution {
            beam: *beam,
            mesh: s.mesh,
            s: s.s,
            t: s.t,
            x: s.x,
            v: s.v,
            actuation: s.actuation,
            newton: s.newton,
        },
        report: run.report,
    })
}

impl SpaceTimeSolution<SpatialBeam, 6> {
    /// Centreline point `r` at space node `i`, time node `j` (m).
    pub fn position(&self, i: usize, j: usize) -> Vec3 {
        let x = self.x_at(i, j);
        [x[0], x[1], x[2]]
    }

    /// Directors `d_k = Q(ψ) d_k(0)` at space node `i`, time node `j`.
    pub fn directors(&self, i: usize, j: usize) -> [Vec3; 3] {
        let x = self.x_at(i, j);
        let rot = Rotation::new([x[3], x[4], x[5]]);
        self.beam.frame.map(|d| rot.rotate(&d))
    }

    /// The force and moment the actuator applies to the beam at `s = 0` at time node `j`
    /// (N, N·m, global frame; the moment from the generalised force by `T⁻ᵀ`).
    pub fn base_actuation(&self, j: usize) -> (Vec3, Vec3) {
        let x = self.x_at(0, j);
        SpatialBeam::physical_actuation(&[x[3], x[4], x[5]], &self.actuation[j])
    }

    /// Kinetic energy (2-point Gauss in `s`, exact for the translation), strain energy (the
    /// element's one-point rule) and the tip body's kinetic energy at time node `j` (J).
    pub fn energy(&self, j: usize) -> f64 {
        let law = SpatialPointLaw::new(&self.beam.section, self.beam.frame);
        let hs = self.hs();
        let gl = crate::basis::GaussLegendre::new(2);
        let mut e = 0.0;
        for i in 0..self.mesh.elements_s {
            let (xa, xb) = (self.x_at(i, j), self.x_at(i + 1, j));
            let (va, vb) = (self.v_at(i, j), self.v_at(i + 1, j));
            for (&xi, &w) in gl.points.iter().zip(&gl.weights) {
                let x: [f64; 6] = std::array::from_fn(|c| (1.0 - xi) * xa[c] + xi * xb[c]);
                let v: [f64; 6] = std::array::from_fn(|c| (1.0 - xi) * va[c] + xi * vb[c]);
                e += w * hs * law.kinetic_density(&x, &v);
            }
            let xm: [f64; 6] = std::array::from_fn(|c| 0.5 * (xa[c] + xb[c]));
            let p: [f64; 6] = std::array::from_fn(|c| (xb[c] - xa[c]) / hs);
            e += hs * law.energy_density(&xm, &p);
        }
        let ns = self.mesh.elements_s;
        e + self.beam.tip_kinetic(&self.x_at(ns, j), &self.v_at(ns, j))
    }
}
