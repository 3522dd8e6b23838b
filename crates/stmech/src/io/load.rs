//! Loading a scenario file of any problem type, with *every* problem located in the file.
//!
//! The three parsers ([`Scenario`], [`BeamScenario`], [`InverseScenario`]) stop at the first
//! structural error (TOML syntax, unknown field, wrong type, missing field), because serde
//! does, and report value problems by field path only. [`load_text`] wraps them:
//!
//! 1. TOML syntax errors are collected with the parser's error recovery (the first per line).
//! 2. The `problem` key selects the parser; an unknown problem type is a problem of its own.
//! 3. A structural error is recorded with its field path, the offending key is removed from
//!    the document and the parser runs again, so that one pass finds every unknown field and
//!    every wrongly typed value (up to [`MAX_PASSES`]). When the structure is sound, the
//!    parser's value validation adds its problems (all of them at once).
//! 4. Every problem gets the line of its field in the original text
//!    ([`ScenarioError::Located`]).
//!
//! Each message says what is wrong and how to fix it; the field reference with units,
//! defaults and ranges is `docs/scenarios.md`.

use super::beam_scenario::BeamScenario;
use super::inverse_scenario::InverseScenario;
use super::scenario::{Scenario, ScenarioError};
use crate::error::InputError;
use std::fmt::Write as _;
use std::path::Path;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Most parse passes of [`load_text`] (each removes an offending key or tries a placeholder
/// for a missing one).
pub const MAX_PASSES: usize = 200;

/// The problem types, selected by the top-level key `problem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemType {
    /// No `problem` key: rigid bodies with joints ([`Scenario`]).
    Multibody,
    /// `problem = "beam"`: planar beam, forward ([`BeamScenario`]).
    Beam,
    /// `problem = "beam-inverse"`: inverse dynamics of a beam ([`InverseScenario`]).
    BeamInverse,
}

impl ProblemType {
    /// The value of the `problem` key (`None` for multibody scenarios, which have no key).
    pub fn key(self) -> Option<&'static str> {
        match self {
            Self::Multibody => None,
            Self::Beam => Some("beam"),
            Self::BeamInverse => Some("beam-inverse"),
        }
    }
}

/// A validated scenario of any problem type.
#[derive(Debug)]
pub enum AnyScenario {
    /// Rigid bodies and joints.
    Multibody(Box<Scenario>),
    /// Planar beam.
    Beam(Box<BeamScenario>),
    /// Beam inverse dynamics.
    BeamInverse(Box<InverseScenario>),
}

impl AnyScenario {
    /// Files the scenario reads besides itself (trajectory CSVs).
    pub fn input_files(&self) -> Vec<std::path::PathBuf> {
        match self {
            Self::BeamInverse(s) => s.input_files.clone(),
            Self::Multibody(_) | Self::Beam(_) => Vec::new(),
        }
    }
}

/// Reads a scenario file and validates it with [`load_text`]; a relative CSV trajectory path
/// is resolved against the file's folder.
pub fn load_path(path: &Path) -> Result<AnyScenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_owned(),
        source,
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    load_text(&text, &path.display().to_string(), dir)
}

