//! Flash attention's online softmax, block by block
//! (`data-widget="flash-attention"`, Part 4, Appendix A): for seeded random
//! `Q`, `K`, `V`, each step takes one more block of keys and shows every query
//! row's running maximum, running sum, the rescale factor and the current
//! output; after the last block the output equals ordinary softmax attention,
//! and the numbers held stay linear in the keys while the FLOPs grow with
//! them, all from [`ridgeline_core::model::flash_attention`].

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::model::flash_attention::{
    run, FlashParams, FlashRun, MAX_HEAD_DIM, MAX_KEYS, MAX_QUERIES,
};

use super::params::{WidgetParams, WidgetState};
use crate::input::parse_whole;

/// Query rows drawn in the state table (the rest are computed, not shown).
pub const SHOWN_ROWS: usize = 4;
/// Output columns drawn per row.
pub const SHOWN_COLS: usize = 4;

/// The reader's settings and the step reached; always a valid run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlashChoice {
    /// The core's parameters.
    pub params: FlashParams,
}

impl Default for FlashChoice {
    fn default() -> Self {
        FlashChoice {
            params: FlashParams {
                queries: 4,
                keys: 32,
                head_dim: 8,
                block: 8,
                seed: 1,
            },
        }
    }
}

impl FlashChoice {
    /// The stepped run.
    pub fn run(&self) -> Result<FlashRun, String> {
        run(&self.params)
    }
}

impl WidgetParams for FlashChoice {
    /// Sets one parameter from text, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = *self;
        let p = &mut next.params;
        let count = |what, max: usize| -> Result<usize, String> {
            parse_whole::<usize>(value, what, 1.0, max as f64)
        };
        match key {
            "queries" => p.queries = count("queries T", MAX_QUERIES)?,
            "keys" => p.keys = count("keys S", MAX_KEYS)?,
            "h" => p.head_dim = count("head dimension H", MAX_HEAD_DIM)?,
            "block" => p.block = count("block size", MAX_KEYS)?,
            "seed" => p.seed = parse_whole::<u64>(value, "seed", 0.0, 1e9)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        p.validate().map_err(|e| {
            if e.starts_with("block") {
                format!("block: at most the {} keys", p.keys)
            } else {
                e
            }
        })?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        let p = &self.params;
        vec![
            ("queries".into(), p.queries.to_string()),
            ("keys".into(), p.keys.to_string()),
            ("h".into(), p.head_dim.to_string()),
            ("block".into(), p.block.to_string()),
            ("seed".into(), p.seed.to_string()),
        ]
    }
}

fn num(x: f64) -> String {
    format!("{x:.4}")
}

