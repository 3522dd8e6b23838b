//! PNG line plots of a trajectory (900×600, DejaVu Sans embedded in the binary so that the
//! plots look the same on machines without system fonts).

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;
use stmech::io::output::NodeDiagnostics;
use stmech::model::{ConstrainedSystem, MultibodySystem};
use stmech::solve::Trajectory;
use stmech::solve::diagnostics::{ElementDiagnostics, violation_per_constraint};

const SIZE: (u32, u32) = (900, 600);
/// Points per curve at most; denser curves are decimated (a 900 px plot shows no more).
const MAX_POINTS: usize = 2000;

/// One curve.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// `(x, y)` points; non-finite ones are skipped.
    pub points: Vec<(f64, f64)>,
}

pub fn register_font() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
            .is_ok()
    });
    anyhow::ensure!(ok, "the embedded DejaVu Sans font could not be loaded");
    Ok(())
}

/// Saves a finished plot to `path`. plotters prints the errors of its bitmap backend as a
/// Rust debug dump (`ImageError(IoError(Custom { kind: Other, … }))`) without the file; this
/// reports them like every other file of a run ([`plot_error`]).
pub fn present(
    root: &DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>,
    path: &Path,
) -> anyhow::Result<()> {
    root.present().on(path)
}

/// A drawing result of the plot `path`: `.on(path)?` reports a failure by [`plot_error`].
pub trait OnPlot<T> {
    /// The result, its error named with the plot's file.
    fn on(self, path: &Path) -> anyhow::Result<T>;
}

impl<T> OnPlot<T> for Result<T, DrawingAreaErrorKind<plotters_bitmap::BitMapBackendError>> {
    fn on(self, path: &Path) -> anyhow::Result<T> {
        self.map_err(|e| plot_error(path, e))
    }
}

/// The error of saving the plot `path`: an I/O failure (a full disk, a read-only file
/// system) is the [`OutputError::Io`](stmech::io::output::OutputError::Io) of writing the
/// file, with the system's message and the remedy; anything else is named in words.
pub fn plot_error(
    path: &Path,
    e: DrawingAreaErrorKind<plotters_bitmap::BitMapBackendError>,
) -> anyhow::Error {
    use plotters_backend::DrawingErrorKind;
    use plotters_bitmap::BitMapBackendError;
    let io = |source: std::io::Error| {
        anyhow::Error::new(stmech::io::output::OutputError::Io {
            action: "write",
            path: path.to_owned(),
            source: os_error(source),
        })
    };
    let what = match e {
        DrawingAreaErrorKind::BackendError(DrawingErrorKind::DrawingError(b)) => match b {
            BitMapBackendError::IOError(source) => return io(source),
            BitMapBackendError::ImageError(image::ImageError::IoError(source)) => {
                return io(source);
            }
            BitMapBackendError::ImageError(other) => format!("the PNG encoder failed: {other}"),
            BitMapBackendError::InvalidBuffer => "the pixel buffer is invalid".to_owned(),
        },
        DrawingAreaErrorKind::BackendError(DrawingErrorKind::FontError(f)) => {
            format!("the font could not be used: {f}")
        }
        DrawingAreaErrorKind::SharingError => "the drawing area is in use".to_owned(),
        DrawingAreaErrorKind::LayoutError => "the chart layout is invalid".to_owned(),
    };
    anyhow::anyhow!("cannot draw {}: {what}", path.display())
}

/// The system's error behind `e`: the PNG encoder passes an OS error on as a text of kind
/// `Other` ("No space left on device (os error 28)"), which loses its kind (and with it the
/// remedy of [`OutputError::Io`](stmech::io::output::OutputError::Io)); the code is read back
/// from the text.
fn os_error(e: std::io::Error) -> std::io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let code = e.get_ref().and_then(|inner| {
        let text = inner.to_string();
        let rest = text.trim_end().strip_suffix(')')?;
        let (_, code) = rest.rsplit_once("(os error ")?;
        code.parse::<i32>().ok()
    });
    code.map_or(e, std::io::Error::from_raw_os_error)
}

