//! Issue 17, crane inverse dynamics by the space-time FEM (`stmech::inverse::crane`).
//!
//! The manoeuvre: a 10 m rope of 2 kg/m (20 kg) with a 20 kg payload, `EA = 10⁶ N`, payload
//! moved rest-to-rest by `(8, 4, 2)` m (lifted 2 m) in 8 s with the profile of `[I]` Eq. 35,
//! time domain `[0, 12]` s (pre- and post-actuation 2 s ≥ the transverse travel time 0.84 s).
//!
//! * Rigid-rope limit: for a light, stiff rope the suspension motion tends to the flat output
//!   of the rigid pendulum crane `x₀ = y + L (ÿ − g)/|ÿ − g|`; the largest difference falls
//!   with the rope mass (EA fixed, large) and with the compliance (ρA fixed, small).
//! * Closed loop: the computed suspension motion, replayed in the forward string model (linear
//!   elements, midpoint discrete gradient) on a mesh twice as fine in space and time, moves the
//!   payload along `y(t)`; the largest deviation over three meshes falls at order 2.
//! * The streamed sideways elimination (with the string's coupled Hessian) and faer's sparse
//!   LU give the same solution.
//! * Paths needing a slack rope, a time domain without pre-actuation, and a mesh violating
//!   the sideways condition are refused before solving, with the interval or the fix.

use stmech::inverse::crane::{self, CraneError};
use stmech::inverse::trajectory::RestToRestLine;
use stmech::inverse::{LinearSolverKind, NewtonSettings, SpaceTimeMesh};
use stmech::string::StringModel;

fn rope() -> StringModel {
    StringModel::crane_example()
}

fn path() -> RestToRestLine {
    RestToRestLine::crane_example()
}

fn rigid_difference(m: &StringModel, ns: usize, nt: usize) -> f64 {
    let p = path();
    let mesh = SpaceTimeMesh {
        t_start: 0.0,
        t_end: 12.0,
        elements_s: ns,
        elements_t: nt,
    };
    let sol = crane::solve_crane(m, &mesh, &p, &NewtonSettings::default()).unwrap();
    let mut dev: f64 = 0.0;
    for j in 0..sol.solution.t.len() {
        let x = sol.suspension(j);
        let xr = crane::rigid_suspension(m, &p, sol.solution.t[j]);
        dev = dev.max((0..3).map(|c| (x[c] - xr[c]).powi(2)).sum::<f64>().sqrt());
    }
    dev
}

#[test]
fn rigid_rope_limit() {
    // rope mass → 0 at EA = 10⁸ N
    let mut last = f64::INFINITY;
    let mut by_mass = Vec::new();
    for rho_a in [2.0, 0.2, 0.02, 0.002] {
        let mut m = rope();
        m.rho_a = rho_a;
        m.ea = 1e8;
        let d = rigid_difference(&m, 32, 720);
        println!(
            "ρA = {rho_a} kg/m (rope/payload mass {:.0e}), EA = 1e8 N: max |x − x_rigid| = {d:.3e} m",
            rho_a * 10.0 / 20.0
        );
        assert!(d < last);
        last = d;
        by_mass.push(d);
    }
    // linear in the rope mass while it dominates
    assert!(by_mass[0] / by_mass[1] > 5.0 && by_mass[1] / by_mass[2] > 5.0);
    // compliance → 0 at ρA = 2·10⁻⁴ kg/m
    let mut last = f64::INFINITY;
    let mut by_stiffness = Vec::new();
    for ea in [1e5, 1e6, 1e7, 1e8] {
        let mut m = rope();
        m.rho_a = 2e-4;
        m.ea = ea;
        let d = rigid_difference(&m, 32, 720);
        println!(
            "ρA = 2e-4 kg/m, EA = {ea:.0e} N (payload stretch m g L/EA = {:.1e} m): max |x − x_rigid| = {d:.3e} m",
            20.0 * 9.81 * 10.0 / ea
        );
        assert!(d < last);
        last = d;
        by_stiffness.push(d);
    }
    assert!(by_stiffness[0] / by_stiffness[1] > 5.0 && by_stiffness[1] / by_stiffness[2] > 5.0);
    assert!(last < 5e-5, "{last:e}");
}

