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

/// The pattern and the positions of every contribution as the element built them before its
/// Kronecker layout (`layout`): every entry of every block `(k, B)`, `(k, m)` bucketed and
/// sorted by [`CscPattern::from_entries`], each position a search in the element's pattern.
/// Returns the pattern, `pos_k`, `pos_g`, `pos_gt`, the strain positions and the constant
/// values `(E_kB/h) 𝕄`.
type Reference = (CscPattern, Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>, Vec<f64>);

fn reference_layout<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    el: &CondensedElement<'_, S>,
) -> Reference {
    let (p, nq, nl, h) = (el.p, el.nq, el.nl, el.h);
    let np = p + 1;
    let kp: &[(usize, usize)] = if el.use_point_k {
        sys.point_k_pattern()
    } else {
        sys.k_pattern()
    };
    let gp = sys.g_pattern();
    let mass = sys.mass();
    let slots = sys.strain_slots();
    let (qc, lc) = (&el.q_col, &el.l_col);
    let rq_row = move |k: usize, i: usize| qc[k * nq + i] as usize;
    let rl_row = move |k: usize, e: usize| lc[k * nl + e] as usize;
    let q_of = move |b: usize, j: usize| qc[(b - 1) * nq + j] as usize;
    let l_of = move |m: usize, e: usize| lc[m * nl + e] as usize;
    let entries = || {
        let blocks = (0..p).flat_map(move |k| {
            (1..np).flat_map(move |b| {
                kp.iter()
                    .map(move |&(i, j)| (rq_row(k, i), q_of(b, j)))
                    .chain(
                        mass.iter()
                            .map(move |&(i, j, _)| (rq_row(k, i), q_of(b, j))),
                    )
                    .chain(gp.iter().map(move |&(e, j)| (rl_row(k, e), q_of(b, j))))
                    .chain(slots.iter().flat_map(move |s| {
                        s.indices.iter().flat_map(move |&i| {
                            s.indices.iter().map(move |&j| (rq_row(k, i), q_of(b, j)))
                        })
                    }))
            })
        });
        let lam = (0..p).flat_map(move |k| {
            (0..p).flat_map(move |m| gp.iter().map(move |&(e, j)| (rq_row(k, j), l_of(m, e))))
        });
        blocks.chain(lam)
    };
    let pattern = CscPattern::from_entries(p * (nq + nl), entries);
    let pos = |r: usize, c: usize| pattern.position(r, c) as u32;
    let (mut pos_k, mut pos_g, mut pos_gt, mut spos) = (vec![], vec![], vec![], vec![]);
    let mut base = vec![0.0; pattern.nnz()];
    for k in 0..p {
        for b in 1..np {
            pos_k.extend(kp.iter().map(|&(i, j)| pos(rq_row(k, i), q_of(b, j))));
            pos_g.extend(gp.iter().map(|&(e, j)| pos(rl_row(k, e), q_of(b, j))));
            let f = el.e_coef[k * np + b] / h;
            for &(i, j, m) in mass {
                base[pos(rq_row(k, i), q_of(b, j)) as usize] += f * m;
            }
        }
    }
    for k in 0..p {
        for m in 0..p {
            pos_gt.extend(gp.iter().map(|&(e, j)| pos(rq_row(k, j), l_of(m, e))));
        }
    }
    if el.use_point_k {
        for s in slots {
            for k in 0..p {
                for b in 1..np {
                    for &i in &s.indices {
                        spos.extend(s.indices.iter().map(|&j| pos(rq_row(k, i), q_of(b, j))));
                    }
                }
            }
        }
    }
    (pattern, pos_k, pos_g, pos_gt, spos, base)
}

/// The Kronecker layout (`layout`) builds the same pattern and the same positions, to the
/// bit, as sorting every entry of every block (`reference_layout`), for p = 1, 2, 3, on a
/// pair of frames with a spring (strain element, no constraint rows of its own besides the
/// orthonormality) and on the arm of `examples/flexible/03_arm_with_gripper.toml` (director
/// beam, rigid body, rigid joints: multiplier rows spanning frames) and on the rigid chain of
/// `examples/multibody/04_four_body_chain.toml` (no strain elements: the `K` pattern).
#[test]
fn kronecker_layout_is_the_sorted_pattern() {
    let arm = crate::io::scenario::Scenario::from_toml_str(
        include_str!("../../../../../examples/flexible/03_arm_with_gripper.toml"),
        "arm",
    )
    .expect("the example parses");
    let chain = crate::io::scenario::Scenario::from_toml_str(
        include_str!("../../../../../examples/multibody/04_four_body_chain.toml"),
        "chain",
    )
    .expect("the example parses");
    let systems = [
        (spring_pair(Some(0.7)), "spring"),
        (spring_pair(None), "elastic"),
        (arm.system, "arm"),
        (chain.system, "chain"),
    ];
    for (sys, label) in &systems {
        for order in 1..=3 {
            let (el, seen) =
                CondensedElement::with_analysis(sys, order, 0.01, order, |pat| (pat.n, pat.nnz()));
            let (pattern, pos_k, pos_g, pos_gt, spos, base) = reference_layout(sys, &el);
            assert_eq!(seen, (pattern.n, pattern.nnz()), "{label} p = {order}");
            assert_eq!(el.pattern.col_ptr, pattern.col_ptr, "{label} p = {order}");
            assert_eq!(el.pattern.row_idx, pattern.row_idx, "{label} p = {order}");
            assert_eq!(el.pos_k, pos_k, "{label} p = {order}");
            assert_eq!(el.pos_g, pos_g, "{label} p = {order}");
            assert_eq!(el.pos_gt, pos_gt, "{label} p = {order}");
            let got = el.strain.as_ref().map_or(vec![], |s| s.pos.clone());
            assert_eq!(got, spos, "{label} p = {order}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&el.base_values), bits(&base), "{label} p = {order}");
        }
    }
}
