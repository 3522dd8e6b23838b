//! Output safety from the command line (issue 13): every data-loss case of the issue as a
//! test. `--force` never deletes the scenario, an input CSV, the current or home directory,
//! a user's directory, a file, or a symbolic link's target; spellings like `newdir/.` save
//! the results where they say; a closed stdout or stderr does not panic; and what a killed
//! run leaves behind is cleaned up by the next run to the same directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn example(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(rel)
}

fn stmech_env(dir: &Path, args: &[&str], home: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stmech"));
    cmd.args(args).current_dir(dir);
    if let Some(h) = home {
        cmd.env("HOME", h);
    }
    cmd.output().expect("the stmech binary runs")
}

fn stmech(dir: &Path, args: &[&str]) -> Output {
    stmech_env(dir, args, None)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A project folder `proj` holding the scenario `s.toml` (a rigid body, 0.1 s to solve) and
/// a user's file `notes.txt`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    std::fs::create_dir(&proj).unwrap();
    std::fs::copy(
        example("rigid_body/01_constant_torque.toml"),
        proj.join("s.toml"),
    )
    .unwrap();
    std::fs::write(proj.join("notes.txt"), "three years of work").unwrap();
    dir
}

fn assert_project_intact(root: &Path) {
    assert_eq!(
        std::fs::read_to_string(root.join("proj/notes.txt")).unwrap(),
        "three years of work"
    );
    assert!(
        std::fs::read_to_string(root.join("proj/s.toml"))
            .unwrap()
            .contains("[time]")
    );
}

/// Exit 2 before solving, a message that names the path and says why.
fn assert_refused(o: &Output, why: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("refusing to use"), "{e}");
    assert!(e.contains(why), "expected {why:?} in: {e}");
    assert!(!e.contains("panicked"), "{e}");
}

#[test]
fn force_never_deletes_the_scenario_or_its_folder() {
    let dir = project();
    let d = dir.path();
    for out in ["proj", "proj/s.toml", "proj/.", "."] {
        let o = stmech(
            d,
            &["run", "proj/s.toml", "--out", out, "--force", "--no-plots"],
        );
        assert_refused(&o, "input file");
        assert_project_intact(d);
    }
    // `check` refuses the default output directory for the same reason
    std::fs::create_dir_all(d.join("out/s")).unwrap();
    std::fs::rename(d.join("proj/s.toml"), d.join("out/s/s.toml")).unwrap();
    let o = stmech(d, &["check", "out/s/s.toml"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("input file"), "{}", stderr(&o));
}

#[test]
fn force_never_deletes_the_current_or_home_directory() {
    let dir = project();
    let d = dir.path();
    std::fs::copy(d.join("proj/s.toml"), d.join("s2.toml")).unwrap();
    let work = d.join("proj");
    // the current directory (the scenario lives elsewhere)
    let o = stmech(
        &work,
        &["run", "../s2.toml", "--out", ".", "--force", "--no-plots"],
    );
    assert_refused(&o, "current directory");
    // a parent of it (which also holds the scenario: either reason refuses it)
    let o = stmech(
        &work,
        &["run", "../s2.toml", "--out", "..", "--force", "--no-plots"],
    );
    assert_refused(&o, "as the output directory");
    // the home directory, and a parent of it
    let home = d.join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join(".bashrc"), "x").unwrap();
    for out in [home.clone(), d.to_owned()] {
        let o = stmech_env(
            &work,
            &[
                "run",
                "../s2.toml",
                "--out",
                out.to_str().unwrap(),
                "--force",
                "--no-plots",
            ],
            Some(&home),
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("refusing to use"), "{}", stderr(&o));
    }
    assert!(home.join(".bashrc").is_file());
    assert_project_intact(d);
}

#[test]
fn force_replaces_only_a_result_stmech_wrote() {
    let dir = project();
    let d = dir.path();
    let run = |out: &str, force: bool| {
        let mut args = vec!["run", "proj/s.toml", "--out", out, "--no-plots"];
        if force {
            args.push("--force");
        }
        stmech(d, &args)
    };
    // a user's directory
    std::fs::create_dir(d.join("mine")).unwrap();
    std::fs::write(d.join("mine/data.csv"), "1,2").unwrap();
    assert_refused(&run("mine", true), "manifest");
    assert!(d.join("mine/data.csv").is_file());
    // a file
    std::fs::write(d.join("file.txt"), "x").unwrap();
    assert_refused(&run("file.txt", true), "is a file");
    assert_eq!(std::fs::read_to_string(d.join("file.txt")).unwrap(), "x");
    // a symbolic link (to the user's directory)
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.join("mine"), d.join("lnk")).unwrap();
        assert_refused(&run("lnk", true), "symbolic link");
        assert!(d.join("mine/data.csv").is_file());
    }
    // stmech's own result: kept without --force, replaced with it
    let o = run("res", false);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(d.join("res/.stmech-manifest.json").is_file());
    let o = run("res", false);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    let o = run("res", true);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // ... unless the user has put a file of their own into it
    std::fs::write(d.join("res/my_analysis.py"), "print()").unwrap();
    assert_refused(&run("res", true), "my_analysis.py");
    assert!(d.join("res/my_analysis.py").is_file());
    assert!(d.join("res/trajectory.csv").is_file());
    assert_project_intact(d);
}

