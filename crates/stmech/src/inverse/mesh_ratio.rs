//! The mesh-ratio ("sideways CFL") condition of the space-time inverse problem.
//!
//! # Condition
//! With space step `hs = L/n_s`, time step `ht` and the slowest wave speed
//! `c_min = min(c_bending, c_shear, c_axial)` of `[I]` Eq. 30, the inverse problem is stable
//! only if the *sideways Courant number*
//!
//! ```text
//! μ = hs / (c_min ht) ≤ 2,     i.e.   ht ≥ hs / (2 c_min) .
//! ```
//!
//! # Derivation (von Neumann analysis of the sideways marching)
//! In the inverse problem both Cauchy data are known at the tip, `x(L, t) = γ(t)` (servo
//! constraint) and `B ∂s x(L, t) = h` (tip law); the actuation at `s = 0` is what the equations
//! carry from the tip to the base. The discrete problem is therefore a marching problem *in s*,
//! with `s` playing the role of time: a CFL-type condition with the roles of `s` and `t`
//! exchanged ("sideways"), so that refining only the time mesh breaks it.
//!
//! For the linear wave `ρA u_tt = EA u_ss` (`c² = EA/ρA`) the bilinear Galerkin equations of an
//! interior node, `R1 = M_s ⊗ (D_t u − M_t v)` and `R2 = ρA M_s ⊗ D_t v + EA K_s ⊗ M_t u` with
//! `M_s = hs/6 [1 4 1]`, `K_s = 1/hs [−1 2 −1]`, `M_t = ht/6 [1 4 1]`, `D_t = ½ [−1 0 1]`, take
//! for a time mode `e^{i j ϑ}` and a space mode `z^i` the symbols
//! `D_t → i sin ϑ`, `M_t → ht m(ϑ)`, `m = (2 + cos ϑ)/3`, `M_s → hs p(z)`, `K_s → q(z)/hs`
//! with `p = (4 + w)/6`, `q = 2 − w`, `w = z + 1/z`. The determinant of the 2 × 2 symbol is
//! `p [c² ht² m² q − hs² p sin² ϑ]`. The roots `p = 0` are the mass-matrix modes fixed by the
//! boundary rows; the others satisfy
//!
//! ```text
//! w = (2 c² ht² m² − (2/3) hs² sin² ϑ) / (c² ht² m² + hs² sin² ϑ / 6).
//! ```
//!
//! Sideways waves are neutral (`|z| = 1`) iff `−2 ≤ w ≤ 2`. `w ≤ 2` always holds; `w ≥ −2`
//! holds iff `2√3 c ht m(ϑ) ≥ hs sin ϑ`, i.e. `μ ≤ 2√3 m(ϑ)/sin ϑ`, for every `ϑ`. The minimum of
//! `m/sin ϑ = (2 + cos ϑ)/(3 sin ϑ)` is `1/√3` at `ϑ = 2π/3` (a wave of three time steps), so
//! `μ ≤ 2`. Beyond it that mode grows by a factor `|z| > 1` per space element from tip to
//! base. For the beam, each wave family of Eq. 30 gives the same condition with its own speed;
//! the slowest is binding.
//!
//! Measured (`tests/inverse_verification.rs`, linear wave, `c = 1`, 40 space elements): error
//! of the actuation 5.6e-5 at `μ = 1.9` and `μ = 2.0`, 0.88 at `μ = 2.2`, 1.4e4 at `μ = 2.5`:
//! the limit is sharp. Inside it the error hardly depends on `μ` (2.4e-4 at `μ = 1`, 2.2e-4 at
//! `μ = 2`, 20 elements), so [`auto_elements_t`] chooses `μ = 1`: a safety factor of 2 that
//! also covers the slower axial wave of the stretched log-law beam, at half the cost of `μ = ½`.
//!
//! For the log law the axial speed depends on the stretch,
//! `c_axial² = EA/(2ρA)(1 + ν⁻²)`, and is checked at the reference state `ν = 1`; the solver
//! reports the condition again with the largest stretch of the solution
//! ([`super::solver::SpaceTimeSolution::max_stretch`]).

use crate::beam::section::{ConstitutiveLaw, SectionProperties};

/// Largest admissible sideways Courant number `μ = hs/(c_min ht)`.
pub const LIMIT: f64 = 2.0;
/// Sideways Courant number chosen by [`auto_elements_t`].
pub const TARGET: f64 = 1.0;
/// Round-off allowance on [`LIMIT`] (`μ = 2` itself is admissible).
const SLACK: f64 = 1e-9;

/// Result of the check: the numbers a report needs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct MeshRatio {
    /// Space step `hs` (m).
    pub hs: f64,
    /// Time step `ht` (s).
    pub ht: f64,
    /// Wave speeds `[bending, shear, axial]` at the checked stretch (m/s), `[I]` Eq. 30.
    pub wave_speeds: [f64; 3],
    /// The slowest of them (m/s).
    pub c_min: f64,
    /// `μ = hs / (c_min ht)`.
    pub courant: f64,
}

