//! `stmech compare [SCENARIO]`: every inverse method on one scenario, one table
//! (`compare.csv`), one overlay plot (`compare.png`) and `summary.json`.
//!
//! One command, one verdict. Each problem type computes its own rows and columns: the beam
//! inverse ([`beam`]: both field methods, the sequential baseline and a refined reference), the
//! crane ([`crane`]: both field methods) and the spatial inverse ([`spatial`]: both field
//! methods and the sequential baseline). What a row's status means, the outcome of the
//! compare, its exit code and its messages are decided here, once ([`outcome`], [`exit`]):
//!
//! * a method that produced no result is `failed`; one whose closed-loop replay strays from the
//!   path is `goal-not-reached`; one whose replay could not be done (its own Newton failed) is
//!   `not-verified`: neither confirmed nor refuted (issue 29);
//! * only the methods stmech offers (`method =`) decide: the sequential baseline of `[I]`
//!   Sect. 2 is shown for comparison and breaks down on flexible bodies by design;
//! * outcome `failed` (exit 3) if none of them solved, `goal-not-reached` (exit 5) if one failed
//!   or strays, else `not-verified` (exit 6) if one could not be replayed, else `ok`.

mod beam;
mod crane;
mod spatial;

use crate::Failure;
use stmech::inverse::characteristics_solver::MarchReport;
use stmech_app::inverse::{GOAL_NOT_REACHED, NOT_VERIFIED};

pub(crate) use beam::default_out;
pub use beam::run;

/// A method's row as the verdict sees it.
pub(crate) trait Verdict {
    /// The method's name in the table.
    fn method(&self) -> &str;
    /// Its status: `ok`, `failed`, [`GOAL_NOT_REACHED`] or [`NOT_VERIFIED`] (the sequential
    /// baseline: also `failed at t = …`).
    fn status(&self) -> &str;
    /// Whether it produced a result.
    fn solved(&self) -> bool;
}

/// How the messages name what a problem type computes and what follows the path.
pub(crate) struct Wording {
    /// What a method computes (`actuation`, `suspension motion`).
    pub product: &'static str,
    /// What follows the prescribed path (`tip`, `payload`).
    pub subject: &'static str,
    /// What makes a failed replay solvable or switches the check off, in the scenario's own
    /// fields.
    pub remedy: &'static str,
}

/// The outcome of a compare from the rows of the methods stmech offers (module docs).
pub(crate) fn outcome(offered: &[&dyn Verdict]) -> &'static str {
    let n_unsolved = offered.iter().filter(|r| !r.solved()).count();
    let n_short = offered
        .iter()
        .filter(|r| r.status() == GOAL_NOT_REACHED)
        .count();
    if n_unsolved == offered.len() {
        "failed"
    } else if n_unsolved + n_short > 0 {
        GOAL_NOT_REACHED
    } else if offered.iter().any(|r| r.status() == NOT_VERIFIED) {
        NOT_VERIFIED
    } else {
        "ok"
    }
}

/// The exit of a compare with outcome `outcome` ([`outcome`]) of the rows `offered`.
pub(crate) fn exit(outcome: &str, offered: &[&dyn Verdict], w: &Wording) -> Result<(), Failure> {
    let names = |pick: &dyn Fn(&dyn Verdict) -> bool| {
        offered
            .iter()
            .filter(|r| pick(**r))
            .map(|r| r.method())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match outcome {
        "ok" => Ok(()),
        "failed" => Err(Failure::new(
            Failure::SOLVER,
            anyhow::anyhow!(
                "every inverse method failed ({}); no {} was computed (the rows of compare.csv \
                 give each error)",
                names(&|_| true),
                w.product
            ),
        )),
        o if o == NOT_VERIFIED => Err(Failure::new(
            Failure::NOT_VERIFIED,
            anyhow::anyhow!(
                "not every result is verified: the closed-loop replay of [{}] failed with the \
                 {} on its path, so their {} is neither confirmed nor refuted (the rows of \
                 compare.csv and summary.json give the replay's error; results are written). \
                 Remedy: {}",
                names(&|r| r.status() == NOT_VERIFIED),
                w.subject,
                w.product,
                w.remedy
            ),
        )),
        _ => Err(Failure::new(
            Failure::GOAL_NOT_REACHED,
            anyhow::anyhow!(
                "not every inverse method reached its goal: failed: [{}], {} off its path in \
                 the closed loop: [{}] (the rows of compare.csv and summary.json give the \
                 numbers; results are written)",
                names(&|r| !r.solved()),
                w.subject,
                names(&|r| r.status() == GOAL_NOT_REACHED)
            ),
        )),
    }
}

/// The note of a field method's row: the characteristics' march, or the FEM's Newton.
pub(crate) fn method_note(
    march: Option<&MarchReport>,
    iterations: usize,
    unknowns: usize,
) -> String {
    match march {
        Some(m) => format!(
            "{} nodes, fixed-point iterations {:.2} per node (max {})",
            m.nodes,
            m.iterations_total as f64 / m.nodes.max(1) as f64,
            m.iterations_max
        ),
        None => format!("{iterations} Newton iterations, {unknowns} unknowns"),
    }
}

/// Euclidean norm of a 3-vector.
pub(crate) fn norm(a: &[f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// Largest Euclidean distance between two series of 3-vectors, pairwise.
pub(crate) fn max_distance(a: &[[f64; 3]], b: &[[f64; 3]]) -> f64 {
    a.iter().zip(b).fold(0.0f64, |m, (p, q)| {
        m.max(norm(&[p[0] - q[0], p[1] - q[1], p[2] - q[2]]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    struct R(&'static str, &'static str, bool);
    impl Verdict for R {
        fn method(&self) -> &str {
            self.0
        }
        fn status(&self) -> &str {
            self.1
        }
        fn solved(&self) -> bool {
            self.2
        }
    }

    const W: Wording = Wording {
        product: "actuation",
        subject: "tip",
        remedy: "a finer mesh",
    };

    /// The verdict's order: none solved → failed (3); one failed or off its path →
    /// goal-not-reached (5), which outweighs a replay not done → not-verified (6).
    #[test]
    fn outcome_and_exit_codes_follow_the_documented_order() {
        let ok = R("space-time", "ok", true);
        let failed = R("characteristics", "failed", false);
        let off = R("characteristics", GOAL_NOT_REACHED, true);
        let unverified = R("characteristics", NOT_VERIFIED, true);
        let code = |rows: &[&dyn Verdict]| {
            let o = outcome(rows);
            (o, exit(o, rows, &W).err().map(|f| f.code))
        };
        assert_eq!(code(&[&ok, &ok]), ("ok", None));
        assert_eq!(code(&[&failed]), ("failed", Some(Failure::SOLVER)));
        assert_eq!(
            code(&[&ok, &failed]),
            (GOAL_NOT_REACHED, Some(Failure::GOAL_NOT_REACHED))
        );
        assert_eq!(
            code(&[&unverified, &off]),
            (GOAL_NOT_REACHED, Some(Failure::GOAL_NOT_REACHED))
        );
        assert_eq!(
            code(&[&ok, &unverified]),
            (NOT_VERIFIED, Some(Failure::NOT_VERIFIED))
        );
        let msg = exit(NOT_VERIFIED, &[&ok, &unverified], &W)
            .unwrap_err()
            .error
            .to_string();
        assert!(
            msg.contains("[characteristics]") && msg.contains("Remedy: a finer mesh"),
            "{msg}"
        );
    }
}
