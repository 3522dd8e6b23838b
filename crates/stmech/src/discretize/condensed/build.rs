//! Construction of a [`CondensedElement`]: coefficients, numbering of the unknowns (frames in
//! reverse Cuthill–McKee order), sparsity pattern and positions of every contribution.

use super::{CondensedElement, PARALLEL_MIN_STRAIN_ELEMENTS, StrainPart, coefficients};
use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::{CscPattern, SKIP, reverse_cuthill_mckee};
use crate::discretize::strain_time::StrainTime;
use crate::model::ConstrainedSystem;

impl<'s, S: ConstrainedSystem + ?Sized> CondensedElement<'s, S> {
    /// Builds the element of order `order` and length `h` with `quad_points` Gauss points per
    /// (sub-)interval.
    ///
    /// # Panics
    /// If `!applies(order, quad_points)` or the system exceeds `u32` positions (callers check).
    pub fn new(sys: &'s S, order: usize, h: f64, quad_points: usize) -> Self {
        assert!(Self::applies(order, quad_points));
        let p = order;
        let np = p + 1;
        let (nq, nl) = (sys.n_q(), sys.n_lambda());
        let trial = LagrangeBasis::new(p);
        let gauss_p = GaussLegendre::new(p);
        let test = LagrangeBasis::with_nodes(gauss_p.points.clone());
        let coefficients::Elimination {
            alpha,
            beta,
            e_coef,
            f_coef,
        } = coefficients::elimination(p, &trial, &test);

        // ---- numbering: frames in reverse Cuthill–McKee order -------------------------------
        let has_strain = !sys.strain_slots().is_empty();
        let kp: &[(usize, usize)] = if has_strain {
            sys.point_k_pattern()
        } else {
            sys.k_pattern()
        };
        let gp = sys.g_pattern();
        let mass = sys.mass().to_vec();
        let n_groups = nq.div_ceil(12).max(1);
        let group = |i: usize| i / 12;
        let mut adj = vec![Vec::new(); n_groups];
        let mut link = |a: usize, b: usize| {
            if a != b {
                adj[a].push(b);
                adj[b].push(a);
            }
        };
        // `K` is the point pattern and the strain elements' dense blocks: link each element's
        // frames once instead of walking its ≈ 1300 entries in the whole `K` pattern
        for &(i, j) in kp {
            link(group(i), group(j));
        }
        let mut groups = Vec::new();
        for s in sys.strain_slots() {
            groups.clear();
            groups.extend(s.indices.iter().map(|&i| group(i)));
            groups.sort_unstable();
            groups.dedup();
            for (a, &ga) in groups.iter().enumerate() {
                for &gb in &groups[a + 1..] {
                    link(ga, gb);
                }
            }
        }
        for &(i, j, _) in &mass {
            link(group(i), group(j));
        }
        // a constraint row couples all of its columns (G is sorted by row)
        let mut row_first = vec![usize::MAX; nl];
        for &(e, j) in gp {
            if row_first[e] == usize::MAX {
                row_first[e] = group(j);
            } else {
                link(row_first[e], group(j));
            }
        }
        for a in &mut adj {
            a.sort_unstable();
            a.dedup();
        }
        let frames = reverse_cuthill_mckee(&adj);
        let mut rank = vec![0usize; n_groups];
        for (k, &g) in frames.iter().enumerate() {
            rank[g] = k;
        }
        // multiplier row e belongs to the group of largest rank among its columns
        let mut row_group = vec![usize::MAX; nl];
        for &(e, j) in gp {
            let g = group(j);
            if row_group[e] == usize::MAX || rank[g] > rank[row_group[e]] {
                row_group[e] = g;
            }
        }
        // rows without columns (none in practice) go last
        let mut coords_of = vec![Vec::new(); n_groups];
        for i in 0..nq {
            coords_of[group(i)].push(i);
        }
        let mut rows_of = vec![Vec::new(); n_groups];
        let mut orphans = Vec::new();
        for (e, &g) in row_group.iter().enumerate() {
            if g == usize::MAX {
                orphans.push(e);
            } else {
                rows_of[g].push(e);
            }
        }
        let n_unknowns = p * (nq + nl);
        let mut q_col = vec![0u32; p * nq];
        let mut l_col = vec![0u32; p * nl];
        let mut slot_of = vec![0u32; n_unknowns];
        let mut next = 0usize;
        for &g in &frames {
            for a in 0..p {
                for &i in &coords_of[g] {
                    q_col[a * nq + i] = next as u32;
                    slot_of[next] = a as u32;
                    next += 1;
                }
                for &e in &rows_of[g] {
                    l_col[a * nl + e] = next as u32;
                    slot_of[next] = a as u32;
                    next += 1;
                }
            }
        }
        for a in 0..p {
            for &e in &orphans {
                l_col[a * nl + e] = next as u32;
                slot_of[next] = a as u32;
                next += 1;
            }
        }
        debug_assert_eq!(next, n_unknowns);

        // ---- pattern ------------------------------------------------------------------------
        // rows: R_q^k ↔ q of node k+1, R_λ^k ↔ λ_k
        let (qc, lc) = (&q_col, &l_col);
        let rq_row = move |k: usize, i: usize| qc[k * nq + i] as usize;
        let rl_row = move |k: usize, e: usize| lc[k * nl + e] as usize;
        let q_of = move |b: usize, j: usize| qc[(b - 1) * nq + j] as usize;
        let l_of = move |m: usize, e: usize| lc[m * nl + e] as usize;
        let slots = sys.strain_slots();
        let mass_ref = &mass;
        let entries = || {
            let blocks = (0..p).flat_map(move |k| {
                (1..np).flat_map(move |b| {
                    kp.iter()
                        .map(move |&(i, j)| (rq_row(k, i), q_of(b, j)))
                        .chain(
                            mass_ref
                                .iter()
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
        let pattern = CscPattern::from_entries(n_unknowns, entries);
        assert!(
            pattern.nnz() < SKIP as usize,
            "system too large for 32-bit positions"
        );
        let pos = |r: usize, c: usize| pattern.position(r, c) as u32;
        let mut pos_k = Vec::with_capacity(p * p * kp.len());
        let mut pos_g = Vec::with_capacity(p * p * gp.len());
        let mut base_values = vec![0.0; pattern.nnz()];
        for k in 0..p {
            for b in 1..np {
                pos_k.extend(kp.iter().map(|&(i, j)| pos(rq_row(k, i), q_of(b, j))));
                pos_g.extend(gp.iter().map(|&(e, j)| pos(rl_row(k, e), q_of(b, j))));
                let f = e_coef[k * np + b] / h;
                for &(i, j, m) in &mass {
                    base_values[pos(rq_row(k, i), q_of(b, j)) as usize] += f * m;
                }
            }
        }
        let mut pos_gt = Vec::with_capacity(p * p * gp.len());
        for k in 0..p {
            for m in 0..p {
                pos_gt.extend(gp.iter().map(|&(e, j)| pos(rq_row(k, j), l_of(m, e))));
            }
        }
        let strain = has_strain.then(|| {
            let n_loc = slots.iter().map(|s| s.element.n_loc()).max().unwrap_or(0);
            let st = StrainTime::new(p, n_loc);
            let mut pos_offset = Vec::with_capacity(slots.len());
            let mut spos = Vec::new();
            let (mut rows, mut cols, mut order) = (Vec::new(), Vec::new(), Vec::new());
            for s in slots {
                pos_offset.push(spos.len());
                let n = s.indices.len();
                for k in 0..p {
                    rows.clear();
                    rows.extend(s.indices.iter().map(|&i| rq_row(k, i)));
                    for b in 1..np {
                        cols.clear();
                        cols.extend(s.indices.iter().map(|&j| q_of(b, j)));
                        let start = spos.len();
                        spos.resize(start + n * n, 0);
                        pattern.block_positions(&rows, &cols, &mut order, |e, at| {
                            spos[start + e] = at as u32;
                        });
                    }
                }
            }
            StrainPart {
                sc: st.scratch(),
                terms: st.terms(1),
                st,
                pos_offset,
                pos: spos,
                local: vec![0.0; np * n_loc],
                batch: Vec::new(),
                dissipated: 0.0,
            }
        });
        // row-wise 𝕄 and G (sums per row in a register, not through memory)
        let mut mass_rows = sys.mass().to_vec();
        mass_rows.sort_by_key(|&(i, j, _)| (i, j));
        let mut mass_ptr = vec![0usize; nq + 1];
        for &(i, _, _) in &mass_rows {
            mass_ptr[i + 1] += 1;
        }
        for i in 0..nq {
            mass_ptr[i + 1] += mass_ptr[i];
        }
        let mut g_sorted: Vec<usize> = (0..gp.len()).collect();
        g_sorted.sort_by_key(|&k| gp[k]);
        let mut g_ptr = vec![0usize; nl + 1];
        for &(e, _) in gp {
            g_ptr[e + 1] += 1;
        }
        for e in 0..nl {
            g_ptr[e + 1] += g_ptr[e];
        }
        let groups = {
            let cu = sys.coordinate_units();
            let lu = sys.constraint_units();
            let mut g = vec![0u8; p * (nq + nl)];
            for k in 0..p {
                for (i, &u) in cu.iter().enumerate() {
                    g[q_col[k * nq + i] as usize] = u.min(1);
                }
                for (e, &u) in lu.iter().enumerate() {
                    g[l_col[k * nl + e] as usize] = 4 + u.min(2);
                }
            }
            g
        };
        Self {
            sys,
            p,
            h,
            nq,
            nl,
            mass_ptr,
            mass_col: mass_rows.iter().map(|&(_, j, _)| j as u32).collect(),
            mass_val: mass_rows.iter().map(|&(_, _, m)| m).collect(),
            g_ptr,
            g_idx: g_sorted.iter().map(|&k| k as u32).collect(),
            g_col: g_sorted.iter().map(|&k| gp[k].1 as u32).collect(),
            trial,
            test,
            quad: GaussLegendre::new(quad_points),
            alpha,
            beta,
            e_coef,
            f_coef,
            q_col,
            l_col,
            slot_of,
            base_values,
            pos_k,
            pos_g,
            pos_gt,
            breakpoints: sys.breakpoints(),
            use_point_k: has_strain,
            ev: sys.new_point_eval(),
            qn: vec![0.0; np * nq],
            dq: vec![0.0; p * nq],
            lam: vec![0.0; p * nl],
            rq: vec![0.0; p * nq],
            rl: vec![0.0; p * nl],
            mq: vec![0.0; p * nq],
            ml: vec![0.0; p * nl],
            phq: vec![0.0; p * nq],
            phl: vec![0.0; p * nl],
            floor: true,
            mag: vec![0.0; p * (nq + nl)],
            phi: vec![0.0; p * (nq + nl)],
            groups,
            rgen_mag: vec![0.0; nq],
            gq_mag: vec![0.0; nl],
            kq: vec![0.0; nq],
            gvq: vec![0.0; nl],
            fields: vec![0.0; 2 * nq + nl],
            rgen: vec![0.0; nq],
            gq: vec![0.0; nl],
            n_buf: vec![0.0; np],
            dn_buf: vec![0.0; np],
            psi: vec![0.0; p],
            dpsi: vec![0.0; p],
            subs: Vec::with_capacity(4),
            strain,
            parallel_min: PARALLEL_MIN_STRAIN_ELEMENTS,
            pattern,
        }
    }
}
