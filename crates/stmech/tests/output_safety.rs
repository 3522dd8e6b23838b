//! Crash safety of the output commit (issue 13): a fault — the process killed, or a step
//! failing like a full disk — is injected at every step of [`OutputDir::commit`], for a new
//! target and for `--force` over an old result, with the atomic exchange and with the
//! fall-back pair of renames. After each, the target holds the old complete result or the new
//! complete one (never nothing, never a mixture), every leftover beside it is marked as not a
//! result, and the next run to the same target cleans the leftovers up (restoring the old
//! result where a kill fell between the two renames).

use std::path::Path;
use stmech::io::output::{
    CommitStep, Fault, INCOMPLETE_MARKER, MANIFEST, OutputDir, OutputError, refuse_inputs,
};

/// Files of one result: `a.txt` and `b.txt` holding `tag`.
fn write_result(dir: &OutputDir, tag: &str) {
    std::fs::write(dir.file("a.txt"), tag).unwrap();
    std::fs::write(dir.file("b.txt"), tag).unwrap();
}

/// `Some(tag)` if `dir` is a complete result (manifest listing a.txt and b.txt, both `tag`).
/// It may still hold the incomplete marker: the manifest proves it complete (a kill between
/// the swap and the removal of the marker leaves both at the target).
fn complete_result(dir: &Path) -> Option<String> {
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(MANIFEST)).ok()?).ok()?;
    let files: Vec<&str> = manifest["files"]
        .as_array()?
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert_eq!(files, ["a.txt", "b.txt"], "manifest of {}", dir.display());
    let a = std::fs::read_to_string(dir.join("a.txt")).ok()?;
    let b = std::fs::read_to_string(dir.join("b.txt")).ok()?;
    assert_eq!(a, b, "a mixture of two results in {}", dir.display());
    Some(a)
}

/// Entries beside the target other than the target itself.
fn leftovers(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "out")
        .collect();
    names.sort();
    names
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    New,
    ReplaceExchange,
    ReplaceRenamePair,
}

