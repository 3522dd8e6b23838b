//! The output directory of a run, and the rules that keep a user's files safe.
//!
//! stmech only ever deletes or replaces a directory that it wrote itself and can prove it
//! (docs/architecture.md, "Output safety"):
//!
//! 1. **Resolve** ([`resolve`]): the target is made absolute, `.` dropped and `..` applied to
//!    the existing part of the path after resolving its links, so `newdir/.`, `a/../b` and
//!    `./x` name the directory they mean.
//! 2. **Refuse before solving** ([`OutputDir::check_target`], [`refuse_inputs`]): the file
//!    system root, the current or home directory or any directory containing them, a
//!    directory that is or contains an input file, a mount point, a symbolic link, a file, and
//!    an existing directory that stmech cannot prove it wrote. Proof is the manifest
//!    [`MANIFEST`] that every committed result holds: it lists every file, and a directory
//!    with any entry that is not in it (a user's file added later) is not stmech's any more.
//!    An empty directory holds nothing to lose and counts as replaceable.
//!    Without `--force`, even stmech's own result is kept ([`OutputError::Exists`]).
//! 3. **Stage**: results are written to `<target>.tmp-<pid>`, marked by the file
//!    [`INCOMPLETE_MARKER`] while it is written.
//! 4. **Commit** ([`OutputDir::commit`], steps [`CommitStep`]): every file is flushed to disk
//!    and the manifest written (itself atomically); then the staging directory, still marked,
//!    is renamed to a new target, or swapped with the old result in one atomic
//!    `renameat2(RENAME_EXCHANGE)` (Linux), and only then is the marker removed from the
//!    target (from the swap on its manifest proves it complete; a marker left by a kill in
//!    between is removed by the next run). At every instant the target path holds the old
//!    complete result or the new complete one, and a staging name never holds the new result
//!    unmarked. The old result, now under the staging name, is *retired*: marked incomplete,
//!    its manifest removed first, then deleted.
//!    Where the swap is not supported, two renames are used and the old result waits under
//!    `<target>.old-<pid>` (complete, with its manifest) between them; the next run puts it
//!    back if the process died in that instant.
//! 5. **Leftovers** of killed runs (`<target>.tmp-<pid>`, `.old-<pid>`, `.failed.tmp-<pid>` of
//!    a process that no longer exists, holding stmech's marker or manifest) are cleaned up by
//!    the next run to the same target.
//!
//! A failure (full disk, read-only file system) returns an error that names the file; the
//! staging directory is removed and the old result is left untouched.

use serde_json::{Value, json};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Name of the manifest every committed result directory holds.
pub const MANIFEST: &str = ".stmech-manifest.json";

/// Name of the marker file that a staging directory holds until it is complete.
pub const INCOMPLETE_MARKER: &str = "INCOMPLETE";

const INCOMPLETE_TEXT: &str = "This directory holds the partial output of a stmech run that did not \
finish (interrupted or still running), or an old result being deleted. It is not a result; \
delete it (the next stmech run to the same output directory does). Only if it also holds \
.stmech-manifest.json and has the name of the output directory is it a complete result: the \
run was stopped just after moving it into place, and the next run removes this file.\n";

/// How every text of the [`INCOMPLETE_MARKER`] begins, this version's and earlier ones'.
const INCOMPLETE_PREFIX: &str = "This directory holds the partial output of a stmech run";

/// Largest manifest read (bytes): a manifest lists file names, a few kB.
const MANIFEST_LIMIT: u64 = 16 << 20;

const GENERATOR: &str = "stmech";

