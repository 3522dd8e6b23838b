//! The result files of a spatial inverse run: `actuation.csv`, `base.csv`, `tip.csv` and the
//! ParaView series `scene.pvd` (+ `scene_NNNN.vtu`).

use super::{Rows, SpatialInverseScenario, VTK_FRAMES, angle_between, continuous, diff, norm};
use crate::AppError;
use std::io::Write;
use std::path::Path;
use stmech::inverse::spatial::SpatialRun;
use stmech::inverse::trajectory::pose::Pose;
use stmech::io::output::scene::equivalent_box;
use stmech::io::output::{OutputDir, write_file};
use stmech::io::vtk::SceneSnapshot;
use stmech::math::rotation::quat_from_frame;
use stmech::model::RigidBody;

/// A number for the CSV files: the shortest text that reads back to the same `f64`, in
/// scientific notation when that is shorter (tiny and huge magnitudes).
struct Num(f64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// Comma-separated [`Num`]s.
pub(super) fn line(values: &[f64]) -> String {
    let mut s = String::with_capacity(24 * values.len());
    for (k, v) in values.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = std::fmt::Write::write_fmt(&mut s, format_args!("{}", Num(*v)));
    }
    s
}

/// `actuation.csv` and `base.csv`.
pub(super) fn write_csvs(dir: &Path, rows: &Rows) -> anyhow::Result<()> {
    write_file(&dir.join("actuation.csv"), |w| {
        writeln!(
            w,
            "t,f_x,f_y,f_z,m_x,m_y,m_z,f_x_rigid,f_y_rigid,f_z_rigid,m_x_rigid,m_y_rigid,m_z_rigid"
        )?;
        for j in 0..rows.t.len() {
            let (f, m, fr, mr) = (
                rows.force[j],
                rows.moment[j],
                rows.rigid_force[j],
                rows.rigid_moment[j],
            );
            let mut v = vec![rows.t[j]];
            for x in [f, m, fr, mr] {
                v.extend(x);
            }
            writeln!(w, "{}", line(&v))?;
        }
        Ok(())
    })?;
    write_file(&dir.join("base.csv"), |w| {
        writeln!(
            w,
            "t,x,y,z,qw,qx,qy,qz,psi_x,psi_y,psi_z,v_x,v_y,v_z,omega_x,omega_y,omega_z"
        )?;
        for j in 0..rows.t.len() {
            let (x, q, p, v, o) = (
                rows.base_position[j],
                rows.base_quaternion[j],
                rows.base_rotation[j],
                rows.base_velocity[j],
                rows.base_angular_velocity[j],
            );
            let mut row = vec![rows.t[j]];
            row.extend(x);
            row.extend(q);
            row.extend(p);
            row.extend(v);
            row.extend(o);
            writeln!(w, "{}", line(&row))?;
        }
        Ok(())
    })?;
    Ok(())
}

/// The replayed pose at `t`: the sample at the same index when the replay has one per time
/// node, else the sample nearest in time (binary search).
pub(super) fn replay_at(samples: &[(f64, Pose)], j: usize, t: f64, n: usize) -> Option<&Pose> {
    if samples.is_empty() {
        return None;
    }
    if samples.len() == n {
        return Some(&samples[j].1);
    }
    let k = samples.partition_point(|s| s.0 < t);
    let best = match (k.checked_sub(1), samples.get(k)) {
        (Some(a), Some(b)) if (t - samples[a].0) <= (b.0 - t) => a,
        (Some(a), None) => a,
        _ => k.min(samples.len() - 1),
    };
    Some(&samples[best].1)
}

