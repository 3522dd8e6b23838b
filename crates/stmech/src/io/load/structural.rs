//! Structural (serde) errors of the typed parsers, resolved to the field path they are about.

use super::paths::{Seg, entry_at};
use toml::de::DeTable;

/// A structural (serde) error, resolved to a field path.
pub(super) struct Structural {
    pub(super) path: Vec<Seg>,
    pub(super) message: String,
    /// The error is a missing field.
    pub(super) missing: bool,
    /// Key to remove before the next pass, if that lets the parser go on.
    pub(super) remove: Option<Vec<Seg>>,
}

/// The name between the first pair of backticks of `message`.
pub(super) fn quoted(message: &str) -> Option<&str> {
    message.split('`').nth(1)
}

pub(super) fn structural(text: &str, e: &toml::de::Error) -> Option<Structural> {
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
    // a count written as a float (`1e30`, `10.0`): say what a count must look like
    let message = match message
        .strip_prefix("invalid type: floating point `")
        .and_then(|r| r.split_once('`'))
    {
        Some((value, expected)) if expected.contains("expected i64") => format!(
            "invalid type: a whole number is expected, got the floating-point number {value}; \
             write an integer without a decimal point or exponent (e.g. 1000, not 1e3 or 1000.0)"
        ),
        _ => format!("{message}{remedy}"),
    };
    Some(Structural {
        remove: (own_value && !key.is_empty()).then_some(key),
        path,
        message,
        missing: false,
    })
}
