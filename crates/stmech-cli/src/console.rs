//! Printing that never panics. `println!` panics when stdout is a closed pipe
//! (`stmech check a.toml | head -1`); here a closed stdout or stderr only ends what is shown
//! there: the run goes on, writes its results and keeps its exit code.

use std::io::Write;

/// One line to stdout; errors (a closed pipe) are ignored.
pub fn out(args: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stdout().lock(), "{args}");
}

/// One line to stderr; errors are ignored.
pub fn err(args: std::fmt::Arguments<'_>) {
    let _ = writeln!(std::io::stderr().lock(), "{args}");
}

/// `println!` that ignores a closed stdout.
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::console::out(format_args!($($t)*))
    };
}

/// `eprintln!` that ignores a closed stderr.
macro_rules! errln {
    ($($t:tt)*) => {
        $crate::console::err(format_args!($($t)*))
    };
}

/// A CSV field, quoted (the comparison tables of `stmech compare`).
pub(crate) fn csv_field(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}