/// Failure to prepare or write an output directory.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The target exists and replacing it was not allowed.
    #[error(
        "output directory {} already exists; remove it, choose another directory (--out DIR), \
         or replace it (--force)",
        .0.display()
    )]
    Exists(PathBuf),
    /// The target path cannot name a directory to create (e.g. `/` or `new/..`).
    #[error("{} cannot be used as an output directory: give a path ending in a new directory name", .0.display())]
    BadPath(PathBuf),
    /// The target is a place stmech must not write to or replace.
    #[error("refusing to use {} as the output directory: {reason}; {remedy}", path.display())]
    Refused {
        /// The resolved target.
        path: PathBuf,
        /// Why.
        reason: String,
        /// What to do instead.
        remedy: &'static str,
    },
    /// The target's name leaves no room for the names of the directories stmech creates
    /// beside it (`<name>.tmp-<pid>`, `<name>.failed.tmp-<pid>`, …).
    #[error(
        "refusing to use {} as the output directory: its name is {len} bytes long, and the \
         directories stmech creates beside it while it writes (up to `<name>.failed.tmp-<pid>`, \
         {SIBLING_SUFFIX_MAX} bytes more) would exceed the file system's limit of {limit} bytes \
         per name; choose a name of at most {} bytes with --out DIR",
        path.display(),
        .limit.saturating_sub(SIBLING_SUFFIX_MAX)
    )]
    NameTooLong {
        /// The resolved target.
        path: PathBuf,
        /// Length of its name (bytes).
        len: usize,
        /// The file system's limit on a name (bytes).
        limit: usize,
    },
    /// A file-system operation failed. The message names the path, says what failed in
    /// words (the system's text, never a debug dump) and, for a full disk, a quota or a
    /// read-only file system, what to do.
    #[error("cannot {action} {}: {source}{}", path.display(), io_remedy(source))]
    Io {
        /// What was attempted ("create directory", "write", "rename", ...).
        action: &'static str,
        /// The path it was attempted on.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// What to do about an I/O error that the user can remedy (`""` for the others).
pub(crate) fn io_remedy(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::StorageFull | ErrorKind::QuotaExceeded => {
            "; the disk is full (or your quota is used up): free some space, or write the \
             results to another disk with --out DIR"
        }
        ErrorKind::ReadOnlyFilesystem => {
            "; the file system is read-only: write the results elsewhere with --out DIR"
        }
        ErrorKind::FileTooLarge => {
            "; the file exceeds the file-size limit (ulimit -f) or the file system's largest \
             file: raise the limit or write the results elsewhere with --out DIR"
        }
        _ => "",
    }
}

impl OutputError {
    /// True for errors of the user's choice of path (exit code "invalid input").
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Self::Exists(_) | Self::BadPath(_) | Self::Refused { .. } | Self::NameTooLong { .. }
        )
    }
}

pub(crate) fn io_err(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> OutputError {
    let path = path.to_owned();
    move |source| OutputError::Io {
        action,
        path,
        source,
    }
}

const ELSEWHERE: &str = "choose a new directory with --out DIR (stmech creates it)";
const NOT_OURS: &str = "stmech replaces only directories it wrote itself; move or delete it \
yourself, or choose another directory with --out DIR";

fn refused(path: &Path, reason: impl Into<String>, remedy: &'static str) -> OutputError {
    OutputError::Refused {
        path: path.to_owned(),
        reason: reason.into(),
        remedy,
    }
}

/// The absolute path that `target` names: relative to the current directory, `.` dropped,
/// the existing part canonicalised (links and `..` resolved). A `..` after a directory that
/// does not exist, and a path naming the root, are [`OutputError::BadPath`].
pub fn resolve(target: &Path) -> Result<PathBuf, OutputError> {
    if target.as_os_str().is_empty() {
        return Err(OutputError::BadPath(target.to_owned()));
    }
    let abs = if target.is_absolute() {
        target.to_owned()
    } else {
        std::env::current_dir()
            .map_err(io_err("read the current directory for", target))?
            .join(target)
    };
    // The longest prefix that exists (as anything, a link included).
    let mut prefix = abs.as_path();
    while std::fs::symlink_metadata(prefix).is_err() {
        prefix = match prefix.parent() {
            Some(p) => p,
            None => break,
        };
    }
    let rest = abs.strip_prefix(prefix).unwrap_or(Path::new(""));
    // The target itself may be a link: keep its own name, resolve only its parent.
    let (mut out, tail): (PathBuf, Vec<OsString>) = if rest.as_os_str().is_empty() {
        match (prefix.parent(), prefix.file_name()) {
            (Some(parent), Some(name)) => (
                std::fs::canonicalize(parent).map_err(io_err("resolve", parent))?,
                vec![name.to_owned()],
            ),
            // `..` last, `/`, or `.`: canonicalise the whole thing
            _ => (
                std::fs::canonicalize(prefix).map_err(io_err("resolve", prefix))?,
                Vec::new(),
            ),
        }
    } else {
        let base = std::fs::canonicalize(prefix).map_err(io_err("resolve", prefix))?;
        let mut tail = Vec::new();
        for c in rest.components() {
            match c {
                Component::CurDir => {}
                Component::Normal(n) => tail.push(n.to_owned()),
                _ => return Err(OutputError::BadPath(target.to_owned())),
            }
        }
        (base, tail)
    };
    for n in tail {
        out.push(n);
    }
    if out.parent().is_none() || out.file_name().is_none() {
        return Err(OutputError::BadPath(target.to_owned()));
    }
    Ok(out)
}

/// What [`OutputDir::check_target`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetState {
    /// The directory does not exist and can be created.
    Creatable,
    /// It is a result stmech wrote: a run replaces it only with `--force`.
    Exists,
}