fn fault_at(mode: Mode, step: CommitStep, fault: Fault) {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("out");
    let replacing = !matches!(mode, Mode::New);
    if replacing {
        let old = OutputDir::prepare(&target, false).unwrap();
        write_result(&old, "old");
        old.commit().unwrap();
        assert_eq!(complete_result(&target).as_deref(), Some("old"));
    }
    let mut dir = OutputDir::prepare(&target, true).unwrap();
    write_result(&dir, "new");
    if matches!(mode, Mode::ReplaceRenamePair) {
        dir.use_rename_pair();
    }
    let mut hit = false;
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = flag.clone();
    dir.inject_faults(move |s| {
        if s == step {
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
            Some(fault)
        } else {
            None
        }
    });
    let result = dir.commit();
    hit |= flag.load(std::sync::atomic::Ordering::SeqCst);
    let what = format!("{mode:?}, {fault:?} at {step:?}");
    if !hit {
        // The step does not occur in this mode (e.g. no retirement for a new target).
        assert!(result.is_ok(), "{what}: {result:?}");
        assert_eq!(complete_result(&target).as_deref(), Some("new"), "{what}");
        assert!(leftovers(root.path()).is_empty(), "{what}");
        return;
    }
    assert!(matches!(result, Err(OutputError::Io { .. })), "{what}");

    // The target: old or new, complete — or, for a new target, absent.
    let at_target = complete_result(&target);
    let killed_between_renames = matches!(mode, Mode::ReplaceRenamePair)
        && step == CommitStep::BetweenRenames
        && fault == Fault::Kill;
    if killed_between_renames {
        // The only instant without a result at the target: the old one waits, complete,
        // under `.old-<pid>` and the next run puts it back.
        assert!(!target.exists(), "{what}");
    } else if replacing {
        assert!(
            at_target.is_some(),
            "{what}: no complete result at the target"
        );
    } else {
        assert!(
            at_target.is_none() || at_target.as_deref() == Some("new"),
            "{what}"
        );
    }
    if fault == Fault::Fail && !replacing {
        assert!(!target.exists() || at_target.is_some(), "{what}");
    }
    // The target carries the marker only if the fault fell between the swap and its removal.
    if target.join(INCOMPLETE_MARKER).exists() {
        assert_eq!(
            step,
            CommitStep::Unmark,
            "{what}: a marked result at the target"
        );
        assert_eq!(at_target.as_deref(), Some("new"), "{what}");
    }
    // Every leftover is marked as not a result: a staging or old name, and either the
    // incomplete marker or a complete manifest.
    for name in leftovers(root.path()) {
        let path = root.path().join(&name);
        assert!(
            name.starts_with("out.tmp-") || name.starts_with("out.old-"),
            "{what}: unexpected leftover {name}"
        );
        assert!(
            path.join(INCOMPLETE_MARKER).is_file() || complete_result(&path).is_some(),
            "{what}: leftover {name} is neither marked incomplete nor a complete result"
        );
        // The new result under a staging name is marked until it is at the target: a
        // staging directory never looks like a result that is done.
        if complete_result(&path).as_deref() == Some("new") {
            assert!(
                path.join(INCOMPLETE_MARKER).is_file(),
                "{what}: the new result waits unmarked under the staging name {name}"
            );
        }
    }
    if fault == Fault::Fail {
        assert!(
            leftovers(root.path()).is_empty(),
            "{what}: a failure leaves {:?}",
            leftovers(root.path())
        );
    }

    // The next run cleans up (and restores) before it writes.
    let expected_before = if killed_between_renames {
        Some("old".to_owned())
    } else {
        at_target
    };
    let next = OutputDir::prepare(&target, true).unwrap();
    assert_eq!(
        complete_result(&target),
        expected_before,
        "{what}: the next run's clean-up changed the result"
    );
    assert!(
        !target.join(INCOMPLETE_MARKER).exists(),
        "{what}: the next run left the marker in a complete result"
    );
    assert_eq!(
        leftovers(root.path()),
        [next
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()],
        "{what}: leftovers after the next run's clean-up"
    );
    write_result(&next, "next");
    next.commit().unwrap();
    assert_eq!(complete_result(&target).as_deref(), Some("next"), "{what}");
    assert!(leftovers(root.path()).is_empty(), "{what}");
}

#[test]
fn a_fault_at_every_commit_step_leaves_the_old_or_the_new_complete_result() {
    for mode in [Mode::New, Mode::ReplaceExchange, Mode::ReplaceRenamePair] {
        for step in CommitStep::ALL {
            for fault in [Fault::Kill, Fault::Fail] {
                fault_at(mode, step, fault);
            }
        }
    }
}