/// Node indices to plot: every `stride`-th node and the last one.
fn sample(n: usize) -> Vec<usize> {
    let stride = n.div_ceil(MAX_POINTS).max(1);
    let mut idx: Vec<usize> = (0..n).step_by(stride).collect();
    if n > 0 && idx.last() != Some(&(n - 1)) {
        idx.push(n - 1);
    }
    idx
}

/// Draws all plots into `dir`; returns the file names written.
pub fn write_all(
    dir: &Path,
    sys: &MultibodySystem,
    traj: &Trajectory,
    diagnostics: &[NodeDiagnostics],
) -> anyhow::Result<Vec<&'static str>> {
    register_font()?;
    let idx = sample(traj.len().min(diagnostics.len()));
    let t = |k: usize| traj.times[k];
    let q_series = |label: String, coord: usize| Series {
        label,
        points: idx.iter().map(|&k| (t(k), traj.q_at(k)[coord])).collect(),
    };
    let diag_series = |label: &str, f: &dyn Fn(&NodeDiagnostics) -> f64| Series {
        label: label.to_owned(),
        points: idx.iter().map(|&k| (t(k), f(&diagnostics[k]))).collect(),
    };
    let comps = ["x", "y", "z"];
    let bodies = sys.bodies();
    // Prefix curves with body names only when there is more than one body.
    let prefix = |b: usize| {
        if bodies.len() > 1 {
            format!("{}.", bodies[b].name)
        } else {
            String::new()
        }
    };

    let mut positions = Vec::new();
    let mut directors = Vec::new();
    for b in 0..bodies.len() {
        for (c, name) in comps.iter().enumerate() {
            positions.push(q_series(format!("{}{name}", prefix(b)), 12 * b + c));
        }
        for i in 0..3 {
            for (c, name) in comps.iter().enumerate() {
                directors.push(q_series(
                    format!("{}d{}{name}", prefix(b), i + 1),
                    12 * b + 3 + 3 * i + c,
                ));
            }
        }
    }
    let plots: [(&'static str, &str, &str, Vec<Series>); 5] = [
        (
            "positions.png",
            "Reference point position",
            "position [m]",
            positions,
        ),
        (
            "directors.png",
            "Director components",
            "director component [-]",
            directors,
        ),
        (
            "energy.png",
            "Energy",
            "energy [J]",
            vec![
                diag_series("kinetic", &|d| d.kinetic_energy),
                diag_series("total (kinetic + potential)", &|d| d.total_energy),
            ],
        ),
        (
            "angular_momentum.png",
            "Angular momentum about the origin",
            "angular momentum [kg m²/s]",
            vec![
                diag_series("Lx", &|d| d.angular_momentum[0]),
                diag_series("Ly", &|d| d.angular_momentum[1]),
                diag_series("Lz", &|d| d.angular_momentum[2]),
            ],
        ),
        (
            "constraint.png",
            "Constraint violation at the nodes",
            "log10 max |Φ| [-]",
            // log10(0) = −∞ is dropped by the finiteness filter: nodes that satisfy the
            // constraint exactly (the initial one) simply have no point.
            vec![diag_series("log10 max |Φ| (exact zeros omitted)", &|d| {
                d.constraint_violation.log10()
            })],
        ),
    ];
    let mut written = Vec::with_capacity(plots.len());
    for (file, title, y_label, series) in &plots {
        let path = dir.join(file);
        xy_chart(&path, title, "t [s]", y_label, series)?;
        written.push(*file);
    }
    Ok(written)
}

