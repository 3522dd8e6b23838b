//! TOML syntax errors: located by the text around them, since the document did not parse.

use super::Found;
use super::paths::Seg;

/// TOML syntax errors, the first of each line (later ones on a line follow from it).
pub(super) fn syntax_problems(text: &str, errors: &[toml::de::Error]) -> Vec<Found> {
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
