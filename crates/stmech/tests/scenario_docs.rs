//! `docs/scenarios.md` cannot drift from the parsers.
//!
//! The field list is not written down twice. It is read off the parsers themselves: every
//! scenario struct uses `#[serde(deny_unknown_fields)]`, so a probe document with an unknown
//! key `zzz_probe` in a table makes the parser list that table's fields in its error
//! ("unknown field `zzz_probe`, expected one of `a`, `b`"). Probing each field in turn tells
//! tables (recursed into), arrays of tables, internally tagged enums (`kind = ...`, one field
//! set per variant) and leaves apart, and for leaves that are enums the accepted values
//! ("unknown variant"). The test then requires that
//!
//! * every accepted field has a row in the problem type's section of `docs/scenarios.md`,
//!   and every enum value appears in its row (`"value"`);
//! * every documented field is accepted by the parser;
//! * each row fills all five columns (field, unit, default, valid values, meaning);
//! * the first `toml` example of each section is a valid scenario.
//!
//! A new field (say `method` in the beam-inverse parser) therefore fails this test with a
//! message naming the field and the section to add it to.

use std::collections::BTreeMap;
use std::path::Path;
use stmech::io::beam_scenario::BeamScenario;
use stmech::io::inverse_scenario::InverseScenario;
use stmech::io::inverse_scenario::crane::CraneScenario;
use stmech::io::scenario::{Scenario, ScenarioError};

const PROBE: &str = "zzz_probe";

/// A parser under test: scenario text → the structural (serde) error message, if any.
type Parser = fn(&str) -> Result<(), ScenarioError>;

struct ProblemType {
    name: &'static str,
    /// The heading of its section in docs/scenarios.md.
    heading: &'static str,
    parse: Parser,
}

fn problem_types() -> [ProblemType; 4] {
    [
        ProblemType {
            name: "multibody (no `problem` key)",
            heading: "## Rigid bodies and multibody systems",
            parse: |t| Scenario::from_toml_str(t, "probe").map(|_| ()),
        },
        ProblemType {
            name: "beam",
            heading: "## Planar beams: problem = \"beam\"",
            parse: |t| BeamScenario::from_toml_str(t, "probe").map(|_| ()),
        },
        ProblemType {
            name: "beam-inverse",
            heading: "## Beam inverse dynamics: problem = \"beam-inverse\"",
            parse: |t| {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
                InverseScenario::from_toml_str(t, "probe", &dir).map(|_| ())
            },
        },
        ProblemType {
            name: "crane",
            heading: "## Crane: problem = \"crane\"",
            parse: |t| CraneScenario::from_toml_str(t, "probe").map(|_| ()),
        },
    ]
}

/// The serde message of a structural error (`None` if the text got past serde).
fn structural(parse: Parser, text: &str) -> Option<String> {
    match parse(text) {
        Err(ScenarioError::Syntax { source, .. }) => Some(source.message().to_owned()),
        _ => None,
    }
}

