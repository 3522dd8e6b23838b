//! Numbers that do not fit their type: integers beyond 64 bits and floats beyond `f64`. The
//! typed parse would stop at the first of them with an error about the whole document;
//! here each is a problem of its own field, and a placeholder takes its place so that the
//! rest of the file is still checked.

use super::Found;
use super::paths::Seg;
use super::syntax::line_column;
use crate::io::text::{EXCERPT_CHARS, excerpt};
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One number too large for its type.
pub(super) struct Overflow {
    /// Where it is written.
    pub(super) span: Range<usize>,
    /// What replaces it for the remaining checks (`0` or `0.0`).
    pub(super) placeholder: &'static str,
    /// The problem, with the field path.
    pub(super) found: Found,
}

/// Every number of the document that does not fit, in document order.
pub(super) fn overflows(text: &str, root: &DeTable<'_>) -> Vec<Overflow> {
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk_table(text, root, &mut path, &mut out);
    out.sort_by_key(|o| o.span.start);
    out
}

/// `text` with every overflowing number replaced by its placeholder (lines and the other
/// spans unchanged).
pub(super) fn sanitized(text: &str, overflows: &[Overflow]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for o in overflows {
        if o.span.start < at || o.span.end > text.len() {
            continue;
        }
        out.push_str(&text[at..o.span.start]);
        out.push_str(o.placeholder);
        at = o.span.end;
    }
    out.push_str(&text[at..]);
    out
}

fn walk_table(text: &str, t: &DeTable<'_>, path: &mut Vec<Seg>, out: &mut Vec<Overflow>) {
    for (k, v) in t.iter() {
        path.push(Seg::Key(k.get_ref().to_string()));
        walk_value(text, v, path, out);
        path.pop();
    }
}

fn walk_value(text: &str, v: &Spanned<DeValue<'_>>, path: &mut Vec<Seg>, out: &mut Vec<Overflow>) {
    let written = || excerpt(text.get(v.span()).unwrap_or("?").trim(), EXCERPT_CHARS);
    let problem = |message: String, placeholder| Overflow {
        span: v.span(),
        placeholder,
        found: Found {
            path: Some(path.clone()),
            message,
            line: Some(line_column(text, v.span().start).0),
        },
    };
    match v.get_ref() {
        DeValue::Integer(i) if i64::from_str_radix(i.as_str(), i.radix()).is_err() => {
            out.push(problem(
                format!(
                    "the integer {} does not fit in 64 bits (the largest is {}); write a value \
                     in the field's range (docs/scenarios.md)",
                    written(),
                    i64::MAX
                ),
                "0",
            ));
        }
        DeValue::Float(f)
            if f.as_str().parse::<f64>().is_ok_and(f64::is_infinite)
                && !f.as_str().contains("inf") =>
        {
            out.push(problem(
                format!(
                    "the number {} is too large for a 64-bit float (the largest is about \
                     1.8e308); write a finite value in the field's range (docs/scenarios.md)",
                    written()
                ),
                "0.0",
            ));
        }
        DeValue::Table(t) => walk_table(text, t, path, out),
        DeValue::Array(a) => {
            for (i, e) in a.iter().enumerate() {
                path.push(Seg::Index(i));
                walk_value(text, e, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}
