//! One step of the march (the module docs of [`super`]): a new line from the line above it by
//! the per-node fixed point ([`march_line`]), or the first line below the tip in closed form
//! where the body's characteristics degenerate there ([`free_end_line`]).

use super::node::{LineView, NodeError, NodeResult, march_node};
use super::{CharacteristicsSettings, MarchReport};
use crate::inverse::characteristics_body::{CharacteristicBody, State, TipData};
use crate::inverse::solver::InverseError;

/// The first line below the tip from [`TipData::free_end_state`], if the path's body gives it
/// (`top + 1` nodes, as the tip line it replaces the step from).
pub(super) fn free_end_line<const N: usize>(
    tip: &dyn TipData<N>,
    s_new: f64,
    top: usize,
    t_of: &dyn Fn(usize) -> f64,
) -> Result<Option<Vec<State<N>>>, InverseError> {
    let mut line = Vec::with_capacity(crate::math::reserve(top, 1));
    for j in 0..=top {
        match tip.free_end_state(t_of(j), s_new) {
            None => return Ok(None),
            Some(Ok(q)) => line.push(q),
            Some(Err(source)) => {
                return Err(InverseError::Element {
                    iteration: 0,
                    source,
                });
            }
        }
    }
    Ok(Some(line))
}

/// One step of the march: the line at `s_new` from the line of `view`, `h` above it, up to
/// the top of its domain of determinacy.
pub(super) fn march_line<B: CharacteristicBody<N>, const N: usize>(
    body: &B,
    view: &LineView<'_, N>,
    s_new: f64,
    h: f64,
    t_of: &dyn Fn(usize) -> f64,
    settings: &CharacteristicsSettings,
    report: &mut MarchReport,
) -> Result<Vec<State<N>>, InverseError> {
    let mut new_line: Vec<State<N>> = Vec::with_capacity(crate::math::reserve(view.top, 1));
    for j in 0..=view.top {
        let prev = &view.states[j];
        // predictor: the previous line plus the s-increment at the previous time node
        // (at a node where the law has no speeds, a chain's free end, the rest state)
        let guess: State<N> = match j {
            0 if body.characteristics(prev).is_err() => body.rest_state(s_new),
            0 => *prev,
            _ => body.extrapolate(prev, &new_line[j - 1], &view.states[j - 1]),
        };
        match march_node(body, view, prev, guess, t_of(j), h, settings) {
            Ok(NodeResult::Done(q, its, range, at_floor)) => {
                report.iterations_total += its;
                report.nodes_at_floor += usize::from(at_floor);
                report.iterations_max = report.iterations_max.max(its);
                report.speed_range = [
                    report.speed_range[0].min(range[0]),
                    report.speed_range[1].max(range[1]),
                ];
                new_line.push(q);
            }
            Ok(NodeResult::OutsideDomain) => break,
            Err(NodeError::NotConverged {
                iterations: it,
                change,
            }) => {
                let history_text = format!(
                    "fixed-point iteration at s = {s_new:.4} m, t = {:.4} s: last relative \
                     change {change:.2e} after {it} iterations",
                    t_of(j)
                );
                return Err(InverseError::NewtonFailed {
                    iterations: it,
                    residual: change,
                    tolerance: settings.tolerance,
                    history: vec![change],
                    history_text,
                });
            }
            Err(NodeError::Law(source, it)) => {
                return Err(InverseError::Element {
                    iteration: it,
                    source,
                });
            }
        }
    }
    Ok(new_line)
}
