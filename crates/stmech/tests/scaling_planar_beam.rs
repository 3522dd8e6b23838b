//! Scaling matrix of the planar beam (issue 29, "Trust at any scale"): statics (load steps),
//! the energy-momentum stepper and the Petrov–Galerkin space-time slabs, each run with the
//! DEFAULT Newton settings (relative tolerance 1e-10, 30 iterations) on the same physical
//! problem
//!
//! * (a) in SI;
//! * (b) in millimetre–tonne–second and in centimetre–gram–second units;
//! * (c) translated by 10⁶ m and rotated in the plane by 0.7 rad;
//! * (d) with a steel section (EA = 2e9 N) on 16 and 64 elements;
//! * (e) slabs: the planar space-time form is solved slab by slab (one time element per
//!   Newton solve); "many per block" has no counterpart here, so (e) runs the same motion as
//!   one slab of the whole interval and as 50 slabs.
//!
//! **Unit conversions.** A quantity of dimension `L^a M^b T^c` has the value
//! `v' = v / (ℓ^a μ^b τ^c)` in units `(ℓ, μ, τ)` given in SI (mm–t–s: `ℓ = 1e-3 m`,
//! `μ = 1e3 kg`, `τ = 1 s`; cm–g–s: `1e-2 m`, `1e-3 kg`, `1 s`). Length `L¹`; force
//! `L¹M¹T⁻²` (mm–t–s: 1 N = 1 t·mm/s², the value is unchanged; cgs: 1 N = 1e5 dyn); EA and
//! GA are forces; EI `L³M¹T⁻²` (N·m² = 1e6 N·mm²); moment `L²M¹T⁻²`; ρA `L⁻¹M¹` (kg/m =
//! 1e-6 t/mm); ρI `L¹M¹` (kg·m = 1 t·mm); time `T¹`.
//!
//! **Agreement.** (a), (b), (c) agree to `1e-8 × L` in the tip position (converted back to SI
//! and to the unrotated frame) and to `1e-8` rad in its angle. Derivation: each solve stops at
//! a residual `≤ 1e-10` of the largest force term of its step, i.e. a position error of about
//! `1e-10 × (largest force / stiffness)`, `≤ 1e-10 L` here (tip travel `< L`); the 20 load
//! steps or 40 time steps carry at most that many such errors (the steps start from the last
//! solution and do not amplify them: energy-conserving, stable schemes), `≤ 4e-9 L`. In (c)
//! the coordinates are `10⁶ m` from the origin: every strain is computed from differences of
//! positions with round-off `ε X` (`X ≈ 10⁶ m`): an axial force noise `δf ≈ ε (X/h) EA` per
//! node (`h` the node spacing) that no iterate can remove, and through the bending compliance
//! `L³/EI` a tip noise `δx/L ≈ ε (X/h) (EA L²/EI)`. For the nearly inextensible elastica
//! (`EA L²/EI = 1e5`, `h = L/20`) that is `4.4e-4`: in double precision the far beam cannot
//! agree to 1e-8 (measured 2.2e-4), whatever the solver. (c) is therefore held to the derived
//! `max(1e-8, 10 ε (X/h)(EA L²/EI))` (the factor 10 for the sums over elements and steps), and
//! it is 1e-8 where that is smaller (the inertia of a time step stiffens the flying beam far
//! below this bound: measured 1e-10).

use stmech::beam::dynamics::EnergyMomentumStepper;
use stmech::beam::model::{BeamModel, BeamSpec, EndCondition, PointLoad, ReferenceGeometry};
use stmech::beam::section::{ConstitutiveLaw, SectionProperties};
use stmech::beam::space_time::{SpaceTimeSettings, SpaceTimeSolver};
use stmech::beam::statics::solve_static;
use stmech::model::load::TimeFunction;
use stmech::solve::NewtonParams;

/// A consistent unit system `(ℓ, μ, τ)` in SI units.
#[derive(Clone, Copy, Debug)]
struct Units {
    l: f64,
    m: f64,
    t: f64,
}

const SI: Units = Units {
    l: 1.0,
    m: 1.0,
    t: 1.0,
};
const MM_T_S: Units = Units {
    l: 1e-3,
    m: 1e3,
    t: 1.0,
};
const CGS: Units = Units {
    l: 1e-2,
    m: 1e-3,
    t: 1.0,
};

