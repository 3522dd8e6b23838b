//! The plots of a spatial inverse run: `actuation.png` (force and moment, the rigid arm
//! dashed), `tip.png` (the tracked frame, prescribed solid, computed dashed) and `arm.png`
//! (snapshots in space), and the series of `stmech compare`.

use super::files::replay_at;
use super::{Rows, continuous};
use crate::plots::OnPlot;
use crate::plots::{Series, padded_range, register_font, space_curves_chart};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::Path;
use stmech::inverse::spatial::SpatialRun;
use stmech::inverse::trajectory::pose::Pose;
use stmech::math::Vec3;
use stmech::math::rotation::{Quat, quat_conj, quat_from_frame, quat_mul};

/// A drawn curve: label, colour, dashed, points.
type DrawnCurve = (String, RGBColor, bool, Vec<(f64, f64)>);

/// One curve of a panel: solid or dashed.
struct Curve<'a> {
    label: String,
    color: RGBColor,
    dashed: bool,
    points: Box<dyn Iterator<Item = (f64, f64)> + 'a>,
}

/// One panel of [`panels_chart`].
struct Panel<'a> {
    title: &'a str,
    y_label: &'a str,
    curves: Vec<Curve<'a>>,
}

const COLORS: [RGBColor; 3] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
];

/// Panels side by side (700 × 560 each), curves solid or dashed (a reference).
fn panels_chart(path: &Path, panels: Vec<Panel<'_>>) -> anyhow::Result<()> {
    register_font()?;
    let width = 700 * panels.len() as u32;
    let root = BitMapBackend::new(path, (width, 560)).into_drawing_area();
    root.fill(&WHITE).on(path)?;
    let areas = root.split_evenly((1, panels.len()));
    for (area, panel) in areas.iter().zip(panels) {
        let curves: Vec<DrawnCurve> = panel
            .curves
            .into_iter()
            .map(|c| {
                let pts: Vec<(f64, f64)> = c
                    .points
                    .filter(|(x, y)| x.is_finite() && y.is_finite())
                    .collect();
                (c.label, c.color, c.dashed, pts)
            })
            .collect();
        let (x0, x1) = padded_range(curves.iter().flat_map(|c| c.3.iter().map(|p| p.0)));
        let (y0, y1) = padded_range(curves.iter().flat_map(|c| c.3.iter().map(|p| p.1)));
        let mut chart = ChartBuilder::on(area)
            .caption(panel.title, ("sans-serif", 22))
            .margin(14)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(x0..x1, y0..y1)
            .on(path)?;
        chart
            .configure_mesh()
            .x_desc("t [s]")
            .y_desc(panel.y_label)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .on(path)?;
        for (label, color, dashed, pts) in curves {
            let style = color.stroke_width(2);
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(pts, 8, 6, style))
                    .on(path)?
                    .label(label)
                    .legend(move |(x, y)| {
                        DashedPathElement::new(vec![(x, y), (x + 24, y)], 8, 6, style)
                    });
            } else {
                chart
                    .draw_series(LineSeries::new(pts, style))
                    .on(path)?
                    .label(label)
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font(("sans-serif", 13))
            .draw()
            .on(path)?;
    }
    crate::plots::present(&root, path)
}

/// `actuation.png` and `arm.png` (`tip.png` follows the closed loop, on its thread).
pub(super) fn write_plots(dir: &Path, run: &SpatialRun, rows: &Rows) -> anyhow::Result<()> {
    plot_actuation(&dir.join("actuation.png"), rows)?;
    plot_arm(&dir.join("arm.png"), run, rows)
}

fn plot_actuation(path: &Path, rows: &Rows) -> anyhow::Result<()> {
    let t = &rows.t;
    let curves = |v: &'_ [Vec3], r: &'_ [Vec3], names: [&str; 3], unit: &str| {
        let mut c: Vec<Curve<'_>> = Vec::new();
        for (k, name) in names.iter().enumerate() {
            let (tt, vv, rr) = (t.clone(), v.to_vec(), r.to_vec());
            c.push(Curve {
                label: format!("{name} [{unit}]"),
                color: COLORS[k],
                dashed: false,
                points: Box::new(tt.into_iter().zip(vv).map(move |(t, x)| (t, x[k]))),
            });
            let tt = t.clone();
            c.push(Curve {
                label: format!("{name}, rigid arm"),
                color: COLORS[k],
                dashed: true,
                points: Box::new(tt.into_iter().zip(rr).map(move |(t, x)| (t, x[k]))),
            });
        }
        c
    };
    panels_chart(
        path,
        vec![
            Panel {
                title: "Force on the beam at s = 0",
                y_label: "force [N]",
                curves: curves(&rows.force, &rows.rigid_force, ["f_x", "f_y", "f_z"], "N"),
            },
            Panel {
                title: "Moment on the beam at s = 0",
                y_label: "moment [N·m]",
                curves: curves(
                    &rows.moment,
                    &rows.rigid_moment,
                    ["m_x", "m_y", "m_z"],
                    "N·m",
                ),
            },
        ],
    )
}