/// Parses and validates scenario text of any problem type; `origin` names it in messages and
/// `base_dir` resolves relative paths in it. On failure the error is
/// [`ScenarioError::Located`] with every problem found.
pub fn load_text(text: &str, origin: &str, base_dir: &Path) -> Result<AnyScenario, ScenarioError> {
    let located = |found: Vec<Found>| located(text, origin, found);
    let (root, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        return Err(located(syntax_problems(text, &syntax)));
    }
    let kind = match problem_type(root.get_ref()) {
        Ok(kind) => kind,
        Err(found) => return Err(located(vec![found])),
    };
    let parse = |t: &str| -> Result<AnyScenario, ScenarioError> {
        match kind {
            ProblemType::Multibody => {
                Scenario::from_toml_str(t, origin).map(|s| AnyScenario::Multibody(Box::new(s)))
            }
            ProblemType::Beam => {
                BeamScenario::from_toml_str(t, origin).map(|s| AnyScenario::Beam(Box::new(s)))
            }
            ProblemType::BeamInverse => InverseScenario::from_toml_str(t, origin, base_dir)
                .map(|s| AnyScenario::BeamInverse(Box::new(s))),
        }
    };
    let mut doc: toml::Table = match text.parse() {
        Ok(t) => t,
        Err(e) => return Err(syntax_error(origin, e)),
    };
    let mut current = text.to_owned();
    let mut found: Vec<Found> = Vec::new();
    // keys removed (unknown, wrongly typed) and placeholders inserted for missing keys: the
    // parser's later complaints about them are not the user's problems
    let mut removed: Vec<Vec<Seg>> = Vec::new();
    let mut placeholders: Vec<Vec<Seg>> = Vec::new();
    let mut trying: Option<Trial> = None;
    for _ in 0..MAX_PASSES {
        let err = match parse(&current) {
            Ok(s) if found.is_empty() => return Ok(s),
            Ok(_) => break,
            Err(e) => e,
        };
        let source = match err {
            ScenarioError::Syntax { source, .. } => source,
            ScenarioError::Invalid { problems, .. } | ScenarioError::Located { problems, .. } => {
                placeholders.extend(trying.take().map(|t| t.path));
                // A placeholder stands for a value the user has yet to write, which may change
                // what its siblings mean (a missing `kind`): skip the problems of its table.
                let known: Vec<Vec<Seg>> = found
                    .iter()
                    .filter_map(|f| f.path.clone())
                    .chain(placeholders.iter().map(|p| match p.len() {
                        0 | 1 => p.clone(),
                        n => p[..n - 1].to_vec(),
                    }))
                    .collect();
                for p in problems {
                    let path = match &p {
                        InputError::Invalid { field, .. } => Some(parse_path(field)),
                        InputError::System(_) => None,
                    };
                    // a value problem of a key already reported says nothing new
                    if let Some(path) = &path
                        && known.iter().any(|k| path.starts_with(k))
                    {
                        continue;
                    }
                    let message = match &p {
                        InputError::Invalid { message, .. } => message.clone(),
                        other => other.to_string(),
                    };
                    found.push(Found::unlocated(path, message));
                }
                break;
            }
            e @ ScenarioError::Read { .. } => return Err(e),
        };
        let Some(s) = structural(&current, &source) else {
            found.push(Found::unlocated(None, source.message().to_owned()));
            break;
        };
        // Is the parser still unhappy with the placeholder being tried? Then try the next one.
        if let Some(t) = trying.as_mut()
            && s.path.starts_with(&t.path)
        {
            let Some(next) = t.next(&s.message) else {
                break;
            };
            if !set_value(&mut doc, &t.path, next) {
                break;
            }
        } else {
            if let Some(t) = trying.take() {
                placeholders.push(t.path);
            }
            let old_news = removed
                .iter()
                .chain(&placeholders)
                .any(|r| s.path.starts_with(r));
            if !old_news {
                found.push(Found::unlocated(Some(s.path.clone()), s.message.clone()));
            }
            if s.missing {
                // a placeholder lets the parser go on to the other fields
                let mut t = Trial::new(s.path);
                let Some(first) = t.next("") else { break };
                if !set_value(&mut doc, &t.path, first) {
                    break;
                }
                trying = Some(t);
            } else if let Some(remove) = s.remove
                && remove_key(&mut doc, &remove)
            {
                removed.push(remove);
            } else {
                break;
            }
        }
        match toml::to_string(&doc) {
            Ok(t) => current = t,
            Err(_) => break,
        }
    }
    Err(located(found))
}

/// Placeholder values tried, in turn, for a missing required key.
struct Trial {
    path: Vec<Seg>,
    queue: Vec<toml::Value>,
}

impl Trial {
    fn new(path: Vec<Seg>) -> Self {
        use toml::Value as V;
        let mut queue = vec![
            V::Float(1.0),
            V::Integer(1),
            V::String(String::new()),
            V::Table(toml::Table::new()),
            V::Array(Vec::new()),
            V::Boolean(false),
        ];
        queue.reverse();
        Self { path, queue }
    }

    /// The next value to try, using the parser's complaint about the last one.
    fn next(&mut self, complaint: &str) -> Option<toml::Value> {
        if complaint.starts_with("unknown variant")
            && let Some(variant) = complaint.split('`').nth(3)
        {
            self.queue.push(toml::Value::String(variant.to_owned()));
        } else if let Some(n) = complaint
            .strip_prefix("invalid length ")
            .and_then(|r| r.split("length ").nth(1))
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n <= 16)
        {
            let row = toml::Value::Array(vec![toml::Value::Float(1.0); n]);
            self.queue.push(toml::Value::Array(vec![row; n]));
            self.queue
                .push(toml::Value::Array(vec![toml::Value::Float(1.0); n]));
        }
        self.queue.pop()
    }
}

