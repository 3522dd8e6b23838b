//! The closed-loop seam: every outcome (not run, within the tolerances, beyond them, a
//! failed replay) reaches the summary, its status and `tip.csv`.
use super::files::{line, replay_at};
use super::*;
use std::path::Path;
use stmech::io::load::{AnyScenario, load_text};

fn line_scenario() -> Box<SpatialInverseScenario> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/spatial_inverse");
    let text = std::fs::read_to_string(dir.join("02_line.toml"))
        .unwrap()
        .replace("elements = 16", "elements = 4");
    match load_text(&text, "02_line.toml", &dir).unwrap() {
        AnyScenario::SpatialInverse(s) => s,
        _ => unreachable!(),
    }
}

/// A replay that reproduces the inverse solution's tracked frame, offset by `shift` (m).
fn replay(rows: &Rows, shift: f64) -> Tracking {
    let samples: Vec<(f64, Pose)> = rows
        .t
        .iter()
        .zip(&rows.achieved)
        .map(|(&t, p)| {
            let mut p = *p;
            p.position[2] += shift;
            (t, p)
        })
        .collect();
    Tracking {
        max_position: shift,
        position_at: 3.0,
        max_angle: 0.0,
        angle_at: 0.0,
        samples,
    }
}

#[test]
fn every_closed_loop_outcome_reaches_the_summary_and_the_files() {
    let s = line_scenario();
    let run = solve(&s).unwrap();
    let rows = Rows::new(&s, &run);
    let (tol, _) = s.tracking_tolerance();
    // not run (the seam's answer until the replay lands)
    let (v, failure) = summary(&s, &run, &rows, 0.1, &None);
    assert!(failure.is_none());
    assert_eq!(v["status"], "ok");
    assert_eq!(v["tip_tracking"]["verified"], false);
    // within the tolerance
    let within: ClosedLoop = Some(Ok((replay(&rows, 0.5 * tol), 0.2)));
    let (v, failure) = summary(&s, &run, &rows, 0.1, &within);
    assert!(failure.is_none());
    assert_eq!(v["tip_tracking"]["status"], "ok");
    // beyond it: goal not reached
    let beyond: ClosedLoop = Some(Ok((replay(&rows, 2.0 * tol), 0.2)));
    let (v, failure) = summary(&s, &run, &rows, 0.1, &beyond);
    assert!(failure.unwrap().contains("does not reach its goal"));
    assert_eq!(v["status"], GOAL_NOT_REACHED);
    assert_eq!(v["tip_tracking"]["within_tolerance"], false);
    // a failed replay
    let failed: ClosedLoop = Some(Err("the forward model diverged".into()));
    let (v, failure) = summary(&s, &run, &rows, 0.1, &failed);
    assert!(failure.unwrap().contains("diverged"));
    assert_eq!(v["tip_tracking"]["status"], "replay failed");
    // the replay's own failure neither confirms nor refutes the result
    assert_eq!(v["status"], crate::inverse::NOT_VERIFIED);
    // the files: tip.csv gets the replay's columns, tip.png is drawn with it
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join("res");
    let dir = OutputDir::prepare(&target, false).unwrap();
    let written = write_results(&s, &run, 0.1, &dir, true, || beyond.clone()).unwrap();
    assert!(written.failure.is_some());
    dir.commit().unwrap();
    let tip = std::fs::read_to_string(target.join("tip.csv")).unwrap();
    let header: Vec<&str> = tip.lines().next().unwrap().split(',').collect();
    assert_eq!(header.len(), 24);
    assert_eq!(header[17], "x_replay");
    let row: Vec<f64> = tip
        .lines()
        .nth(12)
        .unwrap()
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(
        (row[19] - row[10] - 2.0 * tol).abs() < 1e-12,
        "z_replay = z + shift"
    );
    for f in ["tip.png", "actuation.png", "arm.png", "summary.json"] {
        assert!(target.join(f).is_file(), "{f}");
    }
}

/// The replay's pose at a time node: by index when it has one per node, else the nearest.
#[test]
fn replay_samples_are_found_by_index_or_by_time() {
    let p = |x: f64| Pose::at([x, 0.0, 0.0]);
    let samples = vec![(0.0, p(0.0)), (0.5, p(1.0)), (1.0, p(2.0))];
    assert_eq!(replay_at(&samples, 1, 0.7, 3).unwrap().position[0], 1.0);
    assert_eq!(replay_at(&samples, 0, 0.7, 5).unwrap().position[0], 1.0);
    assert_eq!(replay_at(&samples, 0, 0.8, 5).unwrap().position[0], 2.0);
    assert_eq!(replay_at(&samples, 0, -1.0, 5).unwrap().position[0], 0.0);
    assert_eq!(replay_at(&samples, 0, 9.0, 5).unwrap().position[0], 2.0);
    assert!(replay_at(&[], 0, 0.0, 5).is_none());
    // numbers in the CSVs: shortest round trip, scientific for tiny magnitudes
    assert_eq!(line(&[0.0, 1.5, 2.5e-7, -3e20]), "0,1.5,2.5e-7,-3e20");
}
