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

    /// A failure with its causes on one line (`a: b: c`, see [`describe`]).
    pub fn write(error: &anyhow::Error) -> Self {
        Self::Write(describe(error))
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

/// An error and its causes on one line (`a: b: c`), skipping causes whose text the message
/// already holds: the library's errors include their source in their own message ("cannot
/// write f.csv: No space left on device (os error 28); …"), which is not repeated.
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let msg = cause.to_string();
        if text.contains(&msg) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&msg);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full disk while a file is written: the message names the file and the system's
    /// text once, with the remedy, and never a Rust debug dump of the error.
    #[test]
    fn a_full_disk_names_the_file_once_and_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trajectory.csv");
        let full = || std::io::Error::from_raw_os_error(28); // ENOSPC
        let e = stmech::io::output::write_file(&path, |_| Err(full())).unwrap_err();
        let text = AppError::write(&anyhow::Error::new(e)).to_string();
        let expected = format!("cannot write {}: No space left on device", path.display());
        assert!(text.starts_with(&expected), "{text}");
        assert_eq!(text.matches("os error 28").count(), 1, "{text}");
        assert!(text.contains("the disk is full"), "{text}");
        assert!(!text.contains("Os {") && !text.contains("kind:"), "{text}");
    }

    /// A PNG that cannot be saved because the disk is full (plotters' bitmap backend wraps
    /// the I/O error in its own types, whose text is a debug dump).
    #[test]
    fn a_plot_on_a_full_disk_names_the_file_in_words() {
        use plotters::drawing::DrawingAreaErrorKind;
        use plotters_backend::DrawingErrorKind;
        use plotters_bitmap::BitMapBackendError;
        let path = std::path::Path::new("/results/out.tmp-1/energy.png");
        for backend in [
            BitMapBackendError::IOError(std::io::Error::from_raw_os_error(28)),
            BitMapBackendError::ImageError(image::ImageError::IoError(
                std::io::Error::from_raw_os_error(28),
            )),
            // what the PNG encoder really passes on: the OS error as a text of kind Other
            BitMapBackendError::ImageError(image::ImageError::IoError(std::io::Error::other(
                std::io::Error::from_raw_os_error(28).to_string(),
            ))),
        ] {
            let e = DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(backend));
            let text = AppError::write(&crate::plots::plot_error(path, e)).to_string();
            assert!(
                text.starts_with("cannot write /results/out.tmp-1/energy.png: "),
                "{text}"
            );
            assert!(text.contains("No space left on device"), "{text}");
            assert!(text.contains("the disk is full"), "{text}");
            assert!(
                !text.contains("IoError") && !text.contains("Custom {") && !text.contains("kind:"),
                "{text}"
            );
        }
    }
}
