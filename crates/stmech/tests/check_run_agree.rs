//! `check` and `run` agree (issue 13): a property test that draws scenarios at random around
//! the valid example files (numbers perturbed by factors and replaced by extreme values,
//! fields dropped, lines and tables duplicated) and asserts that whatever `check` accepts,
//! `run` does not refuse as invalid input (exit code 2).
//!
//! `check` is [`load_text`] (the one validation pass that `stmech check` and `stmech run`
//! both call, with the CSV trajectories it names) plus the memory gate; `run` is the solver the
//! CLI calls for the problem type. The rejections `run` can make after loading are the
//! inverse solvers' input errors (`InverseError::{Input, MeshRatio, Trajectory}`, exit 2 in
//! the CLI); multibody and beam runs have none (every failure of their solvers is exit 3), so
//! for them the property is that the solver does not panic and that a multibody system with
//! moderate numbers does not start singular (a non-finite value in the first iteration, the
//! symptom of a duplicated joint or a time grid lost in round-off). Beam scenarios are loaded
//! and estimated only: their solvers are driven by the CLI's own code. Spatial inverse
//! scenarios (`analysis = "inverse"`) are solved by `inverse::spatial::solve_with`, whose
//! input errors must never reach `run` either.
//!
//! To stay cheap the examples are shrunk first (few elements, blocks and steps) and a case is
//! solved only if its estimate is small. `STMECH_AGREE_CASES` sets the number of cases
//! (default 300, some seconds in a release build); the test prints how many were accepted
//! and solved, and fails if too few were (a vacuous property). The cases are drawn from a
//! fixed seed (`STMECH_TEST_SEED` overrides it; a failure prints it), so the verdict and the
//! counts are the same on every run.

mod seeded;

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use stmech::inverse::solver::solve_inverse_unchecked;
use stmech::inverse::{InverseError, InverseMethod, solve_with};
use stmech::io::load::{AnyScenario, load_text};
use stmech::resources::estimate;
use stmech::solve::scheme::simulate;

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Caps on the sizes of the shrunk examples.
const CAPS: &[(&str, i64)] = &[
    ("elements_per_block", 8),
    ("blocks", 2),
    ("resolution", 6),
    ("elements_s", 6),
    ("elements_t", 40),
    ("elements", 4),
    ("steps", 4),
];

/// Every example scenario with its sizes capped, so that a solve takes milliseconds, and the
/// folder its relative paths (a CSV) are resolved against.
fn corpus() -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for kind in [
        "rigid_body",
        "multibody",
        "beam",
        "beam_inverse",
        "crane",
        "spatial_inverse",
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(examples_dir().join(kind))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let shrunk: Vec<String> = text.lines().map(shrink_line).collect();
            // the inverse problem has the most checks shared with its solvers: weight it
            let copies = match kind {
                "beam_inverse" => 4,
                "crane" | "spatial_inverse" => 2,
                _ => 1,
            };
            for _ in 0..copies {
                out.push((
                    f.display().to_string(),
                    shrunk.join("\n"),
                    examples_dir().join(kind),
                ));
            }
        }
    }
    // and a CSV trajectory (the arc of Example 3.2 sampled at 600 rows)
    let csv = csv_path();
    let s = std::fs::read_to_string(examples_dir().join("beam_inverse/example_3_2.toml")).unwrap();
    let i = s.find("[trajectory]").unwrap();
    let j = i + s[i..].find("\n[").unwrap();
    let text = format!(
        "{}[trajectory]\nkind = \"csv\"\npath = \"{}\"\n{}",
        &s[..i],
        csv.display(),
        &s[j..]
    );
    let shrunk: Vec<String> = text.lines().map(shrink_line).collect();
    for _ in 0..4 {
        out.push((
            "csv trajectory".to_owned(),
            shrunk.join("\n"),
            examples_dir().join("beam_inverse"),
        ));
    }
    out
}

/// A CSV file with 600 samples of the arc of Example 3.2 (written once per test process).
fn csv_path() -> PathBuf {
    use stmech::inverse::trajectory::{RestToRestArc, TipTrajectory};
    static PATH: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("stmech-agree-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let arc = RestToRestArc::example_3_2();
        let mut text = String::from("t,x,y,theta\n");
        for k in 0..=600 {
            let t = 6.0 * k as f64 / 600.0;
            let p = arc.pose(t);
            text.push_str(&format!("{t},{},{},{}\n", p[0], p[1], p[2]));
        }
        let path = dir.join("tip.csv");
        std::fs::write(&path, text).unwrap();
        path
    })
    .clone()
}