/// Refuses a (resolved) target that is or contains one of `inputs` (the scenario, a
/// trajectory CSV): replacing it would delete the input. Inputs that do not exist are skipped.
pub fn refuse_inputs(target: &Path, inputs: &[PathBuf]) -> Result<(), OutputError> {
    let target = resolve(target)?;
    for input in inputs {
        let Ok(input) = std::fs::canonicalize(input) else {
            continue;
        };
        if input.starts_with(&target) {
            let reason = if input == target {
                format!("it is the input file {}", input.display())
            } else {
                format!("it contains the input file {}", input.display())
            };
            return Err(refused(&target, reason, ELSEWHERE));
        }
    }
    Ok(())
}

/// Whether `path` is stmech's incomplete-marker file (its name and stmech's text).
fn is_marker(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() <= 4096)
        && std::fs::read(path).is_ok_and(|t| t.starts_with(INCOMPLETE_PREFIX.as_bytes()))
}

/// Whether `dir` is a directory that stmech is writing or deleting: a staging directory
/// (`<target>.tmp-<pid>`, `.failed.tmp-<pid>`) or an old result being retired, both marked
/// with the [`INCOMPLETE_MARKER`], or an old result waiting under `<target>.old-<pid>`
/// between the two renames of the fall-back commit.
fn is_staging(dir: &Path) -> bool {
    if is_marker(&dir.join(INCOMPLETE_MARKER)) {
        return true;
    }
    let old_name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit_once(".old-"))
        .is_some_and(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
    old_name && dir.join(MANIFEST).is_file()
}

/// Why `dir` is not provably a result stmech wrote (`None`: it is).
fn not_ours(dir: &Path) -> Option<String> {
    // An empty directory holds nothing to lose (e.g. made by `mkdir` for the results).
    if std::fs::read_dir(dir).is_ok_and(|mut e| e.next().is_none()) {
        return None;
    }
    let manifest = dir.join(MANIFEST);
    let files = match read_manifest(&manifest) {
        Ok(f) => f,
        Err(why) => return Some(why),
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return Some(format!("its entries cannot be listed ({e})")),
    };
    for entry in entries {
        let Ok(entry) = entry else {
            return Some("its entries cannot be listed".into());
        };
        let name = entry.file_name();
        // the marker beside a manifest: a complete result whose run was stopped between
        // swapping it in and removing the marker (the manifest proves it complete)
        if name == MANIFEST || (name == INCOMPLETE_MARKER && is_marker(&entry.path())) {
            continue;
        }
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        let listed = name.to_str().is_some_and(|n| files.iter().any(|f| f == n));
        if !is_file || !listed {
            return Some(format!(
                "it holds {}, which stmech did not write there",
                name.to_string_lossy()
            ));
        }
    }
    None
}

/// The file names of a manifest, or why it is not one.
fn read_manifest(path: &Path) -> Result<Vec<String>, String> {
    use std::io::Read;
    let missing = || {
        format!(
            "it has no stmech manifest ({MANIFEST}), so stmech cannot prove that it wrote it \
             (results of stmech versions before 2026-11-25 have none)"
        )
    };
    let meta = std::fs::symlink_metadata(path).map_err(|_| missing())?;
    if !meta.is_file() || meta.len() > MANIFEST_LIMIT {
        return Err(missing());
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MANIFEST_LIMIT).read_to_string(&mut text))
        .map_err(|_| missing())?;
    let v: Value = serde_json::from_str(&text).map_err(|_| missing())?;
    if v["generator"] != GENERATOR {
        return Err(missing());
    }
    let files = v["files"].as_array().ok_or_else(missing)?;
    Ok(files
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect())
}

