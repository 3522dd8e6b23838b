//! `stmech`: run, check and demonstrate space-time simulations of rigid bodies.
//!
//! Exit codes (also in the README): 0 success, 2 invalid input (scenario or command line,
//! output directory exists), 3 the solver did not converge, 4 I/O error, 5 solved but the
//! result fails its verification (an inverse solution whose tip does not follow the path in
//! the closed loop; `compare` with a failed method; results are written and marked).

#[macro_use]
mod console;

mod beam_run;
mod compare;
mod conditioning;
mod convergence;
mod crane_run;
mod inverse_run;
mod limits;
use stmech_app::plots;
mod progress;
mod run;
mod spatial_run;
mod static_run;
mod study;
mod work_precision;

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use stmech::io::load::AnyScenario;
use stmech::io::output::{OutputDir, TargetState};
use stmech::io::scenario::ScenarioError;
use stmech::io::text::InputLimit;
use stmech::resources::{MemoryLimit, estimate};

#[derive(Parser, Debug)]
#[command(name = "stmech", version, about = "Space-time Galerkin dynamics of rigid bodies", long_about = None)]
struct Cli {
    /// Threads for the parallel element assembly [default: all cores]; results are the same
    /// to the bit for any number.
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    threads: Option<u32>,
    /// Refuse input files (scenario, trajectory CSV) larger than SIZE (e.g. 64M, 1G; `none`
    /// for no limit) [default: 16M]. Only regular files are read, whatever the limit.
    #[arg(long, global = true, value_name = "SIZE", value_parser = limits::parse_max_input_size)]
    max_input_size: Option<InputLimit>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Simulate a scenario file and write trajectory.csv, summary.json and plots.
    Run {
        /// Scenario file (TOML), see examples/.
        scenario: PathBuf,
        /// Output directory [default: out/<scenario file stem>].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
        /// Do not draw PNG plots (overrides `[output] plots`).
        #[arg(long)]
        no_plots: bool,
        /// Refuse a problem whose estimated peak memory exceeds SIZE (e.g. 500M, 2G, 1.5GiB;
        /// `none` for no limit) [default: half of the available memory].
        #[arg(long, value_name = "SIZE", value_parser = limits::parse_max_memory)]
        max_memory: Option<MemoryLimit>,
    },
    /// Run a built-in demo: by default examples/beam_inverse/example_3_2.toml ([I] Example
    /// 3.2); `stmech demo crane` runs examples/crane/01_swing_free_transfer.toml.
    Demo {
        /// Which demo: `beam-inverse` (default) or `crane`.
        #[arg(value_name = "DEMO", value_parser = ["beam-inverse", "crane"])]
        which: Option<String>,
        /// Output directory.
        #[arg(long, value_name = "DIR", default_value = "out/demo")]
        out: PathBuf,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
        /// Refuse a problem whose estimated peak memory exceeds SIZE (e.g. 500M, 2G, 1.5GiB;
        /// `none` for no limit) [default: half of the available memory].
        #[arg(long, value_name = "SIZE", value_parser = limits::parse_max_memory)]
        max_memory: Option<MemoryLimit>,
    },
    /// Convergence study of [P, Fig. 2]: error of Eq. (26) against the step size for every
    /// time discretisation (constant-torque example), with a log-log plot.
    Convergence {
        /// Output directory.
        #[arg(long, value_name = "DIR", default_value = "out/convergence")]
        out: PathBuf,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
    },
    /// Condition number of the Newton iteration matrix against the step size ([P, Fig. 3])
    /// for the midpoint rule and the space-time forms.
    Conditioning {
        /// Output directory.
        #[arg(long, value_name = "DIR", default_value = "out/conditioning")]
        out: PathBuf,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
    },
    /// Work-precision study of the forward beam methods: tip error (against an RK4 reference)
    /// against whole `stmech run` wall time for every method and several steps, with log-log
    /// plots.
    WorkPrecision {
        /// Output directory.
        #[arg(long, value_name = "DIR", default_value = "out/work-precision")]
        out: PathBuf,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
        /// Timed runs of every configuration (interleaved; the median is reported).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=50))]
        repeats: u32,
        /// Only the flying beam, three coarse steps, one run each (a smoke test).
        #[arg(long)]
        quick: bool,
        /// Also time another stmech binary (e.g. an older build) on the same scenarios.
        #[arg(long, value_name = "BINARY")]
        baseline: Option<PathBuf>,
        /// Directory for the runs' outputs [default: the system's temporary directory].
        #[arg(long, value_name = "DIR")]
        scratch: Option<PathBuf>,
    },
    /// Run every inverse method (space-time FEM, characteristics, sequential baseline) on one
    /// beam-inverse scenario, or both field methods on a crane or spatial inverse scenario,
    /// and write compare.csv, compare.png and summary.json.
    Compare {
        /// Beam-inverse, crane or spatial inverse (`analysis = "inverse"`) scenario (TOML)
        /// [default: the built-in demo, [I] Example 3.2].
        scenario: Option<PathBuf>,
        /// Output directory [default: out/compare-<scenario file stem>].
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Replace an existing output directory.
        #[arg(long)]
        force: bool,
        /// Refuse a problem whose estimated peak memory exceeds SIZE (e.g. 500M, 2G, 1.5GiB;
        /// `none` for no limit) [default: half of the available memory].
        #[arg(long, value_name = "SIZE", value_parser = limits::parse_max_memory)]
        max_memory: Option<MemoryLimit>,
    },
    /// Validate scenario files without solving: print every problem (field path, line,
    /// remedy) and check that the default output directory out/<stem> can be created.
    Check {
        /// Scenario files (TOML).
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Refuse a problem whose estimated peak memory exceeds SIZE (e.g. 500M, 2G, 1.5GiB;
        /// `none` for no limit) [default: half of the available memory].
        #[arg(long, value_name = "SIZE", value_parser = limits::parse_max_memory)]
        max_memory: Option<MemoryLimit>,
    },
}

/// A failure with its exit code.
#[derive(Debug)]
pub struct Failure {
    /// Process exit code.
    pub code: u8,
    /// What went wrong, printed to stderr.
    pub error: anyhow::Error,
}

impl Failure {
    /// Invalid input: scenario, command line, or an output directory that must not be replaced.
    pub const INPUT: u8 = 2;
    /// The solver did not converge.
    pub const SOLVER: u8 = 3;
    /// Reading or writing files failed.
    pub const IO: u8 = 4;
    /// Solved, but the result fails its verification (results written, marked not ok).
    pub const GOAL_NOT_REACHED: u8 = 5;
    /// Solved, but the verification itself failed (the closed-loop replay did not converge):
    /// the result is neither confirmed nor refuted (results written, marked not verified).
    pub const NOT_VERIFIED: u8 = 6;