fn shrink_line(line: &str) -> String {
    let Some((key, value)) = line.split_once('=') else {
        return line.to_owned();
    };
    let k = key.trim();
    let v = value.split('#').next().unwrap_or("").trim();
    // one-step schemes: at most some hundred steps
    if k == "step"
        && let Ok(h) = v.parse::<f64>()
        && h < 0.02
    {
        return format!("{key}= 0.02");
    }
    for &(name, cap) in CAPS {
        if k == name
            && let Ok(n) = v.parse::<i64>()
            && n > cap
        {
            return format!("{key}= {cap}");
        }
    }
    line.to_owned()
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Multiply the `i`-th number of the text by a factor.
    Scale(usize, f64),
    /// Replace the `i`-th number by an extreme value.
    Extreme(usize, &'static str),
    /// Delete line `i` (drops a field or a table header).
    DeleteLine(usize),
    /// Duplicate line `i` in place.
    DuplicateLine(usize),
    /// Append a copy of the table or array entry that starts at the `i`-th header.
    DuplicateTable(usize),
    /// The same, with its `name` changed (a joint or body given twice under two names).
    DuplicateRenamed(usize),
    /// `mesh.resolution` replaced by explicit counts.
    ExplicitMesh(i64, i64),
    /// Every `start`, `end` and `t0` shifted by the same offset (s).
    ShiftTimes(f64),
    /// An arc's centre set to `[v, v]`.
    Centre(&'static str),
}

const FACTORS: &[f64] = &[0.0, -1.0, 0.5, 0.9, 1.1, 2.0, 10.0, 1e-3, 1e3, 1e6];
const EXTREMES: &[&str] = &[
    "1e300",
    "-1e300",
    "1e-300",
    "0",
    "1e16",
    "1e-16",
    "4294967296",
    "0.0",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), prop::sample::select(FACTORS)).prop_map(|(i, f)| Mutation::Scale(i, f)),
        2 => (any::<usize>(), prop::sample::select(EXTREMES)).prop_map(|(i, e)| Mutation::Extreme(i, e)),
        2 => any::<usize>().prop_map(Mutation::DeleteLine),
        1 => any::<usize>().prop_map(Mutation::DuplicateLine),
        2 => any::<usize>().prop_map(Mutation::DuplicateTable),
        2 => any::<usize>().prop_map(Mutation::DuplicateRenamed),
        2 => (1i64..6, 1i64..60).prop_map(|(s, t)| Mutation::ExplicitMesh(s, t)),
        1 => prop::sample::select(&[1e3, 1e9, 1e16, -1e16][..]).prop_map(Mutation::ShiftTimes),
        1 => prop::sample::select(&["0.0", "0.5", "-2.0", "1e10", "1e300"][..]).prop_map(Mutation::Centre),
    ]
}