/// The names in backticks after "expected" in a serde message.
fn expected_names(message: &str) -> Vec<String> {
    let Some((_, rest)) = message.split_once("expected") else {
        return Vec::new();
    };
    rest.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// One table on the way to a probed field: its key, whether it is an array of tables, and
/// lines it needs (the tag of a tagged enum).
#[derive(Clone)]
struct Level {
    key: String,
    array: bool,
    lines: Vec<String>,
}

fn probe_text(context: &[Level], tail: &[String]) -> String {
    let mut text = String::new();
    for (i, level) in context.iter().enumerate() {
        let name: Vec<&str> = context[..=i].iter().map(|l| l.key.as_str()).collect();
        let name = name.join(".");
        if level.array {
            text.push_str(&format!("[[{name}]]\n"));
        } else {
            text.push_str(&format!("[{name}]\n"));
        }
        for l in &level.lines {
            text.push_str(l);
            text.push('\n');
        }
    }
    for l in tail {
        text.push_str(l);
        text.push('\n');
    }
    text
}

fn doc_path(context: &[Level], field: &str) -> String {
    let mut p = String::new();
    for l in context {
        p.push_str(&l.key);
        if l.array {
            p.push_str("[]");
        }
        p.push('.');
    }
    p.push_str(field);
    p
}

/// The accepted fields of the table at `context` (all variants if it is a tagged enum),
/// recursively: documented path → accepted enum values (empty for other leaves).
fn discover(parse: Parser, context: &[Level], out: &mut BTreeMap<String, Vec<String>>) {
    assert!(context.len() < 8, "scenario nesting too deep to probe");
    let msg = structural(parse, &probe_text(context, &[format!("{PROBE} = 1")]))
        .unwrap_or_else(|| panic!("probe of {} was accepted", doc_path(context, PROBE)));
    if msg.starts_with("unknown field") {
        for field in expected_names(&msg) {
            discover_field(parse, context, &field, out);
        }
        return;
    }
    // an internally tagged enum: `kind = "..."` selects the variant and its fields
    let Some(tag) = msg
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    else {
        panic!(
            "unexpected answer to the probe of {}: {msg}",
            doc_path(context, PROBE)
        );
    };
    let msg = structural(
        parse,
        &probe_text(context, &[format!("{tag} = \"{PROBE}\"")]),
    )
    .unwrap_or_default();
    let variants = expected_names(&msg);
    assert!(
        msg.starts_with("unknown variant") && !variants.is_empty(),
        "{}: {msg}",
        doc_path(context, tag)
    );
    out.insert(doc_path(context, tag), variants.clone());
    for v in variants {
        let mut inner = context.to_vec();
        if let Some(last) = inner.last_mut() {
            last.lines.push(format!("{tag} = \"{v}\""));
        }
        discover(parse, &inner, out);
    }
}

fn discover_field(
    parse: Parser,
    context: &[Level],
    field: &str,
    out: &mut BTreeMap<String, Vec<String>>,
) {
    for array in [false, true] {
        let mut inner = context.to_vec();
        inner.push(Level {
            key: field.to_owned(),
            array,
            lines: Vec::new(),
        });
        let msg =
            structural(parse, &probe_text(&inner, &[format!("{PROBE} = 1")])).unwrap_or_default();
        if msg.starts_with("unknown field") || msg.starts_with("missing field") {
            return discover(parse, &inner, out);
        }
    }
    // a leaf: is it an enum?
    let msg = structural(
        parse,
        &probe_text(context, &[format!("{field} = \"{PROBE}\"")]),
    )
    .unwrap_or_default();
    let values = if msg.starts_with("unknown variant") {
        expected_names(&msg)
    } else {
        Vec::new()
    };
    out.insert(doc_path(context, field), values);
}

/// The fields the parser of `p` accepts.
fn accepted(p: &ProblemType) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    discover(p.parse, &[], &mut out);
    assert!(
        out.len() > 5,
        "probing {} found only {out:?}: has the error format of serde/toml changed?",
        p.name
    );
    out
}

/// `bodies[i].box.density` → `bodies[].box.density`.
fn normalise(path: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for c in path.chars() {
        match c {
            '[' => {
                skipping = true;
                out.push('[');
            }
            ']' => {
                skipping = false;
                out.push(']');
            }
            _ if skipping => {}
            _ => out.push(c),
        }
    }
    out
}

struct Section {
    /// Normalised field path → (table row, line number in the doc).
    rows: BTreeMap<String, (String, usize)>,
    /// The first ```toml example.
    example: Option<String>,
    /// Malformed rows.
    errors: Vec<String>,
}

