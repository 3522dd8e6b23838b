use super::*;

fn fd_check(tr: &dyn TipTrajectory, t: f64) {
    let h = 1e-5;
    let (p1, p0) = (tr.pose(t + h), tr.pose(t - h));
    let (v1, v0) = (tr.velocity(t + h), tr.velocity(t - h));
    let (v, a) = (tr.velocity(t), tr.acceleration(t));
    for c in 0..3 {
        assert!(
            ((p1[c] - p0[c]) / (2.0 * h) - v[c]).abs() < 1e-7,
            "v at {t}"
        );
        assert!(
            ((v1[c] - v0[c]) / (2.0 * h) - a[c]).abs() < 1e-6,
            "a at {t}"
        );
    }
}

#[test]
fn example_3_2_endpoints_and_derivatives() {
    let tr = RestToRestArc::example_3_2();
    assert_eq!(tr.pose(0.0), [1.0, 0.0, 0.0]);
    let e = tr.pose(5.0);
    assert!(e[0].abs() < 1e-15 && (e[1] - 1.0).abs() < 1e-15);
    assert!((e[2] - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
    for t in [2.1, 2.7, 3.0, 3.5, 3.95] {
        fd_check(&tr, t);
        let p = tr.pose(t);
        assert!((p[0].hypot(p[1]) - 1.0).abs() < 1e-14, "on the unit circle");
    }
}

fn sampled(f: impl Fn(f64) -> f64, n: usize) -> String {
    let mut s = String::from("t,x,y,theta\n");
    for k in 0..=n {
        let t = 6.0 * k as f64 / n as f64;
        s.push_str(&format!("{t},{},0,0\n", 1.0 + f(t)));
    }
    s
}

#[test]
fn csv_spline_reproduces_a_smooth_profile() {
    let prof = RestToRestProfile {
        t0: 2.0,
        duration: 2.0,
    };
    let csv = CsvTrajectory::from_csv_str(&sampled(|t| 0.1 * prof.eval(t)[0], 600), "m").unwrap();
    csv.check(0.0, 6.0, [1.0, 0.0, 0.0], 2).unwrap();
    for t in [1.0, 2.5, 3.0, 3.7] {
        let (p, v) = (csv.pose(t), csv.velocity(t));
        assert!((p[0] - 1.0 - 0.1 * prof.eval(t)[0]).abs() < 1e-7);
        assert!((v[0] - 0.1 * prof.eval(t)[1]).abs() < 1e-5);
    }
}

#[test]
fn csv_checks_name_the_missing_derivative() {
    // a kink: ramp starting at t = 2
    let kink = sampled(|t| 0.1 * (t - 2.0).max(0.0), 600);
    let e = CsvTrajectory::from_csv_str(&kink, "kink.csv")
        .unwrap()
        .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("velocity γ' jumps") && e.contains("t = 2"),
        "{e}"
    );
    // C¹ but not C²: a parabola starting at t = 2 is fine for a free end, not a tip mass
    let par = sampled(|t| 0.1 * (t - 2.0).max(0.0).powi(2), 600);
    let c = CsvTrajectory::from_csv_str(&par, "par.csv").unwrap();
    c.check(0.0, 6.0, [1.0, 0.0, 0.0], 1).unwrap();
    let e = c
        .check(0.0, 6.0, [1.0, 0.0, 0.0], 2)
        .unwrap_err()
        .to_string();
    assert!(e.contains("acceleration γ'' jumps"), "{e}");
    // wrong start
    let e = c
        .check(0.0, 6.0, [0.9, 0.0, 0.0], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("initial pose"), "{e}");
    // a jump
    let jump = sampled(|t| if t > 3.0 { 0.1 } else { 0.0 }, 600);
    let e = CsvTrajectory::from_csv_str(&jump, "j.csv")
        .unwrap()
        .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("pose itself"), "{e}");
    // a velocity jump at the start (moving right away from rest)
    let lin = sampled(|t| 0.1 * t, 600);
    let e = CsvTrajectory::from_csv_str(&lin, "l.csv")
        .unwrap()
        .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("velocity"), "{e}");
    let bad = "t,x,y,theta\n0,1,0,0\n1,1,0\n";
    let e = CsvTrajectory::from_csv_str(bad, "b.csv")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3"), "{e}");
}

/// `n + 1` rows `t,x,y,theta` on `[0, 6]` s of `pose`, each number written as Rust writes an
/// `f64` (shortest text that reads back to the same value, i.e. full precision).
fn rows(n: usize, pose: impl Fn(f64) -> [f64; 3]) -> String {
    let mut s = String::from("t,x,y,theta\n");
    for k in 0..=n {
        let t = 6.0 * k as f64 / n as f64;
        let p = pose(t);
        s.push_str(&format!("{t},{},{},{}\n", p[0], p[1], p[2]));
    }
    s
}

