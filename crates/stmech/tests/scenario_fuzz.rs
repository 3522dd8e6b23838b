//! Property-based fuzzing of the scenario parsers and validators (rigid body / multibody,
//! beam, beam inverse, and `io::load::load_text` that wraps them): mutated versions of the
//! real example scenarios (the corpus, every file under `examples/`) must give `Ok` or a typed
//! error, never a panic, and no error may be empty. The trajectory CSV reader gets the same
//! treatment (mutated valid files and arbitrary bytes), and whatever it accepts must give a
//! finite spline.
//!
//! The number of cases is `STMECH_FUZZ_CASES` (default 3000, a few seconds in CI); the issue's
//! long run used 10⁵ (see `docs/verification.md`). The cases are drawn from a fixed seed
//! (`STMECH_TEST_SEED` overrides it; a failure prints it), so every run checks the same cases.

mod seeded;

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
    seeded::cases_from_env("STMECH_FUZZ_CASES", 3000)
}

/// Mutated example scenarios never panic the parser/validator; errors carry a message.
#[test]
fn mutated_scenarios_never_panic() {
    let corpus = corpus();
    let strategy = (any::<usize>(), prop::collection::vec(mutation(), 1..5));
    seeded::check(
        "mutated_scenarios_never_panic",
        cases(),
        &strategy,
        |(file, ms)| {
            let mut text = corpus[file % corpus.len()].clone();
            for m in &ms {
                text = apply(&text, m);
            }
            // every parser sees every input (the CLI picks one by the `problem` key; a mutation
            // may change or delete that key)
            let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
            let messages = [
                Scenario::from_toml_str(&text, "fuzz.toml")
                    .err()
                    .map(|e| e.to_string()),
                BeamScenario::from_toml_str(&text, "fuzz.toml")
                    .err()
                    .map(|e| e.to_string()),
                InverseScenario::from_toml_str(&text, "fuzz.toml", base)
                    .err()
                    .map(|e| e.to_string()),
                // what the CLI uses: all three, plus the pass loop that collects every problem
                load_text(&text, "fuzz.toml", base)
                    .err()
                    .map(|e| e.to_string()),
            ];
            for msg in messages.into_iter().flatten() {
                prop_assert!(!msg.trim().is_empty(), "empty error message");
            }
            Ok(())
        },
    );
}

// ---------------------------------------------------------------------------------------
// The trajectory CSV reader (issue 13): arbitrary bytes and mutated valid files.

use stmech::inverse::trajectory::{CsvTrajectory, RestToRestArc, TipTrajectory};

/// Valid CSV files: the arc of Example 3.2 (full precision, 9 digits), a ramp with a kink,
/// and a file with a byte-order mark, comments and a capitalised header.
fn csv_corpus() -> Vec<String> {
    let arc = RestToRestArc::example_3_2();
    let rows = |n: usize, f: &dyn Fn(f64) -> String| {
        let mut s = String::from("t,x,y,theta\n");
        for k in 0..=n {
            let t = 6.0 * k as f64 / n as f64;
            s.push_str(&format!("{t},{}\n", f(t)));
        }
        s
    };
    let full = rows(200, &|t| {
        let p = arc.pose(t);
        format!("{},{},{}", p[0], p[1], p[2])
    });
    let nine = rows(200, &|t| {
        let p = arc.pose(t);
        format!("{:.8e},{:.8e},{:.8e}", p[0], p[1], p[2])
    });
    let ramp = rows(100, &|t| format!("{},0,0", 1.0 + 0.1 * (t - 2.0).max(0.0)));
    let fancy = format!(
        "\u{feff}# a comment\nTIME,X,Y,THETA\n{}",
        full.lines().skip(1).collect::<Vec<_>>().join("\n")
    );
    vec![full, nine, ramp, fancy]
}

/// Cell replacements that stress the reader.
const CELLS: &[&str] = &[
    "",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-320",
    "1e999",
    "0",
    "-0",
    "x",
    "1,2",
    "9999999999999999999999999999999",
    "0x10",
    "+",
    ".",
    "1e",
    "٣",
    "\"1\"",
    " 1 ",
];

