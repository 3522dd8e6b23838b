//! The discretised planar beam: mesh, reference configuration, end conditions and loads.
//!
//! Nodes are numbered from `s = 0` to `s = L`; node `a` owns the unknowns `3a, 3a+1, 3a+2` =
//! `(r1, r2, θ)` in the global frame (m, m, rad). A mesh of `n` elements of order `p` has
//! `n p + 1` equidistant nodes. Loads are dead (fixed direction in the global frame) and scaled by
//! a [`TimeFunction`] in dynamics; in statics they are scaled by the load factor instead.

use super::element::{ElementCtx, MAX_NODES, ShapeTable};
use super::section::{ConstitutiveLaw, ReferenceStrains, SectionProperties, strains};
use crate::error::InputError;
use crate::model::load::TimeFunction;

/// Stress-free reference configuration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReferenceGeometry {
    /// Straight beam from `start` in the direction of angle `angle` (rad, from the x-axis).
    Straight {
        /// Position of `s = 0` (m).
        start: [f64; 2],
        /// Angle of the axis (rad).
        angle: f64,
    },
    /// Circular arc with constant curvature `curvature` (1/m, positive: counter-clockwise),
    /// starting at `start` with tangent angle `angle`.
    Arc {
        /// Position of `s = 0` (m).
        start: [f64; 2],
        /// Tangent angle at `s = 0` (rad).
        angle: f64,
        /// Curvature `κ0` (1/m).
        curvature: f64,
    },
}

impl ReferenceGeometry {
    /// `(r1, r2, θ)` of the reference at arc length `s`.
    pub fn at(&self, s: f64) -> [f64; 3] {
        match *self {
            Self::Straight { start, angle } => [
                start[0] + s * angle.cos(),
                start[1] + s * angle.sin(),
                angle,
            ],
            Self::Arc {
                start,
                angle,
                curvature: k,
            } => {
                if k.abs() < 1e-14 {
                    return Self::Straight { start, angle }.at(s);
                }
                let th = angle + k * s;
                [
                    start[0] + (th.sin() - angle.sin()) / k,
                    start[1] - (th.cos() - angle.cos()) / k,
                    th,
                ]
            }
        }
    }
}

/// Condition at one end of the beam.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EndCondition {
    /// Position and rotation held at their reference values.
    Clamped,
    /// Position held, rotation free.
    Pinned,
    /// Nothing held (forces and moments may be applied as point loads).
    #[default]
    Free,
}

/// A dead point force and moment at a node, scaled by a time function.
#[derive(Debug, Clone, PartialEq)]
pub struct PointLoad {
    /// Node index (0 is `s = 0`, [`BeamModel::tip_node`] is `s = L`).
    pub node: usize,
    /// Force in the global frame (N).
    pub force: [f64; 2],
    /// Moment about the out-of-plane axis (N·m).
    pub moment: f64,
    /// Multiplier `s(t)` (in statics: of the load factor).
    pub time_function: TimeFunction,
}

/// A dead distributed force per unit reference length, scaled by a time function.
#[derive(Debug, Clone, PartialEq)]
pub struct DistributedLoad {
    /// Force per unit length in the global frame (N/m).
    pub force: [f64; 2],
    /// Moment per unit length (N·m/m).
    pub moment: f64,
    /// Multiplier.
    pub time_function: TimeFunction,
}

/// Largest number of elements a beam model accepts (a few GB of sparse LU at most).
pub const MAX_ELEMENTS: usize = 1_000_000;

/// Everything that defines a planar beam before discretisation.
#[derive(Debug, Clone, PartialEq)]
pub struct BeamSpec {
    /// Reference length `L` (m).
    pub length: f64,
    /// Section properties.
    pub section: SectionProperties,
    /// Constitutive law.
    pub law: ConstitutiveLaw,
    /// Number of elements.
    pub elements: usize,
    /// Element order (1 or 2).
    pub order: usize,
    /// Reference configuration.
    pub reference: ReferenceGeometry,
    /// Condition at `s = 0`.
    pub start: EndCondition,
    /// Condition at `s = L`.
    pub end: EndCondition,
    /// Point loads.
    pub point_loads: Vec<PointLoad>,
    /// Distributed loads.
    pub distributed_loads: Vec<DistributedLoad>,
}

