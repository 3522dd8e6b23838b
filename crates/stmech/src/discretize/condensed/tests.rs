//! Unit tests of the condensed element against the full form.

use super::*;
use crate::discretize::PetrovGalerkinBlock;
use crate::discretize::petrov_galerkin::tests::spring_pair;

/// The condensed residual and Jacobian are those of the full form with the velocities
/// substituted: at a state whose velocities solve the velocity rows, the full form's `R_q`
/// and `R_λ` equal the condensed residual, and the condensed Jacobian is the derivative of
/// the condensed residual (central differences), for p = 1, 2, 3, with and without strain
/// elements.
#[test]
fn condensed_element_matches_the_full_form_and_its_derivative() {
    for (sys, label) in [
        (spring_pair(Some(0.7)), "spring"),
        (spring_pair(None), "elastic"),
    ] {
        let (q0, v0) = sys.initial_state();
        let (nq, nl) = (sys.n_q(), sys.n_lambda());
        for order in 1..=3 {
            let h = 0.1;
            let mut el = CondensedElement::new(&sys, order, h, order);
            let mut full = PetrovGalerkinBlock::new(&sys, order, 1, h, order);
            let n = el.n_unknowns();
            let mut x = vec![0.0; n];
            let lam: Vec<f64> = (0..nl).map(|e| 0.1 * e as f64 - 0.2).collect();
            el.set_multipliers(&mut x, &lam);
            for a in 1..=order {
                let q: Vec<f64> = q0
                    .iter()
                    .enumerate()
                    .map(|(i, v)| v + 0.01 * (a + i % 7) as f64)
                    .collect();
                el.set_node(&mut x, a, &q0, &q);
            }
            // full-form unknowns with the condensed velocities
            let mut xf = vec![0.0; full.n_unknowns()];
            full.set_multipliers(&mut xf, &lam);
            let (mut q, mut v) = (vec![0.0; nq], vec![0.0; nq]);
            for a in 1..=order {
                el.node_into(&x, a, &q0, &mut q);
                el.velocity_into(&v0, &x, a, &mut v);
                full.set_node(&mut xf, a, &q, &v);
            }
            let mut rf = vec![0.0; xf.len()];
            full.assemble(0.3, &q0, &v0, &xf, &mut rf, None);
            let mut r = vec![0.0; n];
            let mut vals = vec![0.0; el.pattern().nnz()];
            el.assemble(0.3, &q0, &v0, &x, &mut r, Some(&mut vals));
            let nd = full.slot_dofs();
            let scale = rf.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            for k in 0..order {
                let slot = &rf[k * nd..(k + 1) * nd];
                for i in 0..nq {
                    assert!(
                        slot[nq + i].abs() < 1e-12 * scale,
                        "{label} p = {order}: R_v"
                    );
                    let got = r[el.q_col[k * nq + i] as usize];
                    assert!(
                        (got - slot[i]).abs() < 1e-12 * scale,
                        "{label} p = {order}: R_q^{k}[{i}] {got} vs {}",
                        slot[i]
                    );
                }
                for e in 0..nl {
                    let got = r[el.l_col[k * nl + e] as usize];
                    assert!((got - slot[2 * nq + e]).abs() < 1e-12 * scale);
                }
            }
            assert!(
                (el.residual_norm(&r) - full.residual_norm(&rf)).abs()
                    < 1e-12 * full.residual_norm(&rf)
            );
            let pat = el.pattern().clone();
            let eps = 1e-6;
            let (mut rp, mut rm) = (vec![0.0; n], vec![0.0; n]);
            for col in 0..n {
                let mut xp = x.clone();
                xp[col] += eps;
                el.assemble(0.3, &q0, &v0, &xp, &mut rp, None);
                xp[col] -= 2.0 * eps;
                el.assemble(0.3, &q0, &v0, &xp, &mut rm, None);
                let mut dense = vec![0.0; n];
                for k in pat.col_ptr[col]..pat.col_ptr[col + 1] {
                    dense[pat.row_idx[k]] = vals[k];
                }
                for row in 0..n {
                    let fd = (rp[row] - rm[row]) / (2.0 * eps);
                    assert!(
                        (fd - dense[row]).abs() < 1e-6 * (1.0 + fd.abs()),
                        "{label} p = {order}: J[{row},{col}] = {} vs fd {fd}",
                        dense[row]
                    );
                }
            }
        }
    }
}
