//! Residual, Jacobian and stop criterion of a [`CondensedElement`], with the strain elements
//! evaluated serially or in parallel batches.

use super::{CondensedElement, STRAIN_BATCH, StrainPart};
use crate::discretize::strain_time::SlotTerms;
use crate::model::ConstrainedSystem;
use rayon::prelude::*;

/// The rows of `G` in the element's order: row `e` holds the entries `ptr[e]..ptr[e + 1]`, the
/// entry `t` at column `col[t]` with its value at `g[idx[t]]`.
struct ConstraintRows<'a> {
    ptr: &'a [usize],
    idx: &'a [u32],
    col: &'a [u32],
}

/// Adds `Gᵀλ_h` to `rgen` and writes `G q̇_h + ∂Φ/∂t` to `gq`, with the magnitudes of their
/// terms (`Σ |t|`, `solve::newton::measure`) added to `rgen_mag` and written to `gq_mag`.
/// (Slices as arguments: the compiler knows they do not overlap and keeps the row sums in
/// registers.)
fn constraint_terms(
    rows: ConstraintRows<'_>,
    g: &[f64],
    phi_t: &[f64],
    lh: &[f64],
    qdot: &[f64],
    (rgen, rgen_mag): (&mut [f64], &mut [f64]),
    (gq, gq_mag): (&mut [f64], &mut [f64]),
) {
    for (e, ((o, om), (&pt, &le))) in gq
        .iter_mut()
        .zip(gq_mag.iter_mut())
        .zip(phi_t.iter().zip(lh))
        .enumerate()
    {
        let (mut s, mut a) = (pt, pt.abs());
        let (t0, t1) = (rows.ptr[e], rows.ptr[e + 1]);
        for (&gi, &j) in rows.idx[t0..t1].iter().zip(&rows.col[t0..t1]) {
            let (gv, j) = (g[gi as usize], j as usize);
            let f = gv * le;
            rgen[j] += f;
            rgen_mag[j] += f.abs();
            let c = gv * qdot[j];
            s += c;
            a += c.abs();
        }
        *o = s;
        *om = a;
    }
}

impl<'s, S: ConstrainedSystem + ?Sized> CondensedElement<'s, S> {
    /// Residual `r` at the unknowns `x` of the element starting at `t0` from `(q0, v0)` and, if
    /// `values` is given, the Jacobian values in pattern order; the magnitudes of its terms are
    /// kept ([`magnitudes`](Self::magnitudes)).
    pub fn assemble(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        values: Option<&mut [f64]>,
    ) {
        let mut mag = std::mem::take(&mut self.mag);
        self.assemble_measured(t0, q0, v0, x, r, &mut mag, values);
        self.mag = mag;
    }

