//! `stmech work-precision`: the work-precision study of the forward methods of the planar beam
//! (issue 14). For each problem and each method (`[dynamic] method = "energy-momentum"`, the
//! default, and `"space-time"`) and several time steps it times whole `stmech run` processes
//! (start-up, loading, solve, diagnostics, every output file and plot, as a user waits for
//! them) and measures the tip error against a reference the study does not tune: classical RK4
//! on the same semi-discrete equations ([`stmech::beam::reference::Rk4Reference`]), a
//! different method with a step 12–25 times smaller than the finest studied one, whose own
//! convergence is shown by halving its step twice.
//!
//! Problems: the flying beam (`examples/beam/03_flying_beam.toml`, 15 s) and a large-amplitude
//! cantilever vibration (the beam of `docs/verification.md` §B3 hit by a smooth tip pulse, then
//! free for 10 s). Tip error: the largest distance between the computed and the reference tip
//! position over the times `0, 0.1, 0.2, … s` (m).
//!
//! Writes `work_precision.csv` (every run), `work_precision_<problem>.png` (log-log tip error
//! against whole-run time, one curve per method), the scenarios (`<problem>.toml`) and
//! `summary.json` (reference convergence, and each method's time at the tip errors 1e-3 and
//! 1e-4 m, interpolated log-log between the measured steps; wall time as the user waits, and
//! the runs' CPU time, which a loaded machine inflates less). Runs of all configurations are
//! interleaved `repeats` times and their median is reported, so a drift of the machine's speed
//! hits every method alike. `--baseline BINARY` times another build of `stmech` on the same
//! scenarios too (its curves are marked "baseline"). The runs write their outputs into a
//! scratch directory (`--scratch DIR`, default the system's temporary directory; each run
//! flushes its files to the device when it commits them, whose latency is part of the whole
//! run but depends on the disk: a tmpfs such as `/dev/shm` leaves it out).

use crate::Failure;
use crate::plots::{self, Series};
use anyhow::Context;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use stmech::beam::integrator::{BeamIntegrator, advance_to};
use stmech::beam::reference::Rk4Reference;
use stmech::io::beam_scenario::{BeamAnalysis, BeamScenario};
use stmech::io::output::{OutputDir, write_json, write_text};

/// Interval of the tip samples compared with the reference (s); every step divides it.
const SAMPLE: f64 = 0.1;

/// The forward methods of `[dynamic] method`, the default first.
const METHODS: [&str; 2] = ["energy-momentum", "space-time"];

/// Tip errors at which the methods' times are compared (m).
const TARGETS: [f64; 2] = [1e-3, 1e-4];

/// One problem of the study.
struct Problem {
    name: &'static str,
    title: &'static str,
    scenario: String,
    steps: Vec<f64>,
    /// RK4 steps, coarse to fine; the finest is the reference.
    reference_steps: Vec<f64>,
}

/// The cantilever of `docs/verification.md` §B3 (8 quadratic elements), clamped at `s = 0`,
/// hit at the tip by `4 N · sin²(π t / 0.5 s)` on `[0, 0.5] s` (a table of 101 points: smooth
/// enough not to ring the axial modes, which a hat function's kinks do), free until 10 s.
fn cantilever_scenario() -> String {
    let n = 100;
    let (mut times, mut values) = (String::new(), String::new());
    for i in 0..=n {
        let t = 0.5 * i as f64 / n as f64;
        let s = (std::f64::consts::PI * t / 0.5).sin();
        let sep = if i == 0 { "" } else { ", " };
        let _ = write!(times, "{sep}{t}");
        let _ = write!(values, "{sep}{:.15}", s * s);
    }
    format!(
        "# Cantilever vibration of the work-precision study (`stmech work-precision`): the beam of\n\
         # docs/verification.md §B3 (L = 1 m, EA = 1e3 N, GA = 4e2 N, EI = 1 N m², ρA = 1 kg/m,\n\
         # ρI = 0.1 kg m), 8 quadratic elements, clamped at s = 0, hit at the tip by a transverse\n\
         # force 4 N · sin²(π t / 0.5 s) on [0, 0.5] s, then free (tip amplitude ≈ 0.3 m) until 10 s.\n\
         problem = \"beam\"\n\
         analysis = \"dynamic\"\n\
         \n\
         [beam]\n\
         length = 1.0\n\
         elements = 8\n\
         order = 2\n\
         section = {{ rho_a = 1.0, rho_i = 0.1, ea = 1e3, ga = 4e2, ei = 1.0 }}\n\
         start = \"clamped\"\n\
         end = \"free\"\n\
         \n\
         [[loads]]\n\
         at = \"end\"\n\
         force = [0.0, 4.0]\n\
         time_function = {{ kind = \"table\", times = [{times}], values = [{values}] }}\n\
         \n\
         [dynamic]\n\
         end = 10.0 # s\n\
         step = 0.005 # s\n\
         \n\
         [output]\n\
         snapshots = 20\n"
    )
}

