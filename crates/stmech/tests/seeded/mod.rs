//! Seeded, deterministic property tests: every randomised test of the workspace draws its
//! cases from one seed, [`DEFAULT_SEED`] unless the environment variable `STMECH_TEST_SEED`
//! (a decimal or `0x` hexadecimal `u64`) says otherwise, so that `cargo test` gives the same
//! verdict on every run and every machine. A failure names the seed and how to repeat it.
//!
//! Nothing here depends on the `PROPTEST_*` environment variables: the algorithm (ChaCha),
//! the seed and the number of cases are set explicitly, and failures are not persisted.
#![allow(dead_code)]

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestCaseError, TestRunner};
use std::fmt::Debug;

/// The seed of every property test unless `STMECH_TEST_SEED` is set.
pub const DEFAULT_SEED: u64 = 20_290_001;

/// The environment variable that overrides [`DEFAULT_SEED`].
pub const SEED_VARIABLE: &str = "STMECH_TEST_SEED";

/// The seed of this test process: `STMECH_TEST_SEED` or [`DEFAULT_SEED`]. A value that is
/// not a `u64` stops the test with a message (a typo must not silently fall back).
pub fn seed() -> u64 {
    match std::env::var(SEED_VARIABLE) {
        Err(_) => DEFAULT_SEED,
        Ok(s) => {
            let s = s.trim();
            let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(hex) => u64::from_str_radix(hex, 16),
                None => s.parse(),
            };
            parsed.unwrap_or_else(|_| {
                panic!("{SEED_VARIABLE}={s:?} is not a u64 (decimal or 0x hexadecimal)")
            })
        }
    }
}

/// How to repeat a failure, for the messages: `seed 123 (STMECH_TEST_SEED=123 to repeat)`.
pub fn describe_seed(seed: u64) -> String {
    format!("seed {seed} ({SEED_VARIABLE}={seed} to repeat; default {DEFAULT_SEED})")
}

/// A runner configuration with `cases` cases drawn from `seed`.
pub fn config(cases: u32, seed: u64) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        rng_seed: RngSeed::Fixed(seed),
        ..Config::default()
    }
}

/// Runs the property `test` on `cases` values of `strategy` drawn from [`seed`]; on a
/// failure it panics with the (shrunk) failing input and the seed.
pub fn check<S, F>(name: &str, cases: u32, strategy: &S, test: F)
where
    S: Strategy,
    S::Value: Debug,
    F: Fn(S::Value) -> Result<(), TestCaseError>,
{
    let seed = seed();
    let mut runner = TestRunner::new(config(cases, seed));
    if let Err(e) = runner.run(strategy, test) {
        panic!("{name}: {e}\n{}", describe_seed(seed));
    }
}

/// A number of cases from the environment variable `name`, else `default`.
pub fn cases_from_env(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
