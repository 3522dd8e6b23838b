//! The rigid limit of the spatial inverse problem: the arm as one rigid body (the beam and the
//! tip body welded together), moved so that its tip pose follows the path, and the force and
//! moment at the base by Newton–Euler. The reference of verification item 3 (issue 16): as
//! the stiffness grows, the flexible actuation tends to this.
//!
//! # Mass properties about the tip point (tip-frame components)
//! The beam: mass `m_b = ρA L`, centre at `c_b = −(L/2) e3`, inertia about its centre
//! `L J0 + ρA L³/12 diag(1, 1, 0)` (the section's rotary inertia `J0` summed along the beam
//! plus the rod term). With the tip body (`M_t`, first moment `S_t`, inertia `J_t = tr E − E`
//! about the tip point): `M = m_b + M_t`, `S = m_b c_b + S_t`,
//! `J = L J0 + ρA L³/12 diag(1, 1, 0) + m_b (|c_b|² I − c_b c_bᵀ) + J_t`.
//!
//! # Newton–Euler with the tip point as reference
//! With the path's `r̈`, `ω`, `α` and `s = R S`, `J_R = R J Rᵀ` (R the tip frame):
//!
//! ```text
//! F = M r̈ + α × s + ω × (ω × s)                    (force on the body: the actuator's)
//! M_tip = s × r̈ + J_R α + ω × J_R ω                (moment about the tip point)
//! M_act = M_tip + L d3 × F                          (the actuator acts at r − L d3)
//! ```

use super::SpatialBeam;
use super::law::section_rotary_inertia;
use crate::inverse::trajectory::pose::PoseTrajectory;
use crate::math::{Vec3, cross};

