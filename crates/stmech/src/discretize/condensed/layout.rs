//! The element's sparsity pattern as a Kronecker product, built without sorting it.
//!
//! Every block `(k, B)` of the condensed Jacobian (test function `k`, unknown node `B`, or
//! multiplier `λ_m`) has the same pattern: `R_q^k/Δq_B` is `K ∪ 𝕄 ∪` the strain blocks,
//! `R_λ^k/Δq_B` is `G`, `R_q^k/λ_m` is `Gᵀ`, for every `k, B, m`. With one slot's unknowns
//! `s` (a frame's coordinates and multiplier rows, frames in order) the pattern is
//!
//! ```text
//! J = P₁ ⊗ 1_{p×p}    in the numbering   full(a, s) = p f₀(s) + a |f(s)| + (s − f₀(s)),
//! ```
//!
//! `P₁` the pattern of one slot (`n_q + n_λ` unknowns), `f(s)` the frame of `s` (first
//! unknown `f₀`, size `|f|`): a frame's unknowns are numbered slot by slot. A column
//! `full(m, c)` of `J` holds, for each frame's run of rows in column `c` of `P₁`, that run
//! once per `k = 0..p−1`, so its sorted rows and every entry's position follow from `P₁` by
//! arithmetic: the entry `(r, c)` at index `i` of its column, in a run starting at index `s₀`
//! of length `ℓ`, is at `col_ptr[full(m, c)] + p s₀ + k ℓ + (i − s₀)`. Only `P₁`, a `p²`-th of
//! the entries, is bucketed and sorted, and only its positions are searched.

use crate::discretize::pattern::{CscPattern, SKIP};

/// The numbering and pattern of a condensed element of order `p` (see the module docs).
pub(super) struct KronLayout {
    p: usize,
    /// Per one-slot unknown: the first one-slot unknown of its frame and the frame's size.
    frame_start: Vec<u32>,
    frame_len: Vec<u32>,
    /// The frames `(first one-slot unknown, size)`, in order.
    frames: Vec<(usize, usize)>,
    /// The one-slot pattern `P₁`.
    one: CscPattern,
    /// Per entry of `P₁`: `p s₀ + (i − s₀)` and the run length `ℓ` (see the module docs).
    off: Vec<u32>,
    run: Vec<u32>,
    /// The element's pattern `J`.
    pub(super) full: CscPattern,
}

impl KronLayout {
    /// The layout of order `p` over the one-slot frames `frames` (consecutive
    /// `(first, size)`, covering `0..n1`) with the one-slot entries produced by `entries`
    /// (called twice, as by [`CscPattern::from_entries`]).
    ///
    /// # Panics
    /// If the element has `2³²` or more Jacobian entries (callers check the size).
    pub(super) fn new<I: Iterator<Item = (usize, usize)>>(
        p: usize,
        frames: Vec<(usize, usize)>,
        entries: impl Fn() -> I,
    ) -> Self {
        let n1 = frames.last().map_or(0, |&(s, l)| s + l);
        let (mut frame_start, mut frame_len) = (vec![0u32; n1], vec![0u32; n1]);
        for &(s, l) in &frames {
            frame_start[s..s + l].fill(s as u32);
            frame_len[s..s + l].fill(l as u32);
        }
        let one = CscPattern::from_entries(n1, entries);
        assert!(
            p.checked_mul(p)
                .and_then(|pp| pp.checked_mul(one.nnz()))
                .is_some_and(|nnz| nnz < SKIP as usize),
            "system too large for 32-bit positions"
        );
        // runs of rows of one frame in each column of P₁
        let (mut off, mut run) = (vec![0u32; one.nnz()], vec![0u32; one.nnz()]);
        for c in 0..n1 {
            let (s, e) = (one.col_ptr[c], one.col_ptr[c + 1]);
            let mut r0 = s;
            while r0 < e {
                let f = frame_start[one.row_idx[r0]];
                let mut r1 = r0 + 1;
                while r1 < e && frame_start[one.row_idx[r1]] == f {
                    r1 += 1;
                }
                for t in r0..r1 {
                    off[t] = (p * (r0 - s) + (t - r0)) as u32;
                    run[t] = (r1 - r0) as u32;
                }
                r0 = r1;
            }
        }
        let mut me = Self {
            p,
            frame_start,
            frame_len,
            frames,
            one,
            off,
            run,
            full: CscPattern {
                n: 0,
                col_ptr: Vec::new(),
                row_idx: Vec::new(),
            },
        };
        // J column by column, in its own order: frames, slots m, the frame's unknowns
        let n = p * n1;
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::with_capacity(p * p * me.one.nnz());
        col_ptr.push(0);
        for &(f0, len) in &me.frames {
            for m in 0..p {
                for c in f0..f0 + len {
                    if m == 0 {
                        let (s, e) = (me.one.col_ptr[c], me.one.col_ptr[c + 1]);
                        let mut r0 = s;
                        while r0 < e {
                            let r1 = r0 + me.run[r0] as usize;
                            for k in 0..p {
                                row_idx.extend(me.one.row_idx[r0..r1].iter().map(|&r| me.at(k, r)));
                            }
                            r0 = r1;
                        }
                    } else {
                        // the rows of column full(0, c): the same for every m
                        let c0 = me.at(0, c);
                        row_idx.extend_from_within(col_ptr[c0]..col_ptr[c0 + 1]);
                    }
                    col_ptr.push(row_idx.len());
                }
            }
        }
        me.full = CscPattern {
            n,
            col_ptr,
            row_idx,
        };
        me
    }

    /// The element's pattern `J`.
    pub(super) fn into_pattern(self) -> CscPattern {
        self.full
    }

    /// The unknown `full(a, s)` of one-slot unknown `s` in slot `a`.
    #[inline]
    pub(super) fn at(&self, a: usize, s: usize) -> usize {
        let (f0, len) = (self.frame_start[s] as usize, self.frame_len[s] as usize);
        self.p * f0 + a * len + (s - f0)
    }

    /// Position in `P₁` of the entry `(r, c)` (binary search).
    ///
    /// # Panics
    /// If the entry is not in the pattern.
    pub(super) fn one_position(&self, r: usize, c: usize) -> usize {
        self.one.position(r, c)
    }

    /// Positions in `P₁` of the dense block `rows × cols` (see
    /// [`CscPattern::block_positions`]).
    pub(super) fn one_block_positions(
        &self,
        rows: &[usize],
        cols: &[usize],
        order: &mut Vec<usize>,
        put: impl FnMut(usize, usize),
    ) {
        self.one.block_positions(rows, cols, order, put);
    }

    /// Position in `J` of the entry at position `t` of `P₁` in column `c`, in row slot `k` and
    /// column slot `m`: the entry `(full(k, r), full(m, c))`.
    #[inline]
    pub(super) fn position(&self, t: usize, c: usize, k: usize, m: usize) -> u32 {
        self.column_start(m, c) + self.offset(t, k)
    }

    /// Position in `J` of the first entry of column `full(m, c)`.
    #[inline]
    pub(super) fn column_start(&self, m: usize, c: usize) -> u32 {
        self.full.col_ptr[self.at(m, c)] as u32
    }

    /// Offset in its column of `J` of the entry at position `t` of `P₁` in row slot `k`.
    #[inline]
    pub(super) fn offset(&self, t: usize, k: usize) -> u32 {
        self.off[t] + k as u32 * self.run[t]
    }
}
