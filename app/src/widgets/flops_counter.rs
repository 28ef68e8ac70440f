//! The FLOPs of a contraction (`data-widget="flops-counter"`, Part 4,
//! "Counting dots"): the reader writes `BD,DF->BF` and a size for each letter,
//! and steps through the forward contraction and the two backward ones (the
//! gradient of each operand), each with its FLOPs, ending at the training total
//! in FLOPs per parameter per token, all from [`ridgeline_core::model::einsum`]. An
//! expression the parser refuses is shown with a caret under the character.

use super::controls::Notice;
use super::controls::Slider;
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci};
use ridgeline_core::model::einsum::{analyse, Analysis, Contraction};

use super::params::{WidgetParams, WidgetState};

/// The reader's contraction and the sizes of its letters; always analysable.
#[derive(Debug, Clone, PartialEq)]
pub struct FlopsParams {
    /// The contraction.
    pub contraction: Contraction,
    /// A size for every letter of the expression, in order of first appearance.
    pub sizes: Vec<(char, f64)>,
}

/// The size a new letter starts with until the reader sets it.
pub const NEW_LETTER_SIZE: f64 = 1024.0;

impl Default for FlopsParams {
    fn default() -> Self {
        // The book's example matmul: a batch of tokens times LLaMA 3-70B's W_in.
        let sizes = vec![('B', 4096.0), ('D', 8192.0), ('F', 28672.0)];
        FlopsParams {
            contraction: Contraction {
                lhs: vec!['B', 'D'],
                rhs: vec!['D', 'F'],
                out: vec!['B', 'F'],
            },
            sizes,
        }
    }
}

impl FlopsParams {
    /// The sizes of the expression's letters, in order of first appearance.
    pub fn letter_sizes(&self) -> Vec<(char, f64)> {
        self.contraction
            .dims()
            .into_iter()
            .map(|c| {
                let size = self
                    .sizes
                    .iter()
                    .find(|(d, _)| *d == c)
                    .map_or(NEW_LETTER_SIZE, |(_, s)| *s);
                (c, size)
            })
            .collect()
    }