/// Sets the key at `path` (its parent must exist); whether that worked.
fn set_value(doc: &mut toml::Table, path: &[Seg], value: toml::Value) -> bool {
    match path {
        [Seg::Key(k)] => {
            doc.insert(k.clone(), value);
            true
        }
        [Seg::Key(k), rest @ ..] => doc
            .get_mut(k.as_str())
            .is_some_and(|v| set_in(v, rest, value)),
        _ => false,
    }
}

fn set_in(target: &mut toml::Value, path: &[Seg], value: toml::Value) -> bool {
    match (target, path.first()) {
        (toml::Value::Table(t), Some(Seg::Key(_))) => set_value(t, path, value),
        (toml::Value::Array(a), Some(Seg::Index(i))) => {
            a.get_mut(*i).is_some_and(|e| set_in(e, &path[1..], value))
        }
        _ => false,
    }
}

fn syntax_error(origin: &str, e: toml::de::Error) -> ScenarioError {
    ScenarioError::Syntax {
        origin: origin.to_owned(),
        source: Box::new(e),
    }
}

/// One problem on its way to a [`ScenarioError::Located`].
struct Found {
    path: Option<Vec<Seg>>,
    message: String,
    /// Known line (syntax errors); otherwise looked up from `path`.
    line: Option<usize>,
}

impl Found {
    fn unlocated(path: Option<Vec<Seg>>, message: String) -> Self {
        Self {
            path,
            message,
            line: None,
        }
    }
}

/// The problems in file order (those without a line last), each with its line.
fn located(text: &str, origin: &str, found: Vec<Found>) -> ScenarioError {
    let root = DeTable::parse_recoverable(text).0;
    let mut found: Vec<(Option<usize>, Found)> = found
        .into_iter()
        .map(|f| {
            let line = f.line.or_else(|| {
                f.path
                    .as_ref()
                    .and_then(|p| line_of(text, root.get_ref(), p))
            });
            (line, f)
        })
        .collect();
    found.sort_by_key(|(line, _)| line.unwrap_or(usize::MAX));
    let mut problems = Vec::with_capacity(found.len());
    let mut lines = Vec::with_capacity(found.len());
    for (line, f) in found {
        let field = f.path.as_deref().map_or_else(|| "toml".to_owned(), render);
        problems.push(InputError::Invalid {
            field,
            message: f.message,
        });
        lines.push(line);
    }
    ScenarioError::Located {
        origin: origin.to_owned(),
        problems,
        lines,
    }
}

/// The problem type declared by the document, or the problem with the `problem` key.
fn problem_type(root: &DeTable<'_>) -> Result<ProblemType, Found> {
    let Some(value) = root.get("problem") else {
        return Ok(ProblemType::Multibody);
    };
    let path = vec![Seg::Key("problem".to_owned())];
    let choices = "use problem = \"beam\" (planar beam) or \"beam-inverse\" (inverse dynamics \
                   of a beam), or omit `problem` for rigid bodies and multibody systems";
    match value.get_ref() {
        DeValue::String(s) if s == "beam" => Ok(ProblemType::Beam),
        DeValue::String(s) if s == "beam-inverse" => Ok(ProblemType::BeamInverse),
        DeValue::String(s) => Err(Found::unlocated(
            Some(path),
            format!("unknown problem type {:?}; {choices}", s.as_ref()),
        )),
        other => Err(Found::unlocated(
            Some(path),
            format!("must be a string, got a {}; {choices}", other.type_str()),
        )),
    }
}

/// TOML syntax errors, the first of each line (later ones on a line follow from it).
fn syntax_problems(text: &str, errors: &[toml::de::Error]) -> Vec<Found> {
    let mut out: Vec<Found> = Vec::new();
    for e in errors {
        let at = e.span().map_or(0, |s| s.start);
        let (line, column) = line_column(text, at);
        if out.iter().any(|f| f.line == Some(line)) {
            continue;
        }
        out.push(Found {
            path: key_of_line(text, line),
            message: format!(
                "TOML syntax error at column {column}: {}; fix the syntax of this line",
                e.message()
            ),
            line: Some(line),
        });
    }
    out.sort_by_key(|f| f.line);
    out
}