/// Per-element and per-constraint plots [P, Figs. 9, 10]: `action.png` (element mean of the
/// total energy), `energy_boundaries.png` (`H(t_e) − H(0)` at element boundaries),
/// `angular_momentum_elements.png` (element means of `L`) and `constraints.png` (log10 `|Φ|`
/// of every constraint at the nodes). Returns the file names written.
pub fn write_elements(
    dir: &Path,
    sys: &MultibodySystem,
    traj: &Trajectory,
    elements: &[ElementDiagnostics],
    labels: &[String],
) -> anyhow::Result<Vec<&'static str>> {
    register_font()?;
    let idx = sample(elements.len());
    let mid = |d: &ElementDiagnostics| 0.5 * (d.t_start + d.t_end);
    let el_series = |label: &str, f: &dyn Fn(&ElementDiagnostics) -> f64| Series {
        label: label.to_owned(),
        points: idx
            .iter()
            .map(|&e| (mid(&elements[e]), f(&elements[e])))
            .collect(),
    };
    let h0 = elements.first().map_or(0.0, |d| d.energy_start);
    let nodes = sample(traj.len());
    let mut ev = sys.new_point_eval();
    let mut per: Vec<Vec<(f64, f64)>> = vec![Vec::new(); sys.constraints().count()];
    for &k in &nodes {
        let v = violation_per_constraint(sys, traj.times[k], traj.q_at(k), &mut ev);
        for (s, x) in per.iter_mut().zip(v) {
            s.push((traj.times[k], x.log10()));
        }
    }
    let constraint_series: Vec<Series> = per
        .into_iter()
        .enumerate()
        .map(|(i, points)| Series {
            label: labels
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("constraint{i}")),
            points,
        })
        .collect();
    let plots: [(&'static str, &str, &str, Vec<Series>); 4] = [
        (
            "action.png",
            "Element mean of the total energy (1/h) ∫ H dt",
            "energy [J]",
            vec![el_series("(1/h) ∫_e H dt", &|d| d.energy_mean)],
        ),
        (
            "energy_boundaries.png",
            "Total energy at element boundaries, H(t_e) − H(0)",
            "energy change [J]",
            vec![el_series("H(t_e) − H(0)", &|d| d.energy_end - h0)],
        ),
        (
            "angular_momentum_elements.png",
            "Angular momentum, element means (1/h) ∫ L dt",
            "angular momentum [kg m²/s]",
            vec![
                el_series("Lx", &|d| d.angular_momentum_mean[0]),
                el_series("Ly", &|d| d.angular_momentum_mean[1]),
                el_series("Lz", &|d| d.angular_momentum_mean[2]),
            ],
        ),
        (
            "constraints.png",
            "Violation of each constraint at the nodes",
            "log10 |Φ| [-]",
            constraint_series,
        ),
    ];
    let mut written = Vec::with_capacity(plots.len());
    for (file, title, y_label, series) in &plots {
        let path = dir.join(file);
        xy_chart(&path, title, "t [s]", y_label, series)?;
        written.push(*file);
    }
    Ok(written)
}

/// `[lo, hi]` of all finite values, padded by 5 %; a sensible interval for constant data.
pub fn padded_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return (0.0, 1.0);
    }
    let span = hi - lo;
    // Flat curves (e.g. conserved quantities): show a band around the value instead of
    // magnifying round-off to full height.
    let min_span = 1e-9 * lo.abs().max(hi.abs()).max(1e-12);
    if span < min_span {
        let half = 0.5 * min_span.max(1e-3 * lo.abs().max(1.0));
        return (lo - half, hi + half);
    }
    (lo - 0.05 * span, hi + 0.05 * span)
}

/// Axis tick text with as many decimals as the axis span needs (about 10 ticks), without
/// the `-0.0` that round-off in tick positions would otherwise print.
fn tick_label(v: f64, span: f64) -> String {
    let step = (span / 10.0).abs();
    let magnitude = v.abs().max(step);
    if step > 0.0 && (magnitude >= 1e5 || step < 1e-4) {
        // Scientific notation with enough digits to tell neighbouring ticks apart.
        let digits = ((magnitude / step).log10().floor().max(0.0) as usize).min(15);
        return format!("{v:.digits$e}");
    }
    let decimals = if step > 0.0 {
        (-step.log10().floor()).max(0.0) as usize
    } else {
        1
    };
    let s = format!("{v:.decimals$}");
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        s.trim_start_matches('-').to_owned()
    } else {
        s
    }
}

