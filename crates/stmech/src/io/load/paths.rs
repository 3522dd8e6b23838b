//! Field paths (`a.b[0].c`) and their lines in the document; editing the parsed document by
//! path (the passes of [`super::load_text`]).

use super::syntax::line_column;
use std::fmt::Write as _;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A step of a field path: a key or an array index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

/// `a.b[0].c`.
pub(super) fn render(path: &[Seg]) -> String {
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
pub(super) fn parse_path(field: &str) -> Vec<Seg> {
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
pub(super) fn line_of(text: &str, root: &DeTable<'_>, path: &[Seg]) -> Option<usize> {
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

/// Path of the deepest entry (key or value) whose span contains byte `at`; returns whether
/// that entry's value is a table.
pub(super) fn entry_at(table: &DeTable<'_>, at: usize, path: &mut Vec<Seg>) -> Option<bool> {
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
pub(super) fn value_at(v: &Spanned<DeValue<'_>>, at: usize, path: &mut Vec<Seg>) -> Option<bool> {
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

/// Path of the key whose own span (the key itself, not its value) contains byte `at`: the
/// key an "unknown field" error points at, also inside a dotted key (`q.r.s = 1`) or a table
/// header (`[method.q.r]`), whose implicit tables all span the whole line.
pub(super) fn key_at(table: &DeTable<'_>, at: usize, path: &mut Vec<Seg>) -> bool {
    for (k, v) in table.iter() {
        path.push(Seg::Key(k.get_ref().to_string()));
        if k.span().contains(&at) || key_in(v, at, path) {
            return true;
        }
        path.pop();
    }
    false
}

fn key_in(v: &Spanned<DeValue<'_>>, at: usize, path: &mut Vec<Seg>) -> bool {
    match v.get_ref() {
        DeValue::Table(t) => key_at(t, at, path),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                if key_in(e, at, path) {
                    return true;
                }
                path.pop();
            }
            false
        }
        _ => false,
    }
}

/// The value at `path` in the document, if it is there.
pub(super) fn value_of<'a, 'b>(
    root: &'a DeTable<'b>,
    path: &[Seg],
) -> Option<&'a Spanned<DeValue<'b>>> {
    let (Seg::Key(first), rest) = path.split_first()? else {
        return None;
    };
    let mut value = root.get(first.as_str())?;
    for seg in rest {
        value = match (seg, value.get_ref()) {
            (Seg::Key(k), DeValue::Table(t)) => t.get(k.as_str())?,
            (Seg::Index(i), DeValue::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(value)
}

/// Removes the key at `path` from `doc`; whether it was there.
pub(super) fn remove_key(doc: &mut toml::Table, path: &[Seg]) -> bool {
    match path {
        [Seg::Key(k)] => doc.remove(k.as_str()).is_some(),
        [Seg::Key(k), rest @ ..] => doc.get_mut(k.as_str()).is_some_and(|v| remove_in(v, rest)),
        _ => false,
    }
}

pub(super) fn remove_in(value: &mut toml::Value, path: &[Seg]) -> bool {
    match (value, path.first()) {
        (toml::Value::Table(t), Some(Seg::Key(_))) => remove_key(t, path),
        (toml::Value::Array(a), Some(Seg::Index(i))) => {
            a.get_mut(*i).is_some_and(|e| remove_in(e, &path[1..]))
        }
        _ => false,
    }
}

/// Sets the key at `path` (its parent must exist); whether that worked.
pub(super) fn set_value(doc: &mut toml::Table, path: &[Seg], value: toml::Value) -> bool {
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

pub(super) fn set_in(target: &mut toml::Value, path: &[Seg], value: toml::Value) -> bool {
    match (target, path.first()) {
        (toml::Value::Table(t), Some(Seg::Key(_))) => set_value(t, path, value),
        (toml::Value::Array(a), Some(Seg::Index(i))) => {
            a.get_mut(*i).is_some_and(|e| set_in(e, &path[1..], value))
        }
        _ => false,
    }
}