#[cfg(unix)]
fn is_mount_point(dir: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let (Ok(m), Some(parent)) = (std::fs::metadata(dir), dir.parent()) else {
        return false;
    };
    std::fs::metadata(parent).is_ok_and(|p| p.dev() != m.dev())
}

#[cfg(not(unix))]
fn is_mount_point(_dir: &Path) -> bool {
    false
}

/// The safety checks of a resolved target (rule 2 of the module documentation).
fn inspect(target: &Path) -> Result<TargetState, OutputError> {
    if let Some(staging) = target.ancestors().skip(1).find(|d| is_staging(d)) {
        return Err(refused(
            target,
            format!(
                "it is inside {}, the unfinished staging directory of another stmech run \
                 (marked {INCOMPLETE_MARKER}), which that run moves or deletes when it ends, and \
                 the next run to its target deletes if it was killed",
                staging.display()
            ),
            ELSEWHERE,
        ));
    }
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize)
        && cwd.starts_with(target)
    {
        return Err(refused(
            target,
            "it is or contains the current directory",
            "choose a new directory inside it, e.g. --out out/run",
        ));
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty())
        && let Ok(home) = std::fs::canonicalize(home)
        && home.starts_with(target)
    {
        return Err(refused(
            target,
            "it is or contains your home directory",
            ELSEWHERE,
        ));
    }
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TargetState::Creatable),
        Err(e) => return Err(io_err("inspect", target)(e)),
    };
    if meta.file_type().is_symlink() {
        return Err(refused(
            target,
            "it is a symbolic link",
            "give the directory itself, or a new directory with --out DIR",
        ));
    }
    if !meta.is_dir() {
        return Err(refused(
            target,
            "it is a file, not a directory",
            "stmech never replaces a file; choose a new directory with --out DIR",
        ));
    }
    if is_mount_point(target) {
        return Err(refused(target, "it is a mount point", ELSEWHERE));
    }
    if let Some(why) = not_ours(target) {
        return Err(refused(target, why, NOT_OURS));
    }
    Ok(TargetState::Exists)
}

/// The longest suffix stmech appends to a target's name for the directories it creates
/// beside it: `.failed.tmp-<pid>` with a process id of up to 7 digits (Linux's largest,
/// `PID_MAX_LIMIT` = 2²² = 4194304).
pub const SIBLING_SUFFIX_MAX: usize = ".failed.tmp-".len() + 7;

/// The longest name (bytes) the file system holding `dir` (or its nearest existing ancestor)
/// accepts: `pathconf(_PC_NAME_MAX)`, 255 where it cannot tell.
fn name_max(dir: &Path) -> usize {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut existing = Some(dir);
        while let Some(d) = existing {
            if d.exists() {
                let Ok(c) = std::ffi::CString::new(d.as_os_str().as_bytes()) else {
                    break;
                };
                // SAFETY: a valid NUL-terminated path that outlives the call.
                let n = unsafe { libc::pathconf(c.as_ptr(), libc::_PC_NAME_MAX) };
                if n > 0 {
                    return n as usize;
                }
                break;
            }
            existing = d.parent();
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = dir;
    255
}

/// Refuses a resolved target whose name, with the longest suffix stmech appends beside it
/// ([`SIBLING_SUFFIX_MAX`]), would exceed the file system's limit on a name: the staging
/// directory (or the `.failed` summary of a run that fails after solving) could not be
/// created.
fn names_fit(target: &Path) -> Result<(), OutputError> {
    let len = target.file_name().map_or(0, |n| n.len());
    let limit = target.parent().map_or(255, name_max);
    if len + SIBLING_SUFFIX_MAX > limit {
        return Err(OutputError::NameTooLong {
            path: target.to_owned(),
            len,
            limit,
        });
    }
    Ok(())
}

/// `<dir>/<name><suffix>` for the target `<dir>/<name>`.
fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_owned();
    name.push(suffix);
    target.with_file_name(name)
}