impl Units {
    /// The value in these units of an SI value of dimension `L^a M^b T^c`.
    fn of(&self, v: f64, a: i32, b: i32, c: i32) -> f64 {
        v / (self.l.powi(a) * self.m.powi(b) * self.t.powi(c))
    }
    fn length(&self, v: f64) -> f64 {
        self.of(v, 1, 0, 0)
    }
    fn force(&self, v: f64) -> f64 {
        self.of(v, 1, 1, -2)
    }
    fn moment(&self, v: f64) -> f64 {
        self.of(v, 2, 1, -2)
    }
    fn time(&self, v: f64) -> f64 {
        self.of(v, 0, 0, 1)
    }
    fn section(&self, s: &SectionProperties) -> SectionProperties {
        SectionProperties {
            rho_a: self.of(s.rho_a, -1, 1, 0),
            rho_i: self.of(s.rho_i, 1, 1, 0),
            ea: self.force(s.ea),
            ga: self.force(s.ga),
            ei: self.of(s.ei, 3, 1, -2),
        }
    }
}

/// A placement of the beam: translation (m, SI) and rotation (rad) of the whole problem.
#[derive(Clone, Copy, Debug)]
struct Placement {
    offset: [f64; 2],
    angle: f64,
}

const HOME: Placement = Placement {
    offset: [0.0; 2],
    angle: 0.0,
};
const FAR: Placement = Placement {
    offset: [1e6, -1e6 / 3.0],
    angle: 0.7,
};

impl Placement {
    fn rotate(&self, v: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.angle.sin_cos();
        [c * v[0] - s * v[1], s * v[0] + c * v[1]]
    }
    /// A tip state `(r1, r2, θ)` of this placement back in the home frame.
    fn back(&self, x: [f64; 3]) -> [f64; 3] {
        let d = [x[0] - self.offset[0], x[1] - self.offset[1]];
        let (s, c) = self.angle.sin_cos();
        [c * d[0] + s * d[1], -s * d[0] + c * d[1], x[2] - self.angle]
    }
}

/// The physical problem in SI at home: a straight beam of length `length` from `start` at
/// angle `angle`, with loads; converted to `u` and placed by `p`.
struct Problem {
    length: f64,
    section: SectionProperties,
    elements: usize,
    start: [f64; 2],
    angle: f64,
    ends: (EndCondition, EndCondition),
    /// (node: first or last, force N, moment N·m, time function in SI seconds)
    loads: Vec<(bool, [f64; 2], f64, TimeFunction)>,
}

impl Problem {
    fn model(&self, u: Units, p: Placement) -> BeamModel {
        let start = p.rotate(self.start);
        let start = [start[0] + p.offset[0], start[1] + p.offset[1]];
        let mut spec = BeamSpec::cantilever(
            u.length(self.length),
            u.section(&self.section),
            self.elements,
            2,
        );
        spec.law = ConstitutiveLaw::Quadratic;
        spec.reference = ReferenceGeometry::Straight {
            start: [u.length(start[0]), u.length(start[1])],
            angle: self.angle + p.angle,
        };
        spec.start = self.ends.0;
        spec.end = self.ends.1;
        let tip = 2 * self.elements;
        for (at_start, force, moment, tf) in &self.loads {
            let f = p.rotate(*force);
            let tf = match tf {
                TimeFunction::Table { times, values } => TimeFunction::Table {
                    times: times.iter().map(|&t| u.time(t)).collect(),
                    values: values.clone(),
                },
                other => other.clone(),
            };
            spec.point_loads.push(PointLoad {
                node: if *at_start { 0 } else { tip },
                force: [u.force(f[0]), u.force(f[1])],
                moment: u.moment(*moment),
                time_function: tf,
            });
        }
        BeamModel::try_new(spec).expect("valid beam")
    }

    /// Tip state in SI, home frame.
    fn tip_si(&self, u: Units, p: Placement, x: &[f64]) -> [f64; 3] {
        let a = 3 * 2 * self.elements;
        p.back([x[a] * u.l, x[a + 1] * u.l, x[a + 2]])
    }
}

/// Elastica cantilever: `α = PL²/EI = 10` (`docs/verification.md`), nearly inextensible.
fn elastica(elements: usize, section: SectionProperties, length: f64) -> Problem {
    let p = 10.0 * section.ei / (length * length);
    Problem {
        length,
        section,
        elements,
        start: [0.0; 2],
        angle: 0.0,
        ends: (EndCondition::Clamped, EndCondition::Free),
        loads: vec![(false, [0.0, p], 0.0, TimeFunction::Constant)],
    }
}

/// The flying beam of `examples/beam/03_flying_beam.toml`, loaded for `t ∈ [0, 5]` s.
fn flying(elements: usize, section: SectionProperties) -> Problem {
    let hat = TimeFunction::Table {
        times: vec![0.0, 2.5, 5.0],
        values: vec![0.0, 1.0, 0.0],
    };
    Problem {
        length: 10.0,
        section,
        elements,
        start: [6.0, 0.0],
        angle: 8f64.atan2(-6.0),
        ends: (EndCondition::Free, EndCondition::Free),
        loads: vec![(true, [8.0, 0.0], 80.0, hat)],
    }
}