impl MeshRatio {
    /// Evaluates the condition at stretch `nu` (1 for the reference state).
    pub fn evaluate(
        sec: &SectionProperties,
        law: ConstitutiveLaw,
        nu: f64,
        hs: f64,
        ht: f64,
    ) -> Self {
        let wave_speeds = law.wave_speeds(sec, nu);
        let c_min = wave_speeds.into_iter().fold(f64::INFINITY, f64::min);
        Self {
            hs,
            ht,
            wave_speeds,
            c_min,
            courant: hs / (c_min * ht),
        }
    }

    /// Whether `μ ≤ 2`.
    pub fn holds(&self) -> bool {
        self.courant <= LIMIT * (1.0 + SLACK)
    }

    /// Name of the slowest wave.
    pub fn slowest_wave(&self) -> &'static str {
        let names = ["bending", "shear", "axial"];
        let k = (0..3)
            .min_by(|&a, &b| self.wave_speeds[a].total_cmp(&self.wave_speeds[b]))
            .unwrap_or(0);
        names[k]
    }
}

/// A mesh that violates `hs ≤ c_min ht`, with the fixes.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "the space-time mesh violates the sideways CFL condition of the inverse problem: \
     hs = {hs:.4e} m > 2·c_min·ht = 2 × {c_min:.4e} m/s × {ht:.4e} s (sideways Courant number \
     μ = hs/(c_min ht) = {courant:.3} > 2; c_min is the {wave}). \
     The inverse problem carries the tip data to the base along s, and on this mesh a wave of \
     three time steps grows from element to element: the actuation would be garbage. Fix: use at most {max_elements_t} time elements \
     (ht ≥ {ht_min:.4e} s), or at least {min_elements_s} space elements (hs ≤ {hs_max:.4e} m), \
     or give only `mesh.resolution` and let stmech choose the time step"
)]
pub struct MeshRatioError {
    /// Space step (m).
    pub hs: f64,
    /// Time step (s).
    pub ht: f64,
    /// Slowest wave speed (m/s).
    pub c_min: f64,
    /// Which wave speed that is (e.g. "bending wave speed of [I] Eq. 30").
    pub wave: &'static str,
    /// `μ`.
    pub courant: f64,
    /// Largest admissible number of time elements for this space mesh.
    pub max_elements_t: usize,
    /// Smallest time step for this space mesh (s).
    pub ht_min: f64,
    /// Smallest admissible number of space elements for this time mesh.
    pub min_elements_s: usize,
    /// Largest space step for this time mesh (m).
    pub hs_max: f64,
}

/// Checks `hs ≤ 2 c_min ht` at the reference state before solving.
pub fn check(
    sec: &SectionProperties,
    law: ConstitutiveLaw,
    length: f64,
    duration: f64,
    elements_s: usize,
    elements_t: usize,
) -> Result<MeshRatio, MeshRatioError> {
    let hs = length / elements_s as f64;
    let ht = duration / elements_t as f64;
    let m = MeshRatio::evaluate(sec, law, 1.0, hs, ht);
    let wave = match m.slowest_wave() {
        "bending" => "bending wave speed of [I] Eq. 30",
        "shear" => "shear wave speed of [I] Eq. 30",
        _ => "axial wave speed of [I] Eq. 30",
    };
    check_speed(m.c_min, wave, length, duration, elements_s, elements_t)?;
    Ok(m)
}

/// The condition `μ = hs/(c_min ht) ≤ 2` for a given slowest wave speed `c_min` named `wave`
/// (the beam's [`check`]). Returns `μ`.
pub fn check_speed(
    c_min: f64,
    wave: &'static str,
    length: f64,
    duration: f64,
    elements_s: usize,
    elements_t: usize,
) -> Result<f64, MeshRatioError> {
    check_speed_of(&|_| c_min, wave, length, duration, elements_s, elements_t)
}

/// The condition `μ = hs/(c(hs) ht) ≤ 2` for a slowest wave speed that depends on the space
/// step, `c_of_hs(hs)` (the string's slowest *element* speed: the transverse speed at the
/// midpoint of the last element, issue 17 — for a chain with a free end `c ∝ √hs`). Returns
/// `μ`. `μ(hs)` must grow with `hs` (true for `c` constant or `c² ∝ a + b hs`, `a ≥ 0`): the
/// fix "at least … space elements" is the smallest count that satisfies the condition.
pub fn check_speed_of(
    c_of_hs: &dyn Fn(f64) -> f64,
    wave: &'static str,
    length: f64,
    duration: f64,
    elements_s: usize,
    elements_t: usize,
) -> Result<f64, MeshRatioError> {
    let hs = length / elements_s as f64;
    let ht = duration / elements_t as f64;
    let c_min = c_of_hs(hs);
    let courant = hs / (c_min * ht);
    if courant <= LIMIT * (1.0 + SLACK) {
        return Ok(courant);
    }
    let ht_min = hs / (LIMIT * c_min);
    // the largest hs with hs ≤ 2 c(hs) ht: the root of the increasing μ(h) − 2 by bisection
    // (for a constant speed, 2 c ht to the last bit)
    let ok = |h: f64| h <= LIMIT * c_of_hs(h) * ht;
    let (mut lo, mut hi) = (0.0f64, hs);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if ok(mid) { lo = mid } else { hi = mid }
    }
    let hs_max = lo;
    let min_elements_s = if hs_max > 0.0 {
        ((length / hs_max) * (1.0 - SLACK))
            .ceil()
            .clamp(1.0, usize::MAX as f64) as usize
    } else {
        usize::MAX
    };
    Err(MeshRatioError {
        hs,
        ht,
        c_min,
        wave,
        courant,
        max_elements_t: ((duration / ht_min) * (1.0 + SLACK)).floor().max(1.0) as usize,
        ht_min,
        min_elements_s,
        hs_max,
    })
}

