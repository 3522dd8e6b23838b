//! Loading a scenario file of any problem type, with *every* problem located in the file.
//!
//! The parsers ([`Scenario`], [`BeamScenario`], [`InverseScenario`]) stop at the first
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

mod numbers;
mod paths;
mod structural;
mod syntax;
#[cfg(test)]
mod tests;

use super::beam_scenario::BeamScenario;
use super::inverse_scenario::InverseScenario;
use super::inverse_scenario::crane::CraneScenario;
use super::scenario::{Scenario, ScenarioError, SpatialInverseScenario, load_any};
use super::text::{EXCERPT_CHARS, InputLimit, excerpt, shorten_quotes};
use crate::error::InputError;
use paths::{Seg, line_of, parse_path, remove_key, render, set_value};
use std::path::Path;
use structural::structural;
use syntax::syntax_problems;
use toml::de::{DeTable, DeValue};

/// Most parse passes of [`load_text`] (each removes an offending key or tries a placeholder
/// for a missing one).
pub const MAX_PASSES: usize = 200;

/// The problem types, selected by the top-level key `problem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemType {
    /// No `problem` key: rigid bodies with joints ([`Scenario`]),
    /// or with `analysis = "inverse"` the spatial inverse problem
    /// ([`SpatialInverseScenario`]).
    Multibody,
    /// `problem = "beam"`: planar beam, forward ([`BeamScenario`]).
    Beam,
    /// `problem = "beam-inverse"`: inverse dynamics of a beam ([`InverseScenario`]).
    BeamInverse,
    /// `problem = "crane"`: inverse dynamics of a rope with a payload ([`CraneScenario`]).
    Crane,
}

