//! The whole model as pictures and tables: VTK snapshots of every rigid body (its equivalent
//! inertia box) and every beam (poly-lines with director frames), and the outputs of a static
//! analysis.

use crate::io::vtk::SceneSnapshot;
use crate::model::{ConstrainedSystem, MultibodySystem, RigidBody};
use crate::solve::Trajectory;
use std::fmt::Write as _;

/// Largest number of VTK snapshots of a run (evenly spread over the nodes, the last included).
pub const MAX_SNAPSHOTS: usize = 201;

/// Edge lengths and centroid (director coordinates) of the box with the body's mass and
/// inertia about its centroid: `E_c = E − S Sᵀ/M`, `a_i = sqrt(12 E_c,ii / M)` (exact for a
/// box given as `box = {...}`; the box with the same second moments otherwise).
pub fn equivalent_box(body: &RigidBody) -> ([f64; 3], [f64; 3]) {
    let m = body.mass.mass;
    let s = body.mass.first_moment;
    let e = body.mass.euler_tensor;
    let c = [s[0] / m, s[1] / m, s[2] / m];
    let mut a = [0.0; 3];
    for i in 0..3 {
        let ec = e[i][i] - s[i] * s[i] / m;
        a[i] = (12.0 * ec.max(0.0) / m).sqrt();
    }
    (a, c)
}

/// The scene at configuration `q` (time or load factor `t`).
pub fn snapshot(sys: &MultibodySystem, q: &[f64], t: f64) -> SceneSnapshot {
    let mut snap = SceneSnapshot {
        t,
        ..Default::default()
    };
    let frame = |f: usize| -> ([f64; 3], [[f64; 3]; 3]) {
        let o = 12 * f;
        let d = |i: usize| [q[o + 3 + 3 * i], q[o + 4 + 3 * i], q[o + 5 + 3 * i]];
        ([q[o], q[o + 1], q[o + 2]], [d(0), d(1), d(2)])
    };
    for (b, body) in sys.bodies().iter().enumerate() {
        let (x, d) = frame(b);
        let (a, c) = equivalent_box(body);
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
            let mut p = x;
            for i in 0..3 {
                for k in 0..3 {
                    p[k] += theta[i] * d[i][k];
                }
            }
            snap.points.push(p);
            snap.directors.push(d);
            snap.s.push(0.0);
        }
        snap.cells.push((12, (first..first + 8).collect()));
        snap.part.push(b as u32);
    }
    for (part, (d, f0)) in sys.deformables().enumerate() {
        let first = snap.points.len();
        let mut s = 0.0;
        for a in 0..d.n_frames {
            let (x, dir) = frame(f0 + a);
            if a > 0 {
                let prev = snap.points[first + a - 1];
                s += ((x[0] - prev[0]).powi(2)
                    + (x[1] - prev[1]).powi(2)
                    + (x[2] - prev[2]).powi(2))
                .sqrt();
            }
            snap.points.push(x);
            snap.directors.push(dir);
            snap.s.push(s);
        }
        snap.cells.push((4, (first..first + d.n_frames).collect()));
        snap.part.push((sys.bodies().len() + part) as u32);
    }
    snap
}

/// Snapshots of a trajectory at at most [`MAX_SNAPSHOTS`] nodes.
pub fn snapshots(sys: &MultibodySystem, traj: &Trajectory) -> Vec<SceneSnapshot> {
    let n = traj.len();
    if n == 0 {
        return Vec::new();
    }
    let every = n.div_ceil(MAX_SNAPSHOTS).max(1);
    let mut picks: Vec<usize> = (0..n).step_by(every).collect();
    if picks.last() != Some(&(n - 1)) {
        picks.push(n - 1);
    }
    picks
        .into_iter()
        .map(|k| snapshot(sys, traj.q_at(k), traj.times[k]))
        .collect()
}

/// `nodes.csv` of a configuration: one row per frame (bodies, then beam nodes) with its part,
/// node index, placement and directors.
pub fn nodes_csv(sys: &MultibodySystem, q: &[f64]) -> String {
    let mut o = String::from(
        "part,node,x [m],y [m],z [m],d1x [-],d1y [-],d1z [-],d2x [-],d2y [-],d2z [-],d3x [-],d3y [-],d3z [-]\n",
    );
    let row = |o: &mut String, part: &str, node: usize, f: usize| {
        let _ = write!(o, "{part},{node}");
        for x in &q[12 * f..12 * f + 12] {
            let _ = write!(o, ",{x:e}");
        }
        o.push('\n');
    };
    for (b, body) in sys.bodies().iter().enumerate() {
        row(&mut o, &body.name, 0, b);
    }
    for (d, f0) in sys.deformables() {
        for a in 0..d.n_frames {
            row(&mut o, &d.name, a, f0 + a);
        }
    }
    o
}

/// Stored elastic energy of configuration `q` (J): the potential energy minus that of the loads.
pub fn strain_energy(sys: &MultibodySystem, q: &[f64]) -> f64 {
    let mut scratch = crate::model::strain::StrainScratch::new(
        sys.strain_slots()
            .iter()
            .map(|s| s.indices.len())
            .max()
            .unwrap_or(0),
    );
    sys.strain_slots()
        .iter()
        .map(|s| crate::model::strain::elastic_energy(s, q, &mut scratch))
        .sum()
}
