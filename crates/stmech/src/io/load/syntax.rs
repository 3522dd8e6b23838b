//! TOML syntax errors: located by the text around them, since the document did not parse.

use super::Found;
use super::paths::{Seg, line_of, render};
use toml::de::DeTable;

/// TOML syntax errors, the first of each line (later ones on a line follow from it). A table
/// header defined twice is reported as such at its own line, and the keys under it (which
/// the parser reports as duplicates too) are not reported again; a key given twice names the
/// line of its first definition.
pub(super) fn syntax_problems(
    text: &str,
    root: &DeTable<'_>,
    errors: &[toml::de::Error],
) -> Vec<Found> {
    let headers: Vec<Header> = text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            header_of(l.trim()).map(|(name, array)| Header {
                line: i + 1,
                name,
                array,
            })
        })
        .collect();
    // lines of the body of a duplicated header: their keys are duplicates because of it
    let mut shadowed: Vec<std::ops::Range<usize>> = Vec::new();
    let mut out: Vec<Found> = Vec::new();
    for e in errors {
        let at = e.span().map_or(0, |s| s.start);
        let (line, column) = line_column(text, at);
        if out.iter().any(|f| f.line == Some(line)) {
            continue;
        }
        let duplicate = e.message().starts_with("duplicate key");
        if duplicate && let Some(h) = headers.iter().find(|h| h.line == line) {
            let body_end = headers
                .iter()
                .find(|o| o.line > line)
                .map_or(usize::MAX, |o| o.line);
            shadowed.push(line + 1..body_end);
            out.push(Found {
                path: Some(h.name.split('.').map(|k| Seg::Key(k.to_owned())).collect()),
                message: duplicated_header(h, &headers),
                line: Some(line),
            });
            continue;
        }
        if duplicate && shadowed.iter().any(|r| r.contains(&line)) {
            continue;
        }
        let path = key_of_line(text, line);
        let message = match (&path, duplicate) {
            (Some(p), true) => {
                let first = line_of(text, root, p)
                    .filter(|&l| l != line)
                    .map_or_else(String::new, |l| format!(" (first at line {l})"));
                format!(
                    "`{}` is given twice in the same table{first}; keep one of them",
                    render(p)
                )
            }
            _ => format!(
                "TOML syntax error at column {column}: {}; fix the syntax of this line",
                e.message()
            ),
        };
        out.push(Found {
            path,
            message,
            line: Some(line),
        });
    }
    out.sort_by_key(|f| f.line);
    out
}

/// A table header line of the text.
struct Header {
    line: usize,
    /// Dotted name, e.g. `beam.section`.
    name: String,
    /// `[[name]]`: an entry of an array of tables.
    array: bool,
}

/// What is wrong with header `h`, which the parser found to define its table again.
fn duplicated_header(h: &Header, headers: &[Header]) -> String {
    let first = headers.iter().find(|o| o.name == h.name && o.line < h.line);
    let name = &h.name;
    match first {
        Some(o) if !o.array && !h.array => format!(
            "the table [{name}] is defined twice (first at line {}); merge the two into one \
             [{name}] table",
            o.line
        ),
        Some(o) if o.array && !h.array => format!(
            "[{name}] is an array of tables ([[{name}]] at line {}); write [[{name}]] to add \
             an entry",
            o.line
        ),
        Some(o) => format!(
            "[[{name}]] adds an entry to an array of tables, but [{name}] at line {} is a \
             single table; use one of the two forms",
            o.line
        ),
        None => format!(
            "the table [{name}] is defined twice (already by a dotted key or an inline table \
             above); define it once"
        ),
    }
}

/// The name and kind of a table header line (`[a.b]`, `[[a]]`, possibly with a comment; not
/// a line of a multi-line array such as `[1.0, 0.0],`).
fn header_of(line: &str) -> Option<(String, bool)> {
    let array = line.starts_with("[[");
    let rest = line.strip_prefix('[')?;
    let (name, after) = rest.trim_start_matches('[').split_once(']')?;
    let after = after.trim_start_matches(']').trim_start();
    if name.contains(',') || !(after.is_empty() || after.starts_with('#')) {
        return None;
    }
    let name: Vec<&str> = name
        .split('.')
        .map(|p| p.trim().trim_matches('"'))
        .collect();
    Some((name.join("."), array))
}

/// 1-based line and column (in characters) of byte offset `at`.
pub(super) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Best-effort field path of a line with a syntax error: the last table header above it and
/// the key on the line (the document could not be parsed, so this reads the text).
pub(super) fn key_of_line(text: &str, line: usize) -> Option<Vec<Seg>> {
    let mut header: Vec<Seg> = Vec::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut target = None;
    for (i, l) in text.lines().enumerate() {
        let t = l.trim();
        if i + 1 == line {
            target = Some(t.to_owned());
            break;
        }
        if let Some((name, array)) = header_of(t) {
            header.clear();
            for part in name.split('.') {
                header.push(Seg::Key(part.to_owned()));
            }
            if array {
                let c = match counts.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, c)) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        counts.push((name, 0));
                        0
                    }
                };
                header.push(Seg::Index(c));
            }
        }
    }
    let target = target?;
    if let Some((name, _)) = header_of(&target) {
        // the header line itself: its table
        return Some(name.split('.').map(|k| Seg::Key(k.to_owned())).collect());
    }
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
