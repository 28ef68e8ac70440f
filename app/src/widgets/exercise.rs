//! Self-graded exercises (`data-exercise="<id>"`): the book's problems with
//! answers, hints, diagnoses and derivations all computed by `core`.
//!
//! `{{widget exercise id=ch1-q2}}` places one; `{{widget exercises chapter=1}}`
//! places every exercise of a part, in the book's order.

use leptos::prelude::*;
use ridgeline_core::check::whole;
use ridgeline_core::exercises::{self, Answer, Exercise, Kind, Verdict};

use super::params::{initial_args, write_url_state};
use crate::progress;

/// What the reader is asked to type, shown next to the input.
pub fn expects(ex: &Exercise) -> String {
    match &ex.answer {
        Answer::Numeric { unit, .. } if unit.trim().is_empty() => "a number".into(),
        Answer::Numeric { unit, .. } => format!("answer in {unit} (other units are converted)"),
        Answer::Symbolic { vars, .. } => {
            let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
            format!("a formula in {}", names.join(", "))
        }
        Answer::Sharding { .. } => "a sharding in Part 3's notation, e.g. A[I_X, J]".into(),
        Answer::Choice { .. } => "the letter of one option".into(),
    }
}

fn kind_label(k: Kind) -> &'static str {
    match k {
        Kind::Question => "Question",
        Kind::WorkedExample => "Worked example — try it first",
        Kind::PopQuiz => "Pop quiz — try it first",
    }
}

fn random_seed() -> u64 {
    // `random` is in [0, 1): a whole number below 1e9, never refused.
    whole::<u64>(js_sys::Math::random() * 1e9).unwrap_or_default() + 1
}

/// One exercise.
#[component]
pub fn ExerciseCard(
    /// The book's problem id.
    #[prop(into)]
    id: String,
) -> impl IntoView {
    let base = match exercises::exercise(&id) {
        Ok(ex) => ex,
        Err(e) => {
            return view! { <p class="notice" role="status" data-notice="">{format!("Exercise “{}”: {e}", crate::input::short(&id))}</p> }.into_any();
        }
    };
    let sid: &'static str = base.id;
    let (pairs, url_notice) = initial_args(sid, &[]);
    let mut notice_text = url_notice;
    let start = match pairs
        .iter()
        .find(|(k, _)| k == "seed")
        .map(|(_, v)| v.trim().parse::<u64>())
    {
        Some(Ok(seed)) if seed > 0 => base.variant(seed),
        Some(_) => {
            notice_text = Some(
                "The link's variant number was not understood; showing the book's numbers."
                    .to_string(),
            );
            base.clone()
        }
        None => base.clone(),
    };
    let current = RwSignal::new(start);
    let text = RwSignal::new(String::new());
    let verdict = RwSignal::new(None::<Verdict>);
    let attempts = RwSignal::new(0u32);
    let revealed = RwSignal::new(false);
    // The note on the book's answer from the last check (none before one).
    let note = RwSignal::new(None::<String>);
    let notice = RwSignal::new(notice_text);
    let solved = RwSignal::new(progress::load().progress.solved.contains_key(sid));

    let check = move || {
        let fb = current.with(|ex| ex.check(&text.get_untracked()));
        note.set(fb.note);
        let v = fb.verdict;
        if !matches!(v, Verdict::Invalid { .. }) {
            attempts.update(|a| *a += 1);
        }
        if v.is_correct() {
            progress::record(
                sid,
                attempts.get_untracked(),
                current.with_untracked(|e| e.seed),
            );
            solved.set(true);
        }
        verdict.set(Some(v));
    };
    let base = StoredValue::new(base);
    let set_variant = move |seed: u64| {
        let ex = base.with_value(|b| {
            if seed == 0 {
                b.clone()
            } else {
                b.variant(seed)
            }
        });
        current.set(ex);
        verdict.set(None);
        note.set(None);
        attempts.set(0);
        revealed.set(false);
        text.set(String::new());
        notice.set(None);
        write_url_state(
            sid,
            if seed == 0 {
                Vec::new()
            } else {
                vec![("seed".into(), seed.to_string())]
            },
        );
    };
    // A variant whose prompt differs from the one on screen (a few draws can
    // land on the same numbers when a part has only a handful of choices).
    let fresh_seed = move || {
        let shown = current.with_untracked(|e| e.prompt.clone());
        let mut seed = random_seed();
        for _ in 0..8 {
            if base.with_value(|b| b.variant(seed).prompt != shown) {
                break;
            }
            seed = random_seed();
        }
        seed
    };
    let failed = move || {
        let a = attempts.get() as usize;
        if verdict.with(|v| v.as_ref().is_some_and(|v| v.is_correct())) {
            a.saturating_sub(1)
        } else {
            a
        }
    };
    let input_id = format!("answer-{sid}");

    view! {
        <article class="exercise" data-exercise=sid>
            <header class="exercise-head">
                <span class="exercise-kind">{move || current.with(|e| kind_label(e.kind))}</span>
                <span class="exercise-id">{sid}</span>
                <span class="exercise-solved" hidden=move || !solved.get()>"✓ solved"</span>
            </header>
            <p class="prompt">{move || current.with(|e| e.prompt.clone())}</p>
            {move || current.with(|e| match &e.answer {
                Answer::Choice { options, .. } => Some(view! {
                    <ul class="choices">
                        {options.iter().map(|(k, t)| view! { <li><strong>{format!("{k}) ")}</strong>{t.clone()}</li> }).collect_view()}
                    </ul>
                }),
                _ => None,
            })}
            <form class="answer-row" on:submit=move |ev| { ev.prevent_default(); check(); }>
                <label for=input_id.clone()>{move || current.with(expects)}</label>
                <input
                    id=input_id
                    type="text"
                    class="answer"
                    autocomplete="off"
                    spellcheck="false"
                    maxlength="200"
                    value=move || text.get() prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                />
                <button type="submit" class="check">"Check"</button>
            </form>
            {move || verdict.get().map(|v| {
                let label = v.label();
                let shown = match v { Verdict::Correct => "Correct.", Verdict::Incorrect { .. } => "Not quite.", Verdict::Invalid { .. } => "Can't read that." };
                view! {
                    <p class=format!("exercise-verdict {label}") role="status">
                        <strong data-verdict=label>{shown}</strong>
                        " "
                        {v.message().map(str::to_string)}
                    </p>
                }
            })}
            {move || {
                let hints: Vec<String> = current.with(|e| e.hints_after(failed()).to_vec());
                (!hints.is_empty()).then(|| view! {
                    <ul class="hints" aria-label="hints">{hints.into_iter().map(|h| view! { <li>{h}</li> }).collect_view()}</ul>
                })
            }}
            <div class="exercise-tools">
                <button type="button" hidden=move || !current.with(|e| e.has_variants()) on:click=move |_| set_variant(fresh_seed())>"New numbers"</button>
                <button type="button" on:click=move |_| set_variant(0) disabled=move || current.with(|e| e.seed == 0)>"The book's numbers"</button>
                <button type="button" aria-expanded=move || revealed.get().to_string() on:click=move |_| revealed.update(|r| *r = !*r)>
                    {move || if revealed.get() { "Hide the solution" } else { "Show the solution" }}
                </button>
            </div>
            {move || {
                let correct = verdict.with(|v| v.as_ref().is_some_and(|v| v.is_correct()));
                (revealed.get() || correct).then(|| current.with(|e| view! {
                <div class="solution" data-solution="">
                    <p>"Answer: " <strong>{e.answer_text()}</strong></p>
                    <ol class="derivation">{e.derivation().iter().map(|s| view! { <li>{s.clone()}</li> }).collect_view()}</ol>
                </div>
                }))
            }}
            {move || {
                // The note on the book's answer appears after a check, or with the solution.
                let shown = note.get().or_else(|| {
                    revealed.get().then(|| current.with(|e| e.correction.map(str::to_string))).flatten()
                });
                shown.map(|c| view! { <p class="correction">"Note on the book's answer: " {c}</p> })
            }}
            {move || current.with(|e| (!e.book_gave_answer).then(|| view! { <p class="correction">"The book gives no answer here; this one is computed by ridgeline."</p> }))}
            <p class="notice" role="status" data-notice="" hidden=move || notice.with(|n| n.is_none())>{move || notice.get().unwrap_or_default()}</p>
        </article>
    }
    .into_any()
}

