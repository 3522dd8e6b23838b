//! Errors of writing results.

use stmech::io::output::OutputError;

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The output directory (staging, a file in it, the commit).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A file or a plot could not be written.
    #[error("{0}")]
    Write(String),
}

impl AppError {
    /// Whether the output target itself is refused (an input problem, exit code 2 in the CLI)
    /// rather than an I/O failure.
    pub fn is_input(&self) -> bool {
        match self {
            Self::Output(e) => e.is_input(),
            Self::Write(_) => false,
        }
    }

    /// A failure with its causes on one line (`a: b: c`).
    pub fn write(error: &anyhow::Error) -> Self {
        Self::Write(format!("{error:#}"))
    }

    /// The [`OutputError`] of writing `path`.
    pub fn io(path: std::path::PathBuf, source: std::io::Error) -> Self {
        Self::Output(OutputError::Io {
            action: "write",
            path,
            source,
        })
    }
}