    fn new(code: u8, error: impl Into<anyhow::Error>) -> Self {
        Self {
            code,
            error: error.into(),
        }
    }
}

fn main() -> ExitCode {
    // clap exits with 2 on usage errors and 0 for --help/--version.
    let cli = Cli::parse();
    if let Some(n) = cli.threads {
        // fails only if the pool was built already, which nothing before this line does
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(n as usize)
            .build_global();
    }
    let input_limit = cli.max_input_size.unwrap_or_default();
    let result = match cli.command {
        Command::Run {
            scenario,
            out,
            force,
            no_plots,
            max_memory,
        } => {
            let out = out.unwrap_or_else(|| default_out(&scenario));
            load(&scenario, input_limit)
                .and_then(|s| {
                    let origin = scenario.display().to_string();
                    limits::gate(&origin, &estimate(&s), limits::limit(max_memory))?;
                    let mut inputs = s.input_files();
                    inputs.push(scenario.clone());
                    stmech::io::output::refuse_inputs(&out, &inputs)
                        .map_err(run::output_failure)?;
                    Ok(s)
                })
                .and_then(|s| match s {
                    AnyScenario::Multibody(s) => run::run(
                        &s,
                        &run::RunOptions {
                            out,
                            force,
                            plots: s.plots && !no_plots,
                        },
                    ),
                    AnyScenario::Beam(s) => beam_run::run(&s, &out, force, no_plots),
                    AnyScenario::BeamInverse(s) => {
                        inverse_run::run(&s, out, force, s.plots && !no_plots)
                    }
                    AnyScenario::Crane(s) => crane_run::run(&s, out, force, s.plots && !no_plots),
                    AnyScenario::SpatialInverse(s) => {
                        spatial_run::run(&s, out, force, s.plots && !no_plots)
                    }
                })
        }
        Command::Demo {
            which,
            out,
            force,
            max_memory,
        } => match which.as_deref() {
            Some("crane") => crane_run::run_demo(
                if out == Path::new("out/demo") {
                    PathBuf::from("out/demo-crane")
                } else {
                    out
                },
                force,
                limits::limit(max_memory),
            ),
            _ => inverse_run::run_demo(out, force, limits::limit(max_memory)),
        },
        Command::Convergence { out, force } => convergence::run(&out, force),
        Command::Conditioning { out, force } => conditioning::run(&out, force),
        Command::WorkPrecision {
            out,
            force,
            repeats,
            quick,
            baseline,
            scratch,
        } => work_precision::run(&work_precision::Options {
            out: &out,
            force,
            repeats: repeats as usize,
            quick,
            baseline: baseline.as_deref(),
            threads: cli.threads,
            scratch: scratch.as_deref(),
        }),
        Command::Compare {
            scenario,
            out,
            force,
            max_memory,
        } => compare::run(
            scenario.as_deref(),
            out,
            force,
            limits::limit(max_memory),
            input_limit,
        ),
        Command::Check {
            scenarios,
            max_memory,
        } => check(&scenarios, limits::limit(max_memory), input_limit),
    };
    if std::env::var_os("STMECH_REPORT_PEAK_MEMORY").is_some() {
        // measurement hook of scripts/memory_ladder.py and the estimate test
        if let Some(b) = limits::peak_resident_bytes() {
            errln!("stmech: peak resident memory {b} bytes");
        }
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            errln!("error: {}", describe(&f.error));
            ExitCode::from(f.code)
        }
    }
}