#[test]
fn force_never_deletes_an_input_trajectory_csv() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // a smooth trajectory: the prescribed tip path of a run of the demo
    let o = stmech(
        d,
        &[
            "run",
            example("beam_inverse/example_3_2.toml").to_str().unwrap(),
            "--out",
            "demo",
            "--no-plots",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tip = std::fs::read_to_string(d.join("demo/tip.csv")).unwrap();
    let mut csv = String::from("t,x,y,theta\n");
    for line in tip.lines().skip(1) {
        let c: Vec<&str> = line.split(',').collect();
        csv.push_str(&format!("{},{},{},{}\n", c[0], c[4], c[5], c[6]));
    }
    std::fs::create_dir(d.join("data")).unwrap();
    std::fs::write(d.join("data/tip.csv"), &csv).unwrap();
    let s = std::fs::read_to_string(example("beam_inverse/example_3_2.toml")).unwrap();
    let i = s.find("[trajectory]").unwrap();
    let j = i + s[i..].find("\n[").unwrap();
    let scenario = format!(
        "{}[trajectory]\nkind = \"csv\"\npath = \"data/tip.csv\"\n{}",
        &s[..i],
        &s[j..]
    );
    std::fs::write(d.join("c.toml"), scenario).unwrap();
    let o = stmech(d, &["check", "c.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = stmech(
        d,
        &["run", "c.toml", "--out", "data", "--force", "--no-plots"],
    );
    assert_refused(&o, "data/tip.csv");
    assert_eq!(
        std::fs::read_to_string(d.join("data/tip.csv")).unwrap(),
        csv
    );
    let o = stmech(d, &["compare", "c.toml", "--out", "data", "--force"]);
    assert_refused(&o, "data/tip.csv");
    assert_eq!(
        std::fs::read_to_string(d.join("data/tip.csv")).unwrap(),
        csv
    );
}

#[test]
fn path_spellings_save_the_results_where_they_say() {
    let dir = project();
    let d = dir.path();
    for (out, at) in [
        ("newdir/.", "newdir"),
        ("./a/./b/", "a/b"),
        ("proj/../c", "c"),
    ] {
        let o = stmech(d, &["run", "proj/s.toml", "--out", out, "--no-plots"]);
        assert_eq!(o.status.code(), Some(0), "{out}: {}", stderr(&o));
        assert!(d.join(at).join("trajectory.csv").is_file(), "{out}");
        assert!(d.join(at).join(".stmech-manifest.json").is_file(), "{out}");
    }
    let names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.contains(".tmp-") && !n.contains(".old-")),
        "{names:?}"
    );
}

/// `stmech … | head`: the reader goes away. No panic (exit 101), the exit code of the work
/// itself, and a run still writes its results.
#[test]
fn a_closed_pipe_ends_output_quietly() {
    let dir = project();
    let d = dir.path();
    let spawn_closed = |args: &[&str], close_stderr: bool| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stmech"))
            .args(args)
            .current_dir(d)
            .stdout(Stdio::piped())
            .stderr(if close_stderr {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .spawn()
            .unwrap();
        // close the read ends before the process writes anything
        drop(child.stdout.take());
        drop(child.stderr.take());
        child.wait().unwrap()
    };
    let checks: Vec<String> = ["rigid_body", "multibody", "beam", "beam_inverse"]
        .iter()
        .flat_map(|k| std::fs::read_dir(example(k)).unwrap())
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .collect();
    let mut args = vec!["check"];
    args.extend(checks.iter().map(String::as_str));
    let status = spawn_closed(&args, true);
    assert_eq!(status.code(), Some(0), "check with a closed pipe");
    let status = spawn_closed(
        &["run", "proj/s.toml", "--out", "piped", "--no-plots"],
        true,
    );
    assert_eq!(status.code(), Some(0), "run with a closed pipe");
    assert!(d.join("piped/summary.json").is_file());
    // an error still has its exit code
    let status = spawn_closed(&["check", "missing.toml"], true);
    assert_eq!(status.code(), Some(4));
}

/// A run killed while it writes (SIGKILL) leaves only a marked staging directory; the next
/// run to the same directory removes it, and with `--force` an old result survives a kill
/// at any moment: afterwards the directory holds a complete result (old or new).
#[test]
fn a_killed_run_leaves_the_old_result_and_the_next_run_cleans_up() {
    let dir = project();
    let d = dir.path();
    let o = stmech(d, &["run", "proj/s.toml", "--out", "res", "--no-plots"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // a longer run, killed at a few moments spread over its life
    let text = std::fs::read_to_string(d.join("proj/s.toml"))
        .unwrap()
        .replace("elements_per_block = 1000", "elements_per_block = 20000");
    assert!(text.contains("20000"), "the example changed");
    std::fs::write(d.join("proj/long.toml"), text).unwrap();
    for delay_ms in [0, 20, 80, 200, 400, 800] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stmech"))
            .args([
                "run",
                "proj/long.toml",
                "--out",
                "res",
                "--force",
                "--no-plots",
            ])
            .current_dir(d)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        let manifest = std::fs::read_to_string(d.join("res/.stmech-manifest.json"))
            .unwrap_or_else(|e| panic!("killed after {delay_ms} ms: no complete result: {e}"));
        let v: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        for f in v["files"].as_array().unwrap() {
            assert!(d.join("res").join(f.as_str().unwrap()).is_file(), "{f}");
        }
        // a kill between the swap and the removal of the marker leaves the marker beside the
        // manifest, which proves the result complete (the next run removes it)
        for e in std::fs::read_dir(d).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with("res.") {
                let p = d.join(&name);
                assert!(
                    p.join("INCOMPLETE").is_file() || p.join(".stmech-manifest.json").is_file(),
                    "unmarked leftover {name}"
                );
            }
        }
    }
    // the next run cleans every leftover of the killed ones
    let o = stmech(
        d,
        &[
            "run",
            "proj/s.toml",
            "--out",
            "res",
            "--force",
            "--no-plots",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("res."))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(!d.join("res/INCOMPLETE").exists());
}
