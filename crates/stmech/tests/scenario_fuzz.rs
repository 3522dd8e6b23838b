//! Property-based fuzzing of the scenario parsers and validators (rigid body / multibody,
//! beam, beam inverse, and `io::load::load_text` that wraps them): mutated versions of the
//! real example scenarios (the corpus, every file under `examples/`) must give `Ok` or a typed
//! error, never a panic, and no error may be empty.
//!
//! The number of cases is `STMECH_FUZZ_CASES` (default 3000, a few seconds in CI); the issue's
//! long run used 10⁵ (see `docs/verification.md`).

use proptest::prelude::*;
use stmech::io::beam_scenario::BeamScenario;
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::load::load_text;
use stmech::io::scenario::Scenario;

/// Every scenario file under `examples/`, recursively.
fn corpus() -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "toml") {
                out.push(std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"),
        &mut out,
    );
    assert!(!out.is_empty());
    out
}

/// Replacement values that stress the validator: wrong types, non-physical numbers,
/// non-finite values, huge sizes, empty containers, broken syntax.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "-0.0",
    "1e308",
    "-1e308",
    "1e-308",
    "nan",
    "inf",
    "-inf",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "\"\"",
    "\"x\"",
    "[]",
    "[1.0]",
    "[1.0, 2.0]",
    "[nan, 0.0, 0.0]",
    "{}",
    "{ kind = \"window\" }",
    "true",
    "1979-05-27",
    "\"space-time\"",
    "\"midpoint\"",
    "\"torque\"",
    "\"table\"",
    "[[1.0, 2.0]]",
    "=",
    "[",
    "\"",
    "0.5",
    "1000000000",
    "2",
    "3",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the value of line `i` (after `=`) with a token.
    Value(usize, usize),
    /// Delete line `i`.
    DeleteLine(usize),
    /// Duplicate line `i`.
    DuplicateLine(usize),
    /// Insert a random ASCII byte at byte offset `i`.
    InsertByte(usize, u8),
    /// Truncate the text at byte offset `i`.
    Truncate(usize),
    /// Swap lines `i` and `j`.
    Swap(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Mutation::Value(i, t)),
        2 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        1 => (any::<usize>(), 0x20u8..0x7f).prop_map(|(i, b)| Mutation::InsertByte(i, b)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Mutation::Swap(i, j)),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let n = lines.len().max(1);
    match *m {
        Mutation::Value(i, t) => {
            // only lines with an assignment; pick the i-th of them
            let idx: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].contains('='))
                .collect();
            if let Some(&k) = idx.get(i % idx.len().max(1)) {
                let key = lines[k].split('=').next().unwrap_or("").to_owned();
                lines[k] = format!("{key}= {}", TOKENS[t]);
            }
        }
        Mutation::DeleteLine(i) if !lines.is_empty() => {
            lines.remove(i % n);
        }
        Mutation::DuplicateLine(i) if !lines.is_empty() => {
            let l = lines[i % n].clone();
            lines.insert(i % n, l);
        }
        Mutation::Swap(i, j) if !lines.is_empty() => lines.swap(i % n, j % n),
        Mutation::InsertByte(i, b) => {
            let mut bytes = text.as_bytes().to_vec();
            let at = i % (bytes.len() + 1);
            bytes.insert(at, b);
            // inserting ASCII into UTF-8 text can split a multi-byte character: keep it valid
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        Mutation::Truncate(i) => {
            let mut at = i % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_owned();
        }
        _ => {}
    }
    lines.join("\n")
}

fn cases() -> u32 {
    std::env::var("STMECH_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Mutated example scenarios never panic the parser/validator; errors carry a message.
    #[test]
    fn mutated_scenarios_never_panic(file in any::<usize>(), ms in prop::collection::vec(mutation(), 1..5)) {
        let corpus = corpus();
        let mut text = corpus[file % corpus.len()].clone();
        for m in &ms {
            text = apply(&text, m);
        }
        // every parser sees every input (the CLI picks one by the `problem` key; a mutation
        // may change or delete that key)
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let messages = [
            Scenario::from_toml_str(&text, "fuzz.toml").err().map(|e| e.to_string()),
            BeamScenario::from_toml_str(&text, "fuzz.toml").err().map(|e| e.to_string()),
            InverseScenario::from_toml_str(&text, "fuzz.toml", base).err().map(|e| e.to_string()),
            // what the CLI uses: all three, plus the pass loop that collects every problem
            load_text(&text, "fuzz.toml", base).err().map(|e| e.to_string()),
        ];
        for msg in messages.into_iter().flatten() {
            prop_assert!(!msg.trim().is_empty(), "empty error message");
        }
    }
}
