//! The semi-discrete seam of the sequential baseline and the planar beam's model behind it.

use super::{MassMatrix, SequentialSettings};
use crate::beam::element::{BeamElement, ElementMatrix};
use crate::beam::model::BeamModel as ForwardModel;
use crate::inverse::element::ElementError;
use crate::inverse::solver::{BeamModel, InverseError, TipLaw};

/// The semi-discrete equations of one body as the sequential integrator ([`integrate`])
/// needs them, with `N` actuation components on node 0 and `N` servo rows on the tip node:
/// the planar beam's forward elements here ([`Semi`]), the linear elements of an
/// [`crate::inverse::body::InverseBody`] (the spatial arm) in
/// [`crate::inverse::spatial::sequential`].
pub(crate) trait SemiDiscrete<const N: usize> {
    /// Nodal unknowns `n` (node `i` holds `q[N i .. N i + N]`).
    fn dofs(&self) -> usize;
    /// First unknown of the tip node (the servo rows hold `q[tip .. tip + N]`).
    fn tip(&self) -> usize;
    /// `q` at `t_start` (at rest).
    fn rest(&self) -> Vec<f64>;
    /// The known part of the step from the histories (`qh[k − 1]`, `vh[k − 1]`: `q`, `v` at
    /// `t_{n+1−k}`), for the scheme `alpha` and the step `h`.
    fn begin_step(&mut self, alpha: &[f64], h: f64, qh: &[Vec<f64>], vh: &[Vec<f64>]);
    /// At `q`: `rhs[..n] = −h² (inertia + f_int)` (without the actuation), the magnitudes of
    /// its terms into `mag[..n]` (`Σ_t |t_i|` over the inertia entries `M_ij h² a_j` or the
    /// inertia of each quadrature point, every element's internal force and the loads,
    /// each times `h²`; `mag` is zero on entry) and the block `∂(h² (inertia + f_int))/∂q` of
    /// the iteration matrix into `jac[i m + j]`, `i, j < n` (`jac` is zero on entry, row
    /// length `m`).
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        alpha0: f64,
        h: f64,
        q: &[f64],
        rhs: &mut [f64],
        mag: &mut [f64],
        jac: &mut [f64],
        m: usize,
    ) -> Result<(), ElementError>;
    /// Whether component `c` of a node is a rotation (its rows and unknowns form their own
    /// equation groups: other units).
    fn rotation(&self, c: usize) -> bool;
    /// How an element failure of [`Self::evaluate`] reads in [`SequentialFailure::reason`].
    fn describe(&self, e: &ElementError) -> String {
        e.to_string()
    }
}

/// The semi-discrete model: dense mass, element kernels.
pub(super) struct Semi {
    model: ForwardModel,
    n: usize,
    mass: Vec<f64>,
    tip: usize,
    /// Scratch: internal force, the magnitudes of its element terms, tangent and the history
    /// term of the step.
    fi: Vec<f64>,
    fi_mag: Vec<f64>,
    k: Vec<f64>,
    hist_term: Vec<f64>,
    /// `q_n`, the positions at the start of the step.
    q_before: Vec<f64>,
}

impl Semi {
    pub(super) fn new(
        beam: &BeamModel,
        settings: &SequentialSettings,
    ) -> Result<Self, InverseError> {
        let spec = beam.forward_spec(settings.elements, 1);
        let model = ForwardModel::try_new_with_prefix(spec, "sequential")?;
        let n = model.n_dofs();
        let mut mass = vec![0.0; n * n];
        let me = model.element_mass();
        for e in 0..settings.elements {
            for a in 0..2 {
                for b in 0..2 {
                    for c in 0..3 {
                        let (i, j) = (3 * (e + a) + c, 3 * (e + b) + c);
                        let m = me[a][b][if c < 2 { 0 } else { 1 }];
                        match settings.mass {
                            MassMatrix::Consistent => mass[i * n + j] += m,
                            MassMatrix::Lumped => mass[i * n + i] += m,
                        }
                    }
                }
            }
        }
        let tip = model.tip_node();
        if let TipLaw::Mass { mass: m, inertia } = beam.tip {
            for (c, v) in [m, m, inertia].into_iter().enumerate() {
                let i = 3 * tip + c;
                mass[i * n + i] += v;
            }
        }
        Ok(Self {
            model,
            n,
            mass,
            tip,
            fi: vec![0.0; n],
            fi_mag: vec![0.0; n],
            k: vec![0.0; n * n],
            hist_term: vec![0.0; n],
            q_before: vec![0.0; n],
        })
    }

