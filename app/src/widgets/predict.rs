//! Predict, then reveal: a widget that answers a question first asks the reader
//! to commit a guess, then shows the answer and how far off the guess was.

use leptos::prelude::*;
use ridgeline_core::format::grouped;

use crate::input::parse_count;

/// How far a guess is from the answer, in words: "within 5%", "2.1× too high".
pub fn how_far(guess: f64, answer: f64) -> String {
    if !(guess.is_finite() && answer.is_finite() && guess > 0.0 && answer > 0.0) {
        return String::new();
    }
    let ratio = guess / answer;
    if (ratio - 1.0).abs() <= 0.1 {
        format!(
            "within {:.0}% — well judged",
            (100.0 * (ratio - 1.0).abs()).max(1.0)
        )
    } else if ratio > 1.0 {
        format!("{ratio:.1}× too high")
    } else {
        format!("{:.1}× too low", 1.0 / ratio)
    }
}

/// The guess box. `answer` is `None` when the honest answer is "never".
#[component]
pub fn Predict(
    /// The question, e.g. "At what batch does this op become compute-bound?".
    #[prop(into)]
    question: String,
    /// The answer, computed live.
    #[prop(into)]
    answer: Signal<Option<f64>>,
    /// Whether the answer is shown (shared with the widget, which may hide its own sentence until then).
    revealed: RwSignal<bool>,
) -> impl IntoView {
    let guess = RwSignal::new(String::new());
    let verdict = RwSignal::new(None::<String>);
    let commit = move || {
        let text = guess.get_untracked();
        let never = matches!(
            text.trim().to_ascii_lowercase().as_str(),
            "never" | "no" | "none" | "∞"
        );
        let message = match (
            never,
            parse_count(&text, "your guess", 1.0, 1e12),
            answer.get_untracked(),
        ) {
            (true, _, None) => "You said never, and it never does.".to_string(),
            (true, _, Some(a)) => format!("It does, at {}.", grouped(a)),
            (false, Ok(_), None) => "It never does, at any size.".to_string(),
            (false, Ok(g), Some(a)) => format!(
                "The answer is {}: your guess is {}.",
                grouped(a),
                how_far(g, a)
            ),
            (false, Err(e), _) => {
                verdict.set(Some(format!("{e} (type a number, or “never”).")));
                return;
            }
        };
        verdict.set(Some(message));
        revealed.set(true);
    };
    view! {
        <form class="predict" on:submit=move |ev| { ev.prevent_default(); commit(); }>
            <label>
                <span class="predict-q">{question}</span>
                " "
                <input type="text" class="guess" size="10" autocomplete="off" aria-label="your guess"
                    value=move || guess.get() prop:value=move || guess.get() on:input=move |ev| guess.set(event_target_value(&ev)) />
            </label>
            <button type="submit">"Commit my guess"</button>
            <button type="button" class="reveal" on:click=move |_| revealed.set(true) hidden=move || revealed.get()>"Just show me"</button>
            <span class="predict-result" role="status" data-predict="">{move || verdict.get()}</span>
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert!(how_far(250.0, 256.0).starts_with("within"));
        assert_eq!(how_far(512.0, 256.0), "2.0× too high");
        assert_eq!(how_far(64.0, 256.0), "4.0× too low");
        assert_eq!(how_far(f64::NAN, 1.0), "");
    }
}