/// Line chart of `series` with the given axis labels.
pub fn xy_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> anyhow::Result<()> {
    register_font()?;
    let (x0, x1) = padded_range(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)));
    let (y0, y1) = padded_range(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)));
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE).on(path)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 24))
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(x0..x1, y0..y1)
        .on(path)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(WHITE.mix(0.0))
        .x_label_formatter(&|v| tick_label(*v, x1 - x0))
        .y_label_formatter(&|v| tick_label(*v, y1 - y0))
        .draw()
        .on(path)?;
    let n = series.len();
    for (i, s) in series.iter().enumerate() {
        let style = Palette99::pick(i).to_rgba().stroke_width(2);
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        // Few curves often coincide (x = y = z in the demo; kinetic = total energy without
        // potential). Later ones are dashed with growing gaps, so covered curves show through.
        let dashes = (n <= 4 && i > 0).then(|| (12 - 4 * (i as i32 - 1), 4 + 6 * (i as i32 - 1)));
        match dashes {
            Some((dash, gap)) => {
                chart
                    .draw_series(DashedLineSeries::new(points, dash, gap, style))
                    .on(path)?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| {
                        DashedPathElement::new(vec![(x, y), (x + 24, y)], dash, gap, style)
                    });
            }
            None => {
                chart
                    .draw_series(LineSeries::new(points, style))
                    .on(path)?
                    .label(s.label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
            }
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 14))
        .draw()
        .on(path)?;
    present(&root, path)?;
    Ok(())
}

/// Shape `k` of `0..=n`: light blue (first) to dark blue (last).
fn ramp(k: usize, n: usize) -> RGBColor {
    let light = 1.0 - k as f64 / n as f64;
    RGBColor(
        (190.0 * light) as u8,
        (200.0 * light) as u8,
        (130.0 + 125.0 * light) as u8,
    )
}

/// Beam shapes in the plane on equal axis scales (800×800), early shapes light blue and late
/// ones dark blue, with an optional labelled curve on top (e.g. the tip path). Used by the forward beam
/// runs and the inverse demo ([I] Fig. 2).
pub fn shapes_chart(
    path: &Path,
    title: &str,
    shapes: &[Vec<(f64, f64)>],
    overlay: Option<(&str, Vec<(f64, f64)>)>,
) -> anyhow::Result<()> {
    register_font()?;
    let all = shapes
        .iter()
        .flatten()
        .chain(overlay.iter().flat_map(|o| o.1.iter()));
    let (x0, x1) = padded_range(all.clone().map(|p| p.0));
    let (y0, y1) = padded_range(all.map(|p| p.1));
    // square data window so that shapes are not distorted
    let span = (x1 - x0).max(y1 - y0).max(1e-9);
    let (cx, cy) = (0.5 * (x0 + x1), 0.5 * (y0 + y1));
    let root = BitMapBackend::new(path, (800, 800)).into_drawing_area();
    root.fill(&WHITE).on(path)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(14)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            cx - 0.5 * span..cx + 0.5 * span,
            cy - 0.5 * span..cy + 0.5 * span,
        )
        .on(path)?;
    chart
        .configure_mesh()
        .x_desc("x [m]")
        .y_desc("y [m]")
        .label_style(("sans-serif", 15))
        .draw()
        .on(path)?;
    let n = shapes.len().max(2) - 1;
    for (k, shape) in shapes.iter().enumerate() {
        let color = ramp(k, n);
        chart
            .draw_series(LineSeries::new(
                shape.iter().copied(),
                color.stroke_width(2),
            ))
            .on(path)?;
    }
    if let Some((label, pts)) = overlay {
        chart
            .draw_series(LineSeries::new(pts, RED.stroke_width(1)))
            .on(path)?
            .label(label)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED));
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()
            .on(path)?;
    }
    present(&root, path)?;
    Ok(())
}