    /// [`assemble`](Self::assemble) with the magnitudes of the residual's terms written to `m`
    /// (`m_i = Σ_t |t_i|`, `solve::newton::measure`) instead of kept.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble_measured(
        &mut self,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        x: &[f64],
        r: &mut [f64],
        m: &mut [f64],
        mut values: Option<&mut [f64]>,
    ) {
        let (p, nq, nl, h) = (self.p, self.nq, self.nl, self.h);
        let np = p + 1;
        let tangent = values.is_some();
        // the floor basis with this Jacobian (`set_floor`)
        let floor = tangent && self.floor;
        if let Some(v) = values.as_deref_mut() {
            v.copy_from_slice(&self.base_values);
        }
        // nodal increments Δq_B = q_B − q_0 (the unknowns) and values, in natural order
        self.qn[..nq].copy_from_slice(q0);
        for (k, &c) in self.q_col.iter().enumerate() {
            let d = x[c as usize];
            self.dq[k] = d;
            self.qn[nq + k] = q0[k % nq] + d;
        }
        for (o, &c) in self.lam.iter_mut().zip(&self.l_col) {
            *o = x[c as usize];
        }
        self.rl.fill(0.0);
        self.ml.fill(0.0);
        self.mq.fill(0.0);
        if floor {
            self.phq.fill(0.0);
            self.phl.fill(0.0);
        }
        // 𝕄 v̇ rows: R_q^k = 𝕄 ((1/h) Σ_B E_kB Δq_B + F_k v_0) + …
        self.rq.fill(0.0);
        for k in 0..p {
            let w = &mut self.rgen;
            for i in 0..nq {
                let mut s = 0.0;
                for b in 1..np {
                    s += self.e_coef[k * np + b] * self.dq[(b - 1) * nq + i];
                }
                w[i] = s / h + self.f_coef[k] * v0[i];
            }
            let rk = &mut self.rq[k * nq..(k + 1) * nq];
            let mk = &mut self.mq[k * nq..(k + 1) * nq];
            for (i, (r, m)) in rk.iter_mut().zip(mk.iter_mut()).enumerate() {
                let (mut s, mut a) = (0.0, 0.0);
                for t in self.mass_ptr[i]..self.mass_ptr[i + 1] {
                    let v = self.mass_val[t] * w[self.mass_col[t] as usize];
                    s += v;
                    a += v.abs();
                }
                *r += s;
                *m += a;
            }
        }
        let nkp = if self.use_point_k {
            self.sys.point_k_pattern().len()
        } else {
            self.sys.k_pattern().len()
        };
        let ng = self.sys.g_pattern().len();
        crate::basis::quadrature::split_at_breakpoints(
            &self.breakpoints,
            t0,
            t0 + h,
            &mut self.subs,
        );
        for si in 0..self.subs.len() {
            let (s0, s1) = self.subs[si];
            for g in 0..self.quad.len() {
                let tau = s0 + (s1 - s0) * self.quad.points[g];
                let w = self.quad.weights[g] * (s1 - s0) * h;
                let t = t0 + tau * h;
                self.trial.eval_into(tau, &mut self.n_buf, &mut self.dn_buf);
                self.test.eval_into(tau, &mut self.psi, &mut self.dpsi);
                // fields = [q_h, q̇_h, λ_h], q_h = q_0 + Σ_B N_B Δq_B
                self.fields.fill(0.0);
                self.fields[..nq].copy_from_slice(q0);
                for b in 1..np {
                    let (nb, db) = (self.n_buf[b], self.dn_buf[b] / h);
                    let dqb = &self.dq[(b - 1) * nq..b * nq];
                    let (fq, rest) = self.fields.split_at_mut(nq);
                    for ((x, y), &v) in fq.iter_mut().zip(rest[..nq].iter_mut()).zip(dqb) {
                        *x += nb * v;
                        *y += db * v;
                    }
                }
                for m in 0..p {
                    let pm = self.psi[m];
                    for (o, &l) in self.fields[2 * nq..]
                        .iter_mut()
                        .zip(&self.lam[m * nl..(m + 1) * nl])
                    {
                        *o += pm * l;
                    }
                }
                let (qh, rest) = self.fields.split_at(nq);
                let (qdot, lh) = rest.split_at(nq);
                if self.use_point_k {
                    self.sys
                        .eval_without_strain(t, qh, lh, &mut self.ev, tangent);
                } else {
                    self.sys.eval(t, qh, lh, &mut self.ev, tangent);
                }
                if tangent {
                    self.sys.eval_velocity_jacobian(qh, qdot, &mut self.ev);
                }
                // Gᵀλ_h − f and G q̇_h + ∂Φ/∂t
                for (o, &f) in self.rgen.iter_mut().zip(&self.ev.force) {
                    *o = -f;
                }
                // (the magnitudes of `Gᵀλ_h − f` accumulate on those of `f`, in place)
                constraint_terms(
                    ConstraintRows {
                        ptr: &self.g_ptr,
                        idx: &self.g_idx,
                        col: &self.g_col,
                    },
                    &self.ev.g,
                    &self.ev.phi_t,
                    lh,
                    qdot,
                    (&mut self.rgen, &mut self.ev.force_mag),
                    (&mut self.gq, &mut self.gq_mag),
                );
                for k in 0..p {
                    let wk = w * self.psi[k];
                    let aw = wk.abs();
                    for (o, &v) in self.rq[k * nq..(k + 1) * nq].iter_mut().zip(&self.rgen) {
                        *o += wk * v;
                    }
                    for (o, &v) in self.mq[k * nq..(k + 1) * nq]
                        .iter_mut()
                        .zip(&self.ev.force_mag)
                    {
                        *o += aw * v;
                    }
                    for (o, &v) in self.rl[k * nl..(k + 1) * nl].iter_mut().zip(&self.gq) {
                        *o += wk * v;
                    }
                    for (o, &v) in self.ml[k * nl..(k + 1) * nl].iter_mut().zip(&self.gq_mag) {
                        *o += aw * v;
                    }
                }
                let Some(vals) = values.as_deref_mut() else {
                    continue;
                };
                // floor basis: the rows' sensitivity to the absolute positions q_h
                if floor {
                    let kpat = if self.use_point_k {
                        self.sys.point_k_pattern()
                    } else {
                        self.sys.k_pattern()
                    };
                    // positions and directors are known to ε times the largest of their kind
                    // (frames of 12: 3 position, 9 director coordinates)
                    let (mut xp, mut xd) = (0.0f64, 0.0f64);
                    for frame in qh.chunks(12) {
                        let (pos, dir) = frame.split_at(frame.len().min(3));
                        xp = pos.iter().fold(xp, |m, v| m.max(v.abs()));
                        xd = dir.iter().fold(xd, |m, v| m.max(v.abs()));
                    }
                    for frame in self.xcol.chunks_mut(12) {
                        let (pos, dir) = frame.split_at_mut(frame.len().min(3));
                        pos.fill(xp);
                        dir.fill(xd);
                    }
                    let xq = &self.xcol;
                    self.kq.fill(0.0);
                    for (&(i, j), &v) in kpat.iter().zip(&self.ev.k[..nkp]) {
                        self.kq[i] += v.abs() * xq[j];
                    }
                    self.gvq.fill(0.0);
                    for (&(e, j), &v) in self.sys.g_pattern().iter().zip(&self.ev.gv) {
                        self.gvq[e] += v.abs() * xq[j];
                    }
                    let sn: f64 = self.n_buf[1..].iter().map(|v| v.abs()).sum();
                    for k in 0..p {
                        let c = (w * self.psi[k]).abs() * sn;
                        for (o, &v) in self.phq[k * nq..(k + 1) * nq].iter_mut().zip(&self.kq) {
                            *o += c * v;
                        }
                        for (o, &v) in self.phl[k * nl..(k + 1) * nl].iter_mut().zip(&self.gvq) {
                            *o += c * v;
                        }
                    }
                }
                let kv = &self.ev.k[..nkp];
                for k in 0..p {
                    for b in 1..np {
                        let blk = k * p + b - 1;
                        let c = w * self.psi[k] * self.n_buf[b];
                        let d = w * self.psi[k] * self.dn_buf[b] / h;
                        for (&ps, &v) in self.pos_k[blk * nkp..(blk + 1) * nkp].iter().zip(kv) {
                            vals[ps as usize] += c * v;
                        }
                        for ((&ps, &gv), &g) in self.pos_g[blk * ng..(blk + 1) * ng]
                            .iter()
                            .zip(&self.ev.gv)
                            .zip(&self.ev.g)
                        {
                            vals[ps as usize] += c * gv + d * g;
                        }
                    }
                    for m in 0..p {
                        let blk = k * p + m;
                        let c = w * self.psi[k] * self.psi[m];
                        for (&ps, &g) in
                            self.pos_gt[blk * ng..(blk + 1) * ng].iter().zip(&self.ev.g)
                        {
                            vals[ps as usize] += c * g;
                        }
                    }
                }
            }
        }
        if self.strain.is_some() {
            self.strain_terms(values);
        }
        // natural → frame-wise numbering
        for (&c, &v) in self.q_col.iter().zip(&self.rq) {
            r[c as usize] = v;
        }
        for (&c, &v) in self.l_col.iter().zip(&self.rl) {
            r[c as usize] = v;
        }
        for (&c, &v) in self.q_col.iter().zip(&self.mq) {
            m[c as usize] = v;
        }
        for (&c, &v) in self.l_col.iter().zip(&self.ml) {
            m[c as usize] = v;
        }
        if floor {
            for (&c, &v) in self.q_col.iter().zip(&self.phq) {
                self.phi[c as usize] = v;
            }
            for (&c, &v) in self.l_col.iter().zip(&self.phl) {
                self.phi[c as usize] = v;
            }
        }
    }

    /// Adds the strain elements' residual (to `rq`) and tangent (to `values`).
    fn strain_terms(&mut self, mut values: Option<&mut [f64]>) {
        let (p, nq, h) = (self.p, self.nq, self.h);
        let np = p + 1;
        let sys: &'s S = self.sys;
        let slots = sys.strain_slots();
        let parallel_min = self.parallel_min;
        let sp = self.strain.as_mut().expect("strain part");
        let tangent = values.is_some();
        let floor = tangent && self.floor;
        let qn = &self.qn;
        let rq = &mut self.rq;
        let mq = &mut self.mq;
        let phq = &mut self.phq;
        sp.dissipated = 0.0;
        let gather = |slot: &crate::model::StrainSlot, local: &mut [f64]| {
            let nl = slot.indices.len();
            for a in 0..np {
                let qa = &qn[a * nq..(a + 1) * nq];
                for (o, &i) in local[a * nl..(a + 1) * nl].iter_mut().zip(&slot.indices) {
                    *o = qa[i];
                }
            }
        };
        // adds one slot's terms (in slot order: the same sums for any thread count)
        let scatter = |si: usize,
                       terms: &SlotTerms,
                       rq: &mut [f64],
                       mq: &mut [f64],
                       phq: &mut [f64],
                       values: &mut Option<&mut [f64]>,
                       pos_offset: &[usize],
                       pos: &[u32]| {
            let slot = &slots[si];
            let nl = slot.indices.len();
            for k in 0..p {
                let rk = &mut rq[k * nq..(k + 1) * nq];
                let mk = &mut mq[k * nq..(k + 1) * nq];
                for (&i, &v) in slot.indices.iter().zip(&terms.res[k * nl..(k + 1) * nl]) {
                    rk[i] += v;
                    mk[i] += v.abs();
                }
            }
            if let Some(vals) = values.as_deref_mut() {
                // floor basis: Σ_B |T_(k,B)| X with the element's largest absolute position
                // and director component X (known to ε X)
                if floor {
                    let (mut xp, mut xd) = (0.0f64, 0.0f64);
                    for b in 0..np {
                        let qb = &qn[b * nq..(b + 1) * nq];
                        for &j in &slot.indices {
                            if j % 12 < 3 {
                                xp = xp.max(qb[j].abs());
                            } else {
                                xd = xd.max(qb[j].abs());
                            }
                        }
                    }
                    // the scale of every local coordinate (once per slot, not per entry)
                    let mut xl = [0.0f64; 64];
                    let xl = if nl <= xl.len() {
                        for (o, &j) in xl.iter_mut().zip(&slot.indices) {
                            *o = if j % 12 < 3 { xp } else { xd };
                        }
                        Some(&xl[..nl])
                    } else {
                        None
                    };
                    for k in 0..p {
                        for b in 1..np {
                            let blk =
                                &terms.tangent[(k * p + b - 1) * nl * nl..(k * p + b) * nl * nl];
                            for (row, &i) in slot.indices.iter().enumerate() {
                                let mut s = 0.0;
                                let trow = &blk[row * nl..(row + 1) * nl];
                                match xl {
                                    Some(xl) => {
                                        for (&t, &x) in trow.iter().zip(xl) {
                                            s += t.abs() * x;
                                        }
                                    }
                                    None => {
                                        for (&t, &j) in trow.iter().zip(&slot.indices) {
                                            s += t.abs() * if j % 12 < 3 { xp } else { xd };
                                        }
                                    }
                                }
                                phq[k * nq + i] += s;
                            }
                        }
                    }
                }
                let len = p * p * nl * nl;
                let ps = &pos[pos_offset[si]..pos_offset[si] + len];
                for (&ps, &v) in ps.iter().zip(&terms.tangent[..len]) {
                    vals[ps as usize] += v;
                }
            }
        };
        let threads = rayon::current_num_threads();
        if threads <= 1 || slots.len() < parallel_min {
            for (si, slot) in slots.iter().enumerate() {
                let el = slot.element.as_ref();
                let nl = el.n_loc();
                gather(slot, &mut sp.local[..np * nl]);
                sp.st.slot_terms(
                    el,
                    h,
                    &sp.local[..np * nl],
                    1,
                    tangent,
                    &mut sp.sc,
                    &mut sp.terms,
                );
                sp.dissipated += sp.terms.dissipated;
                scatter(
                    si,
                    &sp.terms,
                    rq,
                    mq,
                    phq,
                    &mut values,
                    &sp.pos_offset,
                    &sp.pos,
                );
            }
            return;
        }
        let n_loc = slots.iter().map(|s| s.element.n_loc()).max().unwrap_or(0);
        let batch_len = STRAIN_BATCH.min(slots.len());
        let StrainPart {
            st,
            batch,
            pos_offset,
            pos,
            dissipated,
            ..
        } = sp;
        if batch.len() < batch_len {
            batch.resize_with(batch_len, || (vec![0.0; np * n_loc], st.terms(1)));
        }
        let st = &*st;
        for first in (0..slots.len()).step_by(STRAIN_BATCH) {
            let chunk = &slots[first..(first + STRAIN_BATCH).min(slots.len())];
            batch[..chunk.len()]
                .par_iter_mut()
                .zip(chunk.par_iter())
                .for_each_init(
                    || st.scratch(),
                    |sc, ((local, terms), slot)| {
                        let el = slot.element.as_ref();
                        let nl = el.n_loc();
                        gather(slot, &mut local[..np * nl]);
                        st.slot_terms(el, h, &local[..np * nl], 1, tangent, sc, terms);
                    },
                );
            for (k, (_, terms)) in batch[..chunk.len()].iter().enumerate() {
                *dissipated += terms.dissipated;
                scatter(first + k, terms, rq, mq, phq, &mut values, pos_offset, pos);
            }
        }
    }

    /// Stop criterion: `Σ_k ‖(R_q^k, R_λ^k)‖₂` over the test functions, the norm of the full
    /// form ([`crate::discretize::PetrovGalerkinBlock::residual_norm`]) with its velocity rows at zero.
    pub fn residual_norm(&self, r: &[f64]) -> f64 {
        let mut sq = [0.0f64; 8];
        let mut big = Vec::new();
        let acc: &mut [f64] = if self.p <= sq.len() {
            &mut sq[..self.p]
        } else {
            big.resize(self.p, 0.0);
            &mut big
        };
        for (&k, &v) in self.slot_of.iter().zip(r) {
            acc[k as usize] += v * v;
        }
        acc.iter().map(|s| s.sqrt()).sum()
    }
}
