//! The string's Newton solves (statics, the space-time slab, the midpoint discrete gradient) on
//! the one driver [`crate::solve::newton::drive`]: a residual assembled node by node into a
//! banded matrix ([`BandedLu`]), measured by equation group (docs/theory.md, "The Newton stop").
//!
//! Every row is paired with the unknown of the same kind (a position row with a position, a
//! velocity row with a velocity), so the group of a row is also the group of its unknown. The
//! unknowns are absolute coordinates (positions from the origin, velocities), and the round-off
//! floor of row `i` is `F ε (Σ_j |J_ij| X_g(j) + m_i)` with `X_g` the largest `|x_j|` of group
//! `g` ([`crate::solve::newton::assembled::group_floor`]); here `Σ_j |J_ij|` sums the absolute
//! values of the entries as they are added (element by element), an upper bound. Derivatives
//! with respect to coordinates that are not unknowns (the prescribed suspension point) add
//! `|J_ij| X_g` to the basis as well ([`BandedJacobian::add_known`]).

use crate::error::SolveError;
use crate::solve::banded::BandedLu;
use crate::solve::newton::assembled::ROUND_OFF_CORRECTION;
use crate::solve::newton::{
    DriverBuffers, Measures, NewtonError, NewtonParams, NewtonProblem, NewtonReport,
    Refactorization, drive,
};
use std::time::Instant;

/// The Jacobian of a banded system being assembled, with its floor basis.
pub(crate) struct BandedJacobian<'a> {
    lu: &'a mut BandedLu,
    phi: &'a mut [f64],
    xg: &'a [f64],
    groups: &'a [u8],
}

impl BandedJacobian<'_> {
    /// Adds `v` to entry `(i, j)` (in the band) and `|v| X_g(j)` to the floor basis of row `i`.
    #[inline]
    pub(crate) fn add(&mut self, i: usize, j: usize, v: f64) {
        self.lu.add(i, j, v);
        self.phi[i] += v.abs() * self.xg[self.groups[j] as usize];
    }

    /// Adds the 3 × 3 block `v` at the rows `i, i + 1, i + 2` and the columns `j, j + 1, j + 2`
    /// (in the band): [`Self::add`] entry by entry, row after row (the same sums, to the bit).
    #[inline]
    pub(crate) fn add_block3(&mut self, i: usize, j: usize, v: &[[f64; 3]; 3]) {
        let x = [0, 1, 2].map(|d| self.xg[self.groups[j + d] as usize]);
        for (c, row) in v.iter().enumerate() {
            self.lu.add3(i + c, j, *row);
            let p = &mut self.phi[i + c];
            for d in 0..3 {
                *p += row[d].abs() * x[d];
            }
        }
    }

    /// Adds to the floor basis of row `i` the derivative `v` with respect to a coordinate of
    /// group `g` that enters the residual but is not an unknown (a prescribed suspension
    /// point): `|v| X_g`, the coordinate taken at the size of the unknowns of its kind.
    #[inline]
    pub(crate) fn add_known(&mut self, i: usize, v: f64, g: u8) {
        self.phi[i] += v.abs() * self.xg[g as usize];
    }
}

/// A square system `r(x) = 0` with a banded Jacobian (module docs).
pub(crate) trait BandedSystem {
    /// Why an evaluation failed.
    type Error;
    /// The group of every row (and of the unknown paired with it), numbered from 0.
    fn row_groups(&self) -> &[u8];
    /// The group of the position unknowns (for the round-off safety net). Default: 0.
    fn position_group(&self) -> u8 {
        0
    }
    /// Writes `r(x)` and the magnitudes `m` of its terms into zeroed vectors and, with `jac`,
    /// adds the Jacobian into a cleared matrix.
    fn assemble(
        &mut self,
        x: &[f64],
        r: &mut [f64],
        m: &mut [f64],
        jac: Option<&mut BandedJacobian<'_>>,
    ) -> Result<(), Self::Error>;
}

/// A [`BandedSystem`] with its matrix and buffers, as the driver sees it.
struct Banded<'a, S: BandedSystem> {
    sys: &'a mut S,
    lu: &'a mut BandedLu,
    r: Vec<f64>,
    m: Vec<f64>,
    phi: Vec<f64>,
    xg: Vec<f64>,
    groups: Vec<u8>,
    n_groups: usize,
    stale: bool,
}

impl<S: BandedSystem> NewtonProblem for Banded<'_, S> {
    type Error = S::Error;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        rep: &mut NewtonReport,
    ) -> Result<(), S::Error> {
        let t = Instant::now();
        self.r.fill(0.0);
        self.m.fill(0.0);
        let res = if jacobian {
            self.xg.clear();
            self.xg.resize(self.n_groups, 0.0);
            for (&g, &xj) in self.groups.iter().zip(x) {
                let s = &mut self.xg[g as usize];
                *s = s.max(xj.abs());
            }
            self.phi.fill(0.0);
            self.lu.clear();
            self.stale = true;
            let mut jac = BandedJacobian {
                lu: self.lu,
                phi: &mut self.phi,
                xg: &self.xg,
                groups: &self.groups,
            };
            self.sys
                .assemble(x, &mut self.r, &mut self.m, Some(&mut jac))
        } else {
            self.sys.assemble(x, &mut self.r, &mut self.m, None)
        };
        rep.assembly_seconds += t.elapsed().as_secs_f64();
        res?;
        out.from_rows(
            self.n_groups,
            &self.groups,
            &self.r,
            &self.m,
            Some(&self.phi),
        );
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], rep: &mut NewtonReport) -> Result<(), SolveError> {
        if self.stale {
            rep.timed_factorization(|| self.lu.factorize())?;
            self.stale = false;
        }
        rep.timed_solve(&self.r, dx, |d| self.lu.solve_in_place(d));
        Ok(())
    }

    fn unknown_groups(&self) -> &[u8] {
        &self.groups
    }

    /// The positions' correction at `16 ε` of the largest position (velocities are left out:
    /// they follow the positions divided by the step).
    fn correction_at_round_off(&self, x: &[f64], dx: &[f64]) -> bool {
        let g = self.sys.position_group();
        let (mut xm, mut dm) = (0.0f64, 0.0f64);
        for ((&gi, &xi), &di) in self.groups.iter().zip(x).zip(dx) {
            if gi == g {
                xm = xm.max(xi.abs());
                dm = dm.max(di.abs());
            }
        }
        dm <= ROUND_OFF_CORRECTION * f64::EPSILON * xm
    }
}

/// Runs the driver (Newton–Raphson with its line search) on `sys` from `x`, with the matrix
/// `lu` (dimension `x.len()`).
pub(crate) fn solve_banded<S: BandedSystem>(
    sys: &mut S,
    lu: &mut BandedLu,
    x: &mut [f64],
    params: &NewtonParams,
) -> Result<NewtonReport, NewtonError<S::Error>> {
    let n = x.len();
    let groups = sys.row_groups().to_vec();
    let n_groups = groups.iter().copied().max().map_or(1, |g| g as usize + 1);
    let mut prob = Banded {
        sys,
        lu,
        r: vec![0.0; n],
        m: vec![0.0; n],
        phi: vec![0.0; n],
        xg: Vec::new(),
        groups,
        n_groups,
        stale: false,
    };
    let mut buf = DriverBuffers::default();
    drive(
        &mut prob,
        x,
        params,
        Refactorization::EveryIteration,
        &mut buf,
    )
}
