//! The serving engine (`data-widget="serving-engine"`, Part 7): the seeded
//! discrete-event simulation of `ridgeline_core::inference::serving_engine` run live. The
//! reader picks where prefill runs (interleaved with decode on the same chips,
//! or on a separate pool), continuous or static batching, the arrival rate,
//! the number of requests, the longest answer and the prefix cache; the widget
//! draws what every replica did in a window of the run (prefills, and decode
//! steps whose height is the batch they carried) and reports time to first
//! token, the gaps between tokens and the throughput per chip.

use super::controls::Notice;
use super::controls::NumberField;
use super::controls::{LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::inference::serving_engine::{
    simulate, Batching, PrefillPlacement as Placement, SimParams, SimReport,
};

use super::controls::option;
use super::params::{WidgetParams, WidgetState};
use crate::charts::serving_engine::timeline_svg;
use crate::charts::size::Frame;
use crate::input::{parse_count, parse_whole, short};

/// The arrival-rate slider's range, requests per second.
pub const RATE_RANGE: (f64, f64) = (0.5, 200.0);
/// The most requests the reader may simulate (a redraw stays quick).
pub const MAX_REQUESTS: f64 = 5000.0;
/// Slider positions.
const STEPS: f64 = 200.0;
/// The timeline's widest drawing (SVG user units). Its width follows its box
/// (`charts::size`); its height follows the number of replicas, so the box
/// takes the drawing's height.
const WIDTH: u32 = 760;

/// The reader's settings: a valid simulation.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineParams {
    /// The simulation's inputs.
    pub sim: SimParams,
}

impl Default for EngineParams {
    /// The core's default engine (LLaMA 3-8B on TPU v5e, one 4-chip prefill
    /// replica feeding one 4-chip generate replica) with 400 requests, few
    /// enough to redraw at once.
    fn default() -> Self {
        EngineParams {
            sim: SimParams {
                requests: 400,
                ..SimParams::default()
            },
        }
    }
}

impl EngineParams {
    /// Runs the simulation.
    pub fn run(&self) -> Result<SimReport, String> {
        simulate(&self.sim)
    }
}

impl WidgetParams for EngineParams {
    /// Sets one parameter from text, or explains why not; the result must
    /// resolve (weights and slots fit, lengths within the model's context).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.sim.clone();
        match key {
            "layout" => {
                next.layout = Placement::parse(value).ok_or_else(|| {
                    format!(
                        "layout: “{}” is not interleaved or disaggregated",
                        short(value)
                    )
                })?
            }
            "batching" => {
                next.batching = Batching::parse(value).ok_or_else(|| {
                    format!("batching: “{}” is not continuous or static", short(value))
                })?
            }
            "rate" => {
                next.arrival_rate = parse_count(value, "arrival rate", RATE_RANGE.0, RATE_RANGE.1)?
            }
            "requests" => {
                next.requests = parse_whole::<u32>(value, "requests", 10.0, MAX_REQUESTS)?
            }
            "output" => {
                next.output_max = parse_whole::<u32>(
                    value,
                    "longest answer",
                    next.output_min as f64,
                    f64::from(1u32 << 20),
                )?
            }
            "cache" => {
                next.prefix_cache_tokens = parse_whole::<u64>(value, "prefix cache", 0.0, 1e7)?
            }
            "seed" => next.seed = parse_whole::<u64>(value, "seed", 0.0, 1e9)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.resolve().map_err(|e| friendly(&e))?;
        self.sim = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let s = &self.sim;
        vec![
            ("layout".into(), s.layout.name().into()),
            ("batching".into(), s.batching.name().into()),
            ("rate".into(), format!("{}", s.arrival_rate)),
            ("requests".into(), format!("{}", s.requests)),
            ("output".into(), format!("{}", s.output_max)),
            ("cache".into(), format!("{}", s.prefix_cache_tokens)),
            ("seed".into(), format!("{}", s.seed)),
        ]
    }
}