/// The force and moment (N, N·m, global frame) the actuator applies at the base of the rigid
/// arm whose tip pose follows `path`, at time `t` (module docs).
pub fn rigid_actuation(beam: &SpatialBeam, path: &dyn PoseTrajectory, t: f64) -> (Vec3, Vec3) {
    let l = beam.length;
    let rho_a = beam.section.rho_a();
    let m_b = rho_a * l;
    let c_b = [0.0, 0.0, -0.5 * l];
    let j0 = section_rotary_inertia(&beam.section);
    // tip-frame mass properties about the tip point
    let mut mass = m_b;
    let mut s = c_b.map(|c| m_b * c);
    let mut j = [[0.0; 3]; 3];
    let rod = rho_a * l * l * l / 12.0;
    let cc = c_b[0] * c_b[0] + c_b[1] * c_b[1] + c_b[2] * c_b[2];
    for a in 0..3 {
        for b in 0..3 {
            j[a][b] = l * j0[a][b] - m_b * c_b[a] * c_b[b];
        }
        j[a][a] += m_b * cc + if a < 2 { rod } else { 0.0 };
    }
    if let Some(tb) = &beam.tip {
        mass += tb.mass;
        let jt = tb.inertia_tensor();
        for a in 0..3 {
            s[a] += tb.first_moment[a];
            for b in 0..3 {
                j[a][b] += jt[a][b];
            }
        }
    }
    let st = path.state(t);
    let d = st.pose.directors;
    // tip-frame components → global: v = Σ_k v_k d_k
    let glob = |v: &Vec3| -> Vec3 { std::array::from_fn(|a| (0..3).map(|k| v[k] * d[k][a]).sum()) };
    let loc = |v: &Vec3| -> Vec3 { std::array::from_fn(|k| (0..3).map(|a| v[a] * d[k][a]).sum()) };
    let jr = |v: &Vec3| -> Vec3 {
        let vl = loc(v);
        let jl: Vec3 = std::array::from_fn(|a| (0..3).map(|b| j[a][b] * vl[b]).sum());
        glob(&jl)
    };
    let (acc, w, al) = (
        st.acceleration,
        st.angular_velocity,
        st.angular_acceleration,
    );
    let sg = glob(&s);
    let a_s = cross(&al, &sg);
    let w_w_s = cross(&w, &cross(&w, &sg));
    let force: Vec3 = std::array::from_fn(|a| mass * acc[a] + a_s[a] + w_w_s[a]);
    let s_a = cross(&sg, &acc);
    let j_al = jr(&al);
    let w_jw = cross(&w, &jr(&w));
    let l_d3_f = cross(&d[2].map(|c| l * c), &force);
    let moment: Vec3 = std::array::from_fn(|a| s_a[a] + j_al[a] + w_jw[a] + l_d3_f[a]);
    (force, moment)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inverse::trajectory::RestToRestProfile;
    use crate::inverse::trajectory::pose::{Pose, RestToRestPose};
    use crate::model::MassProperties;
    use crate::model::director_beam::section::{DiagonalStiffness, Section, SectionInertia};

    fn arm(tip: Option<MassProperties>) -> SpatialBeam {
        SpatialBeam {
            length: 2.0,
            section: Section::from_diagonal(
                DiagonalStiffness {
                    ea: 1.0,
                    ga1: 1.0,
                    ga2: 1.0,
                    ei1: 1.0,
                    ei2: 1.0,
                    gj: 1.0,
                },
                SectionInertia {
                    rho_a: 0.5,
                    euler_tensor: [[0.01, 0.0], [0.0, 0.02]],
                },
            )
            .unwrap(),
            base: [0.0; 3],
            frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
            tip,
        }
    }

    /// A pure translation needs `F = M a` and the moment of that force about the base
    /// (`(c − r_b) × F` with the centre of mass `c`), and a pure rotation about the fixed
    /// beam axis the torque `J_axis α` of the polar inertia.
    #[test]
    fn translation_and_spin_match_elementary_mechanics() {
        let tip = MassProperties {
            mass: 1.5,
            first_moment: [0.0, 0.3, 0.15], // centre 0.2 d2 + 0.1 d3 from the tip
            euler_tensor: [[0.1, 0.0, 0.0], [0.0, 0.1, 0.0], [0.0, 0.0, 0.1]],
        };
        let beam = arm(Some(tip));
        let start = Pose {
            position: [2.0, 0.0, 0.0],
            directors: beam.frame,
        };
        let profile = RestToRestProfile {
            t0: 0.0,
            duration: 1.0,
        };
        let line =
            RestToRestPose::line(start, [0.3, -0.4, 0.5], [0.0, 0.0, 1.0], 0.0, profile).unwrap();
        let t = 0.3;
        let (f, m) = rigid_actuation(&beam, &line, t);
        let a = line.state(t).acceleration;
        let total = 0.5 * 2.0 + 1.5;
        // centre of mass relative to the base (0, 0, 0) at rest: beam centre (1, 0, 0) m_b,
        // tip body centre (2, 0, 0) + 0.2 d2 + 0.1 d3 = (2.1, 0, 0.2) (d2 = e3, d3 = e1)
        let c = [(1.0 * 1.0 + 1.5 * 2.1) / total, 0.0, 1.5 * 0.2 / total];
        let expect_m = cross(&c, &a.map(|x| total * x));
        for k in 0..3 {
            assert!((f[k] - total * a[k]).abs() < 1e-12);
            assert!((m[k] - expect_m[k]).abs() < 1e-12, "{m:?} {expect_m:?}");
        }
        // spin about the beam axis e1 (= d3) of the bare beam: J = L (E11 + E22), no force
        let bare = arm(None);
        let spin = RestToRestPose::line(start, [0.0; 3], [1.0, 0.0, 0.0], 1.0, profile).unwrap();
        let (f, m) = rigid_actuation(&bare, &spin, t);
        let al = spin.state(t).angular_acceleration[0];
        assert!(f.iter().all(|x| x.abs() < 1e-14));
        assert!((m[0] - 2.0 * 0.03 * al).abs() < 1e-14 && m[1].abs() < 1e-14);
    }
}