    /// Internal force and tangent (dense, row-major) into the scratch buffers.
    fn internal(&mut self, q: &[f64]) -> Result<(), ElementError> {
        let n = self.n;
        let (f, fm, k) = (&mut self.fi, &mut self.fi_mag, &mut self.k);
        f.fill(0.0);
        fm.fill(0.0);
        k.fill(0.0);
        let mut fe = [0.0; 9];
        let mut ke: ElementMatrix = [[0.0; 9]; 9];
        for e in 0..self.model.spec.elements {
            let off = self.model.element_offset(e);
            self.model
                .element(e)
                .residual_into(&q[off..off + 6], &mut fe, Some(&mut ke))
                .map_err(|err| match err {
                    crate::beam::element::ElementError::InvertedElement { nu } => {
                        ElementError::Inverted { nu }
                    }
                    // only the stepper's Cayley discrete gradient reports this, not the
                    // residual; map it to the nearest failure rather than panic
                    crate::beam::element::ElementError::RotationIncrement { .. } => {
                        ElementError::Inverted { nu: f64::NAN }
                    }
                })?;
            for a in 0..6 {
                f[off + a] += fe[a];
                fm[off + a] += fe[a].abs();
                for b in 0..6 {
                    k[(off + a) * n + off + b] += ke[a][b];
                }
            }
        }
        Ok(())
    }
}

impl SemiDiscrete<3> for Semi {
    fn dofs(&self) -> usize {
        self.n
    }

    fn rotation(&self, c: usize) -> bool {
        c == 2
    }

    fn tip(&self) -> usize {
        3 * self.tip
    }

    fn rest(&self) -> Vec<f64> {
        self.model.x_ref.clone()
    }

    /// `Σ α_k (α₀ (q_{n+1−k} − q_n) + h v_{n+1−k})`: the known part of `h² a`, with `q_n`
    /// subtracted (`Σ α_k = 0`): `h² a = α₀² (q − q_n) + hist`, a sum of differences of
    /// nearby positions, exactly 0 at rest and independent of the origin.
    fn begin_step(&mut self, alpha: &[f64], h: f64, qh: &[Vec<f64>], vh: &[Vec<f64>]) {
        self.q_before.copy_from_slice(&qh[0]);
        for i in 0..self.n {
            let mut s = 0.0;
            for kk in 1..alpha.len() {
                let dq = qh[kk - 1][i] - qh[0][i];
                s += alpha[kk] * (alpha[0] * dq + h * vh[kk - 1][i]);
            }
            self.hist_term[i] = s;
        }
    }

    /// `−(M (α₀² (q − q_n) + hist) + h² f_int)` and `α₀² M + h² K`; the terms are the inertia
    /// entries `M_ij h² a_j` and the elements' internal forces.
    fn evaluate(
        &mut self,
        alpha0: f64,
        h: f64,
        q: &[f64],
        rhs: &mut [f64],
        mag: &mut [f64],
        jac: &mut [f64],
        m: usize,
    ) -> Result<(), ElementError> {
        self.internal(q)?;
        let n = self.n;
        for i in 0..n {
            let (mut ma, mut mm) = (0.0, 0.0);
            for j in 0..n {
                let dq = q[j] - self.q_before[j];
                let t = self.mass[i * n + j] * (alpha0 * alpha0 * dq + self.hist_term[j]);
                ma += t;
                mm += t.abs();
            }
            rhs[i] = -(ma + h * h * self.fi[i]);
            mag[i] = mm + h * h * self.fi_mag[i];
        }
        for i in 0..n {
            for j in 0..n {
                jac[i * m + j] = alpha0 * alpha0 * self.mass[i * n + j] + h * h * self.k[i * n + j];
            }
        }
        Ok(())
    }
}
