//! Consistent initial multipliers: the index reduction of the DAE at one instant.

use crate::discretize::pattern::CscPattern;
use crate::model::ConstrainedSystem;

/// Consistent multiplier at a state `(q, v)` from `Φ̈ = 0` (index reduction of the DAE at one
/// instant): the acceleration `a` and `λ` solve the saddle-point system
///
/// ```text
/// [ 𝕄  Gᵀ ] [ a ]   [ f                              ]
/// [ G  0  ] [ λ ] = [ −(vᵀ ∂²Φ_k/∂q² v)_k − ∂²Φ/∂t²  ]
/// ```
///
/// which needs no inverse of `𝕄` (a director beam's is singular). The curvature terms come
/// from [`ConstrainedSystem::constraint_curvatures`] (one pass over the constraints for a
/// `MultibodySystem`), so the set-up is linear in the size: no tangent is evaluated. Returns
/// `None` if the system
/// is singular (redundant constraints, or a coordinate without inertia that no constraint
/// determines).
pub fn consistent_multiplier<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Option<Vec<f64>> {
    let (nq, nl) = (sys.n_q(), sys.n_lambda());
    if nl == 0 {
        return Some(Vec::new());
    }
    let mut ev = sys.new_point_eval();
    let zero = vec![0.0; nl];
    sys.eval(t, q, &zero, &mut ev, false);
    let n = nq + nl;
    let mut rhs = vec![0.0; n];
    rhs[..nq].copy_from_slice(&ev.force);
    // explicit time dependence: Φ̈ = G a + vᵀHv + ∂²Φ/∂t² (G does not depend on t)
    sys.constraint_curvatures(t, q, v, &mut rhs[nq..]);
    for (r, phi_tt) in rhs[nq..].iter_mut().zip(&ev.phi_tt) {
        *r = -*r - phi_tt;
    }
    let g = &ev.g;
    let entries = || {
        sys.mass()
            .iter()
            .map(|&(i, j, _)| (i, j))
            .chain(sys.g_pattern().iter().map(move |&(e, j)| (j, nq + e)))
            .chain(sys.g_pattern().iter().map(move |&(e, j)| (nq + e, j)))
    };
    let pattern = CscPattern::from_entries(n, entries);
    let mut values = vec![0.0; pattern.nnz()];
    for &(i, j, m) in sys.mass() {
        values[pattern.position(i, j)] += m;
    }
    for (&(e, j), &val) in sys.g_pattern().iter().zip(g) {
        values[pattern.position(j, nq + e)] += val;
        values[pattern.position(nq + e, j)] += val;
    }
    let mut lu = crate::solve::linear::LinearSolver::for_pattern_once(pattern).ok()?;
    lu.factorize(&values).ok()?;
    lu.solve_in_place(&mut rhs);
    let lam = rhs[nq..].to_vec();
    lam.iter().all(|x| x.is_finite()).then_some(lam)
}