#[test]
fn closed_loop_tracking_converges() {
    let p = path();
    let mut devs = Vec::new();
    for ns in [8, 16, 32] {
        let mesh = crane::auto_mesh(&rope(), &p, 0.0, 12.0, ns).unwrap();
        let t0 = std::time::Instant::now();
        let sol = crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap();
        let el = t0.elapsed().as_secs_f64();
        let (cl, _) = crane::closed_loop(&sol, &p, 2).unwrap();
        println!(
            "ns = {ns}, nt = {} (μ = {:.3}): Newton {} iterations, {el:.3} s; forward replay on \
             {} elements, Δt = {:.4} s: max payload deviation {:.3e} m at t = {:.3} s (travel {:.2} m), min stretch {:.6}",
            mesh.elements_t,
            sol.courant,
            sol.solution.newton.iterations,
            cl.elements_s,
            cl.dt,
            cl.max_deviation,
            cl.at,
            cl.travel,
            sol.min_stretch
        );
        devs.push(cl.max_deviation);
    }
    for k in 0..2 {
        let order = (devs[k] / devs[k + 1]).log2();
        assert!(order > 1.8, "order {order}");
    }
    assert!(devs[2] < 5e-4);
}

#[test]
fn sideways_elimination_agrees_with_sparse_lu() {
    let p = path();
    let mesh = crane::auto_mesh(&rope(), &p, 0.0, 12.0, 8).unwrap();
    let a = crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap();
    let settings = NewtonSettings {
        linear_solver: LinearSolverKind::SparseLu,
        ..Default::default()
    };
    let b = crane::solve_crane(&rope(), &mesh, &p, &settings).unwrap();
    let mut dx: f64 = 0.0;
    let mut df: f64 = 0.0;
    for j in 0..a.solution.t.len() {
        for c in 0..3 {
            dx = dx.max((a.suspension(j)[c] - b.suspension(j)[c]).abs());
            df = df.max((a.solution.actuation[j][c] - b.solution.actuation[j][c]).abs());
        }
    }
    println!("sideways vs sparse LU: |Δx| {dx:.2e} m, |ΔF| {df:.2e} N");
    assert!(dx < 1e-9 && df < 1e-6);
}

#[test]
fn slack_path_is_refused_naming_the_interval() {
    let mut p = path();
    p.delta = [0.0, 0.0, -60.0];
    p.profile.duration = 4.0;
    let e = crane::auto_mesh(&rope(), &p, 0.0, 8.0, 16).unwrap_err();
    let msg = e.to_string();
    println!("{msg}");
    let CraneError::Slack {
        from, to, worst, ..
    } = e
    else {
        panic!("{e:?}")
    };
    // σ'' < −g/60 on the first half: the interval starts after t0 and ends before t0 + T/2
    assert!(from > 2.0 && to < 4.0 && worst > 9.81);
    assert!(msg.contains("[2.5000, 3.8740]"), "{msg}");
}

#[test]
fn missing_pre_actuation_and_bad_mesh_are_refused() {
    let p = path();
    let mesh = SpaceTimeMesh {
        t_start: 1.5,
        t_end: 12.0,
        elements_s: 8,
        elements_t: 100,
    };
    let e = crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap_err();
    println!("{e}");
    assert!(
        matches!(e, CraneError::TimeDomain { which: "pre", .. }),
        "{e:?}"
    );
    let mesh = SpaceTimeMesh {
        t_start: 0.0,
        t_end: 12.0,
        elements_s: 8,
        elements_t: 1000,
    };
    let e = crane::solve_crane(&rope(), &mesh, &p, &NewtonSettings::default()).unwrap_err();
    let msg = e.to_string();
    println!("{msg}");
    assert!(matches!(e, CraneError::MeshRatio(_)), "{e:?}");
    assert!(
        msg.contains("at most") && msg.contains("time elements"),
        "{msg}"
    );
    // a motion shorter than 4 time elements (here: a horizontal jump) is refused too
    let mut jump = path();
    jump.delta = [1.0, 0.0, 0.0];
    jump.profile.duration = 1e-300;
    let mesh = crane::auto_mesh(&rope(), &jump, 0.0, 12.0, 8).unwrap();
    let e = crane::solve_crane(&rope(), &mesh, &jump, &NewtonSettings::default()).unwrap_err();
    println!("{e}");
    assert!(matches!(e, CraneError::Unresolved { .. }), "{e:?}");
}
