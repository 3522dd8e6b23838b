//! Parallel element assembly of the inverse space-time FEM (issue 14): the result does not
//! depend on the number of threads, to the bit (element terms are computed in parallel and
//! added in mesh order).

use stmech::beam::section::ConstitutiveLaw;
use stmech::inverse::{
    BeamModel, NewtonSettings, RestToRestArc, SpaceTimeMesh, SpaceTimeSolution, solve_inverse,
    solve_space_time,
};

fn solve_with_threads(threads: usize, warm: bool) -> SpaceTimeSolution {
    let beam = BeamModel::example_3_2(ConstitutiveLaw::Log);
    // more elements than one parallel batch (1024), so that batches are exercised too
    let mesh = SpaceTimeMesh::auto(&beam, 0.0, 6.0, 24);
    let tr = RestToRestArc::example_3_2();
    let newton = NewtonSettings::default();
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            if warm {
                solve_space_time(&beam, &mesh, &tr, &newton)
            } else {
                solve_inverse(&beam, &mesh, &tr, &newton)
            }
        })
        .unwrap()
}

#[test]
fn one_and_two_threads_give_identical_bits() {
    for warm in [false, true] {
        let (a, b) = (solve_with_threads(1, warm), solve_with_threads(2, warm));
        assert!(a.mesh.elements_s * a.mesh.elements_t > 2 * 1024);
        assert_eq!(a.newton.residuals, b.newton.residuals);
        let bits = |s: &SpaceTimeSolution| -> Vec<u64> {
            s.x.iter()
                .chain(&s.v)
                .chain(&s.actuation)
                .flatten()
                .map(|x| x.to_bits())
                .collect()
        };
        assert_eq!(bits(&a), bits(&b));
        // a third thread count, for good measure
        assert_eq!(bits(&solve_with_threads(3, warm)), bits(&a));
    }
}