fn process_alive(pid: u32) -> bool {
    if pid == std::process::id() {
        // Only one output directory per target at a time in this process: a leftover with
        // our pid is from a dead process whose pid we got, or from a simulated kill.
        return false;
    }
    if cfg!(target_os = "linux") {
        Path::new("/proc").join(pid.to_string()).exists()
    } else {
        true // cannot tell: keep it
    }
}

/// Deletes a directory stmech wrote so that every intermediate state is marked: the
/// incomplete marker is written first and the manifest removed next, so a directory that a
/// kill leaves half deleted never looks like a result.
fn retire(dir: &Path) -> Result<(), OutputError> {
    std::fs::write(dir.join(INCOMPLETE_MARKER), INCOMPLETE_TEXT)
        .map_err(io_err("write", &dir.join(INCOMPLETE_MARKER)))?;
    let manifest = dir.join(MANIFEST);
    match std::fs::remove_file(&manifest) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io_err("remove", &manifest)(e));
        }
        _ => {}
    }
    for entry in std::fs::read_dir(dir).map_err(io_err("list", dir))? {
        let entry = entry.map_err(io_err("list", dir))?;
        if entry.file_name() == INCOMPLETE_MARKER {
            continue;
        }
        let path = entry.path();
        let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        removed.map_err(io_err("remove", &path))?;
    }
    std::fs::remove_dir_all(dir).map_err(io_err("remove", dir))
}

/// Removes the incomplete marker from a complete result (one with a manifest) and flushes
/// the directory.
fn unmark(dir: &Path) -> Result<(), OutputError> {
    let marker = dir.join(INCOMPLETE_MARKER);
    match std::fs::remove_file(&marker) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io_err("remove", &marker)(e));
        }
        _ => {}
    }
    sync_dir(dir)
}

/// Cleans up what killed runs to `target` left beside it (rule 5).
fn clean_leftovers(target: &Path) -> Result<(), OutputError> {
    let (Some(parent), Some(name)) = (target.parent(), target.file_name()) else {
        return Ok(());
    };
    let Some(name) = name.to_str() else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Ok(());
    };
    let mut leftovers: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let Ok(file_name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(rest) = file_name.strip_prefix(name) else {
            continue;
        };
        for kind in [".tmp-", ".old-", ".failed.tmp-"] {
            if let Some(pid) = rest.strip_prefix(kind)
                && let Ok(pid) = pid.parse::<u32>()
                && !process_alive(pid)
                && entry.file_type().is_ok_and(|t| t.is_dir())
            {
                leftovers.push((kind.to_owned(), entry.path()));
            }
        }
    }
    leftovers.sort();
    // A run killed between swapping its result in and removing the marker: the manifest
    // proves the result complete; the marker goes.
    if is_marker(&target.join(INCOMPLETE_MARKER)) && read_manifest(&target.join(MANIFEST)).is_ok() {
        unmark(target)?;
    }
    for (kind, path) in leftovers {
        let marked = path.join(INCOMPLETE_MARKER).is_file();
        let complete = not_ours(&path).is_none();
        if !(marked || complete) {
            continue; // not provably ours: leave it
        }
        if kind == ".old-" && complete && std::fs::symlink_metadata(target).is_err() {
            // Killed between the two renames of the fall-back commit: put the old result back.
            std::fs::rename(&path, target).map_err(io_err("restore the old result", &path))?;
        } else {
            retire(&path)?;
        }
    }
    Ok(())
}

fn sync_dir(dir: &Path) -> Result<(), OutputError> {
    #[cfg(unix)]
    std::fs::File::open(dir)
        .and_then(|f| f.sync_all())
        .map_err(io_err("flush", dir))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Atomically exchanges two directories (Linux `renameat2(RENAME_EXCHANGE)`).
/// `Ok(false)`: not supported here (other systems, some file systems).
fn exchange(a: &Path, b: &Path) -> Result<bool, std::io::Error> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let ca = std::ffi::CString::new(a.as_os_str().as_bytes())?;
        let cb = std::ffi::CString::new(b.as_os_str().as_bytes())?;
        // SAFETY: both arguments are valid NUL-terminated paths that outlive the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                ca.as_ptr(),
                libc::AT_FDCWD,
                cb.as_ptr(),
                libc::RENAME_EXCHANGE,
            )
        };
        if rc == 0 {
            return Ok(true);
        }
        let e = std::io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EOPNOTSUPP) => Ok(false),
            _ => Err(e),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