/// The same with every number written with 9 significant digits (`%.9g`).
fn rows_9_digits(n: usize, pose: impl Fn(f64) -> [f64; 3]) -> String {
    let g = |v: f64| {
        let s = format!("{v:.8e}");
        s.parse::<f64>().unwrap().to_string()
    };
    let mut s = String::from("t,x,y,theta\n");
    for k in 0..=n {
        let t = 6.0 * k as f64 / n as f64;
        let p = pose(t);
        s.push_str(&format!("{},{},{},{}\n", g(t), g(p[0]), g(p[1]), g(p[2])));
    }
    s
}

fn arc() -> RestToRestArc {
    RestToRestArc::example_3_2()
}

fn line() -> RestToRestLine {
    RestToRestLine {
        start: [1.0, 0.0, 0.0],
        delta: [-0.3, 0.4, 0.5],
        profile: RestToRestProfile {
            t0: 2.0,
            duration: 2.0,
        },
    }
}

const DENSITIES: [usize; 4] = [100, 1_000, 10_000, 100_000];

/// The largest smoothness score of any component and derivative (below 1: smooth).
fn worst_score(c: &CsvTrajectory, order: usize) -> f64 {
    c.smoothness(order)
        .iter()
        .flat_map(|s| s.max_scores.iter().map(|&(score, _)| score))
        .fold(0.0, f64::max)
}

#[test]
fn byte_order_mark_and_any_letter_case_in_the_header_are_accepted() {
    let plain = rows(100, |t| arc().pose(t));
    let reference = CsvTrajectory::from_csv_str(&plain, "plain.csv").unwrap();
    for header in [
        "T,X,Y,Theta",
        "TIME [s],x [m],y [m],θ [rad]",
        "t, x, y, THETA",
    ] {
        for bom in ["", "\u{feff}"] {
            let text = format!("{bom}{}", plain.replacen("t,x,y,theta", header, 1));
            let c = CsvTrajectory::from_csv_str(&text, "h.csv")
                .unwrap_or_else(|e| panic!("{header:?} with bom {bom:?}: {e}"));
            assert_eq!(c.len(), reference.len());
            assert_eq!(c.pose(3.0), reference.pose(3.0));
        }
    }
    // a BOM before data without a header, too
    let no_header = plain.replacen("t,x,y,theta\n", "", 1);
    assert!(CsvTrajectory::from_csv_str(&format!("\u{feff}{no_header}"), "b.csv").is_ok());
    // a first row that is neither numbers nor a header names the rule
    let e = CsvTrajectory::from_csv_str(&plain.replacen("t,x,y,theta", "x,y,theta,t", 1), "b")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 1") && e.contains("header must start"),
        "{e}"
    );
}

#[test]
fn a_long_bad_row_is_quoted_as_a_truncated_excerpt() {
    let text = format!("t,x,y,theta\n0,1,0,0\n1,{},0,0\n", "9x".repeat(5_000_000));
    let e = CsvTrajectory::from_csv_str(&text, "long.csv")
        .unwrap_err()
        .to_string();
    assert!(e.len() < 400, "{} bytes", e.len());
    assert!(e.contains("line 3") && e.contains("truncated"), "{e}");
}

/// The case: 10⁵-row samples of both built-in profiles, written to a file and read
/// back, are smooth for a free end (C¹) and with a tip mass (C²); so are coarser ones.
#[test]
fn dense_samples_of_the_built_in_profiles_are_accepted_at_every_density() {
    let dir = tempfile::tempdir().unwrap();
    for (name, pose) in [
        (
            "arc",
            Box::new(|t| arc().pose(t)) as Box<dyn Fn(f64) -> [f64; 3]>,
        ),
        ("line", Box::new(|t| line().pose(t))),
    ] {
        for n in DENSITIES {
            let path = dir.path().join(format!("{name}_{n}.csv"));
            std::fs::write(&path, rows(n, &pose)).unwrap();
            let c = CsvTrajectory::from_path(&path).unwrap();
            assert_eq!(c.len(), n + 1);
            let start = pose(0.0);
            for order in [1, 2] {
                c.check(0.0, 6.0, start, order)
                    .unwrap_or_else(|e| panic!("{name}, {n} rows, order {order}: {e}"));
                let worst = worst_score(&c, order);
                eprintln!("smooth {name:4} {n:6} rows, order {order}: largest score {worst:.3e}");
                assert!(worst < 0.5, "{name} {n} order {order}: {worst}");
            }
            // the spline reproduces the profile
            let exact = pose(2.7);
            let got = c.pose(2.7);
            for k in 0..3 {
                assert!(
                    (got[k] - exact[k]).abs() < 1e-5,
                    "{name} {n}: {got:?} vs {exact:?}"
                );
            }
        }
    }
}