#[test]
fn force_replaces_only_what_stmech_wrote() {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("out");
    // a user's directory: never replaced, not even with force
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("thesis.tex"), "precious").unwrap();
    let e = OutputDir::prepare(&target, true).unwrap_err();
    assert!(matches!(e, OutputError::Refused { .. }), "{e}");
    assert!(e.to_string().contains("manifest"), "{e}");
    assert_eq!(
        std::fs::read_to_string(target.join("thesis.tex")).unwrap(),
        "precious"
    );
    std::fs::remove_dir_all(&target).unwrap();
    // an empty directory holds nothing to lose: replaceable (with force)
    std::fs::create_dir(&target).unwrap();
    assert!(matches!(
        OutputDir::prepare(&target, false),
        Err(OutputError::Exists(_))
    ));
    let dir = OutputDir::prepare(&target, true).unwrap();
    write_result(&dir, "into-empty");
    dir.commit().unwrap();
    assert_eq!(complete_result(&target).as_deref(), Some("into-empty"));
    std::fs::remove_dir_all(&target).unwrap();

    // stmech's own result: kept without force, replaced with it
    let dir = OutputDir::prepare(&target, false).unwrap();
    write_result(&dir, "one");
    dir.commit().unwrap();
    assert!(matches!(
        OutputDir::prepare(&target, false),
        Err(OutputError::Exists(_))
    ));
    // ... but not once the user has put a file into it
    std::fs::write(target.join("notes.txt"), "mine").unwrap();
    let e = OutputDir::prepare(&target, true).unwrap_err();
    assert!(e.to_string().contains("notes.txt"), "{e}");
    std::fs::remove_file(target.join("notes.txt")).unwrap();
    let dir = OutputDir::prepare(&target, true).unwrap();
    write_result(&dir, "two");
    dir.commit().unwrap();
    assert_eq!(complete_result(&target).as_deref(), Some("two"));

    // a file is never replaced
    let file = root.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(
        OutputDir::prepare(&file, true),
        Err(OutputError::Refused { .. })
    ));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");

    // a symbolic link to stmech's own result is refused too (it would replace the link's target)
    #[cfg(unix)]
    {
        let link = root.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            OutputDir::prepare(&link, true),
            Err(OutputError::Refused { .. })
        ));
        assert_eq!(complete_result(&target).as_deref(), Some("two"));
    }
}

#[test]
fn a_directory_holding_an_input_file_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let proj = root.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    let scenario = proj.join("s.toml");
    std::fs::write(&scenario, "x").unwrap();
    for target in [
        proj.clone(),
        scenario.clone(),
        root.path().to_owned(),
        proj.join("."),
    ] {
        let e = refuse_inputs(&target, std::slice::from_ref(&scenario)).unwrap_err();
        assert!(e.to_string().contains("input file"), "{e}");
    }
    refuse_inputs(&proj.join("out"), &[scenario]).unwrap();
}

#[test]
fn spellings_of_a_path_name_the_directory_they_mean() {
    let root = tempfile::tempdir().unwrap();
    for (spelling, expected) in [
        ("newdir/.", "newdir"),
        ("./a/./b", "a/b"),
        ("x/../y", "y"),
        ("y/", "y"),
    ] {
        std::fs::create_dir_all(root.path().join("x")).unwrap();
        let dir = OutputDir::prepare(&root.path().join(spelling), false).unwrap();
        write_result(&dir, spelling);
        let at = dir.commit().unwrap();
        let want = std::fs::canonicalize(root.path()).unwrap().join(expected);
        assert_eq!(at, want, "{spelling}");
        assert_eq!(complete_result(&want).as_deref(), Some(spelling));
        std::fs::remove_dir_all(&want).unwrap();
    }
    // `..` after a directory that does not exist cannot be resolved
    assert!(matches!(
        OutputDir::prepare(&root.path().join("nope/../z"), false),
        Err(OutputError::BadPath(_))
    ));
    assert!(matches!(
        OutputDir::prepare(Path::new("/"), true),
        Err(OutputError::BadPath(_) | OutputError::Refused { .. })
    ));
}

#[test]
fn a_failed_run_replaces_only_its_own_failure_record() {
    let root = tempfile::tempdir().unwrap();
    let target = root.path().join("out");
    let dir = OutputDir::prepare(&target, false).unwrap();
    let failed = dir.fail(&serde_json::json!({"status": "failed"})).unwrap();
    assert!(failed.join(MANIFEST).is_file() && failed.join("summary.json").is_file());
    // a later failure replaces it, a later success removes it
    let dir = OutputDir::prepare(&target, false).unwrap();
    dir.fail(&serde_json::json!({"status": "failed again"}))
        .unwrap();
    let dir = OutputDir::prepare(&target, false).unwrap();
    write_result(&dir, "ok");
    dir.commit().unwrap();
    assert!(!failed.exists());
    // a user's directory of that name is not replaced
    std::fs::remove_dir_all(&target).unwrap();
    std::fs::create_dir(&failed).unwrap();
    std::fs::write(failed.join("mine.txt"), "x").unwrap();
    let dir = OutputDir::prepare(&target, false).unwrap();
    assert!(dir.fail(&serde_json::json!({})).is_err());
    assert!(failed.join("mine.txt").is_file());
    assert!(!target.exists());
}

