//! The spatial beam of `[I]` Example 3.2 and its path, shared by the spatial inverse tests
//! (the FEM and characteristics in `spatial_inverse.rs`, the sequential baseline in
//! `spatial_sequential.rs`).

use stmech::inverse::spatial::SpatialBeam;
use stmech::inverse::trajectory::RestToRestProfile;
use stmech::inverse::trajectory::pose::{Pose, RestToRestPose};
use stmech::model::director_beam::section::{DiagonalStiffness, Section, SectionInertia};

/// The beam of Example 3.2 in space: along `e1` from the origin, `d3 = e1`, `d1 = e2`,
/// `d2 = e3` (in-plane bending about `d2`: `EI2 = 1`, rotary inertia `E11 = 1`; in-plane shear
/// along `d1`: `GA1 = 1`), out-of-plane properties of the same size.
pub fn example_3_2_in_space() -> SpatialBeam {
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
pub fn example_3_2_path(beam: &SpatialBeam) -> RestToRestPose {
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
