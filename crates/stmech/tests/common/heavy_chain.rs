//! The payload-free heavy chain case of `tests/heavy_chain.rs` and its Petit–Rouchon reference
//! ([`stmech::string::heavy_chain`]), shared by the inverse methods' tests: solve the crane
//! problem of [`ChainCase`] by any method, sample the suspension point and its force at some
//! times, and measure them with [`ChainCase::errors`].

use stmech::inverse::trajectory::{RestToRestLine, RestToRestProfile};
use stmech::string::StringModel;
use stmech::string::heavy_chain;

/// A chain of length 1 m, 1 kg/m, `EA = 10⁶ N` (stretch `ρA g L/EA ≈ 1e-5`), no payload, whose
/// free end moves horizontally by `amplitude` m along `(0.6, 0.8, 0)` rest-to-rest in 2 s
/// (profile of `[I]` Eq. 35) from `t0 = 1 s`, on the time domain `[0, 4]` s (pre- and
/// post-actuation 1 s ≥ `2 √(L/g)` = 0.639 s).
#[derive(Clone, Copy, Debug)]
pub struct ChainCase {
    /// The chain.
    pub model: StringModel,
    /// The free end's path.
    pub path: RestToRestLine,
    /// Time domain (s).
    pub t_start: f64,
    /// Time domain (s).
    pub t_end: f64,
}

/// [`ChainCase`] with the free end's displacement `amplitude` (m) and axial stiffness `ea` (N).
pub fn chain_case(amplitude: f64, ea: f64) -> ChainCase {
    ChainCase {
        model: StringModel {
            length: 1.0,
            rho_a: 1.0,
            ea,
            payload_mass: 0.0,
            gravity: [0.0, 0.0, -9.81],
            payload_start: [0.0; 3],
        },
        path: RestToRestLine {
            start: [0.0; 3],
            delta: [0.6 * amplitude, 0.8 * amplitude, 0.0],
            profile: RestToRestProfile {
                t0: 1.0,
                duration: 2.0,
            },
        },
        t_start: 0.0,
        t_end: 4.0,
    }
}

fn horizontal(v: [f64; 3]) -> [f64; 3] {
    [v[0], v[1], 0.0]
}

fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|c| (a[c] - b[c]).powi(2)).sum::<f64>().sqrt()
}

impl ChainCase {
    /// The reference at `t`: horizontal suspension position (m) and horizontal force on the
    /// chain (N), (HC3) and (HC4).
    pub fn reference(&self, t: f64) -> ([f64; 3], [f64; 3]) {
        (
            heavy_chain::suspension_horizontal(&self.model, &self.path, t),
            heavy_chain::suspension_force_horizontal(&self.model, &self.path, t),
        )
    }

    /// Largest distances `(|P x − x_ref|, |P F − H_ref|)` over the samples: suspension points
    /// `x[j]` and forces on the chain `force[j]` at times `t[j]` (`P` the horizontal projection;
    /// `force` may be empty).
    pub fn errors(&self, t: &[f64], x: &[[f64; 3]], force: &[[f64; 3]]) -> (f64, f64) {
        let mut e = (0.0f64, 0.0f64);
        for (j, &tj) in t.iter().enumerate() {
            let (xr, hr) = self.reference(tj);
            e.0 = e.0.max(dist(horizontal(x[j]), xr));
            if let Some(f) = force.get(j) {
                e.1 = e.1.max(dist(horizontal(*f), hr));
            }
        }
        e
    }
}
