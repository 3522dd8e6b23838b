//! `--max-memory` and the resource gate shared by `check`, `run`, `demo` and `compare`.

use crate::Failure;
use stmech::io::text::InputLimit;
use stmech::resources::{Estimate, MemoryLimit, check_limit};

/// Parses `--max-memory` (clap value parser).
pub fn parse_max_memory(text: &str) -> Result<MemoryLimit, String> {
    MemoryLimit::parse(text)
}

/// Parses `--max-input-size` (clap value parser): the same sizes as `--max-memory`.
pub fn parse_max_input_size(text: &str) -> Result<InputLimit, String> {
    match MemoryLimit::parse(text) {
        Ok(MemoryLimit::Bytes(b)) => Ok(InputLimit { max_bytes: Some(b) }),
        Ok(MemoryLimit::Unlimited) => Ok(InputLimit::UNLIMITED),
        Err(e) => Err(e.replace("memory size", "size")),
    }
}

/// The limit in force: `--max-memory`, else half of the available memory.
pub fn limit(flag: Option<MemoryLimit>) -> MemoryLimit {
    flag.unwrap_or_else(MemoryLimit::default_for_machine)
}

/// Refuses, before anything is written or solved, a problem whose estimated peak memory
/// exceeds the limit (exit code 2: the input asks for more than the machine may give).
pub fn gate(origin: &str, estimate: &Estimate, limit: MemoryLimit) -> Result<(), Failure> {
    check_limit(estimate, limit)
        .map_err(|too_large| Failure::new(Failure::INPUT, anyhow::anyhow!("{origin}: {too_large}")))
}

/// The peak resident memory of this process (`VmHWM` of `/proc/self/status`), in bytes.
pub fn peak_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
