//! Resource estimates before solving: from a loaded scenario alone, the size of the problem
//! (unknowns and matrix nonzeros of the largest linear system, time nodes), the peak memory
//! of `stmech run` and the size of its output, and the check of the peak against a memory
//! limit.
//!
//! Every estimate is computed in `f64` from the input numbers and saturates (an absurd input
//! gives `u64::MAX`, never an overflow or a panic). The models count what the solvers really
//! allocate (see each problem type's file); their constants were calibrated against the
//! measured peak resident memory (`VmHWM`) of `stmech run` on the benchmark ladder of
//! `docs/verification.md`, where estimate/measured stays within `[0.5, 2]`.
//!
//! [`estimate`] is the one entry point; [`check_limit`] turns an estimate and a
//! [`MemoryLimit`] into the refusal that `stmech check` and `stmech run` share.

mod beam;
mod inverse;
mod multibody;
mod spatial;

#[cfg(test)]
pub(crate) use multibody::built_and_modelled_sizes;

use crate::io::inverse_scenario::InverseScenario;
use crate::io::load::AnyScenario;
use std::fmt;

/// Bytes of a process that has loaded a scenario and written a small result without plots
/// (binary, libraries, heap, thread stacks; measured: 8.9 MB for one rigid body with
/// `--no-plots`): the constant term of every estimate. Each problem type adds what rendering
/// its plots costs.
pub const BASE_BYTES: f64 = 9.0e6;

/// No estimate may exceed this (64 TiB), whatever `--max-memory` says: beyond it sizes
/// computed from the input would overflow the address space (and, further on, `usize`).
pub const HARD_CAP_BYTES: u64 = 1 << 46;

pub use crate::beam::MAX_BEAM_ELEMENTS;

/// Default share of the available memory used as the limit.
pub const DEFAULT_FRACTION: f64 = 0.5;

/// Limit used when `/proc/meminfo` cannot be read (2 GiB).
pub const FALLBACK_LIMIT_BYTES: u64 = 2 << 30;

/// Which way the driving field must move to shrink the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// A count: smaller is cheaper.
    Reduce,
    /// A step size: larger is cheaper.
    Raise,
}

/// The input field that drives the size, with how the peak scales with it.
#[derive(Clone, Debug, PartialEq)]
pub struct Driver {
    /// Field path in the scenario (e.g. `method.blocks`).
    pub field: &'static str,
    /// Its current value.
    pub value: f64,
    /// Which way to move it.
    pub direction: Direction,
    /// Peak ∝ (value or 1/value)^exponent for the part of the peak that depends on it.
    pub exponent: f64,
    /// The part of the peak that does not depend on the field (bytes).
    pub fixed_bytes: f64,
}

impl Driver {
    /// The value of the field at which the estimated peak is about `limit` bytes (`None` if
    /// no value of this field alone gets below the limit).
    pub fn value_for(&self, peak: f64, limit: f64) -> Option<f64> {
        let (var, room) = (peak - self.fixed_bytes, limit - self.fixed_bytes);
        if !(var > 0.0 && room > 0.0) {
            return None;
        }
        let scale = (room / var).powf(1.0 / self.exponent);
        let v = match self.direction {
            Direction::Reduce => (self.value * scale).floor(),
            Direction::Raise => self.value / scale,
        };
        (v.is_finite() && v > 0.0).then_some(v)
    }
}

/// The estimated size of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Unknowns of the largest linear system solved at once (one block, step, slab or the
    /// whole inverse mesh).
    pub unknowns: u64,
    /// Stored nonzeros of that system's matrix, including the fill of its factorisation.
    pub nonzeros: u64,
    /// Time nodes (or steps) kept in memory until the output is written.
    pub time_nodes: u64,
    /// Estimated peak resident memory of `stmech run` (bytes).
    pub peak_bytes: u64,
    /// Estimated size of the files written (bytes).
    pub output_bytes: u64,
    /// The field that drives the peak.
    pub driver: Driver,
}

pub use crate::math::{MAX_RESERVE, reserve};

/// Saturating conversion of a non-negative estimate to `u64` (NaN counts as too large).
pub(crate) fn sat(x: f64) -> u64 {
    if x.is_nan() {
        u64::MAX
    } else {
        // `as` saturates at both ends
        x.max(0.0) as u64
    }
}

/// Estimates the resources of `stmech run` on `scenario`.
pub fn estimate(scenario: &AnyScenario) -> Estimate {
    match scenario {
        AnyScenario::Multibody(s) => multibody::estimate(s),
        AnyScenario::Beam(s) => beam::estimate(s),
        AnyScenario::BeamInverse(s) => inverse::estimate(s, s.method),
        AnyScenario::Crane(s) => inverse::estimate_crane(s),
        AnyScenario::SpatialInverse(s) => spatial::estimate(s),
    }
}