fn problems(quick: bool) -> Vec<Problem> {
    let flying = Problem {
        name: "flying_beam",
        title: "flying beam (examples/beam/03_flying_beam.toml, 15 s)",
        scenario: include_str!("../../../examples/beam/03_flying_beam.toml").to_owned(),
        steps: vec![0.025, 0.0125, 0.00625, 0.003125, 0.0015625],
        reference_steps: vec![5e-4, 2.5e-4, 1.25e-4],
    };
    if quick {
        return vec![Problem {
            steps: vec![0.05, 0.025, 0.0125],
            reference_steps: vec![1e-3, 5e-4],
            ..flying
        }];
    }
    vec![
        flying,
        Problem {
            name: "cantilever",
            title: "cantilever vibration (8 quadratic elements, 10 s)",
            scenario: cantilever_scenario(),
            steps: vec![0.01, 0.005, 0.0025, 0.00125, 0.000625],
            reference_steps: vec![2e-4, 1e-4, 5e-5],
        },
    ]
}

/// `text` with `[dynamic] step = dt` and `method = method` (the `step` line replaced, any
/// `method` line dropped).
fn with_step_and_method(text: &str, dt: f64, method: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let key = line.split('=').next().unwrap_or("").trim();
        match key {
            "step" => {
                let _ = writeln!(out, "step = {dt}\nmethod = \"{method}\"");
            }
            "method" => {}
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Tip positions at `0, SAMPLE, 2 SAMPLE, …` of an integrator run to `end`.
fn sampled_tip(
    it: &mut dyn BeamIntegrator,
    end: f64,
    tip: usize,
) -> Result<Vec<[f64; 2]>, Failure> {
    let mut out = Vec::new();
    let p = it.node_state(tip);
    out.push([p[0], p[1]]);
    advance_to(it, end, &mut |s| {
        if is_sample(s.time(), out.len()) {
            let p = s.node_state(tip);
            out.push([p[0], p[1]]);
        }
    })
    .map_err(|e| Failure::new(Failure::SOLVER, e))?;
    Ok(out)
}

/// Whether time `t` is the sample `next` (`t = next · SAMPLE` up to round-off; a step that
/// lands a hair short of a sample and a last, tiny step onto it count once).
fn is_sample(t: f64, next: usize) -> bool {
    let k = next as f64;
    (t - k * SAMPLE).abs() < 1e-9
}

/// Largest and final distance between two sampled tip paths (m).
fn tip_error(a: &[[f64; 2]], b: &[[f64; 2]]) -> Result<(f64, f64), Failure> {
    if a.len() != b.len() || a.is_empty() {
        return Err(Failure::new(
            Failure::IO,
            anyhow::anyhow!(
                "tip samples: {} against {} of the reference",
                a.len(),
                b.len()
            ),
        ));
    }
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(p, q)| (p[0] - q[0]).hypot(p[1] - q[1]))
        .collect();
    Ok((d.iter().copied().fold(0.0, f64::max), d[d.len() - 1]))
}

/// The sampled tip path of a run's `tip.csv` (`t, r1, r2, θ` per row).
fn read_tip_csv(path: &Path) -> anyhow::Result<Vec<[f64; 2]>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut out = Vec::new();
    for line in text.lines().skip(1) {
        let v: Vec<f64> = line
            .split(',')
            .map(|s| s.trim().parse::<f64>())
            .collect::<Result<_, _>>()
            .with_context(|| format!("{}: bad row {line:?}", path.display()))?;
        anyhow::ensure!(v.len() >= 3, "{}: short row {line:?}", path.display());
        if is_sample(v[0], out.len()) {
            out.push([v[1], v[2]]);
        }
    }
    Ok(out)
}