impl ProblemType {
    /// The value of the `problem` key (`None` for multibody scenarios, which have no key).
    pub fn key(self) -> Option<&'static str> {
        match self {
            Self::Multibody => None,
            Self::Beam => Some("beam"),
            Self::BeamInverse => Some("beam-inverse"),
            Self::Crane => Some("crane"),
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
    /// Crane: inverse dynamics of a rope with a payload (issue 17).
    Crane(Box<CraneScenario>),
    /// Spatial inverse dynamics of a beam with a welded tip body (a multibody scenario with
    /// `analysis = "inverse"`, issue 16).
    SpatialInverse(Box<SpatialInverseScenario>),
}

impl AnyScenario {
    /// Files the scenario reads besides itself (trajectory CSVs).
    pub fn input_files(&self) -> Vec<std::path::PathBuf> {
        match self {
            Self::BeamInverse(s) => s.input_files.clone(),
            Self::Crane(s) => s.input_files.clone(),
            Self::SpatialInverse(s) => s.input_files.clone(),
            Self::Multibody(_) | Self::Beam(_) => Vec::new(),
        }
    }
}

/// Reads a scenario file and validates it with [`load_text`]; a relative CSV trajectory path
/// is resolved against the file's folder. Every file is read with the default size limit.
pub fn load_path(path: &Path) -> Result<AnyScenario, ScenarioError> {
    load_path_limited(path, InputLimit::default())
}

/// [`load_path`] with a size limit for every input file (`--max-input-size`): the scenario
/// and a trajectory CSV must be regular files of at most `limit` bytes.
pub fn load_path_limited(path: &Path, limit: InputLimit) -> Result<AnyScenario, ScenarioError> {
    let text = ScenarioError::read(path, limit)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    load_text_limited(&text, &path.display().to_string(), dir, limit)
}

/// Parses and validates scenario text of any problem type; `origin` names it in messages and
/// `base_dir` resolves relative paths in it. On failure the error is
/// [`ScenarioError::Located`] with every problem found.
pub fn load_text(text: &str, origin: &str, base_dir: &Path) -> Result<AnyScenario, ScenarioError> {
    load_text_limited(text, origin, base_dir, InputLimit::default())
}

/// [`load_text`] reading the files it names (a trajectory CSV) with at most `limit`.
pub fn load_text_limited(
    text: &str,
    origin: &str,
    base_dir: &Path,
    limit: InputLimit,
) -> Result<AnyScenario, ScenarioError> {
    let located = |found: Vec<Found>| located(text, origin, found);
    let (root, syntax) = DeTable::parse_recoverable(text);
    if !syntax.is_empty() {
        return Err(located(syntax_problems(text, root.get_ref(), &syntax)));
    }
    let kind = match problem_type(root.get_ref()) {
        Ok(kind) => kind,
        Err(found) => return Err(located(vec![found])),
    };
    let parse = |t: &str| -> Result<AnyScenario, ScenarioError> {
        match kind {
            ProblemType::Multibody => load_any(t, origin, base_dir, limit),
            ProblemType::Beam => {
                BeamScenario::from_toml_str(t, origin).map(|s| AnyScenario::Beam(Box::new(s)))
            }
            ProblemType::BeamInverse => {
                InverseScenario::from_toml_str_limited(t, origin, base_dir, limit)
                    .map(|s| AnyScenario::BeamInverse(Box::new(s)))
            }
            ProblemType::Crane => CraneScenario::from_toml_str_limited(t, origin, base_dir, limit)
                .map(|s| AnyScenario::Crane(Box::new(s))),
        }
    };
    // numbers too large for their type: a problem each, a placeholder for the other checks
    let overflows = numbers::overflows(text, root.get_ref());
    let mut current = numbers::sanitized(text, &overflows);
    let mut found: Vec<Found> = overflows.into_iter().map(|o| o.found).collect();
    let mut doc: toml::Table = match current.parse() {
        Ok(t) => t,
        Err(e) => {
            // not expected after the checks above; still located, and never the whole line
            let line = e.span().map(|s| syntax::line_column(&current, s.start).0);
            found.push(Found {
                path: line.and_then(|l| syntax::key_of_line(&current, l)),
                message: format!("{}; fix this value", e.message()),
                line,
            });
            return Err(located(found));
        }
    };
    // keys removed (unknown, wrongly typed) and placeholders inserted for missing keys: the
    // parser's later complaints about them are not the user's problems
    let mut removed: Vec<Vec<Seg>> = Vec::new();
    let mut placeholders: Vec<Vec<Seg>> = Vec::new();
    // tables whose `kind` has an unknown value: the kind decides which fields the table takes
    // (the variant of a tagged table), so complaints about its other fields say nothing until
    // the kind is fixed (a placeholder kind would make them up)
    let mut kind_tables: Vec<Vec<Seg>> = Vec::new();
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
                    .chain(kind_tables.iter().cloned())
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
        // (A field missing *inside* a placeholder table means the table was accepted: the
        // field gets a placeholder of its own, below, so every missing table is reported.)
        if let Some(t) = trying.as_mut()
            && s.path.starts_with(&t.path)
            && !(s.missing && s.path.len() > t.path.len())
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
                .chain(&kind_tables)
                .any(|r| s.path.starts_with(r));
            if !old_news {
                found.push(Found::unlocated(Some(s.path.clone()), s.message.clone()));
                if s.message.starts_with("unknown variant")
                    && s.path.len() >= 2
                    && matches!(s.path.last(), Some(Seg::Key(k)) if k == "kind")
                {
                    kind_tables.push(s.path[..s.path.len() - 1].to_vec());
                }
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
            field: excerpt(&field, EXCERPT_CHARS),
            message: shorten_quotes(&f.message),
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
    let choices = "use problem = \"beam\" (planar beam), \"beam-inverse\" (inverse dynamics \
                   of a beam) or \"crane\" (inverse dynamics of a rope with a payload), or \
                   omit `problem` for rigid bodies and multibody systems";
    match value.get_ref() {
        DeValue::String(s) if s == "beam" => Ok(ProblemType::Beam),
        DeValue::String(s) if s == "beam-inverse" => Ok(ProblemType::BeamInverse),
        DeValue::String(s) if s == "crane" => Ok(ProblemType::Crane),
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
