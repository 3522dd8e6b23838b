//! Newton start of the space-time FEM for the beam inverse problem ([I] Example 3.2):
//! from rest, from the method of characteristics on the same mesh, on the mesh coarsened twice
//! and four times (the default of `solve_space_time`: fixed-point tolerance 1e-8), and from the
//! FEM on the mesh coarsened twice (nested iteration); coarse solutions are interpolated
//! cubically. Prints iterations (+ residual-only convergence checks), wall times and the
//! largest actuation difference to the solution started from rest.
//!
//! `cargo run --release -p stmech --example inverse_warm_start -- 20 64 128`

use std::time::Instant;
use stmech::inverse::{
    CharacteristicsSettings, SpaceTimeMesh, SpaceTimeSolution, solve_characteristics,
    solve_inverse, solve_inverse_from, solve_space_time,
};
use stmech::io::inverse_scenario::InverseScenario;

const EXAMPLE: &str = include_str!("../../../examples/beam_inverse/example_3_2.toml");

fn diff(a: &SpaceTimeSolution, b: &SpaceTimeSolution) -> f64 {
    a.actuation
        .iter()
        .zip(&b.actuation)
        .flat_map(|(x, y)| (0..3).map(move |c| (x[c] - y[c]).abs()))
        .fold(0.0, f64::max)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("space elements"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![20, 64, 128]
    } else {
        sizes
    };
    println!(
        "mesh | start | Newton iterations | residuals | start s | FEM s | total s | max |ΔF| to rest start"
    );
    for n in sizes {
        let text = EXAMPLE.replace("resolution = 20", &format!("resolution = {n}"));
        let s = InverseScenario::from_toml_str(&text, "ex", std::path::Path::new(".")).unwrap();
        let (beam, mesh, traj, newton) = (&s.beam, &s.mesh, s.trajectory.as_ref(), &s.newton);
        let name = format!("{} × {}", mesh.elements_s, mesh.elements_t);
        let row = |start: &str, sol: &SpaceTimeSolution, t_start: f64, t_fem: f64, d: f64| {
            let res: Vec<String> = sol
                .newton
                .residuals
                .iter()
                .map(|r| format!("{r:.0e}"))
                .collect();
            println!(
                "{name} | {start} | {} + {} | {} | {t_start:.3} | {t_fem:.3} | {:.3} | {d:.1e}",
                sol.newton.iterations,
                sol.newton.residual_checks,
                res.join(" "),
                t_start + t_fem
            );
        };
        let t = Instant::now();
        let rest = solve_inverse(beam, mesh, traj, newton).unwrap();
        row("rest", &rest, 0.0, t.elapsed().as_secs_f64(), 0.0);

        let t = Instant::now();
        let chars =
            solve_characteristics(beam, mesh, traj, &CharacteristicsSettings::default()).unwrap();
        let t_chars = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let warm = solve_inverse_from(beam, mesh, traj, newton, chars.solution).unwrap();
        row(
            "characteristics, same mesh",
            &warm,
            t_chars,
            t.elapsed().as_secs_f64(),
            diff(&warm, &rest),
        );

        let coarse_mesh = SpaceTimeMesh {
            elements_s: mesh.elements_s / 2,
            elements_t: mesh.elements_t / 2,
            ..*mesh
        };
        let t = Instant::now();
        let coarse = solve_inverse(beam, &coarse_mesh, traj, newton).unwrap();
        let t_coarse = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let nested = solve_inverse_from(beam, mesh, traj, newton, coarse.clone()).unwrap();
        row(
            &format!("coarse FEM ({} iterations)", coarse.newton.iterations),
            &nested,
            t_coarse,
            t.elapsed().as_secs_f64(),
            diff(&nested, &rest),
        );

        let t = Instant::now();
        let coarse_chars = solve_characteristics(
            beam,
            &coarse_mesh,
            traj,
            &CharacteristicsSettings::default(),
        )
        .unwrap();
        let t_cc = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let warm = solve_inverse_from(beam, mesh, traj, newton, coarse_chars.solution).unwrap();
        row(
            "characteristics, half mesh",
            &warm,
            t_cc,
            t.elapsed().as_secs_f64(),
            diff(&warm, &rest),
        );

        let t = Instant::now();
        let default = solve_space_time(beam, mesh, traj, newton).unwrap();
        let total = t.elapsed().as_secs_f64();
        let t_start = default.newton.start_seconds;
        row(
            "characteristics, quarter mesh (default)",
            &default,
            t_start,
            total - t_start,
            diff(&default, &rest),
        );
    }
}