/// Byte ranges of the numbers of the text outside comments and strings (a rough scan that
/// is good enough for the examples).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let code = line.split('#').next().unwrap_or("");
        if let Some(eq) = code.find('=') {
            let bytes = code.as_bytes();
            let mut i = eq + 1;
            let mut in_string = false;
            while i < bytes.len() {
                let c = bytes[i];
                if c == b'"' {
                    in_string = !in_string;
                }
                let starts = !in_string
                    && (c.is_ascii_digit() || c == b'-' || c == b'+')
                    && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
                if starts {
                    let mut j = i + 1;
                    while j < bytes.len()
                        && (bytes[j].is_ascii_digit()
                            || matches!(bytes[j], b'.' | b'e' | b'E' | b'-' | b'+' | b'_'))
                    {
                        j += 1;
                    }
                    if code[i..j].parse::<f64>().is_ok() {
                        out.push((offset + i, offset + j));
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
        }
        offset += line.len();
    }
    out
}

fn apply(text: &str, m: &Mutation) -> String {
    let replace_number = |i: usize, with: &dyn Fn(&str) -> String| {
        let nums = numbers(text);
        if nums.is_empty() {
            return text.to_owned();
        }
        let (a, b) = nums[i % nums.len()];
        format!("{}{}{}", &text[..a], with(&text[a..b]), &text[b..])
    };
    let mut lines: Vec<&str> = text.lines().collect();
    let n = lines.len().max(1);
    match m {
        Mutation::Scale(i, f) => replace_number(*i, &|v| {
            let x: f64 = v.parse().unwrap_or(1.0);
            let is_int = !v.contains(['.', 'e', 'E']);
            let y = x * f;
            if is_int && y.abs() < 9e15 {
                format!("{}", y.round() as i64)
            } else {
                format!("{y:e}")
            }
        }),
        Mutation::Extreme(i, e) => replace_number(*i, &|_| (*e).to_owned()),
        Mutation::DeleteLine(i) => {
            lines.remove(i % n);
            lines.join("\n")
        }
        Mutation::DuplicateLine(i) => {
            let l = lines[i % n];
            lines.insert(i % n, l);
            lines.join("\n")
        }
        Mutation::ExplicitMesh(ns, nt) => text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("resolution") {
                    format!("elements_s = {ns}\nelements_t = {nt}")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Mutation::ShiftTimes(offset) => text
            .lines()
            .map(|l| {
                let t = l.trim_start();
                let key = t.split('=').next().unwrap_or("").trim();
                match (key, t.split_once('=')) {
                    ("start" | "end" | "t0", Some((_, v))) => {
                        match v.split('#').next().unwrap_or("").trim().parse::<f64>() {
                            Ok(x) => format!("{key} = {:e}", x + offset),
                            Err(_) => l.to_owned(),
                        }
                    }
                    _ => l.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Mutation::Centre(v) => text
            .lines()
            .map(|l| {
                if l.trim_start().starts_with("angle") {
                    format!("{l}\ncenter = [{v}, {v}]")
                } else {
                    l.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Mutation::DuplicateRenamed(i) => {
            let copy = apply(text, &Mutation::DuplicateTable(*i));
            let tail = &copy[text.len()..];
            let renamed = tail.replacen("name = \"", "name = \"copy_", 1);
            format!("{text}{renamed}")
        }
        Mutation::DuplicateTable(i) => {
            let headers: Vec<usize> = (0..lines.len())
                .filter(|&k| lines[k].trim_start().starts_with('['))
                .collect();
            if headers.is_empty() {
                return text.to_owned();
            }
            let start = headers[i % headers.len()];
            let end = headers
                .iter()
                .copied()
                .find(|&k| k > start)
                .unwrap_or(lines.len());
            let block = lines[start..end].join("\n");
            format!("{text}\n{block}\n")
        }
    }
}

fn cases() -> u32 {
    seeded::cases_from_env("STMECH_AGREE_CASES", 300)
}

/// Whether every number written in the text is moderate (none of the extreme values).
fn moderate(text: &str) -> bool {
    numbers(text).iter().all(|&(a, b)| {
        text[a..b]
            .parse::<f64>()
            .is_ok_and(|x| x == 0.0 || (1e-12..=1e12).contains(&x.abs()))
    })
}

/// The outcome of `run` after `check` accepted.
fn run(s: &AnyScenario, moderate: bool) -> Result<(), String> {
    match s {
        AnyScenario::Multibody(s) => {
            let (q0, p0) = s.system.initial_state();
            let r = simulate(
                &s.system,
                &q0,
                &p0,
                s.t_start,
                s.t_end,
                &s.method,
                &s.newton,
                &mut |_| {},
            );
            match r {
                Err(stmech::error::SolveError::NonFinite {
                    block: 0,
                    iteration: 0 | 1,
                    ..
                }) if moderate => Err(format!(
                    "check accepted a system that is singular at the start: {r:?}"
                )),
                _ => Ok(()),
            }
        }
        AnyScenario::Beam(_) => Ok(()),
        AnyScenario::BeamInverse(s) => {
            let r = if s.allow_unstable && s.method == InverseMethod::SpaceTime {
                solve_inverse_unchecked(&s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton)
                    .map(|_| ())
            } else {
                solve_with(s.method, &s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton).map(|_| ())
            };
            match r {
                Err(
                    e @ (InverseError::Input(_)
                    | InverseError::MeshRatio(_)
                    | InverseError::Trajectory(_)),
                ) => Err(format!("run refused what check accepted: {e}")),
                _ => Ok(()),
            }
        }
        AnyScenario::SpatialInverse(s) => {
            let path = s.tip_path();
            match stmech::inverse::spatial::solve_with(s.method, &s.beam, &s.mesh, &path, &s.newton)
            {
                Err(
                    e @ (InverseError::Input(_)
                    | InverseError::MeshRatio(_)
                    | InverseError::Trajectory(_)),
                ) => Err(format!("run refused what check accepted: {e}")),
                _ => Ok(()),
            }
        }
        AnyScenario::Crane(s) => {
            use stmech::inverse::crane::{CraneError, solve_crane};
            match solve_crane(&s.rope, &s.mesh, s.trajectory.as_ref(), &s.newton) {
                Err(
                    e @ (CraneError::Input(_)
                    | CraneError::Slack { .. }
                    | CraneError::TimeDomain { .. }
                    | CraneError::NotAtRest { .. }
                    | CraneError::NotFinite { .. }
                    | CraneError::Unresolved { .. }
                    | CraneError::MeshRatio(_)
                    | CraneError::Solve(
                        InverseError::Input(_)
                        | InverseError::MeshRatio(_)
                        | InverseError::Trajectory(_),
                    )),
                ) => Err(format!("run refused what check accepted: {e}")),
                _ => Ok(()),
            }
        }
    }
}

/// Small enough to solve in the test: at most 64 MB and 3000 time nodes estimated.
fn cheap(s: &AnyScenario) -> bool {
    let e = estimate(s);
    e.peak_bytes < 64 << 20 && e.time_nodes <= 3000 && e.unknowns <= 60_000
}

/// The problem types, in the order of [`Tally`]'s counts.
const KINDS: [&str; 5] = [
    "multibody",
    "beam",
    "beam-inverse",
    "crane",
    "spatial-inverse",
];

/// The index in [`KINDS`] of a loaded scenario.
fn kind_of(s: &AnyScenario) -> usize {
    match s {
        AnyScenario::Multibody(_) => 0,
        AnyScenario::Beam(_) => 1,
        AnyScenario::BeamInverse(_) => 2,
        AnyScenario::Crane(_) => 3,
        AnyScenario::SpatialInverse(_) => 4,
    }
}

/// The index in [`KINDS`] of a corpus entry, from its example folder.
fn kind_of_folder(dir: &Path) -> usize {
    match dir.file_name().and_then(|n| n.to_str()) {
        Some("rigid_body" | "multibody") => 0,
        Some("beam") => 1,
        Some("beam_inverse") => 2,
        Some("crane") => 3,
        Some("spatial_inverse") => 4,
        other => panic!("no problem type for the example folder {other:?}"),
    }
}

/// Cases drawn (in all and per problem type of the unmutated example), accepted by `check`,
/// and solved (accepted and cheap, per problem type of the loaded scenario).
#[derive(Default, Debug)]
struct Tally {
    drawn: usize,
    drawn_by_kind: [usize; 5],
    accepted: usize,
    solved: [usize; 5],
}

#[test]
fn what_check_accepts_run_does_not_refuse() {
    use proptest::test_runner::TestRunner;
    let corpus = corpus();
    let tally = std::cell::RefCell::new(Tally::default());
    let seed = seeded::seed();
    let mut runner = TestRunner::new(seeded::config(cases(), seed));
    let strategy = (any::<usize>(), prop::collection::vec(mutation(), 1..3));
    let result = runner.run(&strategy, |(file, ms)| {
        let (name, base, dir) = &corpus[file % corpus.len()];
        let mut text = base.clone();
        for m in &ms {
            text = apply(&text, m);
        }
        let mut t = tally.borrow_mut();
        t.drawn += 1;
        t.drawn_by_kind[kind_of_folder(dir)] += 1;
        if let Ok(s) = load_text(&text, name, dir) {
            t.accepted += 1;
            if cheap(&s) {
                t.solved[kind_of(&s)] += 1;
                drop(t);
                let verdict = run(&s, moderate(&text));
                prop_assert!(
                    verdict.is_ok(),
                    "{}\n--- scenario ({name}, {ms:?}):\n{text}",
                    verdict.unwrap_err()
                );
            }
        }
        Ok(())
    });
    let t = tally.into_inner();
    let seed = seeded::describe_seed(seed);
    eprintln!("check/run agreement: {t:?}, {seed}");
    let _ = std::fs::remove_dir_all(csv_path().parent().unwrap());
    if let Err(e) = result {
        panic!("{e}\n{seed}");
    }
    // Not vacuous: a good share of the cases is accepted, and of the cases drawn from each
    // type whose solver runs (multibody; the planar beam inverse and the spatial inverse,
    // whose solvers make checks of their own), a good share is solved. The quotas are per
    // type (the share of a type among the draws varies from seed to seed) and lie 4 to 5
    // standard deviations below the rates measured over the seeds 1 … 40 (accepted 0.41 ±
    // 0.03 of all draws; solved 0.56 ± 0.06 of the multibody draws, 0.31 ± 0.05 of the beam
    // inverse ones, 0.38 ± 0.07 of the spatial inverse ones): with the default seed the
    // verdict is fixed, and any other seed passes unless the property has become vacuous.
    assert!(
        t.accepted * 4 >= t.drawn,
        "fewer than a quarter of the cases accepted: {t:?}, {seed}"
    );
    for (kind, share) in [(0, 4), (2, 10), (4, 10)] {
        assert!(
            t.drawn_by_kind[kind] > 0 && t.solved[kind] * share >= t.drawn_by_kind[kind],
            "fewer than 1/{share} of the {} cases solved: {t:?} (types {KINDS:?}), {seed}",
            KINDS[kind]
        );
    }
}

/// The unmutated, shrunk examples are all accepted and cheap: the property above is not
/// vacuous.
#[test]
fn the_shrunk_examples_are_valid_and_cheap() {
    for (name, text, dir) in corpus() {
        // relative CSV paths are the example's own folder's
        let s = load_text(&text, &name, &dir).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(cheap(&s), "{name}: {}", estimate(&s));
        run(&s, true).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