impl BeamSpec {
    /// A straight beam along the x-axis from the origin, clamped at `s = 0`, free at `s = L`,
    /// unloaded.
    pub fn cantilever(
        length: f64,
        section: SectionProperties,
        elements: usize,
        order: usize,
    ) -> Self {
        Self {
            length,
            section,
            law: ConstitutiveLaw::Quadratic,
            elements,
            order,
            reference: ReferenceGeometry::Straight {
                start: [0.0; 2],
                angle: 0.0,
            },
            start: EndCondition::Clamped,
            end: EndCondition::Free,
            point_loads: Vec::new(),
            distributed_loads: Vec::new(),
        }
    }
}

/// A validated, discretised beam.
#[derive(Debug, Clone)]
pub struct BeamModel {
    /// The input it was built from.
    pub spec: BeamSpec,
    /// Element length `h = L/n` (m).
    pub h: f64,
    /// Reduced-integration table (stiffness).
    pub stiffness_shapes: ShapeTable,
    /// Full-integration table (mass, distributed loads).
    pub mass_shapes: ShapeTable,
    /// Reference strains per element and stiffness point.
    pub reference_strains: Vec<Vec<ReferenceStrains>>,
    /// Reference nodal unknowns.
    pub x_ref: Vec<f64>,
    /// Whether each unknown is prescribed (held at its reference value).
    pub fixed: Vec<bool>,
}

fn invalid(field: &str, message: String) -> InputError {
    InputError::Invalid {
        field: field.to_owned(),
        message,
    }
}

impl BeamModel {
    /// Validates `spec` and builds the discretisation. Field paths in errors are relative to
    /// `prefix` (e.g. `beam`).
    pub fn try_new(spec: BeamSpec) -> Result<Self, InputError> {
        Self::try_new_with_prefix(spec, "beam")
    }

    /// [`try_new`](Self::try_new) with the field-path prefix used in error messages.
    pub fn try_new_with_prefix(spec: BeamSpec, prefix: &str) -> Result<Self, InputError> {
        let problems = validate(&spec, prefix);
        if let Some(first) = problems.into_iter().next() {
            return Err(first);
        }
        let n = spec.elements;
        let p = spec.order;
        let h = spec.length / n as f64;
        let stiffness_shapes = ShapeTable::new(p, h, p);
        let mass_shapes = ShapeTable::new(p, h, p + 1);
        let nodes = n * p + 1;
        let mut x_ref = vec![0.0; 3 * nodes];
        for a in 0..nodes {
            let s = spec.length * a as f64 / (nodes - 1) as f64;
            x_ref[3 * a..3 * a + 3].copy_from_slice(&spec.reference.at(s));
        }
        let reference_strains = (0..n)
            .map(|e| {
                let xe = &x_ref[3 * e * p..3 * (e * p + p + 1)];
                (0..stiffness_shapes.w.len())
                    .map(|g| {
                        let (dr, th, dth) = stiffness_shapes.interpolate(g, xe);
                        let st = strains(dr, th, dth);
                        ReferenceStrains {
                            nu: st.nu,
                            gamma: st.gamma,
                            kappa: st.kappa,
                        }
                    })
                    .collect()
            })
            .collect();
        let mut fixed = vec![false; 3 * nodes];
        for (cond, node) in [(spec.start, 0), (spec.end, nodes - 1)] {
            let k = match cond {
                EndCondition::Clamped => 3,
                EndCondition::Pinned => 2,
                EndCondition::Free => 0,
            };
            fixed[3 * node..3 * node + k].fill(true);
        }
        Ok(Self {
            spec,
            h,
            stiffness_shapes,
            mass_shapes,
            reference_strains,
            x_ref,
            fixed,
        })
    }

    /// Number of nodes.
    pub fn nodes(&self) -> usize {
        self.spec.elements * self.spec.order + 1
    }

    /// Index of the node at `s = L`.
    pub fn tip_node(&self) -> usize {
        self.nodes() - 1
    }

    /// Number of unknowns `3 × nodes`.
    pub fn n_dofs(&self) -> usize {
        3 * self.nodes()
    }

    /// Arc length of node `a` (m).
    pub fn node_s(&self, a: usize) -> f64 {
        self.spec.length * a as f64 / (self.nodes() - 1) as f64
    }