const ELASTICA: SectionProperties = SectionProperties {
    rho_a: 1.0,
    rho_i: 1.0,
    ea: 1e5,
    ga: 1e5,
    ei: 1.0,
};

const FLYING: SectionProperties = SectionProperties {
    rho_a: 1.0,
    rho_i: 10.0,
    ea: 1e4,
    ga: 1e4,
    ei: 500.0,
};

/// A steel tube: E = 210 GPa, G = 81 GPa, A = 9.52e-3 m² (EA = 2e9 N), I = 1e-5 m⁴
/// (EI = 2.1e6 N·m²), ρ = 7850 kg/m³, shear factor 0.5.
const STEEL: SectionProperties = SectionProperties {
    rho_a: 7850.0 * 9.524e-3,
    rho_i: 7850.0 * 1e-5,
    ea: 2e9,
    ga: 0.5 * 81e9 * 9.524e-3,
    ei: 2.1e6,
};

/// One row of the table.
struct Row {
    case: String,
    tip: [f64; 3],
    iterations: usize,
    at_floor: usize,
    solves: usize,
}

fn print(problem: &str, rows: &[Row], scale: f64) {
    let a = rows[0].tip;
    for r in rows {
        let dp = (r.tip[0] - a[0]).hypot(r.tip[1] - a[1]) / scale;
        let dth = (r.tip[2] - a[2]).abs();
        eprintln!(
            "| {problem} | {} | {} | {} | {} | {dp:.1e} | {dth:.1e} |",
            r.case, r.solves, r.iterations, r.at_floor
        );
    }
}

/// The agreement a placement `X` from the origin allows (module docs):
/// `max(1e-8, 10 ε (X/h)(EA L²/EI))`, relative to `L` (and in rad).
fn far_tolerance(problem: &Problem) -> f64 {
    let x = 1e6 + problem.length;
    let h = problem.length / (2 * problem.elements) as f64;
    let s = &problem.section;
    let ratio = s.ea * problem.length * problem.length / s.ei;
    (10.0 * f64::EPSILON * (x / h) * ratio).max(1e-8)
}

fn check_agreement(rows: &[Row], problem: &Problem) {
    let a = rows[0].tip;
    let scale = problem.length;
    for r in rows {
        let dp = (r.tip[0] - a[0]).hypot(r.tip[1] - a[1]);
        let dth = (r.tip[2] - a[2]).abs();
        let tol = if r.case.contains("far") || r.case.contains("(c)") {
            far_tolerance(problem)
        } else {
            1e-8
        };
        assert!(
            dp <= tol * scale && dth <= tol,
            "{}: tip differs from (a) by {dp:e} m, {dth:e} rad (tolerance {tol:e} relative)",
            r.case
        );
    }
}

fn statics(problem: &Problem, u: Units, p: Placement, case: &str) -> Row {
    let model = problem.model(u, p);
    let steps = solve_static(&model, 20, &NewtonParams::default())
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    let last = steps.last().unwrap();
    Row {
        case: case.into(),
        tip: problem.tip_si(u, p, &last.x),
        iterations: steps.iter().map(|s| s.newton.iterations).sum(),
        at_floor: steps.iter().filter(|s| s.newton.at_floor).count(),
        solves: steps.len(),
    }
}

#[derive(Clone, Copy)]
enum Method {
    Stepper,
    Slabs,
}

fn dynamics(
    problem: &Problem,
    u: Units,
    p: Placement,
    method: Method,
    (t_end, dt): (f64, f64),
    case: &str,
) -> Row {
    let model = problem.model(u, p);
    let (t_end, dt) = (u.time(t_end), u.time(dt));
    let (mut iterations, mut at_floor, mut solves) = (0, 0, 0);
    let x = match method {
        Method::Stepper => {
            let mut st = EnergyMomentumStepper::at_rest(&model, dt, NewtonParams::default())
                .expect("stepper");
            st.run_until(t_end, |s| {
                iterations += s.last_iterations;
                at_floor += usize::from(s.newton_report().at_floor);
                solves += 1;
            })
            .unwrap_or_else(|e| panic!("{case}: {e}"));
            st.x().to_vec()
        }
        Method::Slabs => {
            let mut st =
                SpaceTimeSolver::at_rest(&model, dt, SpaceTimeSettings::default()).expect("slabs");
            st.run_until(t_end, |s| {
                iterations += s.last_iterations();
                at_floor += usize::from(s.newton_report().at_floor);
                solves += 1;
            })
            .unwrap_or_else(|e| panic!("{case}: {e}"));
            st.x().to_vec()
        }
    };
    Row {
        case: case.into(),
        tip: problem.tip_si(u, p, &x),
        iterations,
        at_floor,
        solves,
    }
}