fn doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn section(doc: &str, heading: &str) -> Section {
    let lines: Vec<&str> = doc.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == heading)
        .unwrap_or_else(|| panic!("docs/scenarios.md has no heading `{heading}`"));
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## "))
        .map_or(lines.len(), |k| start + 1 + k);
    let mut rows = BTreeMap::new();
    let mut errors = Vec::new();
    let mut example = None;
    let mut in_example: Option<String> = None;
    for (k, line) in lines[start..end].iter().enumerate() {
        let n = start + k + 1;
        if let Some(ex) = in_example.as_mut() {
            if line.starts_with("```") {
                example.get_or_insert(std::mem::take(ex));
                in_example = None;
            } else {
                ex.push_str(line);
                ex.push('\n');
            }
            continue;
        }
        if line.starts_with("```toml") {
            in_example = Some(String::new());
            continue;
        }
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let field = rest.split('`').next().unwrap_or_default();
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if cells.len() != 5 || cells.iter().any(|c| c.trim().is_empty()) {
            errors.push(format!(
                "docs/scenarios.md line {n}: a field row needs five non-empty cells \
                 (field | unit | default | valid values | meaning); write – for none: {line}"
            ));
        }
        if rows
            .insert(normalise(field), (line.to_string(), n))
            .is_some()
        {
            errors.push(format!(
                "docs/scenarios.md line {n}: `{field}` is documented twice under `{heading}`"
            ));
        }
    }
    Section {
        rows,
        example,
        errors,
    }
}

#[test]
fn every_accepted_field_is_documented_and_every_documented_field_exists() {
    let doc = doc();
    let mut failures = Vec::new();
    for p in problem_types() {
        let fields = accepted(&p);
        let s = section(&doc, p.heading);
        failures.extend(s.errors.iter().cloned());
        for (field, values) in &fields {
            match s.rows.get(field) {
                None => failures.push(format!(
                    "{}: the parser accepts `{field}`, but docs/scenarios.md does not document \
                     it: add a row `| `{field}` | unit | default | valid values | meaning |` \
                     under `{}`",
                    p.name, p.heading
                )),
                Some((row, n)) => {
                    for v in values {
                        if !row.contains(&format!("\"{v}\"")) {
                            failures.push(format!(
                                "{}: docs/scenarios.md line {n}: `{field}` accepts \"{v}\", \
                                 which its row does not list",
                                p.name
                            ));
                        }
                    }
                }
            }
        }
        for (field, (_, n)) in &s.rows {
            if !fields.contains_key(field) {
                failures.push(format!(
                    "{}: docs/scenarios.md line {n} documents `{field}`, which the parser does \
                     not accept (accepted: {})",
                    p.name,
                    fields.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "docs/scenarios.md is out of date:\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn documented_examples_are_valid() {
    let doc = doc();
    for p in problem_types() {
        let s = section(&doc, p.heading);
        let example = s
            .example
            .unwrap_or_else(|| panic!("no ```toml example under `{}`", p.heading));
        if let Err(e) = (p.parse)(&example) {
            panic!(
                "the {} example of docs/scenarios.md is invalid: {e}",
                p.name
            );
        }
    }
}

/// The probe itself works: it finds fields at every depth, arrays of tables, tagged-enum
/// variants and enum values (so an empty result cannot pass silently).
#[test]
fn probing_finds_nested_fields_and_enum_values() {
    let [multibody, beam, inverse, crane] = problem_types();
    let c = accepted(&crane);
    assert_eq!(c["problem"], ["crane"]);
    assert!(
        c.contains_key("rope.payload_mass") && c.contains_key("verify.refine"),
        "{c:?}"
    );
    let m = accepted(&multibody);
    assert_eq!(
        m["method.kind"],
        ["space-time", "implicit-euler", "midpoint"]
    );
    assert!(m.contains_key("bodies[].box.density"), "{m:?}");
    assert!(m.contains_key("loads[].time_function.values"), "{m:?}");
    assert!(m["time.end"].is_empty());
    let b = accepted(&beam);
    assert!(b.contains_key("beam.section.ei") && b.contains_key("static.steps"));
    let i = accepted(&inverse);
    assert_eq!(i["trajectory.kind"].len(), 4, "{i:?}");
    assert!(i.contains_key("trajectory.delta") && i.contains_key("trajectory.path"));
    assert_eq!(i["problem"], ["beam-inverse"]);
    if std::env::var_os("STMECH_PRINT_FIELDS").is_some() {
        for (name, f) in [("multibody", m), ("beam", b), ("beam-inverse", i)] {
            println!("== {name}");
            for (k, v) in f {
                println!("{k} {v:?}");
            }
        }
    }
}