/// One timed configuration.
struct Config {
    problem: usize,
    binary: usize,
    method: &'static str,
    step: f64,
    scenario: PathBuf,
    out: PathBuf,
    walls: Vec<f64>,
    cpus: Vec<f64>,
    iterations: u64,
    steps: u64,
    error: (f64, f64),
}

/// User + system CPU time of all waited-for children of this process (s); `None` where the
/// platform does not say.
fn children_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::uninit();
        // SAFETY: `getrusage` fills the `rusage` it is given and returns 0, or fails with -1
        // and leaves it untouched (then it is not read).
        let ok = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()) } == 0;
        if !ok {
            return None;
        }
        // SAFETY: initialised by the successful call above.
        let u = unsafe { usage.assume_init() };
        let secs = |t: libc::timeval| t.tv_sec as f64 + 1e-6 * t.tv_usec as f64;
        Some(secs(u.ru_utime) + secs(u.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Runs `binary run scenario --out out --force [--threads n]` and returns its wall time and
/// CPU time (user + system; NaN where unknown) (s).
fn time_run(binary: &Path, c: &Config, threads: Option<u32>) -> Result<(f64, f64), Failure> {
    let mut cmd = Command::new(binary);
    cmd.arg("run")
        .arg(&c.scenario)
        .arg("--out")
        .arg(&c.out)
        .arg("--force");
    if let Some(n) = threads {
        cmd.arg("--threads").arg(n.to_string());
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let cpu_before = children_cpu_seconds();
    let start = Instant::now();
    let output = cmd
        .output()
        .with_context(|| format!("cannot start {}", binary.display()))
        .map_err(|e| Failure::new(Failure::IO, e))?;
    let wall = start.elapsed().as_secs_f64();
    let cpu = match (cpu_before, children_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => f64::NAN,
    };
    if !output.status.success() {
        return Err(Failure::new(
            Failure::SOLVER,
            anyhow::anyhow!(
                "{} run {} failed: {}",
                binary.display(),
                c.scenario.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ),
        ));
    }
    Ok((wall, cpu))
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

/// Time at tip error `target`, interpolated linearly in `(log error, log time)` between the two
/// measured points that bracket it; `None` outside the measured range.
pub fn time_at_error(points: &[(f64, f64)], target: f64) -> Option<f64> {
    let mut p: Vec<(f64, f64)> = points.to_vec();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p.windows(2).find_map(|w| {
        let ((e0, t0), (e1, t1)) = (w[0], w[1]);
        (e0 <= target && target <= e1 && e0 > 0.0).then(|| {
            let s = if e1 > e0 {
                (target.ln() - e0.ln()) / (e1.ln() - e0.ln())
            } else {
                0.0
            };
            (t0.ln() + s * (t1.ln() - t0.ln())).exp()
        })
    })
}

/// Options of the study.
pub struct Options<'a> {
    /// Output directory.
    pub out: &'a Path,
    /// Replace an existing output directory.
    pub force: bool,
    /// Timed runs of every configuration.
    pub repeats: usize,
    /// Only the flying beam with three coarse steps and one run each (a smoke test).
    pub quick: bool,
    /// Another `stmech` binary timed on the same scenarios.
    pub baseline: Option<&'a Path>,
    /// `--threads` passed to the runs.
    pub threads: Option<u32>,
    /// Where the runs write their outputs [default: the system's temporary directory].
    pub scratch: Option<&'a Path>,
}

/// Runs the study and writes the results into `opts.out` (atomically).
pub fn run(opts: &Options<'_>) -> Result<(), Failure> {
    let staging = OutputDir::prepare(opts.out, opts.force).map_err(crate::run::output_failure)?;
    let io = |e: anyhow::Error| Failure::new(Failure::IO, e);
    let this = std::env::current_exe()
        .context("cannot locate the stmech binary")
        .map_err(io)?;
    let mut binaries = vec![("this build", this)];
    if let Some(b) = opts.baseline {
        binaries.push(("baseline", b.to_owned()));
    }
    let scratch =
        scratch_dir(opts.scratch.map_or_else(std::env::temp_dir, Path::to_owned)).map_err(io)?;
    let problems = problems(opts.quick);
    let repeats = if opts.quick { 1 } else { opts.repeats.max(1) };

    // references and configurations
    let mut references = Vec::new();
    let mut reference_json = serde_json::Map::new();
    let mut configs = Vec::new();
    for (ip, pr) in problems.iter().enumerate() {
        write_text(&staging.file(&format!("{}.toml", pr.name)), &pr.scenario)
            .map_err(crate::run::output_failure)?;
        let sc = BeamScenario::from_toml_str(&pr.scenario, pr.name)
            .map_err(|e| Failure::new(Failure::INPUT, e))?;
        let BeamAnalysis::Dynamic { end, .. } = sc.analysis else {
            return Err(Failure::new(
                Failure::INPUT,
                anyhow::anyhow!("{}: not a dynamic analysis", pr.name),
            ));
        };
        let tip = sc.model.tip_node();
        let mut paths = Vec::new();
        for &h in &pr.reference_steps {
            let started = Instant::now();
            let mut rk = Rk4Reference::at_rest(&sc.model, h)
                .map_err(|e| Failure::new(Failure::SOLVER, e))?;
            paths.push(sampled_tip(&mut rk, end, tip)?);
            outln!(
                "{}: RK4 reference with Δt = {h:e} s ({:.1} s)",
                pr.name,
                started.elapsed().as_secs_f64()
            );
        }
        let mut differences = Vec::new();
        for w in paths.windows(2) {
            differences.push(tip_error(&w[0], &w[1])?.0);
        }
        outln!(
            "{}: RK4 tip differences between successive halvings: {}",
            pr.name,
            differences
                .iter()
                .map(|d| format!("{d:.2e}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        reference_json.insert(
            pr.name.to_owned(),
            json!({
                "method": "classical RK4 on the semi-discrete equations (Rk4Reference)",
                "steps_s": pr.reference_steps,
                "max_tip_difference_between_successive_steps_m": differences,
                "reference_step_s": pr.reference_steps.last(),
                "reference_error_estimate_m": differences.last(),
            }),
        );
        references.push(paths.pop().unwrap_or_default());
        for (ib, _) in binaries.iter().enumerate() {
            for method in METHODS {
                for &step in &pr.steps {
                    let tag = format!("{}-{ib}-{method}-{step}", pr.name);
                    let scenario = scratch.join(format!("{tag}.toml"));
                    write_text(&scenario, &with_step_and_method(&pr.scenario, step, method))
                        .map_err(crate::run::output_failure)?;
                    configs.push(Config {
                        problem: ip,
                        binary: ib,
                        method,
                        step,
                        scenario,
                        out: scratch.join(format!("out-{tag}")),
                        walls: Vec::new(),
                        cpus: Vec::new(),
                        iterations: 0,
                        steps: 0,
                        error: (f64::NAN, f64::NAN),
                    });
                }
            }
        }
    }

    // interleaved timed runs
    for r in 0..repeats {
        for c in configs.iter_mut() {
            let (wall, cpu) = time_run(&binaries[c.binary].1, c, opts.threads)?;
            c.walls.push(wall);
            c.cpus.push(cpu);
        }
        outln!("round {} of {repeats} done", r + 1);
    }
    for c in configs.iter_mut() {
        let tip = read_tip_csv(&c.out.join("tip.csv")).map_err(io)?;
        c.error = tip_error(&tip, &references[c.problem])?;
        let summary: Value = std::fs::read_to_string(c.out.join("summary.json"))
            .ok()
            .and_then(|s| serde_json::from_str(&s).ok())
            .unwrap_or(Value::Null);
        c.iterations = summary["results"]["newton_iterations"]
            .as_u64()
            .unwrap_or(0);
        c.steps = summary["results"]["time"]["steps"].as_u64().unwrap_or(0);
    }
    let _ = std::fs::remove_dir_all(&scratch);

    // table, plots, summary
    let mut csv = String::from(
        "problem,binary,method,step [s],steps,newton_iterations,tip_error_max [m],tip_error_final [m],wall_median [s],wall_min [s],wall_max [s],cpu_median [s]\n",
    );
    for c in &configs {
        let min = c.walls.iter().copied().fold(f64::INFINITY, f64::min);
        let max = c.walls.iter().copied().fold(0.0, f64::max);
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{},{:e},{:e},{:.4},{:.4},{:.4},{:.4}",
            problems[c.problem].name,
            binaries[c.binary].0,
            c.method,
            c.step,
            c.steps,
            c.iterations,
            c.error.0,
            c.error.1,
            median(&c.walls),
            min,
            max,
            median(&c.cpus)
        );
    }
    write_text(&staging.file("work_precision.csv"), &csv).map_err(crate::run::output_failure)?;
    let mut results = serde_json::Map::new();
    for (ip, pr) in problems.iter().enumerate() {
        let mut series = Vec::new();
        let mut per_method = serde_json::Map::new();
        outln!("\n{}", pr.title);
        outln!(
            "{:<12} {:<16} {:>10} {:>8} {:>10} {:>12} {:>10} {:>10}",
            "binary",
            "method",
            "step [s]",
            "steps",
            "iterations",
            "tip error [m]",
            "wall [s]",
            "cpu [s]"
        );
        for (ib, (bname, _)) in binaries.iter().enumerate() {
            for method in METHODS {
                let rows: Vec<&Config> = configs
                    .iter()
                    .filter(|c| c.problem == ip && c.binary == ib && c.method == method)
                    .collect();
                let pts: Vec<(f64, f64)> =
                    rows.iter().map(|c| (c.error.0, median(&c.walls))).collect();
                let cpu_pts: Vec<(f64, f64)> =
                    rows.iter().map(|c| (c.error.0, median(&c.cpus))).collect();
                for c in &rows {
                    outln!(
                        "{bname:<12} {method:<16} {:>10} {:>8} {:>10} {:>12.3e} {:>10.4} {:>10.4}",
                        c.step,
                        c.steps,
                        c.iterations,
                        c.error.0,
                        median(&c.walls),
                        median(&c.cpus)
                    );
                }
                let at: Vec<Option<f64>> =
                    TARGETS.iter().map(|&e| time_at_error(&pts, e)).collect();
                let cpu_at: Vec<Option<f64>> = TARGETS
                    .iter()
                    .map(|&e| time_at_error(&cpu_pts, e))
                    .collect();
                let default = if method == METHODS[0] {
                    " (default)"
                } else {
                    ""
                };
                let label = if ib == 0 {
                    format!("{method}{default}")
                } else {
                    format!("{method}, {bname}")
                };
                per_method.insert(
                    format!("{bname}: {method}"),
                    json!({
                        "steps_s": rows.iter().map(|c| c.step).collect::<Vec<_>>(),
                        "tip_error_max_m": rows.iter().map(|c| c.error.0).collect::<Vec<_>>(),
                        "wall_median_s": rows.iter().map(|c| median(&c.walls)).collect::<Vec<_>>(),
                        "newton_iterations": rows.iter().map(|c| c.iterations).collect::<Vec<_>>(),
                        "cpu_median_s": rows.iter().map(|c| median(&c.cpus)).collect::<Vec<_>>(),
                        "wall_at_tip_error_s": TARGETS.iter().zip(&at).zip(&cpu_at).map(|((e, t), c)| json!({ "tip_error_m": e, "wall_s": t, "cpu_s": c })).collect::<Vec<_>>(),
                    }),
                );
                series.push(Series {
                    label,
                    points: pts.iter().map(|(e, t)| (t.log10(), e.log10())).collect(),
                });
            }
        }
        for (k, &e) in TARGETS.iter().enumerate() {
            let line: Vec<String> = per_method
                .iter()
                .map(|(name, v)| {
                    let at = &v["wall_at_tip_error_s"][k];
                    match (at["wall_s"].as_f64(), at["cpu_s"].as_f64()) {
                        (Some(w), Some(c)) => format!("{name} {w:.3} s (cpu {c:.3} s)"),
                        (Some(w), None) => format!("{name} {w:.3} s"),
                        _ => format!("{name} out of range"),
                    }
                })
                .collect();
            outln!("whole run at tip error {e:e} m: {}", line.join("; "));
        }
        plots::xy_chart(
            &staging.file(&format!("work_precision_{}.png", pr.name)),
            &format!("Work-precision: {}", pr.title),
            "log10 whole-run wall time [s]",
            "log10 max tip error [m]",
            &series,
        )
        .map_err(io)?;
        results.insert(pr.name.to_owned(), Value::Object(per_method));
    }
    let summary = json!({
        "stmech_version": env!("CARGO_PKG_VERSION"),
        "study": "work-precision of the forward beam methods: max tip error over t = 0, 0.1, … s against whole `stmech run` wall time (median of the interleaved runs)",
        "repeats": repeats,
        "threads": opts.threads,
        "scratch": opts.scratch,
        "binaries": binaries.iter().map(|(n, p)| json!({ "name": n, "path": p })).collect::<Vec<_>>(),
        "reference": reference_json,
        "results": results,
    });
    write_json(&staging.file("summary.json"), &summary).map_err(crate::run::output_failure)?;
    let dir = staging.commit().map_err(crate::run::output_failure)?;
    outln!("results in {}", dir.display());
    Ok(())
}

/// A fresh scratch directory for the runs' outputs inside `base`.
fn scratch_dir(base: PathBuf) -> anyhow::Result<PathBuf> {
    for k in 0..1000u32 {
        let p = base.join(format!("stmech-work-precision-{}-{k}", std::process::id()));
        match std::fs::create_dir(&p) {
            Ok(()) => return Ok(p),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).context("cannot create a scratch directory"),
        }
    }
    anyhow::bail!("cannot create a scratch directory in {}", base.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_and_method_are_replaced() {
        let t = "[dynamic]\nend = 1.0\nstep = 0.1 # s\nmethod = \"space-time\"\n[newton]\n";
        let s = with_step_and_method(t, 0.025, "energy-momentum");
        assert_eq!(
            s,
            "[dynamic]\nend = 1.0\nstep = 0.025\nmethod = \"energy-momentum\"\n[newton]\n"
        );
        // the cantilever parses, and the flying beam example keeps parsing when edited
        for p in problems(false) {
            let text = with_step_and_method(&p.scenario, p.steps[0], "space-time");
            let sc = BeamScenario::from_toml_str(&text, p.name).unwrap();
            assert!(
                matches!(sc.analysis, BeamAnalysis::Dynamic { step, .. } if step == p.steps[0])
            );
            // every step divides the sample interval
            for &h in p.steps.iter().chain(&p.reference_steps) {
                let k = SAMPLE / h;
                assert!((k - k.round()).abs() < 1e-9, "{h}");
            }
        }
    }

    #[test]
    fn interpolation_at_equal_error() {
        let pts = [(1e-2, 0.1), (1e-3, 0.2), (1e-4, 0.8)];
        assert!((time_at_error(&pts, 1e-3).unwrap() - 0.2).abs() < 1e-12);
        // halfway in log error: geometric mean of the times
        let t = time_at_error(&pts, 10f64.powf(-3.5)).unwrap();
        assert!((t - 0.4).abs() < 1e-12, "{t}");
        assert_eq!(time_at_error(&pts, 1e-5), None);
    }
}