/// A target inside the staging directory of another run (unfinished, marked `INCOMPLETE`),
/// or inside an old result waiting between the two renames of the fall-back commit, is
/// refused before anything is created there: that run moves or deletes its staging directory
/// (with whatever was put into it) when it ends, and the next run to its target deletes it if
/// it was killed.
#[test]
fn a_target_inside_another_runs_staging_directory_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let other = OutputDir::prepare(&root.path().join("res"), false).unwrap();
    let inside = other.path().join("mine");
    for e in [
        OutputDir::prepare(&inside, false).unwrap_err(),
        OutputDir::prepare(&inside.join("deeper"), true).unwrap_err(),
        OutputDir::check_target(&inside).unwrap_err(),
    ] {
        assert!(e.is_input(), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("staging directory of another stmech run")
                && text.contains(&other.path().display().to_string()),
            "{text}"
        );
    }
    assert!(!inside.exists());
    // the other run is unaffected
    write_result(&other, "other");
    other.commit().unwrap();
    assert_eq!(
        complete_result(&root.path().join("res")).as_deref(),
        Some("other")
    );
    // an old result waiting under `<target>.old-<pid>` (complete, with its manifest)
    let old = root.path().join("res.old-4194303");
    std::fs::rename(root.path().join("res"), &old).unwrap();
    let e = OutputDir::prepare(&old.join("mine"), false).unwrap_err();
    assert!(e.to_string().contains("staging directory"), "{e}");
    // a stmech result that is done is no staging directory
    std::fs::rename(&old, root.path().join("res")).unwrap();
    OutputDir::check_target(&root.path().join("res").join("sub")).unwrap();
}

/// A target whose name leaves no room for the names of the directories a run creates beside
/// it (`<name>.tmp-<pid>`, `<name>.failed.tmp-<pid>`) is refused before anything is created,
/// by `check_target` (what `stmech check` asks) and `prepare` alike; a name that leaves the
/// room is accepted and committed.
#[test]
fn a_target_name_without_room_for_its_staging_names_is_refused() {
    use stmech::io::output::SIBLING_SUFFIX_MAX;
    let root = tempfile::tempdir().unwrap();
    let too_long = root.path().join("a".repeat(255 - SIBLING_SUFFIX_MAX + 1));
    for e in [
        OutputDir::check_target(&too_long).unwrap_err(),
        OutputDir::check_names(&too_long).unwrap_err(),
        OutputDir::prepare(&too_long, false).unwrap_err(),
    ] {
        assert!(matches!(e, OutputError::NameTooLong { .. }), "{e}");
        assert!(e.is_input());
        let text = e.to_string();
        assert!(
            text.contains(&format!("at most {} bytes", 255 - SIBLING_SUFFIX_MAX))
                && text.contains("--out DIR"),
            "{text}"
        );
    }
    assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 0);
    let longest = root.path().join("b".repeat(255 - SIBLING_SUFFIX_MAX));
    OutputDir::check_target(&longest).unwrap();
    let dir = OutputDir::prepare(&longest, false).unwrap();
    // the longest sibling name a run can create fits
    let failed = format!(
        "{}.failed.tmp-{}",
        longest.file_name().unwrap().to_string_lossy(),
        4_194_304
    );
    std::fs::create_dir(root.path().join(&failed)).unwrap();
    std::fs::remove_dir(root.path().join(&failed)).unwrap();
    write_result(&dir, "long");
    dir.commit().unwrap();
    assert_eq!(complete_result(&longest).as_deref(), Some("long"));
}