/// Curves in space on equal axis scales (800×800, oblique view, the vertical axis up):
/// `shapes` from light blue (first) to dark blue (last), e.g. snapshots of a rope, and
/// labelled `overlays` on top (e.g. the paths of its ends). `up` is the index of the vertical
/// coordinate (2 for z up).
pub fn space_curves_chart(
    path: &Path,
    title: &str,
    shapes: &[Vec<[f64; 3]>],
    overlays: &[(&str, Vec<[f64; 3]>)],
    up: usize,
) -> anyhow::Result<()> {
    register_font()?;
    // plot axes: horizontal a, vertical (plotters' y), horizontal b
    let (a, b) = match up {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    let map = |p: &[f64; 3]| (p[a], p[up], p[b]);
    let all: Vec<(f64, f64, f64)> = shapes
        .iter()
        .flatten()
        .chain(overlays.iter().flat_map(|o| o.1.iter()))
        .filter(|p| p.iter().all(|c| c.is_finite()))
        .map(map)
        .collect();
    let range = |f: &dyn Fn(&(f64, f64, f64)) -> f64| padded_range(all.iter().map(f));
    let (rx, ry, rz) = (range(&|p| p.0), range(&|p| p.1), range(&|p| p.2));
    // a cube around the data: no distortion
    let span = (rx.1 - rx.0).max(ry.1 - ry.0).max(rz.1 - rz.0).max(1e-9);
    let cube = |r: (f64, f64)| {
        let c = 0.5 * (r.0 + r.1);
        c - 0.5 * span..c + 0.5 * span
    };
    let root = BitMapBackend::new(path, (800, 800)).into_drawing_area();
    root.fill(&WHITE).on(path)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(14)
        .build_cartesian_3d(cube(rx), cube(ry), cube(rz))
        .on(path)?;
    chart.with_projection(|mut p| {
        p.pitch = 0.35;
        p.yaw = 0.65;
        p.scale = 0.8;
        p.into_matrix()
    });
    chart
        .configure_axes()
        .light_grid_style(BLACK.mix(0.12))
        .max_light_lines(3)
        .label_style(("sans-serif", 13))
        .draw()
        .on(path)?;
    let n = shapes.len().max(2) - 1;
    for (k, shape) in shapes.iter().enumerate() {
        let color = ramp(k, n);
        chart
            .draw_series(LineSeries::new(
                shape.iter().map(map),
                color.stroke_width(2),
            ))
            .on(path)?;
    }
    for (i, (label, pts)) in overlays.iter().enumerate() {
        let style = Palette99::pick(i).to_rgba().stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                pts.iter()
                    .filter(|p| p.iter().all(|c| c.is_finite()))
                    .map(map),
                style,
            ))
            .on(path)?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], style));
    }
    if !overlays.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font(("sans-serif", 14))
            .draw()
            .on(path)?;
    }
    present(&root, path)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_keeps_ends_and_bounds_count() {
        assert!(sample(0).is_empty());
        assert_eq!(sample(3), vec![0, 1, 2]);
        let s = sample(10_001);
        assert!(s.len() <= MAX_POINTS + 1);
        assert_eq!((s[0], *s.last().unwrap()), (0, 10_000));
    }

    #[test]
    fn tick_labels() {
        assert_eq!(tick_label(-1e-17, 2.0), "0.0");
        assert_eq!(tick_label(0.5, 2.0), "0.5");
        assert_eq!(tick_label(20.0, 22.0), "20");
        assert_eq!(tick_label(114.25, 2.0), "114.2");
        assert_eq!(tick_label(1.5e6, 1e6), "1.5e6");
        // neighbouring ticks of a very flat curve stay distinguishable
        assert_ne!(tick_label(114.2963, 1e-6), tick_label(114.2963001, 1e-6));
    }

    #[test]
    fn ranges_are_never_empty() {
        let (a, b) = padded_range([1.0, 1.0].into_iter());
        assert!(b > a);
        let (a, b) = padded_range([0.0].into_iter());
        assert!(b > a);
        assert_eq!(padded_range(std::iter::empty()), (0.0, 1.0));
        let (a, b) = padded_range([f64::NAN, 2.0, 4.0].into_iter());
        assert!(a < 2.0 && b > 4.0 && a.is_finite());
    }
}