/// A real jump is still found at every density: the acceleration of a motion that starts
/// with a constant acceleration (C¹, not C²) and of one whose acceleration switches off in
/// the middle of a rest-to-rest arc; the velocity of a ramp (a kink) at the start and in the
/// middle.
#[test]
fn real_jumps_are_refused_at_every_density() {
    // x of the arc until t = 2.5 s, then on with the velocity it has there (γ'' jumps)
    let a = arc();
    let switch_off = move |t: f64| {
        if t <= 2.5 {
            a.pose(t)
        } else {
            let (p, v) = (a.pose(2.5), a.velocity(2.5));
            [0, 1, 2].map(|c| p[c] + v[c] * (t - 2.5))
        }
    };
    // (what, pose, order, message, densities at which it must be refused): a jump in the
    // middle of the motion must stand 8× out of the curvature next to it, which 10² rows
    // (33 samples in the 2-s motion) resolve only for the velocity (score 2.7; the
    // acceleration scores 1.05 there, too close to call)
    let all = &DENSITIES[..];
    let fine = &DENSITIES[1..];
    type Case<'a> = (
        &'a str,
        Box<dyn Fn(f64) -> [f64; 3]>,
        usize,
        &'a str,
        &'a [usize],
    );
    let cases: [Case; 4] = [
        (
            "constant acceleration from rest at t = 2",
            Box::new(|t: f64| [1.0 + 0.1 * (t - 2.0).max(0.0).powi(2), 0.0, 0.0]),
            2,
            "acceleration γ'' jumps",
            all,
        ),
        (
            "arc whose acceleration switches off at t = 2.5",
            Box::new(switch_off),
            2,
            "acceleration γ'' jumps",
            fine,
        ),
        (
            "ramp from rest at t = 2",
            Box::new(|t: f64| [1.0 + 0.1 * (t - 2.0).max(0.0), 0.0, 0.0]),
            1,
            "velocity γ' jumps",
            all,
        ),
        (
            "arc whose velocity jumps to zero at t = 3",
            Box::new(|t: f64| arc().pose(t.min(3.0))),
            1,
            "velocity γ' jumps",
            all,
        ),
    ];
    for (what, pose, order, expected, densities) in &cases {
        for &n in *densities {
            let c = CsvTrajectory::from_csv_str(&rows(n, pose), "j.csv").unwrap();
            let e = c
                .check(0.0, 6.0, pose(0.0), *order)
                .map(|()| format!("{what}: {n} rows accepted"))
                .unwrap_or_else(|e| e.to_string());
            assert!(e.contains(expected), "{what}, {n} rows: {e}");
            let worst = worst_score(&c, *order);
            eprintln!("jump: {what}, {n:6} rows: score {worst:.3e}");
        }
    }
}

/// Data printed with 9 significant digits: at 10⁴ and 10⁵ rows its rounding is no longer
/// mistaken for jumps (of the pose even, before the noise floor), for a free end and with a
/// tip mass; a real kink in such data is still found.
#[test]
fn data_written_with_few_digits_is_judged_by_its_precision() {
    for n in [10_000, 100_000] {
        for pose in [|t| arc().pose(t), |t| line().pose(t)] {
            let c = CsvTrajectory::from_csv_str(&rows_9_digits(n, pose), "g9.csv").unwrap();
            let start = [1.0, 0.0, 0.0];
            for order in [1, 2] {
                c.check(0.0, 6.0, start, order)
                    .unwrap_or_else(|e| panic!("{n} rows, order {order}: {e}"));
            }
            eprintln!(
                "9 digits, {n:6} rows: largest score {:.3e} (order 1), {:.3e} (order 2)",
                worst_score(&c, 1),
                worst_score(&c, 2)
            );
        }
    }
    // the kink at the start is still found in 9-digit data
    let ramp = rows_9_digits(10_000, |t| [1.0 + 0.1 * (t - 2.0).max(0.0), 0.0, 0.0]);
    let e = CsvTrajectory::from_csv_str(&ramp, "r.csv")
        .unwrap()
        .check(0.0, 6.0, [1.0, 0.0, 0.0], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("velocity γ' jumps"), "{e}");
}

#[test]
fn written_precision_of_cells() {
    let p = |cells: &[&str]| {
        let mut c = smoothness::ColumnPrecision::default();
        for cell in cells {
            c.observe(cell);
        }
        c
    };
    let c = p(&["-0.00120"]);
    assert_eq!((c.max_significant, c.finest_exponent), (3, Some(-5)));
    let c = p(&["1.5e3", "2"]);
    assert_eq!((c.max_significant, c.finest_exponent), (2, Some(0)));
    // fixed-point writer: 6 decimals everywhere
    let c = p(&["0.000123", "1.500000"]);
    assert!((c.quantum(0.000123) - 5e-7).abs() < 1e-20);
    // %g writer: 9 significant digits, relative
    let c = p(&["1.23456789", "0.5"]);
    assert!((c.quantum(1.0) - 5e-9).abs() < 1e-22);
    // full precision
    let c = p(&["0.30000000000000004"]);
    assert!(c.quantum(0.3) < 2e-17);
}
