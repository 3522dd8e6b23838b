//! Structural (serde) errors of the typed parsers, resolved to the field path they are about.

use super::paths::{Seg, entry_at, key_at, value_of};
use toml::de::{DeTable, DeValue};

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
    let (mut path, mut value_is_table) = if span.is_empty() {
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
        // the error points at the key itself: its path, however deep the dotted key or the
        // table header that holds it (the deepest entry around it would be the last table of
        // `q.r.s.t = 1`, not `q`)
        let mut own = Vec::new();
        if !span.is_empty() && key_at(root.get_ref(), span.start, &mut own) && name_last(&own, name)
        {
            path = own;
        } else if !name_last(&path, name) {
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
    // An internally tagged table (`kind = …`) reports a wrong field at the table: a date-time
    // in it (serde calls it "map" too) is the field meant.
    if message.starts_with("invalid type: map")
        && let Some(DeValue::Table(t)) = value_of(root.get_ref(), &path).map(|v| v.get_ref())
        && let Some((k, _)) = t
            .iter()
            .find(|(_, v)| matches!(v.get_ref(), DeValue::Datetime(_)))
    {
        path.push(Seg::Key(k.get_ref().to_string()));
        value_is_table = false;
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
    // serde calls a TOML date-time and a table both "map": say which it is
    let given = value_of(root.get_ref(), &path).map(|v| match v.get_ref() {
        DeValue::Datetime(d) => format!("a date-time ({d})"),
        _ => "a table".to_owned(),
    });
    let message = match (message.strip_prefix("invalid type: map, "), given) {
        (Some(expected), Some(given)) => format!("invalid type: {given}, {expected}"),
        _ => message.to_owned(),
    };
    // serde names the parser's own types ("expected struct RawBeamSection"): a table
    let message = match message.split_once("expected struct ") {
        Some((head, _)) => format!("{head}expected a table"),
        None => message,
    };
    let message = message.as_str();
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
