//! Smoke test of the one model: a clamped director beam in statics.
use stmech::model::director_beam::section::{DiagonalStiffness, SectionInertia};
use stmech::model::director_beam::{BeamSpec, ConstantCurvature, Integration, Section};
use stmech::model::{
    ConstrainedSystem, JointBody, Load, LoadKind, MultibodySystem, Rigid, TimeFunction,
};
use stmech::solve::statics::{StaticParams, solve_static};

#[test]
fn cantilever_small_tip_force_matches_euler_bernoulli() {
    let (l, ei, ea, ga) = (1.0, 2.0, 1e6, 1e6);
    let n_el = 20;
    let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let curve = ConstantCurvature::straight([0.0; 3], frame);
    let section = Section::from_diagonal(
        DiagonalStiffness {
            ea,
            ga1: ga,
            ga2: ga,
            ei1: ei,
            ei2: ei,
            gj: 1.5,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[1e-3, 0.0], [0.0, 1e-3]],
        },
    )
    .unwrap();
    let spec = BeamSpec {
        name: "beam".into(),
        order: 1,
        nodes: curve.nodes(l, n_el, 1),
        section,
        integration: Integration::Reduced,
        velocity: [0.0; 3],
        angular_velocity: [0.0; 3],
        distributed: vec![],
        gravity: None,
    };
    let beam = spec.build().unwrap();
    let q0 = beam.initial_q.clone();
    let clamp = Rigid::new(0, JointBody::Ground, &q0[..12], &[]);
    let p = 1e-3;
    let tip = Load {
        body: n_el,
        kind: LoadKind::Force([p, 0.0, 0.0]),
        time_function: TimeFunction::Constant,
    };
    let sys =
        MultibodySystem::with_deformables(vec![], vec![beam], vec![tip], vec![Box::new(clamp)])
            .unwrap();
    let (q, _) = sys.initial_state();
    let sol = solve_static(
        &sys,
        &q,
        &StaticParams {
            load_steps: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let w = sol.q[12 * n_el];
    let eb = p * l * l * l / (3.0 * ei) + p * l / ga;
    eprintln!(
        "tip deflection {w:e}, Euler–Bernoulli + shear {eb:e}, rel {:e}",
        (w - eb) / eb
    );
    assert!(((w - eb) / eb).abs() < 2e-3);
    let _ = sys.n_q();
}

#[test]
fn free_spinning_beam_conserves_energy_and_momentum() {
    use stmech::solve::NewtonParams;
    use stmech::solve::scheme::{Method, SpaceTimeParams, simulate};
    let frame = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let curve = ConstantCurvature {
        origin: [0.0; 3],
        frame,
        curvature: [0.3, 0.0, 0.1],
    };
    let section = Section::from_diagonal(
        DiagonalStiffness {
            ea: 100.0,
            ga1: 50.0,
            ga2: 50.0,
            ei1: 2.0,
            ei2: 3.0,
            gj: 1.5,
        },
        SectionInertia {
            rho_a: 1.0,
            euler_tensor: [[0.01, 0.0], [0.0, 0.02]],
        },
    )
    .unwrap();
    for order in [1, 2] {
        let spec = BeamSpec {
            name: "beam".into(),
            order,
            nodes: curve.nodes(2.0, 6, order),
            section,
            integration: Integration::Reduced,
            velocity: [0.1, 0.0, 0.3],
            angular_velocity: [0.5, -1.0, 2.0],
            distributed: vec![],
            gravity: None,
        };
        let sys =
            MultibodySystem::with_deformables(vec![], vec![spec.build().unwrap()], vec![], vec![])
                .unwrap();
        let (q0, v0) = sys.initial_state();
        for p in [1, 2] {
            let params = SpaceTimeParams {
                order: p,
                elements_per_block: 1,
                blocks: 50,
                quadrature_points: None,
                formulation: Default::default(),
            };
            let newton = NewtonParams {
                tolerance: 1e-11,
                max_iterations: 30,
            };
            let traj = simulate(
                &sys,
                &q0,
                &v0,
                0.0,
                1.0,
                &Method::SpaceTime(params),
                &newton,
                &mut |_| {},
            )
            .unwrap();
            let e =
                |k: usize| sys.kinetic_energy(traj.v_at(k)) + sys.potential_energy(traj.q_at(k));
            let (e0, l0) = (e(0), sys.angular_momentum(traj.q_at(0), traj.v_at(0)));
            let (mut de, mut dl): (f64, f64) = (0.0, 0.0);
            for k in (0..traj.len()).step_by(p) {
                de = de.max((e(k) - e0).abs());
                let l = sys.angular_momentum(traj.q_at(k), traj.v_at(k));
                for c in 0..3 {
                    dl = dl.max((l[c] - l0[c]).abs());
                }
            }
            let pot = sys.potential_energy(traj.q_at(traj.len() - 1));
            eprintln!(
                "order {order}, p {p}: E0 {e0:.6}, strain energy at end {pot:.3e}, dE {de:.2e}, dL {dl:.2e}, iterations {}",
                traj.total_newton_iterations()
            );
            assert!(de < 1e-9 * e0 && dl < 1e-9, "dE {de}, dL {dl}");
            assert!(pot > 1e-4 * e0, "the beam deforms");
        }
    }
}