    /// The sizes as the reader writes them: `B=4096 D=8192 F=28672`.
    pub fn sizes_text(&self) -> String {
        self.letter_sizes()
            .iter()
            .map(|(c, s)| format!("{c}={s}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The forward and backward contractions with their FLOPs.
    pub fn analysis(&self) -> Result<Analysis, String> {
        analyse(&self.contraction, &self.letter_sizes())
    }
}

impl WidgetParams for FlopsParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["expr"]];

    /// Sets the expression (new letters start at [`NEW_LETTER_SIZE`]) or the
    /// sizes, or explains why not (nothing changes then).
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        match key {
            "expr" => next.contraction = Contraction::parse(value)?,
            "sizes" => {
                let given = self.contraction.sizes_from(value)?;
                for (c, s) in given {
                    next.sizes.retain(|(d, _)| *d != c);
                    next.sizes.push((c, s));
                }
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        // Keep the expression's letters, with every size it needs.
        next.sizes = next.letter_sizes();
        next.analysis()?;
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("expr".into(), self.contraction.to_string()),
            ("sizes".into(), self.sizes_text()),
        ]
    }
}

/// The byte position a parser message names (`at byte 8: …`), if any.
pub fn error_position(message: &str) -> Option<usize> {
    let rest = message.strip_prefix("at byte ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The text under a refused field: the reader's text and a caret under the
/// character at `pos` (clamped to the end), as two lines.
pub fn caret_lines(text: &str, pos: usize) -> (String, String) {
    let mut at = pos.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let indent = text[..at].chars().count();
    (text.to_string(), format!("{}^", " ".repeat(indent)))
}

/// The product a step's FLOPs come from, `2·B·D·F`, with the letters' sizes.
pub fn product_text(c: &Contraction) -> String {
    let letters: String = c
        .dims()
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("·");
    if c.contracted().is_empty() {
        letters
    } else {
        format!("2·{letters}")
    }
}

/// The FLOPs counter.
#[component]
pub fn FlopsCounter(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<FlopsParams>::new(&args);
    let WidgetState { params, notice } = state;
    // The refused text and where its problem is, for the caret.
    let refused = RwSignal::new(None::<(String, usize)>);
    let set = move |key: &'static str, value: String| {
        if state.set(key, &value) {
            refused.set(None);
        } else {
            let pos = notice
                .get_untracked()
                .as_deref()
                .and_then(error_position)
                .unwrap_or(value.len());
            refused.set(Some((value, pos)));
        }
    };
    let result = Memo::new(move |_| params.with(|p| p.analysis().ok()));
    // The step a reader has reached: 0 forward, 1 and 2 the gradients.
    let step = RwSignal::new(2usize);
    let steps = move || {
        let current = step.get();
        result.with(|a| {
            a.as_ref()
                .map(|a| {
                    a.steps()
                        .into_iter()
                        .enumerate()
                        .map(|(i, s)| {
                            let class = if i == current {
                                "current"
                            } else if i > current {
                                "later"
                            } else {
                                ""
                            };
                            view! {
                                <tr class=class data-step=i>
                                    <th scope="row">{s.label}</th>
                                    <td><code>{s.spec.to_string()}</code></td>
                                    <td>{product_text(&s.spec)}</td>
                                    <td data-flops="">{sci(s.flops.0, 4)}</td>
                                    <td>{sci(s.cumulative.0, 4)}</td>
                                </tr>
                            }
                        })
                        .collect_view()
                })
                .unwrap_or_default()
        })
    };
    let sum_line = move || {
        let current = step.get();
        result.with(|a| {
            a.as_ref()
                .map(|a| {
                    let so_far = a.steps()[current.min(2)].cumulative.0;
                    format!(
                        "After step {}: {} FLOPs, {} per parameter per token (weight {} parameters, {} tokens).",
                        current.min(2) + 1,
                        sci(so_far, 4),
                        sci(so_far / (a.params * a.tokens), 3),
                        grouped(a.params),
                        grouped(a.tokens),
                    )
                })
                .unwrap_or_default()
        })
    };
    let per_param_token = move || {
        result.with(|a| {
            a.as_ref()
                .map(|a| sci(a.per_param_token(), 3))
                .unwrap_or_default()
        })
    };
    let expr_text = move || params.with(|p| p.contraction.to_string());
    let sizes_text = move || params.with(FlopsParams::sizes_text);

    view! {
        <figure class="widget flops-counter" data-widget="flops-counter">
            <div class="controls">
                <label>"Contraction "
                    <input type="text" class="spec in-expr" size="18" spellcheck="false" aria-label="contraction, like BD,DF->BF"
                        value=expr_text prop:value=expr_text
                        on:change=move |ev| set("expr", event_target_value(&ev)) />
                </label>
                <label>"Sizes "
                    <input type="text" class="spec in-sizes" size="28" spellcheck="false" aria-label="a size for every letter, like B=4096 D=8192"
                        value=sizes_text prop:value=sizes_text
                        on:change=move |ev| set("sizes", event_target_value(&ev)) />
                </label>
            </div>
            <Notice notice=notice />
            <pre class="caret" aria-hidden="true" hidden=move || refused.with(|r| r.is_none())>{move || {
                refused.with(|r| r.as_ref().map(|(t, p)| {
                    let (line, caret) = caret_lines(t, *p);
                    format!("{line}\n{caret}")
                }))
            }}</pre>
            <div class="step-controls">
                <button type="button" aria-label="previous step" on:click=move |_| step.update(|s| *s = s.saturating_sub(1))>"◀"</button>
                <label for="flops-counter-step">"Step"</label>
                {Slider::new("0", || "2".to_string(), "1").id("flops-counter-step").valuetext(move || format!("step {} of 3", step.get() + 1)).view(move || (step.get()).to_string(), move |v: String| step.set(v.parse::<usize>().unwrap_or(0).min(2)))}
                <button type="button" aria-label="next step" on:click=move |_| step.update(|s| *s = (*s + 1).min(2))>"▶"</button>
            </div>
            <div class="table-scroll" tabindex="0">
                <table class="flops-steps">
                    <thead><tr><th scope="col">"step"</th><th scope="col">"contraction"</th><th scope="col">"FLOPs ="</th><th scope="col">"FLOPs"</th><th scope="col">"so far"</th></tr></thead>
                    <tbody>{steps}</tbody>
                </table>
            </div>
            <p class="step-detail" data-sum="" aria-live="polite">{sum_line}</p>
            <p>"Forward and backward together: " <strong data-per-param-token="">{per_param_token}</strong> " FLOPs per parameter per token."</p>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::pairs;

    #[test]
    fn a_matmul_costs_six_flops_per_parameter_per_token() {
        let p = FlopsParams::default();
        let a = p.analysis().unwrap();
        // Part 4: 2·B·D·F forward and twice that backward.
        assert_eq!(a.forward.flops.0, 2.0 * 4096.0 * 8192.0 * 28672.0);
        assert_eq!(a.total().0, 6.0 * 4096.0 * 8192.0 * 28672.0);
        assert_eq!(sci(a.per_param_token(), 3), "6");
        assert_eq!(a.grad_lhs.spec.to_string(), "BF,DF->BD");
        assert_eq!(product_text(&a.forward.spec), "2·B·D·F");
    }

    #[test]
    fn new_letters_get_a_size_and_bad_input_points_at_the_character() {
        let mut p = FlopsParams::default();
        p.apply("expr", "BTD,DF->BTF").unwrap();
        assert_eq!(p.sizes_text(), "B=4096 T=1024 D=8192 F=28672");
        p.apply("sizes", "B=8 T=4096 D=8192 F=28672").unwrap();
        assert_eq!(p.analysis().unwrap().tokens, 8.0 * 4096.0);
        let before = p.clone();
        let e = p.apply("expr", "BD,DF->BQ").unwrap_err();
        assert_eq!(error_position(&e), Some(8));
        assert_eq!(caret_lines("BD,DF->BQ", 8).1, "        ^");
        assert!(p.apply("sizes", "B=8 T=0 D=1 F=1").is_err());
        assert!(p.apply("sizes", "B=8").is_err());
        assert!(p.apply("expr", "").is_err());
        assert!(p.apply("what", "x").is_err());
        assert_eq!(p, before);
        let (q, refused) = FlopsParams::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(p, q);
        // An elementwise product sums over nothing: one FLOP per element.
        let (r, refused) =
            FlopsParams::from_pairs(&pairs(&[("expr", "BD,BD->BD"), ("sizes", "B=2 D=3")]));
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(r.analysis().unwrap().forward.flops.0, 6.0);
    }

    #[test]
    fn the_caret_stays_on_a_character_boundary() {
        let (_, caret) = caret_lines("BD,DF->Bé", 8);
        assert_eq!(caret, "        ^");
        let (_, caret) = caret_lines("BD", 99);
        assert_eq!(caret, "  ^");
    }
}