/// A core error with the simulation's field names replaced by the widget's.
fn friendly(e: &str) -> String {
    e.replacen("output_max:", "longest answer:", 1)
        .replacen("max_batch:", "decode slots:", 1)
        .replacen("prefix_cache_tokens:", "prefix cache:", 1)
}

/// A lane's label: its role and number within its pool.
/// The serving-engine widget.
#[component]
pub fn ServingEngine(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<EngineParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set(key, &value);
    };
    let report = Memo::new(move |_| params.with(EngineParams::run).ok());
    let frame = Frame::width_only(WIDTH);
    let chart = move || {
        let width = frame.get().width;
        report.with(|r| {
            r.as_ref()
                .map(|r| timeline_svg(r, params.with_untracked(|p| p.sim.max_batch), width))
                .unwrap_or_default()
        })
    };
    let value = move |f: fn(&SimReport) -> String| {
        move || report.with(|r| r.as_ref().map(f).unwrap_or_default())
    };
    let window = value(|r| {
        format!(
            "{} to {} ms",
            grouped((r.timeline.from.0 * 1e3).round()),
            grouped((r.timeline.to.0 * 1e3).round())
        )
    });
    let layout_options = [Placement::Disaggregated, Placement::Interleaved]
        .into_iter()
        .map(|l| {
            option(l.name(), l.name(), move || {
                params.with(|p| p.sim.layout.name())
            })
        })
        .collect_view();
    let batching_options = [Batching::Continuous, Batching::Static]
        .into_iter()
        .map(|b| {
            option(b.name(), b.name(), move || {
                params.with(|p| p.sim.batching.name())
            })
        })
        .collect_view();
    let rate_text = move || format!("{} requests/s", sci(params.with(|p| p.sim.arrival_rate), 3));
    let text = move |f: fn(&SimParams) -> String| move || params.with(|p| f(&p.sim));

    view! {
        <figure class="widget serving-engine" data-widget="serving-engine">
            <div class="controls">
                <label>"Prefill runs "
                    <select prop:value=move || params.with(|p| p.sim.layout.name())
                        on:change=move |ev| set("layout", event_target_value(&ev))>{layout_options}</select>
                </label>
                <label>"Batching "
                    <select prop:value=move || params.with(|p| p.sim.batching.name())
                        on:change=move |ev| set("batching", event_target_value(&ev))>{batching_options}</select>
                </label>
                {NumberField::new("requests", "requests simulated", 6).label("Requests ").view(text(|s| format!("{}", s.requests)), set)}
                {NumberField::new("output", "longest answer in tokens", 6).label("Longest answer ").view(text(|s| format!("{}", s.output_max)), set)}
                {NumberField::new("cache", "prefix cache in tokens, 0 for none", 8).label("Prefix cache (tokens) ").view(text(|s| format!("{}", s.prefix_cache_tokens)), set)}
            </div>
            {Slider::positions(STEPS).id("serving-engine-rate").valuetext(move || rate_text().to_string()).log_row("Arrival rate", LogScale::new(STEPS, move || RATE_RANGE, |x| sci(x, 3)), move || params.with(|p| p.sim.arrival_rate), "rate", set, view! { <output data-rate="">{rate_text}</output> })}
            <div class="plot" node_ref=frame.node>
                <div class="layer" inner_html=chart role="img"
                    aria-label=move || format!("what each replica did from {}: prefills in orange, decode steps in blue as tall as their batch is full", window())></div>
            </div>
            <p class="caption">"Each replica from " {window} " of the run: "
                <span class="key prefill">"prefill"</span> " and "
                <span class="key decode">"decode steps"</span> ", each as tall as its batch is full ("
                {text(|s| grouped(s.max_batch as f64))} " slots)."</p>
            <dl class="engine-results">
                <div><dt>"Time to first token, p50 / p95"</dt>
                    <dd data-ttft-p50="">{value(|r| si(r.ttft.p50.0, "s", 3))}</dd>
                    <dd data-ttft-p95="">{value(|r| si(r.ttft.p95.0, "s", 3))}</dd></div>
                <div><dt>"Gap between tokens, p50 / p95"</dt>
                    <dd data-itl-p50="">{value(|r| si(r.itl.p50.0, "s", 3))}</dd>
                    <dd data-itl-p95="">{value(|r| si(r.itl.p95.0, "s", 3))}</dd></div>
                <div><dt>"Tokens per second per chip"</dt>
                    <dd data-throughput="">{value(|r| grouped(r.tokens_per_sec_per_chip.round()))}</dd>
                    <dd>{value(|r| format!("over {}", ridgeline_core::format::count(r.chips, "chip", "chips")))}</dd></div>
                <div><dt>"Mean decode batch"</dt>
                    <dd data-mean-batch="">{value(|r| format!("{:.1}", r.mean_batch))}</dd></div>
                <div><dt>"Prompt tokens from the prefix cache"</dt>
                    <dd data-hit-rate="">{value(|r| format!("{:.0} %", r.prefix_hit_rate * 100.0))}</dd></div>
                <div><dt>"Whole run"</dt>
                    <dd data-makespan="">{value(|r| si(r.makespan.0, "s", 3))}</dd>
                    <dd>{value(|r| format!("{} requests", grouped(r.completed as f64)))}</dd></div>
            </dl>
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::serving_engine::lane_labels;
    use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};

    #[test]
    fn default_run_completes_and_draws_every_lane() {
        let p = EngineParams::default();
        let r = p.run().unwrap();
        assert_eq!(r.completed, 400);
        assert_eq!(r.chips, 8);
        let svg = timeline_svg(&r, p.sim.max_batch, WIDTH);
        assert!(svg.starts_with(r#"<svg class="chart-svg""#), "{svg}");
        assert!(
            svg.contains("prefill 1") && svg.contains("generate 1"),
            "{svg}"
        );
        assert!(svg.matches("<rect").count() > r.timeline.spans.len());
    }

    #[test]
    fn interleaving_slows_the_slow_tokens_and_static_batching_the_first() {
        // The chapter's claim, at the widget's settings: prefills pause an
        // interleaved batch, so its 95th-percentile gap is longer.
        let dis = EngineParams::default().run().unwrap();
        let mut p = EngineParams::default();
        p.apply("layout", "interleaved").unwrap();
        let inter = p.run().unwrap();
        assert!(inter.itl.p95 > dis.itl.p95, "{:?} {:?}", inter.itl, dis.itl);
        assert_eq!(lane_labels(&inter.timeline.lanes), ["replica 1"]);
        // Static batching: a finished prefill waits for the whole generate
        // batch to drain, so slots stay empty and fewer tokens come out.
        let mut s = EngineParams::default();
        s.apply("batching", "static").unwrap();
        let stat = s.run().unwrap();
        assert!(
            stat.mean_batch < dis.mean_batch - 5.0,
            "{} {}",
            stat.mean_batch,
            dis.mean_batch
        );
        assert!(stat.tokens_per_sec_per_chip < dis.tokens_per_sec_per_chip);
        // No prefix cache: every prompt token is computed.
        let mut off = EngineParams::default();
        off.apply("cache", "0").unwrap();
        assert_eq!(off.run().unwrap().prefix_hit_rate, 0.0);
    }

    #[test]
    fn bad_input_keeps_the_last_valid_run() {
        let messages = assert_refused_keeps(
            &EngineParams::default(),
            &[
                ("layout", "sideways"),
                ("batching", "lumpy"),
                ("rate", "0"),
                ("rate", "abc"),
                ("requests", "1e6"),
                ("output", "100000"),
                ("cache", "1e7"),
                ("colour", "red"),
            ],
        );
        // The model's context bounds the answer length, in the widget's words.
        assert!(messages[5].starts_with("longest answer"), "{}", messages[5]);
    }

    #[test]
    fn pairs_round_trip() {
        let p: EngineParams = assert_round_trip(&[
            ("layout", "interleaved"),
            ("batching", "static"),
            ("rate", "35"),
            ("requests", "250"),
            ("output", "300"),
            ("cache", "0"),
            ("seed", "7"),
        ]);
        assert_eq!(p.sim.requests, 250);
    }
}