/// Number of time elements for a given space mesh: the most that keeps `μ ≤ TARGET = 1`,
/// i.e. `ht` as close to `hs/c_min` as an integer count allows (see the module docs).
pub fn auto_elements_t(
    sec: &SectionProperties,
    law: ConstitutiveLaw,
    length: f64,
    duration: f64,
    elements_s: usize,
) -> usize {
    let c_min = law
        .wave_speeds(sec, 1.0)
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    auto_elements_t_for_speed(c_min, length, duration, elements_s)
}

/// [`auto_elements_t`] for a given slowest wave speed `c_min` (m/s).
pub fn auto_elements_t_for_speed(
    c_min: f64,
    length: f64,
    duration: f64,
    elements_s: usize,
) -> usize {
    let hs = length / elements_s as f64;
    ((duration * c_min / (TARGET * hs)) * (1.0 + SLACK))
        .floor()
        .max(1.0) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNIT: SectionProperties = SectionProperties {
        rho_a: 1.0,
        rho_i: 1.0,
        ea: 1.0,
        ga: 1.0,
        ei: 1.0,
    };

    #[test]
    fn auto_mesh_satisfies_the_condition_at_the_limit() {
        for law in [ConstitutiveLaw::Quadratic, ConstitutiveLaw::Log] {
            let nt = auto_elements_t(&UNIT, law, 1.0, 6.0, 20);
            assert_eq!(nt, 120);
            let m = check(&UNIT, law, 1.0, 6.0, 20, nt).unwrap();
            assert!(m.holds());
            assert!((m.courant - 1.0).abs() < 1e-12);
        }
        let mut slow = UNIT;
        slow.ei = 0.25; // bending speed 0.5
        let nt = auto_elements_t(&slow, ConstitutiveLaw::Quadratic, 1.0, 6.0, 20);
        assert_eq!(nt, 60);
    }

    #[test]
    fn violation_names_the_fix() {
        let e = check(&UNIT, ConstitutiveLaw::Quadratic, 1.0, 6.0, 10, 240).unwrap_err();
        assert_eq!(e.max_elements_t, 120);
        assert_eq!(e.min_elements_s, 20);
        let msg = e.to_string();
        assert!(msg.contains("at most 120 time elements"), "{msg}");
        assert!(msg.contains("at least 20 space elements"), "{msg}");
        assert!(check(&UNIT, ConstitutiveLaw::Quadratic, 1.0, 6.0, 10, 120).is_ok());
        assert!(msg.contains("μ = hs/(c_min ht) = 4.000"), "{msg}");
    }

    /// A speed `c = √(g hs/2)` (the last element of a chain with a free end): `μ ∝ √hs`, so the
    /// fix is `hs ≤ 2 g ht²` (`hs = 2 √(g hs/2) ht`), and the time step `ht ≥ √(hs/(2g))`.
    #[test]
    fn speed_growing_with_the_element() {
        let g = 9.81;
        let c = |h: f64| (0.5 * g * h).sqrt();
        // L = 1, 16 elements: ht ≥ √(1/(16 · 2g)) = 0.05644 s; duration 2 s: ≤ 35 elements
        let nt_max = (2.0 / (1.0f64 / 32.0 / g).sqrt()).floor() as usize;
        assert_eq!(nt_max, 35);
        assert!(check_speed_of(&c, "chain", 1.0, 2.0, 16, nt_max).is_ok());
        let e = check_speed_of(&c, "chain", 1.0, 2.0, 16, nt_max + 1).unwrap_err();
        assert_eq!(e.max_elements_t, nt_max);
        let ht = 2.0 / (nt_max + 1) as f64;
        let hs_max = 2.0 * g * ht * ht;
        assert!((e.hs_max - hs_max).abs() < 1e-12 * hs_max, "{e:?}");
        assert_eq!(e.min_elements_s, (1.0 / hs_max).ceil() as usize);
        assert!(check_speed_of(&c, "chain", 1.0, 2.0, e.min_elements_s, nt_max + 1).is_ok());
        assert!(check_speed_of(&c, "chain", 1.0, 2.0, e.min_elements_s - 1, nt_max + 1).is_err());
    }
}