/// `tip.csv`: the tracked frame prescribed, in the inverse solution, and in the replay.
pub(super) fn write_tip_csv(
    dir: &Path,
    rows: &Rows,
    replay: Option<&[(f64, Pose)]>,
) -> anyhow::Result<()> {
    write_file(&dir.join("tip.csv"), |w| {
        write!(
            w,
            "t,x_prescribed,y_prescribed,z_prescribed,qw_prescribed,qx_prescribed,qy_prescribed,\
         qz_prescribed,x,y,z,qw,qx,qy,qz,position_error,angle_error"
        )?;
        // the replay's columns only when there is a replay (every cell a number: np.loadtxt reads
        // the file either way)
        let replay = replay.filter(|r| !r.is_empty());
        if replay.is_some() {
            write!(
                w,
                ",x_replay,y_replay,z_replay,qw_replay,qx_replay,qy_replay,qz_replay"
            )?;
        }
        writeln!(w)?;
        let n = rows.t.len();
        let (mut qp_prev, mut qr_prev) = (None, None);
        for j in 0..n {
            let (p, a) = (&rows.prescribed[j], &rows.achieved[j]);
            let qp = continuous(quat_from_frame(&p.directors), qp_prev.as_ref());
            let qa = continuous(quat_from_frame(&a.directors), Some(&qp));
            qp_prev = Some(qp);
            let (dp, da) = (
                norm(&diff(&a.position, &p.position)),
                angle_between(&a.directors, &p.directors),
            );
            let mut row = vec![rows.t[j]];
            row.extend(p.position);
            row.extend(qp);
            row.extend(a.position);
            row.extend(qa);
            row.extend([dp, da]);
            write!(w, "{}", line(&row))?;
            match replay.and_then(|r| replay_at(r, j, rows.t[j], n)) {
                Some(r) => {
                    let qr = continuous(
                        quat_from_frame(&r.directors),
                        qr_prev.as_ref().or(Some(&qp)),
                    );
                    qr_prev = Some(qr);
                    let mut row = r.position.to_vec();
                    row.extend(qr);
                    writeln!(w, ",{}", line(&row))?;
                }
                None => writeln!(w)?,
            }
        }
        Ok(())
    })?;
    Ok(())
}

/// The scene at time node `j`: the beam's centreline (one poly-line, its director frames as
/// point data) and the welded body as its equivalent inertia box.
pub fn snapshot(s: &SpatialInverseScenario, run: &SpatialRun, j: usize) -> SceneSnapshot {
    let sol = &run.solution;
    let ns = sol.mesh.elements_s;
    let mut snap = SceneSnapshot {
        t: sol.t[j],
        points: (0..=ns).map(|i| sol.position(i, j)).collect(),
        directors: (0..=ns).map(|i| sol.directors(i, j)).collect(),
        s: sol.s.clone(),
        cells: vec![(4, (0..=ns).collect())],
        part: vec![0],
    };
    if let Some(b) = &s.body {
        let tip = Pose {
            position: sol.position(ns, j),
            directors: sol.directors(ns, j),
        };
        let pose = b.pose_at(&tip);
        let rigid = RigidBody {
            name: b.name.clone(),
            mass: b.mass,
            position: pose.position,
            directors: pose.directors,
            velocity: [0.0; 3],
            director_velocities: [[0.0; 3]; 3],
        };
        let (a, c) = equivalent_box(&rigid);
        let first = snap.points.len();
        // VTK hexahedron order: bottom face (z−) counter-clockwise, then top face
        for (sx, sy, sz) in [
            (-1.0, -1.0, -1.0),
            (1.0, -1.0, -1.0),
            (1.0, 1.0, -1.0),
            (-1.0, 1.0, -1.0),
            (-1.0, -1.0, 1.0),
            (1.0, -1.0, 1.0),
            (1.0, 1.0, 1.0),
            (-1.0, 1.0, 1.0),
        ] {
            let theta = [
                c[0] + 0.5 * sx * a[0],
                c[1] + 0.5 * sy * a[1],
                c[2] + 0.5 * sz * a[2],
            ];
            let d = &pose.directors;
            snap.points.push(std::array::from_fn(|k| {
                pose.position[k] + (0..3).map(|i| theta[i] * d[i][k]).sum::<f64>()
            }));
            snap.directors.push(pose.directors);
            snap.s.push(0.0);
        }
        snap.cells.push((12, (first..first + 8).collect()));
        snap.part.push(1);
    }
    snap
}

/// The ParaView series `scene.pvd`: at most [`VTK_FRAMES`] + 1 snapshots, evenly spaced.
pub(super) fn write_vtk(
    dir: &OutputDir,
    s: &SpatialInverseScenario,
    run: &SpatialRun,
) -> Result<(), AppError> {
    let n = run.solution.t.len();
    let stride = n.div_ceil(VTK_FRAMES).max(1);
    let snaps: Vec<_> = (0..n)
        .filter(|j| j % stride == 0 || *j == n - 1)
        .map(|j| snapshot(s, run, j))
        .collect();
    stmech::io::vtk::write_scene_series(dir.path(), "scene", &snaps)?;
    Ok(())
}
