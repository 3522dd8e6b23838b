//! Rows of numbers from trajectory CSV text, shared by the tip paths ([`super::CsvTrajectory`])
//! and the pose paths ([`super::pose_csv`]): `#` comments and blank lines skipped, a UTF-8
//! byte-order mark skipped, an optional header (first row whose first cell names the time, in
//! any letter case), strictly increasing times, finite values, and the precision each column
//! is written with (the round-off floor of the smoothness test).

use super::TrajectoryError;
use super::smoothness::ColumnPrecision;
use crate::io::text::{EXCERPT_CHARS, excerpt};

/// Parsed rows: the time column, the value columns and their written precision.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rows {
    /// Times (s), strictly increasing.
    pub t: Vec<f64>,
    /// Values per row (all rows have the same length).
    pub values: Vec<Vec<f64>>,
    /// 1-based line of each row in the text.
    pub lines: Vec<usize>,
    /// Precision of the time column.
    pub t_precision: ColumnPrecision,
    /// Precision of each value column.
    pub precision: Vec<ColumnPrecision>,
}

/// Whether a non-numeric first row is a header: its first cell names the time (`t`,
/// `time`, `T [s]`, …, in any letter case).
fn is_header(cells: &[&str]) -> bool {
    cells
        .first()
        .is_some_and(|c| c.chars().next().is_some_and(|ch| ch == 't' || ch == 'T'))
}

/// Parses rows of `1 + n` numbers, `n` one of `widths` (the first row fixes it). `layouts`
/// describes the accepted headers for messages (e.g. "`t,x,y,theta`").
pub(crate) fn parse(
    text: &str,
    origin: &str,
    widths: &[usize],
    layouts: &str,
) -> Result<Rows, TrajectoryError> {
    let row_err = |line: usize, message: String| TrajectoryError::Row {
        path: origin.to_owned(),
        line,
        message,
    };
    let expected = |n: usize| {
        let list: Vec<String> = widths.iter().map(|w| (w + 1).to_string()).collect();
        format!("expected {} numbers {layouts}, got {n}", list.join(" or "))
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rows = Rows::default();
    let mut width: Option<usize> = None;
    let mut seen_row = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first_row = !seen_row;
        seen_row = true;
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let parsed: Result<Vec<f64>, _> = cells.iter().map(|c| c.parse::<f64>()).collect();
        let vals = match parsed {
            Ok(v) => v,
            Err(_) if first_row && is_header(&cells) => continue,
            Err(_) => {
                return Err(row_err(
                    i + 1,
                    format!(
                        "expected numbers {layouts}, got `{}`{}",
                        excerpt(line, EXCERPT_CHARS),
                        if first_row {
                            format!(" (a header must start with the time column, e.g. {layouts})")
                        } else {
                            String::new()
                        }
                    ),
                ));
            }
        };
        let n = vals.len().saturating_sub(1);
        match width {
            None if widths.contains(&n) => {
                width = Some(n);
                rows.precision = vec![ColumnPrecision::default(); n];
            }
            None => return Err(row_err(i + 1, expected(vals.len()))),
            Some(w) if w != n => {
                return Err(row_err(
                    i + 1,
                    format!(
                        "has {} numbers, the rows above {}; every row needs the same columns \
                         ({layouts})",
                        vals.len(),
                        w + 1
                    ),
                ));
            }
            Some(_) => {}
        }
        if !vals.iter().all(|v| v.is_finite()) {
            return Err(row_err(i + 1, "values must be finite".into()));
        }
        if let Some(&last) = rows.t.last()
            && vals[0] <= last
        {
            return Err(row_err(
                i + 1,
                format!(
                    "times must increase strictly (t = {} after {last})",
                    vals[0]
                ),
            ));
        }
        rows.t_precision.observe(cells[0]);
        for (p, cell) in rows.precision.iter_mut().zip(&cells[1..]) {
            p.observe(cell);
        }
        rows.lines.push(i + 1);
        rows.t.push(vals[0]);
        rows.values.push(vals[1..].to_vec());
    }
    Ok(rows)
}