#[test]
fn statics_agree_in_any_units_and_placement() {
    let problem = elastica(10, ELASTICA, 1.0);
    let rows = vec![
        statics(&problem, SI, HOME, "(a) SI"),
        statics(&problem, MM_T_S, HOME, "(b) mm-t-s"),
        statics(&problem, CGS, HOME, "(b) cm-g-s"),
        statics(&problem, SI, FAR, "(c) 1e6 m, 0.7 rad"),
    ];
    eprintln!("| problem | case | load steps | iterations | at floor | Δtip / L | Δθ (rad) |");
    print("beam statics (elastica α = 10)", &rows, problem.length);
    check_agreement(&rows, &problem);
    // the elastica table (Mattiasson): tip at (0.44500, 0.81061) L within 1e-4 on this mesh
    let tip = rows[0].tip;
    assert!((tip[0] - 0.44500).abs() < 1e-4 && (tip[1] - 0.81061).abs() < 1e-4);
}

#[test]
fn steel_statics_converge_with_the_defaults() {
    for elements in [16, 64] {
        let problem = elastica(elements, STEEL, 2.0);
        let rows = vec![
            statics(&problem, SI, HOME, &format!("(d) steel, {elements} el.")),
            statics(
                &problem,
                SI,
                FAR,
                &format!("(d) steel, {elements} el., far"),
            ),
        ];
        print("beam statics (steel)", &rows, problem.length);
        // the same elastica, α = 10, up to the shear and axial flexibility of the steel
        // section (EI/(GA L²) = 1.4e-3): the tip within 1e-2 L of the inextensible table
        let t = rows[0].tip;
        assert!((t[0] / 2.0 - 0.44500).abs() < 1e-2 && (t[1] / 2.0 - 0.81061).abs() < 1e-2);
        check_agreement(&rows, &problem);
    }
}

fn dynamics_matrix(method: Method, name: &str) {
    let problem = flying(10, FLYING);
    let run = (1.0, 0.025);
    let rows = vec![
        dynamics(&problem, SI, HOME, method, run, "(a) SI"),
        dynamics(&problem, MM_T_S, HOME, method, run, "(b) mm-t-s"),
        dynamics(&problem, CGS, HOME, method, run, "(b) cm-g-s"),
        dynamics(&problem, SI, FAR, method, run, "(c) 1e6 m, 0.7 rad"),
    ];
    print(name, &rows, problem.length);
    check_agreement(&rows, &problem);
    for elements in [16, 64] {
        let steel = flying(elements, STEEL);
        // the loads are small for steel: scale them to move it visibly (PL²/EI ≈ 1 at the
        // peak; larger loads spin the free beam by more than π per step, which the Cayley
        // update refuses)
        let mut steel = steel;
        for l in &mut steel.loads {
            l.1 = [l.1[0] * 2.5e3, l.1[1] * 2.5e3];
            l.2 *= 2.5e3;
        }
        let rows = vec![
            dynamics(
                &steel,
                SI,
                HOME,
                method,
                run,
                &format!("(d) steel, {elements} el."),
            ),
            dynamics(
                &steel,
                SI,
                FAR,
                method,
                run,
                &format!("(d) steel, {elements} el., far"),
            ),
        ];
        print(name, &rows, steel.length);
        check_agreement(&rows, &steel);
    }
}

#[test]
fn stepper_agrees_in_any_units_and_placement() {
    dynamics_matrix(Method::Stepper, "beam dynamics, energy-momentum");
}

#[test]
fn slabs_agree_in_any_units_and_placement() {
    dynamics_matrix(Method::Slabs, "beam dynamics, space-time slabs");
    // (e) one slab over the whole interval and 50 slabs, with the defaults
    let problem = flying(10, FLYING);
    for (slabs, case) in [(1usize, "(e) 1 slab of 0.5 s"), (50, "(e) 50 slabs")] {
        let rows = vec![
            dynamics(
                &problem,
                SI,
                HOME,
                Method::Slabs,
                (0.5, 0.5 / slabs as f64),
                case,
            ),
            dynamics(
                &problem,
                SI,
                FAR,
                Method::Slabs,
                (0.5, 0.5 / slabs as f64),
                &format!("{case}, far"),
            ),
        ];
        print("beam dynamics, space-time slabs", &rows, problem.length);
        check_agreement(&rows, &problem);
    }
}
