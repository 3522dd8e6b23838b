//! The rectangular-load example of [P, §4.1] through the Rust API: a 2 × 1 × 1 box
//! (ρ₀ = 1.5) flying at (5, 5, 5) m/s is spun up by the torque (1, 1, 1) N·m on [0.5, 1.5] s.
//!
//! Run with `cargo run --release -p stmech --example rectangular_load -- [order] [elements] [blocks]`.

use stmech::model::{
    ConstrainedSystem, Load, LoadKind, MassProperties, MultibodySystem, RigidBody, TimeFunction,
};
use stmech::solve::NewtonParams;
use stmech::solve::scheme::{Method, SpaceTimeParams, simulate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let order = args.first().copied().unwrap_or(1);
    let elements = args.get(1).copied().unwrap_or(1000);
    let blocks = args.get(2).copied().unwrap_or(1);
    let d = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let body = RigidBody {
        name: "box".into(),
        mass: MassProperties::from_box([2.0, 1.0, 1.0], 1.5, [0.0; 3]),
        position: [0.0; 3],
        directors: d,
        velocity: [5.0; 3],
        director_velocities: [[0.0; 3]; 3],
    };
    let torque = Load {
        body: 0,
        kind: LoadKind::Torque([1.0; 3]),
        time_function: TimeFunction::Window {
            start: 0.5,
            end: 1.5,
        },
    };
    let sys = MultibodySystem::new(vec![body], vec![torque], vec![])?;
    let (q0, v0) = sys.initial_state();
    let method = Method::SpaceTime(SpaceTimeParams {
        order,
        elements_per_block: elements / blocks,
        blocks,
        quadrature_points: None,
        formulation: Default::default(),
    });
    let t = std::time::Instant::now();
    let traj = simulate(
        &sys,
        &q0,
        &v0,
        0.0,
        4.0,
        &method,
        &NewtonParams::default(),
        &mut |_| {},
    )?;
    let wall = t.elapsed().as_secs_f64();
    let q = traj.q_final();
    println!("{}", traj.method);
    println!(
        "wall time {wall:.4} s, Newton iterations {}",
        traj.total_newton_iterations()
    );
    let sum = |f: &dyn Fn(&stmech::solve::NewtonReport) -> f64| -> f64 {
        traj.blocks.iter().map(|b| f(&b.newton)).sum()
    };
    println!(
        "total: assembly {:.4} s, factorisation {:.4} s, solve {:.4} s",
        sum(&|n| n.assembly_seconds),
        sum(&|n| n.factorization_seconds),
        sum(&|n| n.solve_seconds)
    );
    for b in traj.blocks.iter().take(20) {
        println!(
            "  block [{:.2}, {:.2}]: {} it, residuals {:?}, asm {:.4} s, fac {:.4} s, sol {:.4} s",
            b.t_start,
            b.t_end,
            b.newton.iterations,
            b.newton
                .residuals
                .iter()
                .map(|r| format!("{r:.1e}"))
                .collect::<Vec<_>>(),
            b.newton.assembly_seconds,
            b.newton.factorization_seconds,
            b.newton.solve_seconds
        );
    }
    println!("COM {:?}", &q[..3]);
    for i in 0..3 {
        println!("d{} = {:?}", i + 1, &q[3 + 3 * i..6 + 3 * i]);
    }
    let (vn, vb) = traj.constraint_violation(&sys);
    println!("max |Phi| at nodes {vn:.2e}, between nodes {vb:.2e}");
    let n = traj.len();
    println!(
        "T(0) = {:.12}, T(end) = {:.12}",
        sys.kinetic_energy(traj.v_at(0)),
        sys.kinetic_energy(traj.v_at(n - 1))
    );
    Ok(())
}
