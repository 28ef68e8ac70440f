//! Generation with and without a KV cache (`data-widget="cache-steps"`,
//! Part 7, "Sampling, and why a cache"). One row per forward pass and one cell
//! per token position: without a cache every pass re-runs the whole prefix to
//! get the next token's log-probabilities; with one, prefill runs the prompt
//! once and each later pass runs only the newest token against the stored keys
//! and values. The counts of token positions run are `core`'s
//! [`token_passes`].

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::inference::{token_passes, TokenPasses};

use super::params::{WidgetParams, WidgetState};
use crate::charts::cache_steps::draw;
use crate::charts::size::{Frame, Shape, Size};
use crate::charts::svg;
use crate::input::parse_whole;

/// The drawing size (SVG user units).
const SHAPE: Shape = Shape::new(760, 300, 420);
/// The longest prompt on the slider.
pub const MAX_PROMPT: u32 = 8;
/// The most generated tokens on the slider.
pub const MAX_GENERATED: u32 = 10;

/// The reader's settings; always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheStepsParams {
    /// Prompt tokens.
    pub prompt: u32,
    /// Tokens generated.
    pub generated: u32,
}

impl Default for CacheStepsParams {
    fn default() -> Self {
        CacheStepsParams {
            prompt: 4,
            generated: 6,
        }
    }
}

impl CacheStepsParams {
    /// `core`'s counts.
    pub fn passes(&self) -> Result<TokenPasses, String> {
        token_passes(self.prompt.into(), self.generated.into()).map_err(|e| e.to_string())
    }

    /// The drawing as inline SVG.
    pub fn chart_svg(&self, size: Size) -> String {
        self.passes()
            .ok()
            .map(|t| {
                svg(size.width, size.height, |root| {
                    draw(root, self.prompt, self.generated, &t)
                })
                .0
            })
            .unwrap_or_default()
    }
}

impl WidgetParams for CacheStepsParams {
    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        match key {
            "prompt" => {
                next.prompt = parse_whole::<u32>(value, "prompt length", 1.0, MAX_PROMPT.into())?
            }
            "tokens" => {
                next.generated =
                    parse_whole::<u32>(value, "tokens generated", 1.0, MAX_GENERATED.into())?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.passes()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("prompt".into(), self.prompt.to_string()),
            ("tokens".into(), self.generated.to_string()),
        ]
    }
}

/// The cache-steps widget.
#[component]
pub fn CacheSteps(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<CacheStepsParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let passes = Memo::new(move |_| params.with(CacheStepsParams::passes).ok());
    let frame = Frame::new(SHAPE);
    let chart = move || params.with(|p| p.chart_svg(frame.get()));
    let count = move |f: fn(&TokenPasses) -> u64| {
        move || passes.with(|t| t.as_ref().map(|t| f(t).to_string()).unwrap_or_default())
    };
    let prompt = move || params.with(|p| p.prompt).to_string();
    let generated = move || params.with(|p| p.generated).to_string();

    view! {
        <figure class="widget cache-steps" data-widget="cache-steps">
            {Slider::new("1", || MAX_PROMPT.to_string(), "1").id("cache-steps-prompt").valuetext(move || format!("{} prompt tokens", prompt())).row("Prompt tokens", prompt, move |v: String| set("prompt", v), view! { <output data-prompt="">{prompt}</output> })}
            {Slider::new("1", || MAX_GENERATED.to_string(), "1").id("cache-steps-tokens").valuetext(move || format!("{} tokens generated", generated())).row("Tokens generated", generated, move |v: String| set("tokens", v), view! { <output data-tokens="">{generated}</output> })}
            <div class="plot" node_ref=frame.node style=frame.style()>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("{} forward passes, one row each, without and with a KV cache", generated())></div>
            </div>
            <p class="verdict-line">
                "Without a cache the " {generated} " passes run "
                <strong data-naive="">{count(|t| t.naive)}</strong>
                " token positions through the layers; with one they run "
                <strong data-cached="">{count(|t| t.cached)}</strong>
                " (the prompt once, then one token a pass)."
            </p>
            <p class="caption">
                "Each row is one forward pass and each cell a token position. Filled cells run "
                "through the layers; outlined cells are keys and values read back from the "
                "cache; the ring is the token the pass samples, which the next row adds."
            </p>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn the_drawing_fills_what_each_pass_runs_and_counts_it() {
        let p = CacheStepsParams::default();
        let t = p.passes().unwrap();
        // A four-token prompt and six tokens: 4+5+…+9 = 39 against 4 + 5 = 9.
        assert_eq!((t.naive, t.cached), (39, 9));
        for size in [SHAPE.design(), SHAPE.at(300.0)] {
            let svg = p.chart_svg(size);
            assert!(svg.contains("no cache: 39 token passes"), "{svg}");
            assert!(svg.contains("KV cache: 9 token passes"), "{svg}");
            // Every cell a pass covers is a rectangle: 39 in each panel (filled
            // on the left; on the right 9 filled and 30 outlined), plus the background.
            assert_eq!(svg.matches("<rect").count(), 2 * 39 + 1, "{svg}");
            // The cached panel fills only the positions it runs.
            let outlined = svg
                .split("<rect")
                .skip(1)
                .filter(|r| r[..r.find('>').unwrap_or(0)].contains(r#"fill="none""#))
                .count();
            assert_eq!(outlined, 39 - 9, "{svg}");
            // One sampled token per pass in each panel.
            assert_eq!(svg.matches("<circle").count(), 2 * 6, "{svg}");
        }
    }

    #[test]
    fn bad_input_keeps_the_state_and_pairs_round_trip() {
        assert_refused_keeps(
            &CacheStepsParams::default(),
            &[
                ("prompt", "0"),
                ("prompt", "9"),
                ("tokens", "11"),
                ("tokens", "x"),
                ("n", "2"),
            ],
        );
        let q: CacheStepsParams = assert_round_trip(&[("prompt", "2"), ("tokens", "10")]);
        assert_eq!(q.passes().unwrap().cached, 11);
    }
}