/// The part whose problems a list shows: the chapter's `chapter=N`, which a URL
/// parameter `?exercises.chapter=N` may override; a value that is not a part of
/// the book is refused with a notice and the chapter's own value kept.
fn list_chapter(chapter_args: &[(String, String)]) -> (Option<u8>, Option<String>) {
    let parse = |v: &str| v.trim().parse::<u8>().ok().filter(|n| *n <= 12);
    let own = chapter_args
        .iter()
        .find(|(k, _)| k == "chapter")
        .and_then(|(_, v)| parse(v));
    let (args, url_notice) = initial_args("exercises", chapter_args);
    match args.iter().rev().find(|(k, _)| k == "chapter") {
        Some((_, v)) => match parse(v) {
            Some(n) => (Some(n), url_notice),
            None => (
                own,
                Some(format!(
                    "Part “{}” is not a part of the book (0–12); showing this page's problems.",
                    crate::input::short(v)
                )),
            ),
        },
        None => (own, url_notice),
    }
}

/// Every exercise of one part.
#[component]
pub fn ExerciseList(
    /// The chapter's arguments: `chapter=N`.
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let (chapter, notice) = list_chapter(&args);
    let ids: Vec<&'static str> = exercises::registry::defs()
        .into_iter()
        .filter(|d| Some(d.chapter) == chapter)
        .map(|d| d.id)
        .collect();
    let count = ids.len();
    view! {
        <section class="widget exercises" data-widget="exercises">
            <p class="notice" role="status" data-notice="" hidden=notice.is_none()>{notice.clone().unwrap_or_default()}</p>
            <p class="muted">{format!("{count} problems from this part of the book, graded here. Answers may use units (ms, GB, TFLOPs/s, …); worked examples are marked “try it first”.")}</p>
            {ids.into_iter().map(|id| view! { <ExerciseCard id=id /> }).collect_view()}
        </section>
    }
}

/// One exercise placed with `{{widget exercise id=…}}`.
#[component]
pub fn ExerciseWidget(
    /// The chapter's arguments: `id=ch1-q2`.
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let id = args
        .iter()
        .find(|(k, _)| k == "id")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    view! {
        <div class="widget exercise-single" data-widget="exercise">
            <ExerciseCard id=id />
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exercise_says_what_it_expects() {
        for ex in exercises::exercises() {
            assert!(!expects(&ex).is_empty(), "{}", ex.id);
        }
    }
}