/// Estimates `stmech run` (and `stmech compare`: its methods run one after the other on the
/// same mesh, so the peak is the largest of them) on a spatial inverse scenario.
pub fn estimate_spatial(scenario: &crate::io::scenario::SpatialInverseScenario) -> Estimate {
    spatial::estimate(scenario)
}

/// Estimates `stmech run` on a crane scenario (e.g. the built-in crane demo).
pub fn estimate_crane(scenario: &crate::io::inverse_scenario::crane::CraneScenario) -> Estimate {
    inverse::estimate_crane(scenario)
}

/// Estimates `stmech run` on a beam-inverse scenario (e.g. the built-in demo).
pub fn estimate_inverse(scenario: &InverseScenario) -> Estimate {
    inverse::estimate(scenario, scenario.method)
}

/// Estimates `stmech compare` on `scenario`: every inverse method runs in turn, so the peak
/// is the largest of them.
pub fn estimate_compare(scenario: &InverseScenario) -> Estimate {
    inverse::estimate_compare(scenario)
}

/// The memory limit of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MemoryLimit {
    /// At most this many bytes.
    Bytes(u64),
    /// No limit but [`HARD_CAP_BYTES`] (`--max-memory none`).
    Unlimited,
}

impl MemoryLimit {
    /// The default: [`DEFAULT_FRACTION`] of `MemAvailable` in `/proc/meminfo`, or
    /// [`FALLBACK_LIMIT_BYTES`] if that cannot be read.
    pub fn default_for_machine() -> Self {
        let available = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| mem_available(&t));
        Self::Bytes(available.map_or(FALLBACK_LIMIT_BYTES, |b| sat(b as f64 * DEFAULT_FRACTION)))
    }

    /// Parses `--max-memory`: a number of bytes with an optional binary unit `K`, `M`, `G`,
    /// `T` (powers of 1024; `KiB`, `MB`, `g` … are accepted as the same), or `none` / `0`
    /// for no limit.
    pub fn parse(text: &str) -> Result<Self, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("none") || t == "0" {
            return Ok(Self::Unlimited);
        }
        let split = t
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let unit = unit.trim().to_ascii_lowercase();
        let unit = unit
            .strip_suffix("ib")
            .or_else(|| unit.strip_suffix('b'))
            .unwrap_or(&unit);
        let mult: f64 = match unit {
            "" => 1.0,
            "k" => 1024.0,
            "m" => 1024.0 * 1024.0,
            "g" => 1024.0 * 1024.0 * 1024.0,
            "t" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
            _ => return Err(bad_size(text)),
        };
        let n: f64 = num.parse().map_err(|_| bad_size(text))?;
        let bytes = n * mult;
        if !(bytes.is_finite() && bytes >= 1.0) {
            return Err(bad_size(text));
        }
        Ok(if n == 0.0 {
            Self::Unlimited
        } else {
            Self::Bytes(sat(bytes))
        })
    }
}

fn bad_size(text: &str) -> String {
    format!(
        "invalid memory size {text:?}: expected e.g. 500M, 2G, 1.5GiB (binary units K, M, G, \
         T) or `none`"
    )
}

/// `MemAvailable` of `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

pub use crate::io::text::format_bytes;

/// `1.5 M`-style rendering of a count.
pub fn format_count(n: u64) -> String {
    let x = n as f64;
    if x < 1e4 {
        format!("{n}")
    } else if x < 1e6 {
        format!("{:.1} k", x / 1e3)
    } else if x < 1e9 {
        format!("{:.1} M", x / 1e6)
    } else if x < 1e12 {
        format!("{:.1} G", x / 1e9)
    } else {
        format!("{x:.1e}")
    }
}

impl fmt::Display for Estimate {
    /// `size: 150 k unknowns, 2.1 M nonzeros, 1001 time nodes, peak memory ≈ 95 MB,
    /// output ≈ 12 MB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "size: {} unknowns, {} nonzeros per solve, {} time nodes, peak memory ≈ {}, \
             output ≈ {}",
            format_count(self.unknowns),
            format_count(self.nonzeros),
            format_count(self.time_nodes),
            format_bytes(self.peak_bytes),
            format_bytes(self.output_bytes)
        )
    }
}