/// The steps of [`OutputDir::commit`], where a fault can be injected
/// ([`OutputDir::inject_faults`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitStep {
    /// Before anything: files are flushed to disk.
    Flush,
    /// The manifest is written (to a temporary name, then renamed); the staging directory
    /// keeps its incomplete marker.
    Manifest,
    /// The staging directory takes the place of the target (rename or exchange).
    Swap,
    /// Fall-back commit only: between moving the old result away and renaming the new one in.
    BetweenRenames,
    /// The result is at the target (its manifest proves it complete): the incomplete marker
    /// is removed from it and the directory flushed.
    Unmark,
    /// The old result (under the staging name) is being retired.
    Retire,
    /// A stale `<target>.failed` is removed; the parent directory is flushed.
    Finish,
}

impl CommitStep {
    /// Every step, in order.
    pub const ALL: [CommitStep; 7] = [
        Self::Flush,
        Self::Manifest,
        Self::Swap,
        Self::BetweenRenames,
        Self::Unmark,
        Self::Retire,
        Self::Finish,
    ];
}

/// An injected fault (tests of the commit's crash safety).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The process dies at this step: nothing more runs, no clean-up.
    Kill,
    /// The step fails with an I/O error (like a full disk); clean-up runs.
    Fail,
}

type FaultHook = Box<dyn FnMut(CommitStep) -> Option<Fault> + Send + Sync>;

/// A staging directory for one run's results, committed to the target only on success.
///
/// Dropping it without [`commit`](Self::commit) removes the staging directory, so
/// interrupted or failed runs leave no partial output behind.
pub struct OutputDir {
    target: PathBuf,
    staging: PathBuf,
    force: bool,
    done: bool,
    /// The old result while it is retired (removed on drop if the commit fails there).
    retiring: Option<PathBuf>,
    /// A simulated kill: nothing runs after it, not even the clean-up of `Drop`.
    killed: bool,
    fault: Option<FaultHook>,
    rename_pair: bool,
}

impl std::fmt::Debug for OutputDir {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputDir")
            .field("target", &self.target)
            .field("staging", &self.staging)
            .field("force", &self.force)
            .finish()
    }
}

