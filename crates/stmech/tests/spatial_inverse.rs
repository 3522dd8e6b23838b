//! Inverse dynamics of the spatial beam (issue 16) against independent references.
//!
//! * Planar embedding: `[I]` Example 3.2 (quadratic law) posed as a spatial problem in the
//!   `x–y` plane gives the planar solver's actuation (same discretisation: to round-off), and
//!   the out-of-plane force and moments vanish to round-off.

use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::spatial::{SpatialBeam, solve_space_time};
use stmech::inverse::trajectory::RestToRestProfile;
use stmech::inverse::trajectory::pose::{Pose, RestToRestPose};
use stmech::inverse::{BeamModel, NewtonSettings, RestToRestArc, SpaceTimeMesh, solve_inverse};
use stmech::model::director_beam::section::{DiagonalStiffness, Section, SectionInertia};

/// The beam of Example 3.2 in space: along `e1` from the origin, `d3 = e1`, `d1 = e2`,
/// `d2 = e3` (in-plane bending about `d2`: `EI2 = 1`, rotary inertia `E11 = 1`; in-plane shear
/// along `d1`: `GA1 = 1`), out-of-plane properties of the same size.
fn example_3_2_in_space() -> SpatialBeam {
    let section = Section::from_diagonal(
        DiagonalStiffness {
            ea: 1.0,
            ga1: 1.0,
            ga2: 1.0,
            ei1: 1.0,
            ei2: 1.0,
            gj: 1.0,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[1.0, 0.0], [0.0, 1.0]],
        },
    )
    .unwrap();
    SpatialBeam {
        length: 1.0,
        section,
        base: [0.0; 3],
        frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
        tip: None,
    }
}

/// The tip of Example 3.2 in space: a quarter circle about `e3` with the frame turning with it.
fn example_3_2_path(beam: &SpatialBeam) -> RestToRestPose {
    RestToRestPose::helix(
        Pose {
            position: [1.0, 0.0, 0.0],
            directors: beam.frame,
        },
        [0.0; 3],
        [0.0, 0.0, 1.0],
        std::f64::consts::FRAC_PI_2,
        0.0,
        [0.0, 0.0, 1.0],
        std::f64::consts::FRAC_PI_2,
        RestToRestProfile {
            t0: 2.0,
            duration: 2.0,
        },
    )
    .unwrap()
}

#[test]
fn planar_embedding_reproduces_the_planar_solver() {
    let planar = BeamModel::example_3_2(ConstitutiveLaw::Quadratic);
    let beam = example_3_2_in_space();
    let settings = NewtonSettings::default();
    for elements_s in [8, 16] {
        let mesh = SpaceTimeMesh::auto(&planar, 0.0, 6.0, elements_s);
        let p = solve_inverse(&planar, &mesh, &RestToRestArc::example_3_2(), &settings).unwrap();
        let path = example_3_2_path(&beam);
        let s = solve_space_time(&beam, &mesh, &path, &settings).unwrap();
        let scale = p
            .actuation
            .iter()
            .flatten()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let (mut diff, mut out_of_plane) = (0.0f64, 0.0f64);
        for j in 0..p.t.len() {
            let (f, m) = s.base_actuation(j);
            let fp = p.actuation[j];
            diff = diff
                .max((f[0] - fp[0]).abs())
                .max((f[1] - fp[1]).abs())
                .max((m[2] - fp[2]).abs());
            out_of_plane = out_of_plane.max(f[2].abs()).max(m[0].abs()).max(m[1].abs());
        }
        println!(
            "{elements_s} × {}: max |F_spatial − F_planar| = {diff:.3e} (scale {scale:.3}), \
             out of plane {out_of_plane:.3e}; Newton {} / {} iterations",
            mesh.elements_t, s.newton.iterations, p.newton.iterations
        );
        assert!(diff < 1e-9 * scale, "{diff:e}");
        assert!(out_of_plane < 1e-12 * scale, "{out_of_plane:e}");
    }
}