    /// First global unknown of element `e`; its unknowns are the next `3(p+1)`.
    pub fn element_offset(&self, e: usize) -> usize {
        3 * e * self.spec.order
    }

    /// Number of unknowns of one element.
    pub fn element_dofs(&self) -> usize {
        3 * (self.spec.order + 1)
    }

    /// The element kernel of element `e`.
    pub fn element(&self, e: usize) -> ElementCtx<'_> {
        ElementCtx {
            shapes: &self.stiffness_shapes,
            reference: &self.reference_strains[e],
            section: &self.spec.section,
            law: self.spec.law,
        }
    }

    /// Consistent element mass matrix entry `∫ ρ N_a N_b ds` for node pair `(a, b)`:
    /// `[ρA, ρI]` (kg, kg·m²).
    pub fn element_mass(&self) -> [[[f64; 2]; MAX_NODES]; MAX_NODES] {
        let t = &self.mass_shapes;
        let sec = &self.spec.section;
        let mut m = [[[0.0; 2]; MAX_NODES]; MAX_NODES];
        for g in 0..t.w.len() {
            for a in 0..t.nodes() {
                for b in 0..t.nodes() {
                    let v = t.w[g] * t.n[g][a] * t.n[g][b];
                    m[a][b][0] += sec.rho_a * v;
                    m[a][b][1] += sec.rho_i * v;
                }
            }
        }
        m
    }

    /// Adds the external force vector at time (or load factor) `t` to `f` (length
    /// [`n_dofs`](Self::n_dofs)).
    pub fn add_external_forces(&self, t: f64, f: &mut [f64]) {
        self.add_scaled_external_forces(|tf| tf.value(t), f);
    }

    /// Adds the external forces of the full loads (time functions ignored), scaled by the
    /// load factor `lambda`: the static load path.
    pub fn add_static_forces(&self, lambda: f64, f: &mut [f64]) {
        self.add_scaled_external_forces(|_| lambda, f);
    }

    fn add_scaled_external_forces(&self, scale: impl Fn(&TimeFunction) -> f64, f: &mut [f64]) {
        for l in &self.spec.point_loads {
            let s = scale(&l.time_function);
            f[3 * l.node] += s * l.force[0];
            f[3 * l.node + 1] += s * l.force[1];
            f[3 * l.node + 2] += s * l.moment;
        }
        let tab = &self.mass_shapes;
        for l in &self.spec.distributed_loads {
            let s = scale(&l.time_function);
            for e in 0..self.spec.elements {
                let o = self.element_offset(e);
                for g in 0..tab.w.len() {
                    for a in 0..tab.nodes() {
                        let v = s * tab.w[g] * tab.n[g][a];
                        f[o + 3 * a] += v * l.force[0];
                        f[o + 3 * a + 1] += v * l.force[1];
                        f[o + 3 * a + 2] += v * l.moment;
                    }
                }
            }
        }
    }

    /// Kinetic energy `½ vᵀ M v` (J) of nodal velocities `v`.
    pub fn kinetic_energy(&self, v: &[f64]) -> f64 {
        let m = self.element_mass();
        let mut t = 0.0;
        for e in 0..self.spec.elements {
            let o = self.element_offset(e);
            for a in 0..=self.spec.order {
                for b in 0..=self.spec.order {
                    let (ia, ib) = (o + 3 * a, o + 3 * b);
                    t += 0.5
                        * (m[a][b][0] * (v[ia] * v[ib] + v[ia + 1] * v[ib + 1])
                            + m[a][b][1] * v[ia + 2] * v[ib + 2]);
                }
            }
        }
        t
    }

    /// Linear momentum `∫ ρA ṙ ds` (kg·m/s) and angular momentum about the origin
    /// `∫ ρA r × ṙ + ρI θ̇ ds` (kg·m²/s) of the interpolated fields.
    pub fn momenta(&self, x: &[f64], v: &[f64]) -> ([f64; 2], f64) {
        let m = self.element_mass();
        let (mut p, mut l) = ([0.0; 2], 0.0);
        for e in 0..self.spec.elements {
            let o = self.element_offset(e);
            for a in 0..=self.spec.order {
                for b in 0..=self.spec.order {
                    let (ia, ib) = (o + 3 * a, o + 3 * b);
                    p[0] += m[a][b][0] * v[ib];
                    p[1] += m[a][b][0] * v[ib + 1];
                    l += m[a][b][0] * (x[ia] * v[ib + 1] - x[ia + 1] * v[ib])
                        + m[a][b][1] * v[ib + 2];
                }
            }
        }
        (p, l)
    }

    /// Stored energy `Π(x)` (J).
    pub fn strain_energy(&self, x: &[f64]) -> Result<f64, super::element::ElementError> {
        use super::element::BeamElement;
        let nd = self.element_dofs();
        let mut sum = 0.0;
        for e in 0..self.spec.elements {
            let o = self.element_offset(e);
            sum += self.element(e).energy(&x[o..o + nd])?;
        }
        Ok(sum)
    }

    /// Section forces at the centre of each element (reduced-integration points averaged):
    /// `[N, Q, M]` (N, N, N·m).
    pub fn element_resultants(&self, x: &[f64]) -> Vec<[f64; 3]> {
        let nd = self.element_dofs();
        let t = &self.stiffness_shapes;
        (0..self.spec.elements)
            .map(|e| {
                let o = self.element_offset(e);
                let mut acc = [0.0; 3];
                for g in 0..t.w.len() {
                    let (dr, th, dth) = t.interpolate(g, &x[o..o + nd]);
                    let r = self.spec.law.resultants(
                        &self.spec.section,
                        strains(dr, th, dth),
                        self.reference_strains[e][g],
                    );
                    let k = 1.0 / t.w.len() as f64;
                    acc[0] += k * r.axial;
                    acc[1] += k * r.shear;
                    acc[2] += k * r.moment;
                }
                acc
            })
            .collect()
    }
}