/// The flash-attention stepper.
#[component]
pub fn FlashAttention(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<FlashChoice>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, true);
    };
    let result = Memo::new(move |_| params.with(|p| p.run().ok()));
    let blocks = move || result.with(|r| r.as_ref().map_or(0, |r| r.steps.len()));
    // The block reached; the static page shows the finished run.
    let step = RwSignal::new(usize::MAX);
    let at = move || step.get().min(blocks().saturating_sub(1));

    let rows = move || {
        let i = at();
        result.with(|r| {
            r.as_ref().and_then(|r| r.steps.get(i)).map(|s| {
                s.rows
                    .iter()
                    .zip(&s.output)
                    .take(SHOWN_ROWS)
                    .enumerate()
                    .map(|(q, (row, out))| {
                        let shown: Vec<String> =
                            out.iter().take(SHOWN_COLS).map(|x| num(*x)).collect();
                        view! {
                            <tr data-row=q>
                                <th scope="row">{format!("q{q}")}</th>
                                <td data-max="">{num(row.max)}</td>
                                <td data-sum="">{num(row.sum)}</td>
                                <td>{num(row.rescale)}</td>
                                <td class="vector">{shown.join("  ")}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    let reference = move || {
        result.with(|r| {
            r.as_ref()
                .and_then(|r| r.reference.first())
                .map(|row| {
                    row.iter()
                        .take(SHOWN_COLS)
                        .map(|x| num(*x))
                        .collect::<Vec<_>>()
                        .join("  ")
                })
                .unwrap_or_default()
        })
    };
    let status = move || {
        let i = at();
        result.with(|r| {
            r.as_ref()
                .and_then(|r| r.steps.get(i).map(|s| (r, s)))
                .map(|(r, s)| {
                    if i + 1 == r.steps.len() {
                        format!(
                            "Block {} of {} (keys {}–{}): done. Largest difference from ordinary attention: {}.",
                            i + 1, r.steps.len(), s.keys.0, s.keys.1 - 1, sci(r.max_error(), 2)
                        )
                    } else {
                        format!(
                            "Block {} of {} (keys {}–{}): the output so far covers {} of {} keys.",
                            i + 1, r.steps.len(), s.keys.0, s.keys.1 - 1, s.keys.1, r.k.len()
                        )
                    }
                })
                .unwrap_or_default()
        })
    };
    let costs = move || {
        result.with(|r| {
            r.as_ref()
                .map(|r| {
                    format!(
                        "Both methods do {} FLOPs; flash attention holds {} numbers at once, ordinary attention {}.",
                        grouped(r.flops.0),
                        grouped(r.flash_memory),
                        grouped(r.naive_memory)
                    )
                })
                .unwrap_or_default()
        })
    };
    let field = move |key: &'static str, aria: &'static str, get: fn(&FlashParams) -> u64| {
        view! {
            <input type="number" min="1" class=format!("in-{key}") aria-label=aria
                value=move || params.with(|p| get(&p.params)).to_string() prop:value=move || params.with(|p| get(&p.params)).to_string()
                on:change=move |ev| set(key, event_target_value(&ev)) />
        }
    };
    let go = move |delta: isize| {
        let n = blocks();
        if n > 0 {
            step.set(at().saturating_add_signed(delta).min(n - 1));
        }
    };
    let controls = view! {
        <div class="controls">
            <label>"Queries T " {field("queries", "queries T", |p| p.queries as u64)}</label>
            <label>"Keys S " {field("keys", "keys S", |p| p.keys as u64)}</label>
            <label>"Head dim H " {field("h", "head dimension H", |p| p.head_dim as u64)}</label>
            <label>"Block " {field("block", "keys per block", |p| p.block as u64)}</label>
            <label>"Seed " {field("seed", "random seed", |p| p.seed)}</label>
        </div>
        <div class="step-controls">
            <button type="button" aria-label="previous block" on:click=move |_| go(-1)>"◀"</button>
            <label for="flash-attention-step">"Block"</label>
            {Slider::new("0", move || (blocks().saturating_sub(1)).to_string(), "1").id("flash-attention-step").valuetext(move || format!("block {} of {}", at() + 1, blocks())).view(move || at().to_string(), move |v: String| step.set(v.parse::<usize>().unwrap_or(0)))}
            <button type="button" aria-label="next block" on:click=move |_| go(1)>"▶"</button>
        </div>
    }
    .into_any();

    view! {
        <figure class="widget flash-attention" data-widget="flash-attention">
            {controls}
            <Notice notice=notice />
            <p class="step-detail" data-block-status="" aria-live="polite">{status}</p>
            <div class="table-scroll" tabindex="0">
                <table class="flash-rows">
                    <thead><tr><th scope="col">"query"</th><th scope="col">"running max m"</th><th scope="col">"running sum ℓ"</th><th scope="col">"rescale e^(m−m′)"</th><th scope="col">"output o/ℓ (first entries)"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <p>"Ordinary attention, row q0: " <span class="vector" data-reference="">{reference}</span></p>
            <p data-costs="">{costs}</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};
    use ridgeline_core::model::flash_attention::memory;

    #[test]
    fn the_last_block_equals_ordinary_attention() {
        let c = FlashChoice::default();
        let r = c.run().unwrap();
        assert_eq!(r.steps.len(), 4);
        assert!(r.max_error() < 1e-12);
        // The FLOPs of the two matmuls, 4·T·S·H, for both methods.
        assert_eq!(r.flops.0, 4.0 * 4.0 * 32.0 * 8.0);
        // Doubling the keys doubles the FLOPs; flash's memory does not move.
        let (flash, naive) = memory(4.0, 64.0, 8.0, 8.0);
        assert_eq!((flash, naive), (memory(4.0, 32.0, 8.0, 8.0).0, naive));
        assert!(naive > memory(4.0, 32.0, 8.0, 8.0).1);
    }

    #[test]
    fn bad_input_keeps_the_run_and_pairs_round_trip() {
        let mut c = FlashChoice::default();
        let messages = assert_refused_keeps(
            &c,
            &[
                ("block", "64"),
                ("keys", "0"),
                ("queries", "1000"),
                ("h", "x"),
                ("colour", "red"),
            ],
        );
        assert_eq!(messages[0], "block: at most the 32 keys");
        c.apply("keys", "100").unwrap();
        c.apply("block", "16").unwrap();
        assert_eq!(c.run().unwrap().steps.len(), 7);
        assert_pairs_restore(&c);
    }
}