/// 1-based line and column (in characters) of byte offset `at`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Best-effort field path of a line with a syntax error: the last table header above it and
/// the key on the line (the document could not be parsed, so this reads the text).
fn key_of_line(text: &str, line: usize) -> Option<Vec<Seg>> {
    let mut header: Vec<Seg> = Vec::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut target = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            target = Some(t.to_owned());
            break;
        }
        let array = t.starts_with("[[");
        // a header `[a.b]` / `[[a]]`, possibly with a comment; not a line of a multi-line
        // array such as `[1.0, 0.0],`
        let header_name = t.strip_prefix('[').and_then(|r| {
            let (name, rest) = r.trim_start_matches('[').split_once(']')?;
            let rest = rest.trim_start_matches(']').trim_start();
            (!name.contains(',') && (rest.is_empty() || rest.starts_with('#'))).then(|| name.trim())
        });
        if let Some(name) = header_name {
            header.clear();
            for part in name.split('.') {
                header.push(Seg::Key(part.trim().trim_matches('"').to_owned()));
            }
            if array {
                let c = match counts.iter_mut().find(|(n, _)| n == name) {
                    Some((_, c)) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        counts.push((name.to_owned(), 0));
                        0
                    }
                };
                header.push(Seg::Index(c));
            }
        }
    }
    let target = target?;
    let mut path = header;
    if !target.starts_with('[')
        && let Some((key, _)) = target.split_once('=')
    {
        for part in key.split('.') {
            let part = part.trim().trim_matches('"');
            if !part.is_empty() {
                path.push(Seg::Key(part.to_owned()));
            }
        }
    }
    (!path.is_empty()).then_some(path)
}

/// A step of a field path: a key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`.
fn render(path: &[Seg]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    s
}

/// Inverse of [`render`] for the paths the parsers report.
fn parse_path(field: &str) -> Vec<Seg> {
    let mut out = Vec::new();
    for part in field.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Seg::Key(key.to_owned()));
        }
        while let Some((index, tail)) = rest.split_once(']') {
            if let Ok(i) = index.parse() {
                out.push(Seg::Index(i));
            }
            rest = tail.strip_prefix('[').unwrap_or(tail);
        }
    }
    out
}

/// Line of the field at `path`, or of its deepest ancestor present in the document (a missing
/// required field is reported at its table).
fn line_of(text: &str, root: &DeTable<'_>, path: &[Seg]) -> Option<usize> {
    let mut table = Some(root);
    let mut array: Option<&[Spanned<DeValue<'_>>]> = None;
    let mut at = None;
    for seg in path {
        let value = match (seg, table, array) {
            (Seg::Key(k), Some(t), _) => match t.get_key_value(k.as_str()) {
                Some((key, value)) => {
                    at = Some(key.span().start);
                    value
                }
                None => break,
            },
            (Seg::Index(i), _, Some(a)) => match a.get(*i) {
                Some(value) => {
                    at = Some(value.span().start);
                    value
                }
                None => break,
            },
            _ => break,
        };
        (table, array) = match value.get_ref() {
            DeValue::Table(t) => (Some(t), None),
            DeValue::Array(a) => (None, Some(&a[..])),
            _ => (None, None),
        };
    }
    at.map(|at| line_column(text, at).0)
}

/// A structural (serde) error, resolved to a field path.
struct Structural {
    path: Vec<Seg>,
    message: String,
    /// The error is a missing field.
    missing: bool,
    /// Key to remove before the next pass, if that lets the parser go on.
    remove: Option<Vec<Seg>>,
}

/// The name between the first pair of backticks of `message`.
fn quoted(message: &str) -> Option<&str> {
    message.split('`').nth(1)
}

fn structural(text: &str, e: &toml::de::Error) -> Option<Structural> {
    let root = DeTable::parse(text).ok()?;
    let span = e.span()?;
    let message = e.message();
    let (mut path, value_is_table) = if span.is_empty() {
        (Vec::new(), true) // the document itself
    } else {
        let mut path = Vec::new();
        let is_table = entry_at(root.get_ref(), span.start, &mut path)?;
        (path, is_table)
    };
    let name_last =
        |path: &[Seg], name: &str| matches!(path.last(), Some(Seg::Key(k)) if k == name);
    if message.starts_with("unknown field") {
        let name = quoted(message)?;
        if !name_last(&path, name) {
            path.push(Seg::Key(name.to_owned()));
        }
        let (_, expected) = message.split_once(", ").unwrap_or((message, ""));
        let message = if expected.is_empty() {
            format!("unknown field `{name}`; remove it or correct its spelling")
        } else {
            format!("unknown field `{name}` ({expected}); remove it or correct its spelling")
        };
        return Some(Structural {
            remove: Some(path.clone()),
            path,
            message,
            missing: false,
        });
    }
    if message.starts_with("missing field") {
        let name = quoted(message)?;
        path.push(Seg::Key(name.to_owned()));
        return Some(Structural {
            path,
            message: format!(
                "required field `{name}` is missing; add it (see docs/scenarios.md for its unit \
                 and range)"
            ),
            missing: true,
            remove: None,
        });
    }
    // A wrong value: removable if the span is the value itself, not a table whose inner
    // field the message is about (internally tagged enums report their table).
    let own_value = !value_is_table || message.starts_with("invalid type: map");
    let remedy = if message.starts_with("unknown variant") {
        "; use one of these values"
    } else if message.starts_with("invalid length") {
        "; give exactly that many entries"
    } else if message.starts_with("invalid type") {
        "; write a value of the expected type"
    } else {
        ""
    };
    let mut key = path.clone();
    while matches!(key.last(), Some(Seg::Index(_))) {
        key.pop();
    }
    Some(Structural {
        remove: (own_value && !key.is_empty()).then_some(key),
        path,
        message: format!("{message}{remedy}"),
        missing: false,
    })
}

/// Path of the deepest entry (key or value) whose span contains byte `at`; returns whether
/// that entry's value is a table.
fn entry_at(table: &DeTable<'_>, at: usize, path: &mut Vec<Seg>) -> Option<bool> {
    for (k, v) in table.iter() {
        path.push(Seg::Key(k.get_ref().to_string()));
        if let Some(found) = value_at(v, at, path) {
            return Some(found);
        }
        if k.span().contains(&at) || v.span().contains(&at) {
            return Some(matches!(v.get_ref(), DeValue::Table(_)));
        }
        path.pop();
    }
    None
}

/// Like [`entry_at`] inside a value (only a deeper match counts).
fn value_at(v: &Spanned<DeValue<'_>>, at: usize, path: &mut Vec<Seg>) -> Option<bool> {
    match v.get_ref() {
        DeValue::Table(t) => entry_at(t, at, path),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                if let Some(found) = value_at(e, at, path) {
                    return Some(found);
                }
                if e.span().contains(&at) {
                    return Some(matches!(e.get_ref(), DeValue::Table(_)));
                }
                path.pop();
            }
            None
        }
        _ => None,
    }
}