/// All problems of `spec`, each with its field path under `prefix`.
pub fn validate(spec: &BeamSpec, prefix: &str) -> Vec<InputError> {
    let mut out = Vec::new();
    if let Err(e) = spec.section.validate(&format!("{prefix}.section")) {
        out.push(e);
    }
    if !(spec.length.is_finite() && spec.length > 0.0) {
        out.push(invalid(
            &format!("{prefix}.length"),
            format!("the length must be finite and > 0 (m), got {}", spec.length),
        ));
    }
    if spec.elements < 1 {
        out.push(invalid(
            &format!("{prefix}.elements"),
            "a beam needs at least one element; use e.g. elements = 10".to_owned(),
        ));
    } else if spec.elements > MAX_ELEMENTS {
        out.push(invalid(
            &format!("{prefix}.elements"),
            format!(
                "{} elements exceed the limit of {MAX_ELEMENTS} (the system would not fit in \
                 memory); use fewer, higher-order elements",
                spec.elements
            ),
        ));
    }
    if !(spec.order == 1 || spec.order == 2) {
        out.push(invalid(
            &format!("{prefix}.order"),
            format!("element order must be 1 or 2, got {}", spec.order),
        ));
    }
    if let ReferenceGeometry::Arc { curvature, .. } = spec.reference
        && !curvature.is_finite()
    {
        out.push(invalid(
            &format!("{prefix}.reference.curvature"),
            "the curvature must be finite".to_owned(),
        ));
    }
    let nodes = spec.elements * spec.order + 1;
    for (i, l) in spec.point_loads.iter().enumerate() {
        if l.node >= nodes {
            out.push(invalid(
                &format!("{prefix}.point_loads[{i}].node"),
                format!(
                    "node {} does not exist: the mesh has nodes 0..={} (0 is s = 0, {} is s = L)",
                    l.node,
                    nodes - 1,
                    nodes - 1
                ),
            ));
        }
        if !(l.force.iter().all(|v| v.is_finite()) && l.moment.is_finite()) {
            out.push(invalid(
                &format!("{prefix}.point_loads[{i}]"),
                "force and moment must be finite".to_owned(),
            ));
        }
    }
    for (i, l) in spec.distributed_loads.iter().enumerate() {
        if !(l.force.iter().all(|v| v.is_finite()) && l.moment.is_finite()) {
            out.push(invalid(
                &format!("{prefix}.distributed_loads[{i}]"),
                "force and moment must be finite".to_owned(),
            ));
        }
    }
    out
}