/// A problem too large for the limit (or for any machine).
#[derive(Clone, Debug, PartialEq)]
pub struct TooLarge {
    /// The estimate.
    pub estimate: Estimate,
    /// The limit in bytes ([`HARD_CAP_BYTES`] when the hard cap was hit).
    pub limit: u64,
    /// Whether the hard cap (not `--max-memory`) refused it.
    pub hard_cap: bool,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let e = &self.estimate;
        let d = &e.driver;
        let peak = if e.peak_bytes == u64::MAX {
            "beyond any machine (the sizes overflow)".to_owned()
        } else {
            format!("≈ {}", format_bytes(e.peak_bytes))
        };
        write!(
            f,
            "{}: the problem is too large: estimated peak memory {peak} ({} time nodes, {} \
             unknowns per solve) exceeds the {} of {}; ",
            d.field,
            format_count(e.time_nodes),
            format_count(e.unknowns),
            if self.hard_cap {
                "hard cap"
            } else {
                "memory limit"
            },
            format_bytes(self.limit)
        )?;
        let verb = match d.direction {
            Direction::Reduce => "reduce",
            Direction::Raise => "raise",
        };
        match d.value_for(e.peak_bytes as f64, self.limit as f64) {
            Some(v) => write!(f, "{verb} {} from {} to ≈ {}", d.field, g(d.value), g(v))?,
            None => write!(f, "{verb} {} (now {})", d.field, g(d.value))?,
        }
        if self.hard_cap {
            write!(f, " (no --max-memory can raise this cap)")
        } else {
            write!(
                f,
                ", or raise the limit with --max-memory SIZE (e.g. --max-memory {}, or none)",
                format_bytes(e.peak_bytes.saturating_add(e.peak_bytes / 4))
                    .replace(' ', "")
                    .replace("B", "")
            )
        }
    }
}

impl std::error::Error for TooLarge {}

/// A number as a user would type it: integers without a fraction, others with 3 digits.
fn g(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if (1e-3..1e6).contains(&x.abs()) {
        format!("{x:.4}")
    } else {
        format!("{x:.3e}")
    }
}

/// Refuses an estimate above the limit or above [`HARD_CAP_BYTES`].
pub fn check_limit(estimate: &Estimate, limit: MemoryLimit) -> Result<(), Box<TooLarge>> {
    let refuse = |limit, hard_cap| {
        Err(Box::new(TooLarge {
            estimate: estimate.clone(),
            limit,
            hard_cap,
        }))
    };
    if estimate.peak_bytes > HARD_CAP_BYTES {
        return refuse(HARD_CAP_BYTES, true);
    }
    match limit {
        MemoryLimit::Bytes(l) if estimate.peak_bytes > l => refuse(l, false),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units() {
        let b = |t| match MemoryLimit::parse(t) {
            Ok(MemoryLimit::Bytes(b)) => b,
            other => panic!("{t}: {other:?}"),
        };
        assert_eq!(b("2G"), 2 << 30);
        assert_eq!(b("500M"), 500 << 20);
        assert_eq!(b("1.5GiB"), 3 << 29);
        assert_eq!(b("64kb"), 64 << 10);
        assert_eq!(b("1000"), 1000);
        assert_eq!(MemoryLimit::parse("none"), Ok(MemoryLimit::Unlimited));
        assert_eq!(MemoryLimit::parse("0"), Ok(MemoryLimit::Unlimited));
        for bad in ["", "G", "2X", "-1G", "1e999", "0.1", "nan"] {
            assert!(MemoryLimit::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn mem_available_is_read_in_bytes() {
        let t = "MemTotal:       16000000 kB\nMemAvailable:    8000000 kB\n";
        assert_eq!(mem_available(t), Some(8_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn saturation() {
        assert_eq!(sat(f64::INFINITY), u64::MAX);
        assert_eq!(sat(f64::NAN), u64::MAX);
        assert_eq!(sat(-1.0), 0);
        assert_eq!(sat(1e30), u64::MAX);
    }

    #[test]
    fn suggested_value_meets_the_limit() {
        let d = Driver {
            field: "method.blocks",
            value: 1000.0,
            direction: Direction::Reduce,
            exponent: 1.0,
            fixed_bytes: 1e6,
        };
        // peak 101 MB → limit 51 MB: half the variable part
        assert_eq!(d.value_for(101e6, 51e6), Some(500.0));
        let r = Driver {
            direction: Direction::Raise,
            field: "method.step",
            value: 1e-3,
            ..d
        };
        let v = r.value_for(101e6, 51e6).unwrap();
        assert!((v - 2e-3).abs() < 1e-12);
        assert_eq!(r.value_for(101e6, 0.5e6), None);
    }
}
