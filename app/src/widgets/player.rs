//! The step-through controls the stepping widgets share: back to the start,
//! previous, play/pause, next, and a labelled slider to scrub, over steps
//! `0..=total`.
//!
//! Play advances one step per tick. A reader who asks for reduced motion gets
//! no animation: play jumps to the last step at once.

use super::controls::Slider;
use leptos::prelude::*;

/// A step counter with a timer that can advance it.
#[derive(Debug, Clone, Copy)]
pub struct Player {
    /// The step shown, from 0 to `total`.
    pub step: RwSignal<usize>,
    /// Whether the timer is running.
    pub playing: RwSignal<bool>,
    total: Signal<usize>,
    tick_ms: u64,
    timer: StoredValue<Option<IntervalHandle>>,
}

impl Player {
    /// A player over `0..=total` steps that advances every `tick_ms` when playing.
    /// Its timer stops when the owning component is dropped.
    pub fn new(total: Signal<usize>, tick_ms: u64) -> Player {
        let player = Player {
            step: RwSignal::new(0),
            playing: RwSignal::new(false),
            total,
            tick_ms,
            timer: StoredValue::new(None),
        };
        on_cleanup(move || {
            if let Some(h) = player.timer.try_get_value().flatten() {
                h.clear();
            }
        });
        player
    }

    /// The last step.
    pub fn total(self) -> usize {
        self.total.get()
    }

    /// Stops the timer (the step stays).
    pub fn stop(self) {
        self.playing.set(false);
        if let Some(h) = self.timer.get_value() {
            h.clear();
        }
        self.timer.set_value(None);
    }

    /// Stops and goes back to step 0 (after the reader changed what is played).
    pub fn reset(self) {
        self.stop();
        self.step.set(0);
    }

    /// Moves to `step`, clamped to `0..=total`, stopping the timer.
    pub fn go(self, step: usize) {
        self.stop();
        self.step.set(step.min(self.total.get_untracked()));
    }

    /// Starts playing from the current step (from 0 if at the end), or pauses.
    pub fn toggle(self) {
        if self.playing.get_untracked() {
            self.stop();
            return;
        }
        let total = self.total.get_untracked();
        if reduced_motion() {
            self.step.set(total);
            return;
        }
        if self.step.get_untracked() >= total {
            self.step.set(0);
        }
        self.playing.set(true);
        let handle = set_interval_with_handle(
            move || {
                let next = self.step.get_untracked() + 1;
                if next > self.total.get_untracked() {
                    self.stop();
                } else {
                    self.step.set(next);
                }
            },
            std::time::Duration::from_millis(self.tick_ms),
        );
        if let Ok(h) = handle {
            self.timer.set_value(Some(h));
        }
    }

    /// The controls, `what` naming the steps for screen readers ("cycles").
    /// `label` writes the position the reader sees ("cycle 3 / 20").
    pub fn controls(
        self,
        what: &'static str,
        label: impl Fn(usize, usize) -> String + Send + Sync + 'static,
    ) -> impl IntoView {
        let total = self.total;
        view! {
            <div class="player" role="group" aria-label=format!("step through the {what}")>
                <button type="button" on:click=move |_| self.go(0) aria-label="back to the start">"↺"</button>
                <button type="button" on:click=move |_| self.go(self.step.get_untracked().saturating_sub(1)) aria-label="previous step">"◀"</button>
                <button type="button" class="play" on:click=move |_| self.toggle() aria-label=move || if self.playing.get() { "pause" } else { "play" }>
                    {move || if self.playing.get() { "⏸ pause" } else { "▶ play" }}
                </button>
                <button type="button" on:click=move |_| self.go(self.step.get_untracked() + 1) aria-label="next step">"▶"</button>
                {Slider::new("0", move || (total.get()).to_string(), "1").aria(format!("scrub through the {what}")).view(move || (self.step.get()).to_string(), move |v: String| self.go(v.parse::<usize>().unwrap_or(0)))}
                <output data-position="">{move || label(self.step.get(), total.get())}</output>
            </div>
        }
    }
}

/// Whether the reader asked for reduced motion (never, when rendering natively).
fn reduced_motion() -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        window()
            .match_media("(prefers-reduced-motion: reduce)")
            .ok()
            .flatten()
            .is_some_and(|m| m.matches())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        false
    }
}