/// Removes the key at `path` from `doc`; whether it was there.
fn remove_key(doc: &mut toml::Table, path: &[Seg]) -> bool {
    match path {
        [Seg::Key(k)] => doc.remove(k.as_str()).is_some(),
        [Seg::Key(k), rest @ ..] => doc.get_mut(k.as_str()).is_some_and(|v| remove_in(v, rest)),
        _ => false,
    }
}

fn remove_in(value: &mut toml::Value, path: &[Seg]) -> bool {
    match (value, path.first()) {
        (toml::Value::Table(t), Some(Seg::Key(_))) => remove_key(t, path),
        (toml::Value::Array(a), Some(Seg::Index(i))) => {
            a.get_mut(*i).is_some_and(|e| remove_in(e, &path[1..]))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RIGID: &str = r#"[time]
end = 1.0
[method]
kind = "space-time"
elements_per_block = 4
[[bodies]]
name = "box"
box = { edges = [2.0, 1.0, 1.0], density = 1.5 }
"#;

    /// `(line, field)` of every problem, in report order.
    fn report(text: &str) -> Vec<(Option<usize>, String)> {
        match load_text(text, "t.toml", Path::new(".")) {
            Ok(_) => Vec::new(),
            Err(ScenarioError::Located {
                problems, lines, ..
            }) => lines
                .into_iter()
                .zip(problems)
                .map(|(l, p)| match p {
                    InputError::Invalid { field, .. } => (l, field),
                    other => (l, other.to_string()),
                })
                .collect(),
            Err(e) => panic!("expected located problems, got {e}"),
        }
    }

    fn line_field(line: usize, field: &str) -> (Option<usize>, String) {
        (Some(line), field.to_owned())
    }

    #[test]
    fn valid_files_of_every_type_load() {
        assert!(matches!(
            load_text(RIGID, "t", Path::new(".")),
            Ok(AnyScenario::Multibody(_))
        ));
        let beam = "problem = \"beam\"\nanalysis = \"static\"\n[beam]\nlength = 1.0\nelements = 2\n\
                    section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }\n";
        assert!(matches!(
            load_text(beam, "t", Path::new(".")),
            Ok(AnyScenario::Beam(_))
        ));
    }

    /// Structural errors do not hide each other or the invalid values: one report has them
    /// all, in file order, each with its line.
    #[test]
    fn structural_and_value_problems_are_reported_together() {
        let text = RIGID
            .replace("end = 1.0", "end = -1.0")
            .replace(
                "elements_per_block = 4",
                "elements_per_block = 4\nblocks = \"two\"",
            )
            .replace("density = 1.5", "density = -1.5, colour = 3")
            + "[[loads]]\nbody = \"box\"\nkind = \"torque\"\nvector = [1.0, 1.0]\nbogus = true\n";
        assert_eq!(
            report(&text),
            vec![
                line_field(2, "time.end"),
                line_field(6, "method.blocks"),
                line_field(9, "bodies[0].box.colour"),
                line_field(9, "bodies[0].box.density"),
                line_field(13, "loads[0].vector"),
                line_field(14, "loads[0].bogus"),
            ]
        );
    }

    #[test]
    fn syntax_errors_on_several_lines_are_all_reported() {
        let text = RIGID
            .replace("end = 1.0", "end = = 1.0")
            .replace("name = \"box\"", "name = box");
        let r = report(&text);
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!(r[0], line_field(2, "time.end"));
        assert_eq!(r[1], line_field(7, "bodies[0].name"));
    }

    /// The path of a syntax error is read off the text: the header above and the key.
    #[test]
    fn syntax_error_paths_skip_multi_line_arrays() {
        let text = RIGID.replace(
            "box = { edges = [2.0, 1.0, 1.0], density = 1.5 }",
            "mass = 1.0\neuler_tensor = [\n  [1.0, 0.0, 0.0],\n  [0.0, 1.0, 0.0],\n  \
             [0.0, 0.0, 1.0]\n]\nposition = [0.0, 0.0 0.0]",
        );
        assert_eq!(report(&text), vec![line_field(14, "bodies[0].position")]);
    }

    /// A missing required field gets a placeholder so the rest is still checked; a missing or
    /// misspelt `kind` does not make its siblings look wrong.
    #[test]
    fn missing_fields_do_not_stop_the_report() {
        let text = RIGID
            .replace("end = 1.0\n", "")
            .replace("name = \"box\"", "name = \"box\"\nmass = -1.0");
        let r = report(&text);
        assert!(r.contains(&line_field(1, "time.end")), "{r:?}");
        assert!(r.iter().any(|(_, f)| f == "bodies[0].box"), "{r:?}");
        let text = RIGID.replace("\"space-time\"", "\"spacetime\"");
        assert_eq!(report(&text), vec![line_field(4, "method.kind")]);
        let text = RIGID.replace("[time]\nend = 1.0\n", "");
        assert_eq!(report(&text), vec![(None, "time".to_owned())]);
    }

    #[test]
    fn unknown_problem_type_names_the_choices() {
        let text = format!("problem = \"beams\"\n{RIGID}");
        let err = load_text(&text, "t.toml", Path::new(".")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("line 1: problem") && msg.contains("\"beam-inverse\""),
            "{msg}"
        );
    }

    #[test]
    fn paths_round_trip() {
        for p in ["time.end", "bodies[0].box.edges[2]", "a[1][2].b", "mesh"] {
            assert_eq!(render(&parse_path(p)), p);
        }
    }

    /// The time domain of an inverse problem must hold the pre- and post-actuation (L/c = 1 s
    /// here); the message gives the value that fixes it.
    #[test]
    fn inverse_time_domain_needs_room_for_the_actuation() {
        let text = "problem = \"beam-inverse\"\n[beam]\nlength = 1.0\nlaw = \"log\"\n\
                    section = { rho_a = 1.0, rho_i = 1.0, ea = 1.0, ga = 1.0, ei = 1.0 }\n\
                    [trajectory]\nkind = \"rest-to-rest\"\nangle = 1.0\nt0 = 2.0\nduration = 2.0\n\
                    [time]\nstart = 0.0\nend = 6.0\n[mesh]\nresolution = 4\n";
        assert!(load_text(text, "t", Path::new(".")).is_ok());
        let late = text.replace("start = 0.0", "start = 1.5");
        let err = load_text(&late, "t", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("time.start") && err.contains("time.start ≤ 1.0000 s"),
            "{err}"
        );
        let short = text.replace("end = 6.0", "end = 4.5");
        let err = load_text(&short, "t", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("time.end") && err.contains("time.end ≥ 5.0000 s"),
            "{err}"
        );
    }
}