impl OutputDir {
    /// Checks, without creating anything, that [`prepare`](Self::prepare) would accept
    /// `target`: it resolves, passes the safety rules, and entries can be created in its
    /// nearest existing ancestor (probed with a uniquely named directory that is removed at
    /// once, since permission bits do not tell, e.g. for root or ACLs).
    pub fn check_target(target: &Path) -> Result<TargetState, OutputError> {
        let target = resolve(target)?;
        names_fit(&target)?;
        let state = inspect(&target)?;
        let mut dir = target.as_path();
        let dir = loop {
            dir = match dir.parent() {
                Some(p) => p,
                None => return Err(OutputError::BadPath(target.clone())),
            };
            match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => break dir,
                Ok(_) => {
                    return Err(refused(
                        dir,
                        "it is a file, not a directory",
                        "choose another output directory (--out DIR) or move the file",
                    ));
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err("inspect", dir)(e)),
            }
        };
        let probe = dir.join(format!(".stmech-check-{}", std::process::id()));
        std::fs::create_dir(&probe).map_err(io_err("create directories in", dir))?;
        std::fs::remove_dir(&probe).map_err(io_err("remove", &probe))?;
        Ok(state)
    }

    /// Checks, without touching anything, that the names of the directories a run to
    /// `target` creates beside it fit the file system's limit (what `stmech check` tests for
    /// `compare`'s default directory; [`check_target`](Self::check_target) and
    /// [`prepare`](Self::prepare) test it too).
    pub fn check_names(target: &Path) -> Result<(), OutputError> {
        names_fit(&resolve(target)?)
    }

    /// Resolves and checks the target (see the module documentation) and creates the staging
    /// directory `<target>.tmp-<pid>` beside it. An existing result is an error unless
    /// `force`. Call this before solving so that a user does not wait for a result that
    /// cannot be saved.
    pub fn prepare(target: &Path, force: bool) -> Result<Self, OutputError> {
        let target = resolve(target)?;
        names_fit(&target)?;
        // First, so that a result a killed run left aside is back in place when inspected.
        clean_leftovers(&target)?;
        if inspect(&target)? == TargetState::Exists && !force {
            return Err(OutputError::Exists(target));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(io_err("create directory", parent))?;
        }
        let staging = sibling(&target, &format!(".tmp-{}", std::process::id()));
        std::fs::create_dir(&staging).map_err(io_err("create directory", &staging))?;
        // A run killed before `commit` (Ctrl-C, SIGKILL, power loss) leaves this directory
        // behind; its name and this marker say that it is not a result.
        let marker = staging.join(INCOMPLETE_MARKER);
        if let Err(e) = std::fs::write(&marker, INCOMPLETE_TEXT) {
            let _ = std::fs::remove_dir_all(&staging);
            return Err(io_err("write", &marker)(e));
        }
        Ok(Self {
            target,
            staging,
            force,
            done: false,
            retiring: None,
            killed: false,
            fault: None,
            rename_pair: false,
        })
    }

    /// Calls `hook` at every [`CommitStep`]; a returned [`Fault`] is acted out there. For the
    /// crash-safety tests.
    #[doc(hidden)]
    pub fn inject_faults(
        &mut self,
        hook: impl FnMut(CommitStep) -> Option<Fault> + Send + Sync + 'static,
    ) {
        self.fault = Some(Box::new(hook));
    }

    /// Commits with two renames instead of the atomic exchange (the fall-back path), for tests.
    #[doc(hidden)]
    pub fn use_rename_pair(&mut self) {
        self.rename_pair = true;
    }

    fn at(&mut self, step: CommitStep) -> Result<(), OutputError> {
        let fault = self.fault.as_mut().and_then(|f| f(step));
        let source = match fault {
            None => return Ok(()),
            Some(Fault::Kill) => {
                self.killed = true; // a dead process cleans nothing up
                std::io::Error::other("simulated kill")
            }
            Some(Fault::Fail) => std::io::Error::other("simulated failure (e.g. disk full)"),
        };
        Err(OutputError::Io {
            action: "commit",
            path: self.target.clone(),
            source,
        })
    }

    /// Directory to write result files into (the staging directory).
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// The final output directory (resolved).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Path of a file in the staging directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.staging.join(name)
    }

    /// Flushes, writes the manifest and swaps the results in (module documentation, rule 4).
    /// Returns the target.
    ///
    /// The [`INCOMPLETE_MARKER`] stays in the staging directory until the result is at the
    /// target, so that a directory under a staging name is never unmarked while it holds the
    /// new result; from the swap on the manifest proves the result complete, and the marker
    /// is removed from the target ([`CommitStep::Unmark`]).
    pub fn commit(mut self) -> Result<PathBuf, OutputError> {
        self.at(CommitStep::Flush)?;
        let files = flush_files(&self.staging)?;
        self.at(CommitStep::Manifest)?;
        write_manifest(&self.staging, &files)?;
        // The target may have changed while we were solving.
        let state = inspect(&self.target)?;
        if state == TargetState::Exists && !self.force {
            return Err(OutputError::Exists(self.target.clone()));
        }
        self.at(CommitStep::Swap)?;
        let mut old_at = None;
        if state == TargetState::Creatable {
            std::fs::rename(&self.staging, &self.target)
                .map_err(io_err("rename the results to", &self.target))?;
            self.done = true;
        } else if !self.rename_pair
            && exchange(&self.staging, &self.target)
                .map_err(io_err("swap in the results at", &self.target))?
        {
            // The staging path now holds the old result.
            old_at = Some(self.staging.clone());
        } else {
            let old = sibling(&self.target, &format!(".old-{}", std::process::id()));
            std::fs::rename(&self.target, &old)
                .map_err(io_err("move away the old output", &self.target))?;
            let renamed = self.at(CommitStep::BetweenRenames).and_then(|()| {
                std::fs::rename(&self.staging, &self.target)
                    .map_err(io_err("rename the results to", &self.target))
            });
            if let Err(e) = renamed {
                if !self.killed {
                    // Put the previous result back rather than leaving nothing at the target.
                    let _ = std::fs::rename(&old, &self.target);
                }
                return Err(e);
            }
            self.done = true;
            old_at = Some(old);
        }
        // From here a failure leaves the new result at the target and deletes the old one.
        self.retiring.clone_from(&old_at);
        if let Some(parent) = self.target.parent() {
            sync_dir(parent)?;
        }
        self.at(CommitStep::Unmark)?;
        unmark(&self.target)?;
        if let Some(old) = old_at {
            self.at(CommitStep::Retire)?;
            retire(&old)?;
            self.retiring = None;
            self.done = true;
        }
        self.at(CommitStep::Finish)?;
        let failed = sibling(&self.target, ".failed");
        if std::fs::symlink_metadata(&failed).is_ok() && not_ours(&failed).is_none() {
            // A previous failure of this target is superseded by this success.
            let _ = retire(&failed);
        }
        Ok(self.target.clone())
    }

    /// Discards the staging directory and writes `summary` as `summary.json` into
    /// `<target>.failed` (replacing an earlier one that stmech wrote); returns that directory.
    pub fn fail(mut self, summary: &Value) -> Result<PathBuf, OutputError> {
        let _ = std::fs::remove_dir_all(&self.staging);
        self.done = true;
        let failed = sibling(&self.target, ".failed");
        let exists = std::fs::symlink_metadata(&failed).is_ok();
        if exists && let Some(why) = not_ours(&failed) {
            return Err(refused(&failed, why, NOT_OURS));
        }
        let staging = sibling(&self.target, &format!(".failed.tmp-{}", std::process::id()));
        if std::fs::symlink_metadata(&staging).is_ok() {
            retire(&staging)?;
        }
        std::fs::create_dir(&staging).map_err(io_err("create directory", &staging))?;
        let written = super::write_json(&staging.join("summary.json"), summary)
            .and_then(|()| flush_files(&staging))
            .and_then(|files| write_manifest(&staging, &files))
            .and_then(|()| {
                if exists {
                    retire(&failed)?;
                }
                std::fs::rename(&staging, &failed).map_err(io_err("rename to", &failed))
            });
        if written.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        written.map(|()| failed)
    }
}

