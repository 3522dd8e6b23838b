//! Reading input files safely and quoting input text in messages.
//!
//! Every input file (scenario, trajectory CSV) is read by [`read_text`]: only a regular file
//! (a directory, a device such as `/dev/zero`, a FIFO or a socket is refused *before* it is
//! opened for reading, so nothing can block or stream without end), at most
//! [`InputLimit::max_bytes`] bytes (read through `take`, so a file that grows while it is
//! read cannot exceed it either), UTF-8. Messages quote input through [`excerpt`], so a
//! 10 MB line is never echoed back whole.

use std::fs::OpenOptions;
use std::io::{self, Read};
use std::path::Path;

/// Default largest input file: 16 MiB (a trajectory CSV of some 2 × 10⁵ full-precision
/// rows; scenario files are a few kB).
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 16 << 20;

/// Longest piece of input text quoted in a message, in characters.
pub const EXCERPT_CHARS: usize = 80;

/// The size limit of input files (`--max-input-size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputLimit {
    /// Largest accepted file size in bytes; `None`: no limit (`--max-input-size none`).
    pub max_bytes: Option<u64>,
}

impl Default for InputLimit {
    fn default() -> Self {
        Self {
            max_bytes: Some(DEFAULT_MAX_INPUT_BYTES),
        }
    }
}

impl InputLimit {
    /// No size limit (the file type is still checked).
    pub const UNLIMITED: Self = Self { max_bytes: None };
}

/// `text` if it has at most `max_chars` characters, else its start and a note that says it
/// is truncated and how long it is.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}… (truncated: {} characters in all)",
            &text[..cut],
            text.chars().count()
        ),
    }
}

/// Longest message [`shorten_quotes`] leaves whole, in characters.
pub const MESSAGE_CHARS: usize = 2000;

/// `message` with every quoted piece of input (between backticks or double quotes) longer
/// than [`EXCERPT_CHARS`] cut to an [`excerpt`]; a message still longer than
/// [`MESSAGE_CHARS`] is cut too. Messages quote names and values from the file; this keeps a
/// 10 MB value from being echoed back whole.
pub fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * MESSAGE_CHARS));
    let mut rest = message;
    while let Some(open) = rest.find(['`', '"']) {
        let quote = &rest[open..open + 1];
        let inner_start = open + 1;
        let Some(len) = rest[inner_start..].find(quote) else {
            break;
        };
        let inner = &rest[inner_start..inner_start + len];
        out.push_str(&rest[..inner_start]);
        out.push_str(&excerpt(inner, EXCERPT_CHARS));
        out.push_str(quote);
        rest = &rest[inner_start + len + 1..];
    }
    out.push_str(rest);
    if out.chars().nth(MESSAGE_CHARS).is_some() {
        excerpt(&out, MESSAGE_CHARS)
    } else {
        out
    }
}

/// What kind of file system object a non-regular path is, for messages.
fn kind_name(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn refuse_non_regular(t: &std::fs::FileType) -> io::Result<()> {
    if t.is_file() {
        return Ok(());
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "it is {}, not a regular file; stmech reads input only from regular files (save \
             the data to a file and give its path)",
            kind_name(t)
        ),
    ))
}

fn too_large(size: Option<u64>, max: u64) -> io::Error {
    let size = size.map_or_else(|| "larger than".to_owned(), |s| format!("{} bytes,", s));
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!(
            "the file is {size} more than the limit of {} for input files; use a smaller \
             file (for a trajectory: fewer rows), or raise the limit with --max-input-size \
             SIZE (e.g. --max-input-size {}M, or none)",
            format_bytes(max),
            (max >> 20).saturating_mul(4).max(1)
        ),
    )
}

/// Reads a whole input file as UTF-8 text: refuses anything but a regular file before
/// reading it, and a file larger than `limit` (see the module docs). The errors are
/// [`io::ErrorKind::InvalidInput`] (not a regular file), [`io::ErrorKind::FileTooLarge`],
/// [`io::ErrorKind::InvalidData`] (not UTF-8) or those of the file system.
pub fn read_text(path: &Path, limit: InputLimit) -> io::Result<String> {
    // follows symbolic links: a link to a regular file is fine
    refuse_non_regular(&std::fs::metadata(path)?.file_type())?;
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        // if the path was swapped for a FIFO after the check, opening must not block
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    refuse_non_regular(&meta.file_type())?;
    let max = limit.max_bytes.unwrap_or(u64::MAX);
    if meta.len() > max {
        return Err(too_large(Some(meta.len()), max));
    }
    // the size is known and within the limit; growth while reading is capped by `take`
    let hint = usize::try_from(meta.len())
        .unwrap_or(usize::MAX)
        .min(1 << 30);
    let mut bytes = Vec::with_capacity(hint);
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(None, max));
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the file is not UTF-8 text (invalid byte at offset {at}); save it as UTF-8 \
                 text"
            ),
        )
    })
}

/// `1.5 GB`-style rendering of a byte count (binary units).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut x = bytes as f64;
    let mut u = 0;
    while x >= 1024.0 && u + 1 < UNITS.len() {
        x /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if x >= 100.0 {
        format!("{x:.0} {}", UNITS[u])
    } else {
        format!("{x:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_truncates_and_says_so() {
        assert_eq!(excerpt("short", 10), "short");
        assert_eq!(excerpt("exactly10!", 10), "exactly10!");
        let long = "é".repeat(1000);
        let e = excerpt(&long, 5);
        assert!(e.starts_with("ééééé… (truncated: 1000 characters"), "{e}");
    }

    #[test]
    fn quoted_input_in_messages_is_shortened() {
        let long = "a".repeat(10_000_000);
        let m = shorten_quotes(&format!(
            "unknown variant `{long}`, expected `space-time`; no body named \"{long}\"; fix it"
        ));
        assert!(m.len() < 600, "{}", m.len());
        assert!(m.contains("`space-time`") && m.ends_with("; fix it"), "{m}");
        assert_eq!(
            m.matches("truncated: 10000000 characters").count(),
            2,
            "{m}"
        );
        assert_eq!(shorten_quotes("plain `short` text"), "plain `short` text");
        // an unmatched quote and a very long unquoted message
        let m = shorten_quotes(&format!("odd ` {long}"));
        assert!(m.len() < 2100 && m.contains("truncated"), "{}", m.len());
    }

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "hello").unwrap();
        assert_eq!(read_text(&p, InputLimit::default()).unwrap(), "hello");
        let small = InputLimit { max_bytes: Some(4) };
        let e = read_text(&p, small).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("--max-input-size"), "{e}");
        assert_eq!(
            read_text(&p, InputLimit { max_bytes: Some(5) }).unwrap(),
            "hello"
        );
        assert_eq!(read_text(&p, InputLimit::UNLIMITED).unwrap(), "hello");
        std::fs::write(&p, [0x66, 0xff, 0x66]).unwrap();
        let e = read_text(&p, InputLimit::default()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("offset 1"), "{e}");
    }

    #[test]
    fn directories_and_devices_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path(), InputLimit::UNLIMITED).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("a directory"), "{e}");
        #[cfg(unix)]
        {
            // an endless device: refused before a single byte is read, even without a limit
            let e = read_text(Path::new("/dev/zero"), InputLimit::UNLIMITED).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert!(e.to_string().contains("character device"), "{e}");
        }
    }
}