/// The error and its causes on one line ([`stmech_app::error::describe`]).
fn describe(error: &anyhow::Error) -> String {
    stmech_app::error::describe(error)
}

/// `out/<stem of the scenario file>`.
fn default_out(scenario: &std::path::Path) -> PathBuf {
    let stem = scenario
        .file_stem()
        .map(|s| s.to_os_string())
        .unwrap_or_else(|| "run".into());
    PathBuf::from("out").join(stem)
}

/// Reads and validates a scenario file of any problem type (every problem located).
fn load(path: &Path, limit: InputLimit) -> Result<AnyScenario, Failure> {
    stmech::io::load::load_path_limited(path, limit).map_err(scenario_failure)
}

/// Exit code of a scenario that cannot be loaded: 4 if it cannot be read, 2 otherwise (its
/// content is the problem, or it is not a regular file, or it is larger than the limit).
pub(crate) fn scenario_failure(e: ScenarioError) -> Failure {
    let code = if e.is_input() {
        Failure::INPUT
    } else {
        Failure::IO
    };
    Failure::new(code, e)
}

/// The `ok:` line of `check` for a valid scenario.
fn describe_scenario(s: &AnyScenario) -> String {
    match s {
        AnyScenario::Multibody(s) => {
            let n_bodies = s.system.bodies().len();
            let beams: String = s
                .beams
                .iter()
                .map(|b| {
                    format!(
                        "beam {} ({} elements of order {}, L = {:.4} m), ",
                        b.name,
                        (b.nodes - 1) / b.order.max(1),
                        b.order,
                        b.length
                    )
                })
                .collect();
            let time = if s.statics.is_some() {
                String::new()
            } else {
                format!("t = [{}, {}] s, ", s.t_start, s.t_end)
            };
            format!(
                "ok: {}: {beams}{n_bodies} bod{}, {} load{}, {time}{}",
                s.origin,
                if n_bodies == 1 { "y" } else { "ies" },
                s.n_loads,
                if s.n_loads == 1 { "" } else { "s" },
                s.method_description()
            )
        }
        AnyScenario::Beam(s) => beam_run::describe(s),
        AnyScenario::BeamInverse(s) => inverse_run::describe(s),
        AnyScenario::Crane(s) => crane_run::describe(s),
        AnyScenario::SpatialInverse(s) => spatial_run::describe(s),
    }
}

/// Validates every file without solving: prints every problem of each (field path, line,
/// remedy) and checks that `run` could create its default output directory. Fails with the
/// code of the first bad file.
fn check(paths: &[PathBuf], limit: MemoryLimit, input_limit: InputLimit) -> Result<(), Failure> {
    let mut first_code = None;
    let mut n_bad = 0;
    for path in paths {
        let mut code = None;
        let mut loaded_inputs = Vec::new();
        let mut comparable = false;
        match load(path, input_limit) {
            Ok(s) => {
                loaded_inputs = s.input_files();
                comparable = matches!(
                    s,
                    AnyScenario::BeamInverse(_)
                        | AnyScenario::Crane(_)
                        | AnyScenario::SpatialInverse(_)
                );
                let est = estimate(&s);
                match limits::gate(&path.display().to_string(), &est, limit) {
                    Ok(()) => outln!("{}\n  {est}", describe_scenario(&s)),
                    Err(f) => {
                        errln!("error: {}", describe(&f.error));
                        code = Some(f.code);
                    }
                }
            }
            Err(f) => {
                errln!("error: {}", describe(&f.error));
                code = Some(f.code);
            }
        }
        let out = default_out(path);
        let mut inputs = loaded_inputs;
        inputs.push(path.clone());
        let target = stmech::io::output::refuse_inputs(&out, &inputs)
            .and_then(|()| OutputDir::check_target(&out));
        match target {
            Ok(TargetState::Creatable) => {}
            Ok(TargetState::Exists) => errln!(
                "note: {}: the output directory {} exists; `stmech run` replaces it only with \
                 --force (or choose another with --out DIR)",
                path.display(),
                out.display()
            ),
            Err(e) => {
                let f = run::output_failure(e);
                errln!(
                    "error: {}: `stmech run` could not write its results: {}",
                    path.display(),
                    describe(&f.error)
                );
                code.get_or_insert(f.code);
            }
        }
        // `compare` writes next to its own default directory: its staging names must fit too
        if comparable && let Err(e) = OutputDir::check_names(&compare::default_out(Some(path))) {
            let f = run::output_failure(e);
            errln!(
                "error: {}: `stmech compare` could not write its results: {}",
                path.display(),
                describe(&f.error)
            );
            code.get_or_insert(f.code);
        }
        if let Some(c) = code {
            first_code.get_or_insert(c);
            n_bad += 1;
        }
    }
    match first_code {
        None => Ok(()),
        Some(code) => Err(Failure::new(
            code,
            anyhow::anyhow!("{n_bad} of {} scenario files failed the check", paths.len()),
        )),
    }
}