/// Rotation vectors of the frames `poses` relative to the first (continuous in time).
fn rotations(poses: &[Pose]) -> Vec<Vec3> {
    let Some(first) = poses.first() else {
        return Vec::new();
    };
    let q0 = quat_conj(&quat_from_frame(&first.directors));
    let mut prev: Option<Quat> = None;
    poses
        .iter()
        .map(|p| {
            let q = continuous(quat_mul(&quat_from_frame(&p.directors), &q0), prev.as_ref());
            prev = Some(q);
            // on the sign-continuous branch: the angle runs on past π
            stmech::math::so3::rotation_vector_on_branch(&q)
        })
        .collect()
}

/// `tip.png`: the tracked frame's position and rotation, prescribed (solid) against the
/// inverse solution or, when there is one, the closed-loop replay (dashed).
pub(super) fn plot_tip(
    path: &Path,
    rows: &Rows,
    replay: Option<&[(f64, Pose)]>,
) -> anyhow::Result<()> {
    let n = rows.t.len();
    let (label, achieved): (&str, Vec<Pose>) = match replay {
        Some(r) if !r.is_empty() => (
            "replay",
            (0..n)
                .filter_map(|j| replay_at(r, j, rows.t[j], n).copied())
                .collect(),
        ),
        _ => ("inverse solution", rows.achieved.clone()),
    };
    let (rp, ra) = (rotations(&rows.prescribed), rotations(&achieved));
    let comp = |name: &str, k: usize, pos: bool| -> [Curve<'_>; 2] {
        let t1 = rows.t.clone();
        let t2 = rows.t.clone();
        let (p, a): (Vec<f64>, Vec<f64>) = if pos {
            (
                rows.prescribed.iter().map(|p| p.position[k]).collect(),
                achieved.iter().map(|p| p.position[k]).collect(),
            )
        } else {
            (
                rp.iter().map(|r| r[k]).collect(),
                ra.iter().map(|r| r[k]).collect(),
            )
        };
        [
            Curve {
                label: format!("{name} prescribed"),
                color: COLORS[k],
                dashed: false,
                points: Box::new(t1.into_iter().zip(p)),
            },
            Curve {
                label: format!("{name} {label}"),
                color: COLORS[k],
                dashed: true,
                points: Box::new(t2.into_iter().zip(a)),
            },
        ]
    };
    let pos: Vec<Curve<'_>> = ["x", "y", "z"]
        .iter()
        .enumerate()
        .flat_map(|(k, n)| comp(n, k, true))
        .collect();
    let rot: Vec<Curve<'_>> = ["ψ_x", "ψ_y", "ψ_z"]
        .iter()
        .enumerate()
        .flat_map(|(k, n)| comp(n, k, false))
        .collect();
    panels_chart(
        path,
        vec![
            Panel {
                title: "Tracked frame: position",
                y_label: "position [m]",
                curves: pos,
            },
            Panel {
                title: "Tracked frame: rotation from rest",
                y_label: "rotation vector [rad]",
                curves: rot,
            },
        ],
    )
}

/// `arm.png`: 13 snapshots of the arm in space with the paths of its base and of the tracked
/// frame.
fn plot_arm(path: &Path, run: &SpatialRun, rows: &Rows) -> anyhow::Result<()> {
    let sol = &run.solution;
    let (n, ns) = (sol.t.len(), sol.mesh.elements_s);
    let shapes: Vec<Vec<[f64; 3]>> = (0..=12)
        .map(|k| {
            let j = (k * (n - 1)) / 12;
            (0..=ns).map(|i| sol.position(i, j)).collect()
        })
        .collect();
    space_curves_chart(
        path,
        "Arm snapshots (light: early, dark: late), equal axes",
        &shapes,
        &[
            (
                "tracked frame (prescribed)",
                rows.prescribed.iter().map(|p| p.position).collect(),
            ),
            ("base", rows.base_position.clone()),
        ],
        2,
    )
}

/// The force (or moment) curves of several runs for `stmech compare`: component `k` of
/// each run's force (`moment = false`) or moment against time.
pub fn actuation_series(label: &str, rows: &Rows, moment: bool) -> Vec<Series> {
    let (v, names) = if moment {
        (&rows.moment, ["m_x", "m_y", "m_z"])
    } else {
        (&rows.force, ["f_x", "f_y", "f_z"])
    };
    (0..3)
        .map(|k| Series {
            label: format!("{label} {}", names[k]),
            points: rows.t.iter().zip(v).map(|(&t, x)| (t, x[k])).collect(),
        })
        .collect()
}