/// The arm of the spatial manoeuvre: `L = 1`, `ρA = 1`, `E11 = E22 = 1`, `EA = 4`, `GA = 2`,
/// `EI = 1`, `GJ = 2` (speeds: axial 2, shear 1.41, bending and torsion 1), along `e1` from the
/// origin, with a 1 kg tip body (a 0.2 m cube centred 0.1 m ahead of the tip) — as heavy as the
/// beam. `stiffness` scales `C`.
fn helix_arm(stiffness: f64) -> SpatialBeam {
    let k = stiffness;
    let section = Section::from_diagonal(
        DiagonalStiffness {
            ea: 4.0 * k,
            ga1: 2.0 * k,
            ga2: 2.0 * k,
            ei1: k,
            ei2: k,
            gj: 2.0 * k,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[1.0, 0.0], [0.0, 1.0]],
        },
    )
    .unwrap();
    SpatialBeam {
        length: 1.0,
        section,
        base: [0.0; 3],
        frame: [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
        tip: Some(stmech::model::MassProperties::from_box(
            [0.2, 0.2, 0.2],
            125.0,
            [0.0, 0.0, -0.1],
        )),
    }
}

/// A quarter helix about `e3` (radius 1, rise 0.5) with the tip frame twisting by 90° about
/// the beam axis `e1`, on `[2, 4]` s.
fn helix_path(beam: &SpatialBeam) -> RestToRestPose {
    RestToRestPose::helix(
        Pose {
            position: [1.0, 0.0, 0.0],
            directors: beam.frame,
        },
        [0.0; 3],
        [0.0, 0.0, 1.0],
        std::f64::consts::FRAC_PI_2,
        0.5,
        [1.0, 0.0, 0.0],
        std::f64::consts::FRAC_PI_2,
        RestToRestProfile {
            t0: 2.0,
            duration: 2.0,
        },
    )
    .unwrap()
}

#[test]
fn helix_with_twist_first_look() {
    let beam = helix_arm(1.0);
    let path = helix_path(&beam);
    for ns in [8, 16, 32] {
        let mesh = stmech::inverse::spatial::solve::auto_mesh(&beam, 0.0, 6.0, ns);
        let t = std::time::Instant::now();
        let s = solve_space_time(&beam, &mesh, &path, &NewtonSettings::default()).unwrap();
        let el = t.elapsed().as_secs_f64();
        let peak = (0..s.t.len()).fold(0.0f64, |m, j| {
            let (f, mo) = s.base_actuation(j);
            f.iter().chain(&mo).fold(m, |m, v| m.max(v.abs()))
        });
        println!(
            "{ns} × {}: Newton {} its {:?}, {el:.3} s, peak actuation {peak:.4}",
            mesh.elements_t, s.newton.iterations, s.newton.residuals
        );
    }
}

#[test]
fn rigid_limit_first_look() {
    for ns in [16, 32] {
        for kappa in [1.0, 10.0, 100.0, 1000.0, 1e4] {
            let beam = helix_arm(kappa);
            let path = helix_path(&beam);
            let mesh = SpaceTimeMesh {
                t_start: 0.0,
                t_end: 6.0,
                elements_s: ns,
                elements_t: 6 * ns,
            };
            let s = match solve_space_time(&beam, &mesh, &path, &NewtonSettings::default()) {
                Ok(s) => s,
                Err(e) => {
                    println!("{ns} κ={kappa}: {e}");
                    continue;
                }
            };
            let mut dmax = 0.0f64;
            let mut scale = 0.0f64;
            for j in 0..s.t.len() {
                let (f, m) = s.base_actuation(j);
                let (fr, mr) =
                    stmech::inverse::spatial::rigid::rigid_actuation(&beam, &path, s.t[j]);
                for k in 0..3 {
                    dmax = dmax.max((f[k] - fr[k]).abs()).max((m[k] - mr[k]).abs());
                    scale = scale.max(fr[k].abs()).max(mr[k].abs());
                }
            }
            println!(
                "{ns} κ={kappa}: max diff {dmax:.3e} (scale {scale:.3}) its {}",
                s.newton.iterations
            );
        }
    }
}
