//! Construction of a [`CondensedElement`]: coefficients, numbering of the unknowns (frames in
//! reverse Cuthill–McKee order), sparsity pattern and positions of every contribution.

use super::layout::KronLayout;
use super::{CondensedElement, PARALLEL_MIN_STRAIN_ELEMENTS, StrainPart, coefficients};
use crate::basis::{GaussLegendre, LagrangeBasis};
use crate::discretize::pattern::{CscPattern, reverse_cuthill_mckee};
use crate::discretize::strain_time::StrainTime;
use crate::model::ConstrainedSystem;

/// Unknowns of an element from which its setup runs its two halves on two threads
/// ([`CondensedElement::with_analysis`]).
pub const PARALLEL_SETUP_MIN: usize = 200;

impl<'s, S: ConstrainedSystem + ?Sized> CondensedElement<'s, S> {
    /// Builds the element of order `order` and length `h` with `quad_points` Gauss points per
    /// (sub-)interval.
    ///
    /// # Panics
    /// If `!applies(order, quad_points)` or the system exceeds `u32` positions (callers check).
    pub fn new(sys: &'s S, order: usize, h: f64, quad_points: usize) -> Self {
        Self::with_analysis(sys, order, h, quad_points, |_| ()).0
    }

    /// [`new`](Self::new), and `analyse` run on the element's pattern (the symbolic analysis
    /// of its sparse LU) while the positions of the contributions are computed (`rayon::join`:
    /// on another thread if the pool has one; the results do not depend on it). Elements of
    /// fewer than [`PARALLEL_SETUP_MIN`] unknowns do both in turn (starting the pool's
    /// threads would cost more than it saves).
    ///
    /// # Panics
    /// As [`new`](Self::new).
    pub fn with_analysis<R: Send>(
        sys: &'s S,
        order: usize,
        h: f64,
        quad_points: usize,
        analyse: impl FnOnce(&CscPattern) -> R + Send,
    ) -> (Self, R) {
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
        // one slot's unknowns `s`: frame by frame its coordinates, then its multiplier rows;
        // the orphans last, as one more frame (`layout`: unknown `full(a, s)` of slot `a`)
        let n_unknowns = p * (nq + nl);
        let (mut s_q, mut s_l) = (vec![0usize; nq], vec![0usize; nl]);
        let mut frame_list = Vec::with_capacity(n_groups + 1);
        let mut next = 0usize;
        for &g in &frames {
            let first = next;
            for &i in &coords_of[g] {
                s_q[i] = next;
                next += 1;
            }
            for &e in &rows_of[g] {
                s_l[e] = next;
                next += 1;
            }
            if next > first {
                frame_list.push((first, next - first));
            }
        }
        if !orphans.is_empty() {
            frame_list.push((next, orphans.len()));
            for &e in &orphans {
                s_l[e] = next;
                next += 1;
            }
        }
        debug_assert_eq!(next, nq + nl);

        // ---- pattern: one slot's, times the p × p block of ones -------------------------------
        // rows: R_q^k ↔ q of node k+1, R_λ^k ↔ λ_k
        let slots = sys.strain_slots();
        let (sq, sl, mass_ref) = (&s_q, &s_l, &mass);
        let entries = || {
            kp.iter()
                .map(move |&(i, j)| (sq[i], sq[j]))
                .chain(mass_ref.iter().map(move |&(i, j, _)| (sq[i], sq[j])))
                .chain(gp.iter().map(move |&(e, j)| (sl[e], sq[j])))
                .chain(slots.iter().flat_map(move |s| {
                    s.indices
                        .iter()
                        .flat_map(move |&i| s.indices.iter().map(move |&j| (sq[i], sq[j])))
                }))
                .chain(gp.iter().map(move |&(e, j)| (sq[j], sl[e])))
        };
        let layout = KronLayout::new(p, frame_list, entries);
        let mut q_col = vec![0u32; p * nq];
        let mut l_col = vec![0u32; p * nl];
        let mut slot_of = vec![0u32; n_unknowns];
        for a in 0..p {
            for (i, &s) in s_q.iter().enumerate() {
                let u = layout.at(a, s);
                q_col[a * nq + i] = u as u32;
                slot_of[u] = a as u32;
            }
            for (e, &s) in s_l.iter().enumerate() {
                let u = layout.at(a, s);
                l_col[a * nl + e] = u as u32;
                slot_of[u] = a as u32;
            }
        }
        // positions (one search in P₁ per entry of K, G, 𝕄 and strain block, then arithmetic
        // per block `(k, B)`), while `analyse` works on the pattern
        let lay = &layout;
        let positions = || {
            let one_pos = |r: usize, c: usize| (lay.one_position(r, c), c);
            let tk: Vec<(usize, usize)> =
                kp.iter().map(|&(i, j)| one_pos(s_q[i], s_q[j])).collect();
            let tg: Vec<(usize, usize)> =
                gp.iter().map(|&(e, j)| one_pos(s_l[e], s_q[j])).collect();
            let tgt: Vec<(usize, usize)> =
                gp.iter().map(|&(e, j)| one_pos(s_q[j], s_l[e])).collect();
            let tm: Vec<(usize, usize)> = mass
                .iter()
                .map(|&(i, j, _)| one_pos(s_q[i], s_q[j]))
                .collect();
            let mut pos_k = Vec::with_capacity(p * p * kp.len());
            let mut pos_g = Vec::with_capacity(p * p * gp.len());
            let mut base_values = vec![0.0; lay.full.nnz()];
            for k in 0..p {
                for b in 1..np {
                    pos_k.extend(tk.iter().map(|&(t, c)| lay.position(t, c, k, b - 1)));
                    pos_g.extend(tg.iter().map(|&(t, c)| lay.position(t, c, k, b - 1)));
                    let f = e_coef[k * np + b] / h;
                    for (&(t, c), &(_, _, m)) in tm.iter().zip(&mass) {
                        base_values[lay.position(t, c, k, b - 1) as usize] += f * m;
                    }
                }
            }
            let mut pos_gt = Vec::with_capacity(p * p * gp.len());
            for k in 0..p {
                for m in 0..p {
                    pos_gt.extend(tgt.iter().map(|&(t, c)| lay.position(t, c, k, m)));
                }
            }
            let strain_pos = has_strain.then(|| {
                let mut pos_offset = Vec::with_capacity(slots.len());
                let mut spos =
                    Vec::with_capacity(slots.iter().map(|s| p * p * s.indices.len().pow(2)).sum());
                let (mut idx, mut t1, mut order, mut col0) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for s in slots {
                    pos_offset.push(spos.len());
                    let n = s.indices.len();
                    idx.clear();
                    idx.extend(s.indices.iter().map(|&i| s_q[i]));
                    t1.clear();
                    t1.resize(n * n, 0);
                    lay.one_block_positions(&idx, &idx, &mut order, |e, at| t1[e] = at);
                    for k in 0..p {
                        for b in 1..np {
                            col0.clear();
                            col0.extend(idx.iter().map(|&c| lay.column_start(b - 1, c)));
                            for row in t1.chunks_exact(n) {
                                spos.extend(
                                    row.iter().zip(&col0).map(|(&t, &c0)| c0 + lay.offset(t, k)),
                                );
                            }
                        }
                    }
                }
                (pos_offset, spos)
            });
            (pos_k, pos_g, pos_gt, base_values, strain_pos)
        };
        let (analysis, (pos_k, pos_g, pos_gt, base_values, strain_pos)) =
            if lay.full.n >= PARALLEL_SETUP_MIN {
                rayon::join(|| analyse(&lay.full), positions)
            } else {
                (analyse(&lay.full), positions())
            };
        let strain = strain_pos.map(|(pos_offset, pos)| {
            let n_loc = slots.iter().map(|s| s.element.n_loc()).max().unwrap_or(0);
            let st = StrainTime::new(p, n_loc);
            StrainPart {
                sc: st.scratch(),
                terms: st.terms(1),
                st,
                pos_offset,
                pos,
                local: vec![0.0; np * n_loc],
                batch: Vec::new(),
                dissipated: 0.0,
            }
        });
        let pattern = layout.into_pattern();
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
        let element = Self {
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
            gq_mag: vec![0.0; nl],
            kq: vec![0.0; nq],
            gvq: vec![0.0; nl],
            xcol: vec![0.0; nq],
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
        };
        (element, analysis)
    }
}