/// Flushes every file of `dir` to disk; returns their names (without the marker).
///
/// The flushes run on up to [`FLUSH_THREADS`] threads at once: each `fsync` of a new file
/// waits for a journal commit, and concurrent ones share commits, so a run with a VTK series
/// of 200 files waits for a few commits instead of 200 (the order of the flushes does not
/// matter: nothing is marked complete before all have returned). The first error (in the
/// order of the names) is reported.
fn flush_files(dir: &Path) -> Result<Vec<String>, OutputError> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_err("list", dir))? {
        let entry = entry.map_err(io_err("list", dir))?;
        paths.push((entry.file_name(), entry.path()));
    }
    paths.sort();
    let flush = |path: &Path| {
        std::fs::File::open(path)
            .and_then(|f| f.sync_all())
            .map_err(io_err("flush", path))
    };
    let chunk = paths.len().div_ceil(FLUSH_THREADS).max(1);
    let results: Vec<Result<(), OutputError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().try_for_each(|(_, p)| flush(p))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    results.into_iter().collect::<Result<(), _>>()?;
    Ok(paths
        .into_iter()
        .filter(|(name, _)| name != INCOMPLETE_MARKER && name != MANIFEST)
        .map(|(name, _)| name.to_string_lossy().into_owned())
        .collect())
}

/// Largest number of files flushed at once by [`flush_files`].
const FLUSH_THREADS: usize = 16;

/// Writes the manifest atomically (temporary name, flush, rename).
fn write_manifest(dir: &Path, files: &[String]) -> Result<(), OutputError> {
    let manifest = json!({
        "generator": GENERATOR,
        "version": env!("CARGO_PKG_VERSION"),
        "note": "stmech wrote this directory and replaces it (--force) only while it holds \
                 nothing but these files",
        "files": files,
    });
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    std::fs::File::create(&tmp)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()
        })
        .map_err(io_err("write", &tmp))?;
    let path = dir.join(MANIFEST);
    std::fs::rename(&tmp, &path).map_err(io_err("write", &path))
}

impl Drop for OutputDir {
    fn drop(&mut self) {
        if self.killed {
            return;
        }
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
        if let Some(old) = self.retiring.take() {
            let _ = std::fs::remove_dir_all(old);
        }
    }
}
