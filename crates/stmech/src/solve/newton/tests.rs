//! The driver on small problems with known answers: invariance of the stop under scaling of
//! rows and unknowns, the floor exit, the line search and evaluation failures.

use super::*;

/// A scalar problem `r(x) = s_r f(x / s_x)` with magnitude `s_r g(x / s_x)`, its derivative
/// by the closed form; `fails_below` makes evaluations below a value fail.
struct Scalar<F: Fn(f64) -> (f64, f64, f64)> {
    f: F,
    s_r: f64,
    s_x: f64,
    fails_below: Option<f64>,
    r: f64,
    j: f64,
    evaluations: usize,
}

impl<F: Fn(f64) -> (f64, f64, f64)> Scalar<F> {
    fn new(f: F, s_r: f64, s_x: f64) -> Self {
        Self {
            f,
            s_r,
            s_x,
            fails_below: None,
            r: 0.0,
            j: 0.0,
            evaluations: 0,
        }
    }
}

impl<F: Fn(f64) -> (f64, f64, f64)> NewtonProblem for Scalar<F> {
    type Error = String;

    fn evaluate(
        &mut self,
        x: &[f64],
        jacobian: bool,
        out: &mut Measures,
        _rep: &mut NewtonReport,
    ) -> Result<(), String> {
        self.evaluations += 1;
        if let Some(b) = self.fails_below
            && x[0] < b
        {
            return Err(format!("cannot evaluate at {}", x[0]));
        }
        let (r, dr, m) = (self.f)(x[0] / self.s_x);
        self.r = self.s_r * r;
        if jacobian {
            self.j = self.s_r * dr / self.s_x;
        }
        out.reset(1);
        out.add_row(0, self.r, self.s_r * m, (self.j * x[0]).abs());
        Ok(())
    }

    fn correction(&mut self, dx: &mut [f64], _rep: &mut NewtonReport) -> Result<(), SolveError> {
        dx[0] = self.r / self.j;
        Ok(())
    }
}

fn run<P: NewtonProblem>(p: &mut P, x0: f64) -> (f64, Result<NewtonReport, NewtonError<P::Error>>) {
    let mut x = [x0];
    let mut buf = DriverBuffers::default();
    let res = drive(
        p,
        &mut x,
        &NewtonParams::default(),
        Refactorization::EveryIteration,
        &mut buf,
    );
    (x[0], res)
}

/// `x² − 2` with the magnitude `x² + 2`: the same iterates, relative residuals and decision in
/// any units of the residual and the unknown.
#[test]
fn stop_is_invariant_under_units() {
    let f = |x: f64| (x * x - 2.0, 2.0 * x, x * x + 2.0);
    let (x1, r1) = run(&mut Scalar::new(f, 1.0, 1.0), 3.0);
    let (x2, r2) = run(&mut Scalar::new(f, 1e-6, 1e3), 3.0e3);
    let (r1, r2) = (r1.unwrap(), r2.unwrap());
    assert_eq!(r1.iterations, r2.iterations);
    // |x² − 2| ≤ tol (x² + 2): the root to about 1e-10
    assert!((x1 - 2f64.sqrt()).abs() < 2e-10);
    assert!((x2 / 1e3 - x1).abs() < 1e-14);
    for (a, b) in r1.residuals.iter().zip(&r2.residuals) {
        assert!((a - b).abs() <= 1e-6 * a.max(1e-300), "{a} vs {b}");
    }
    assert!(!r1.at_floor);
}

/// A stiff linear spring far from the origin: `r = k (x − x*)` with `x* = 10⁶ + 0.3` and a
/// load of 1: the residual cannot fall below `~ε k |x|`; Newton stops at the floor after one
/// correction and says so, at the exact answer to round-off.
#[test]
fn stops_at_the_round_off_floor_and_says_so() {
    let k = 1e9;
    let target = 1e6 + 0.3;
    let f = move |x: f64| (k * x - k * target, k, 1.0);
    let (x, rep) = run(&mut Scalar::new(f, 1.0, 1.0), 1e6);
    let rep = rep.unwrap();
    assert!((x - target).abs() <= 4.0 * f64::EPSILON * target, "{x}");
    assert!(rep.iterations >= 1 && rep.iterations <= 2, "{rep:?}");
    if rep.final_residual() > 1e-10 {
        assert!(rep.at_floor);
        assert!(rep.residual_floor >= rep.final_residual() * 0.5);
    }
}

/// The start is never accepted at the floor without a correction: a tiny load on a stiff
/// spring at rest moves it.
#[test]
fn a_tiny_load_is_resolved() {
    let k = 1e9;
    // r = k x − 1e-20 (load 1e-20), magnitude k|x| + 1e-20
    let f = move |x: f64| (k * x - 1e-20, k, k * x.abs() + 1e-20);
    let (x, rep) = run(&mut Scalar::new(f, 1.0, 1.0), 0.0);
    let rep = rep.unwrap();
    assert!(rep.iterations >= 1);
    assert!((x - 1e-29).abs() < 1e-40, "{x}");
}

/// `atan x = 0` from `x = 10`: plain Newton diverges (|x| grows), the line search converges.
#[test]
fn line_search_globalises() {
    let f = |x: f64| (x.atan(), 1.0 / (1.0 + x * x), std::f64::consts::FRAC_PI_2);
    let (x, rep) = run(&mut Scalar::new(f, 1.0, 1.0), 10.0);
    let rep = rep.unwrap();
    assert!(x.abs() < 1e-10, "{x}");
    assert!(rep.halvings > 0);
}

/// `ln x − ln 2 = 0` from `x = 30`: the full Newton step lands at negative `x`, where the
/// problem cannot be evaluated; halving finds an evaluable step and converges.
#[test]
fn unevaluable_steps_are_halved() {
    let f = |x: f64| (x.ln() - 2f64.ln(), 1.0 / x, x.ln().abs() + 2f64.ln());
    let mut p = Scalar::new(f, 1.0, 1.0);
    p.fails_below = Some(0.0);
    let (x, rep) = run(&mut p, 30.0);
    let rep = rep.unwrap();
    assert!((x - 2.0).abs() < 1e-12, "{x}");
    assert!(rep.halvings > 0);
}

/// A problem without a root fails after `max_iterations` with its history, not stalled.
#[test]
fn no_root_fails_with_history() {
    let f = |x: f64| (x * x + 1.0, 2.0 * x, x * x + 1.0);
    let (_, rep) = run(&mut Scalar::new(f, 1.0, 1.0), 3.0);
    match rep {
        Err(NewtonError::Diverged(f)) => {
            assert!(f.iterations <= DEFAULT_MAX_ITERATIONS);
            assert!(f.history.len() > 1 && f.history.len() <= DEFAULT_MAX_ITERATIONS + 1);
            assert!(!f.stalled);
        }
        other => panic!("{other:?}"),
    }
}

/// A start that meets the tolerance is accepted without a correction.
#[test]
fn a_converged_start_takes_no_iteration() {
    let f = |x: f64| (x - 1.0, 1.0, 1.0);
    let (_, rep) = run(&mut Scalar::new(f, 1.0, 1.0), 1.0);
    assert_eq!(rep.unwrap().iterations, 0);
}