#[derive(Debug, Clone)]
enum CsvMutation {
    Cell(usize, usize, usize),
    DeleteRow(usize),
    DuplicateRow(usize),
    SwapRows(usize, usize),
    InsertByte(usize, u8),
    Truncate(usize),
}

fn csv_mutation() -> impl Strategy<Value = CsvMutation> {
    prop_oneof![
        4 => (any::<usize>(), 0..4usize, 0..CELLS.len()).prop_map(|(r, c, v)| CsvMutation::Cell(r, c, v)),
        2 => any::<usize>().prop_map(CsvMutation::DeleteRow),
        1 => any::<usize>().prop_map(CsvMutation::DuplicateRow),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| CsvMutation::SwapRows(i, j)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| CsvMutation::InsertByte(i, b)),
        1 => any::<usize>().prop_map(CsvMutation::Truncate),
    ]
}

fn apply_csv(text: &str, m: &CsvMutation) -> String {
    let mut rows: Vec<String> = text.lines().map(str::to_owned).collect();
    let n = rows.len().max(1);
    match *m {
        CsvMutation::Cell(r, c, v) if !rows.is_empty() => {
            let mut cells: Vec<String> = rows[r % n].split(',').map(str::to_owned).collect();
            let k = c % cells.len().max(1);
            if let Some(cell) = cells.get_mut(k) {
                *cell = CELLS[v].to_owned();
            }
            rows[r % n] = cells.join(",");
        }
        CsvMutation::DeleteRow(r) if !rows.is_empty() => {
            rows.remove(r % n);
        }
        CsvMutation::DuplicateRow(r) if !rows.is_empty() => {
            let row = rows[r % n].clone();
            rows.insert(r % n, row);
        }
        CsvMutation::SwapRows(i, j) if !rows.is_empty() => rows.swap(i % n, j % n),
        CsvMutation::InsertByte(i, b) => {
            let mut bytes = text.as_bytes().to_vec();
            bytes.insert(i % (bytes.len() + 1), b);
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        CsvMutation::Truncate(i) => {
            let mut at = i % (text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            return text[..at].to_owned();
        }
        _ => {}
    }
    rows.join("\n")
}

/// Whatever the reader accepts is usable: the checks run without a panic and the spline is
/// finite everywhere (inside, at and beyond the samples).
fn exercise(text: &str) -> Result<(), TestCaseError> {
    match CsvTrajectory::from_csv_str(text, "fuzz.csv") {
        Err(e) => prop_assert!(!e.to_string().trim().is_empty(), "empty error message"),
        Ok(c) => {
            let (a, b) = c.time_range();
            for order in [1, 2] {
                let _ = c.check(a, b, c.pose(a), order);
                let _ = c.check(0.0, 6.0, [1.0, 0.0, 0.0], order);
            }
            let _ = c.motion_interval();
            for k in 0..=20 {
                let t = a - 1.0 + (b - a + 2.0) * k as f64 / 20.0;
                let v = [c.pose(t), c.velocity(t), c.acceleration(t)];
                prop_assert!(
                    v.iter().flatten().all(|x| x.is_finite()),
                    "non-finite spline at t = {t}: {v:?}"
                );
            }
        }
    }
    Ok(())
}

/// Mutated valid trajectory CSV files never panic the reader or its checks.
#[test]
fn mutated_trajectory_csv_never_panics() {
    let corpus = csv_corpus();
    let strategy = (any::<usize>(), prop::collection::vec(csv_mutation(), 1..6));
    seeded::check(
        "mutated_trajectory_csv_never_panics",
        cases(),
        &strategy,
        |(file, ms)| {
            let mut text = corpus[file % corpus.len()].clone();
            for m in &ms {
                text = apply_csv(&text, m);
            }
            exercise(&text)
        },
    );
}

/// Arbitrary bytes never panic the reader.
#[test]
fn arbitrary_bytes_as_trajectory_csv_never_panic() {
    let strategy = prop::collection::vec(any::<u8>(), 0..2000);
    seeded::check(
        "arbitrary_bytes_as_trajectory_csv_never_panic",
        cases(),
        &strategy,
        |bytes| exercise(&String::from_utf8_lossy(&bytes)),
    );
}
