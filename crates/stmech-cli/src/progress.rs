//! Progress bar on stderr, shown only for runs longer than a second on a terminal.
//!
//! The solver reports progress only between blocks (a one-block run reports once, at the
//! end), so a helper thread keeps the bar ticking; it starts hidden and becomes visible
//! after [`DELAY`] if the run is still going. Pipes and files never see it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

const DELAY: Duration = Duration::from_secs(1);
const STEPS: u64 = 1000;

/// A possibly visible progress bar.
pub struct Progress {
    bar: ProgressBar,
    done: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts timing; the bar appears after [`DELAY`] only if stderr is a terminal.
    pub fn start() -> Self {
        let bar = ProgressBar::with_draw_target(Some(STEPS), ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:40}] {percent:>3}% solving",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        if !std::io::stderr().is_terminal() {
            return Self {
                bar,
                done: None,
                thread: None,
            };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let shown = bar.clone();
        let thread = std::thread::spawn(move || {
            // A message or a hang-up both mean the run is over before the delay.
            if let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(DELAY) {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(100));
            }
        });
        Self {
            bar,
            done: Some(tx),
            thread: Some(thread),
        }
    }

    /// Records the fraction of the time interval done.
    pub fn set(&self, fraction: f64) {
        self.bar
            .set_position((fraction.clamp(0.0, 1.0) * STEPS as f64) as u64);
    }

    /// Stops and erases the bar.
    pub fn finish(mut self) {
        if let Some(tx) = self.done.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}
