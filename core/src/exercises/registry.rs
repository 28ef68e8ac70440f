//! The book's problems as exercises: a prompt, an answer computed by the rest
//! of `ridgeline-core`, hints, a step-by-step derivation, and parameters that
//! can be redrawn for fresh variants.
//!
//! Each exercise is defined once by a [`Def`]: its parameters with the book's
//! values as defaults and sensible ranges, a prompt written in our own words, and
//! a `solve` function that computes the answer with the registry's chips and the
//! formula modules. [`Exercise::variant`] with seed 0 is always the book's
//! problem; any other seed redraws the parameters and recomputes everything.
//!
//! ```
//! use ridgeline_core::exercises::registry::exercise;
//! use ridgeline_core::exercises::grade::Verdict;
//!
//! let ex = exercise("ch1-ex2").unwrap();
//! assert_eq!(ex.grade("240"), Verdict::Correct);
//! assert_eq!(ex.grade("240 FLOPs/byte"), Verdict::Correct);
//! assert_eq!(ex.grade("abc").label(), "invalid");
//! let v = ex.variant(7);
//! assert!(v.expected_value().unwrap().is_finite());
//! assert_eq!(ex.variant(0).expected_value(), ex.expected_value());
//! ```

use std::fmt;

use super::book::book_answer;
use super::def::{n, Answer, Def, Kind, Param, Scale, MIN_TOLERANCE};
use super::expr::{equivalence, parse_expr, Equivalence};
use super::grade::{
    book_accepts, diagnose, grade_numeric, within, BookValue, Context, Diagnosis, Mistake, Verdict,
};
use super::quantity::{parse_unit, Dimension};
use super::sharding_answer::{grade_sharding, ShardingMatch};
use crate::rng::Rng;

/// Why an exercise could not be built with the requested parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum ExerciseError {
    /// No exercise has this id.
    UnknownId(String),
    /// The exercise has no parameter of this name.
    UnknownParam(String),
    /// A value outside the parameter's range, or not finite.
    OutOfRange {
        /// The parameter.
        name: String,
        /// The rejected value.
        value: f64,
        /// The allowed range.
        min: f64,
        /// The allowed range.
        max: f64,
    },
    /// Core could not compute an answer for these values.
    Unsolvable(String),
}

impl fmt::Display for ExerciseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExerciseError::UnknownId(id) => write!(f, "no exercise {id}"),
            ExerciseError::UnknownParam(p) => write!(f, "this exercise has no parameter {p}"),
            ExerciseError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(f, "{name} = {value} is outside {min} to {max}"),
            ExerciseError::Unsolvable(why) => write!(f, "no answer for these values: {why}"),
        }
    }
}

impl std::error::Error for ExerciseError {}

/// One exercise with concrete parameters: what the app shows and grades.
#[derive(Debug, Clone)]
pub struct Exercise {
    /// The problem's id in `data/problems.json` (`ch1-q2`).
    pub id: &'static str,
    /// Book part.
    pub chapter: u8,
    /// Kind of problem.
    pub kind: Kind,
    /// The question, in our own words, with this variant's numbers.
    pub prompt: String,
    /// The expected answer.
    pub answer: Answer,
    /// Hints, unlocked one per failed attempt.
    pub hints: Vec<String>,
    /// Parameters with this variant's values.
    pub params: Vec<Param>,
    /// The seed this variant was drawn with (0 for the book's values).
    pub seed: u64,
    /// Where the book's answer is wrong: why, and what is graded instead.
    pub correction: Option<&'static str>,
    /// False where the book gives no answer and one is computed here.
    pub book_gave_answer: bool,
    steps: Vec<String>,
    context: Context,
    def: Def,
}

fn round_sig(x: f64, sig: u32) -> f64 {
    crate::format::round_sig(x, sig)
}

fn draw(p: &Param, rng: &mut Rng) -> f64 {
    let (lo, hi) = (p.min.min(p.max), p.max.max(p.min));
    match p.scale {
        Scale::Linear => round_sig(lo + rng.unit() * (hi - lo), 3).clamp(lo, hi),
        Scale::Log => round_sig(rng.range(lo.max(f64::MIN_POSITIVE), hi), 2).clamp(lo, hi),
        Scale::Int => (lo + (rng.unit() * (hi - lo + 1.0)).floor()).min(hi),
        Scale::Pow2 => {
            let (a, b) = (lo.max(1.0).log2().ceil(), hi.max(1.0).log2().floor());
            2f64.powf((a + (rng.unit() * (b - a + 1.0)).floor()).min(b))
        }
        Scale::Choice(names) => (rng.unit() * names.len() as f64)
            .floor()
            .min(names.len().saturating_sub(1) as f64),
    }
}

/// The book's value of `def` from [`super::book`], in canonical units, with
/// its note (the exercise's correction where the table gives none).
fn book_value(def: Def, answer: &Answer) -> Option<BookValue> {
    let entry = book_answer(def.id)?;
    let Answer::Numeric { unit, .. } = answer else {
        return None;
    };
    let factor = parse_unit(unit).map_or(1.0, |u| u.factor);
    let note = if entry.note.is_empty() {
        def.correction.unwrap_or_default()
    } else {
        entry.note
    };
    let note = if entry.accepted {
        format!(
            "{note} The book's value is accepted; the exact one is {}.",
            answer.text()
        )
    } else {
        note.to_string()
    };
    Some(BookValue {
        value: entry.value * factor,
        accepted: entry.accepted,
        note,
    })
}

fn answer_is_finite(a: &Answer) -> bool {
    match a {
        Answer::Numeric { value, .. } => value.is_finite() && *value != 0.0,
        _ => true,
    }
}

impl Exercise {
    /// Builds the exercise of `def` with these parameter values.
    pub fn build(def: Def, params: Vec<Param>, seed: u64) -> Result<Exercise, ExerciseError> {
        let solution = (def.solve)(&params).map_err(ExerciseError::Unsolvable)?;
        if !answer_is_finite(&solution.answer) {
            return Err(ExerciseError::Unsolvable(
                "the answer is not a finite, non-zero number".into(),
            ));
        }
        let mut hints: Vec<String> = def.hints.iter().map(|h| h.to_string()).collect();
        if let Answer::Numeric { unit, .. } = &solution.answer {
            if !unit.is_empty() {
                hints.push(format!(
                    "Give the answer in {unit}, or with any unit of the same kind; a number without a unit is read in {unit}."
                ));
            }
        }
        if let Some(first) = solution.steps.first() {
            hints.push(format!("Start from: {first}"));
        }
        // The book's own value and note belong to the book's numbers only.
        let is_book = params
            .iter()
            .zip(def.params)
            .all(|(p, d)| p.value == d.default);
        let mut context = solution.context;
        if !is_book {
            context.book = None;
        } else if context.book.is_none() {
            context.book = book_value(def, &solution.answer);
        }
        Ok(Exercise {
            id: def.id,
            chapter: def.chapter,
            kind: def.kind,
            prompt: (def.prompt)(&params),
            answer: solution.answer,
            hints,
            params,
            seed,
            correction: def.correction.filter(|_| is_book),
            book_gave_answer: def.book_gave_answer,
            steps: solution.steps,
            context,
            def,
        })
    }

    /// The book's version of `def`.
    pub fn from_def(def: Def) -> Result<Exercise, ExerciseError> {
        Exercise::build(def, def.params.to_vec(), 0)
    }

    /// The same exercise with parameters redrawn from `seed`; seed 0 is the book's.
    ///
    /// Never fails: if no draw gives an answer, the book's version is returned.
    pub fn variant(&self, seed: u64) -> Exercise {
        let book = || Exercise::from_def(self.def);
        if seed == 0 || self.def.params.is_empty() {
            return book().unwrap_or_else(|_| self.clone());
        }
        // Salted with the id, so one seed draws unrelated variants of two exercises.
        let mut rng = Rng::new(seed ^ crate::rng::fnv1a(self.id.as_bytes()));
        for _ in 0..24 {
            let params: Vec<Param> = self
                .def
                .params
                .iter()
                .map(|p| Param {
                    value: draw(p, &mut rng),
                    ..*p
                })
                .collect();
            if let Ok(ex) = Exercise::build(self.def, params, seed) {
                return ex;
            }
        }
        book().unwrap_or_else(|_| self.clone())
    }

    /// The same exercise with some parameters set by the reader.
    pub fn with_params(&self, values: &[(&str, f64)]) -> Result<Exercise, ExerciseError> {
        let mut params = self.params.clone();
        for (name, v) in values {
            let p = params
                .iter_mut()
                .find(|p| p.name == *name)
                .ok_or_else(|| ExerciseError::UnknownParam(name.to_string()))?;
            if !v.is_finite() || *v < p.min || *v > p.max {
                return Err(ExerciseError::OutOfRange {
                    name: name.to_string(),
                    value: *v,
                    min: p.min,
                    max: p.max,
                });
            }
            p.value = if matches!(p.scale, Scale::Choice(_) | Scale::Int | Scale::Pow2) {
                v.round()
            } else {
                *v
            };
        }
        Exercise::build(self.def, params, self.seed)
    }

    /// The derivation, step by step, with this exercise's numbers.
    pub fn derivation(&self) -> &[String] {
        &self.steps
    }

    /// The hints unlocked after `failed` wrong attempts (one per attempt).
    pub fn hints_after(&self, failed: usize) -> &[String] {
        &self.hints[..failed.min(self.hints.len())]
    }

    /// What the grader knows for diagnoses (counts, perturbations).
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The expected value in canonical units, for numeric answers.
    pub fn expected_value(&self) -> Option<f64> {
        match self.answer {
            Answer::Numeric { value, .. } => Some(value),
            _ => None,
        }
    }

    /// The expected answer as text a reader could type (`1.01 ms`).
    pub fn answer_text(&self) -> String {
        self.answer.text()
    }

    /// Grades a reader's answer: a number with or without a unit, a formula,
    /// a sharding or an option id, depending on the answer's kind. Never panics.
    pub fn grade(&self, text: &str) -> Verdict {
        match &self.answer {
            Answer::Numeric {
                value,
                unit,
                tolerance,
                ..
            } => match grade_numeric(*value, unit, *tolerance, text, &self.context) {
                Verdict::Incorrect { diagnosis } => Verdict::Incorrect {
                    diagnosis: self.explain_scaling(diagnosis),
                },
                v => v,
            },
            Answer::Symbolic {
                vars, reference, ..
            } => {
                let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
                let reader = match parse_expr(text, &names) {
                    Ok(e) => e,
                    Err(e) => {
                        return Verdict::Invalid {
                            reason: e.to_string(),
                        }
                    }
                };
                // A formula undefined wherever it is evaluated (`D/0`,
                // `sqrt(-1)`) is refused rather than graded.
                let undefined = [0.0, 0.5, 1.0].iter().all(|t| {
                    let x: Vec<f64> = vars.iter().map(|v| v.min + t * (v.max - v.min)).collect();
                    !reader.eval(&x).is_finite()
                });
                if undefined {
                    return Verdict::Invalid {
                        reason: "the formula is undefined (a division by zero or a root of a negative number)".into(),
                    };
                }
                let f = reference.0.clone();
                match equivalence(&reader, &move |x: &[f64]| f(x), vars, 0x5eed) {
                    Equivalence::Equal => Verdict::Correct,
                    // A coefficient rounded as the book rounds it (`11.3` for
                    // √128) is the same formula.
                    Equivalence::ConstantRatio(r) if (r - 1.0).abs() <= MIN_TOLERANCE => {
                        Verdict::Correct
                    }
                    Equivalence::ConstantRatio(r) => Verdict::Incorrect {
                        diagnosis: diagnose(
                            1.0,
                            r,
                            Dimension::NONE,
                            "",
                            false,
                            1e-6,
                            &self.context,
                        )
                        .map(|mut d| {
                            d.message = d.message.replacen("answer", "formula", 1);
                            d
                        }),
                    },
                    Equivalence::Different => Verdict::Incorrect { diagnosis: None },
                }
            }
            Answer::Sharding { accepted } => match grade_sharding(accepted, text) {
                Ok(ShardingMatch::Accepted(_)) => Verdict::Correct,
                Ok(ShardingMatch::Different) => Verdict::Incorrect { diagnosis: None },
                Err(reason) => Verdict::Invalid { reason },
            },
            Answer::Choice { options, correct } => match pick_option(options, text) {
                Ok(id) if id == *correct => Verdict::Correct,
                Ok(_) => Verdict::Incorrect { diagnosis: None },
                Err(reason) => Verdict::Invalid { reason },
            },
        }
    }

    /// Grades an answer and says what to show with the verdict: the note on
    /// the book's answer (after any check) and, after a correct answer, the
    /// derivation. Never panics.
    pub fn check(&self, text: &str) -> Feedback {
        let verdict = self.grade(text);
        let mut note = self.correction.map(str::to_string);
        if verdict.is_correct() {
            if let (
                Answer::Numeric {
                    value,
                    unit,
                    tolerance,
                    ..
                },
                Some(book),
            ) = (&self.answer, self.context.book.as_ref())
            {
                let got = parse_unit(unit)
                    .ok()
                    .and_then(|u| super::quantity::parse_expecting(text, u.dimension, u).ok());
                if let Some(q) = got {
                    if !within(*value, q.value, *tolerance)
                        && book_accepts(&self.context, q.value, *tolerance)
                    {
                        note = Some(book.note.clone());
                    }
                }
            }
        }
        let derivation = if verdict.is_correct() {
            self.steps.clone()
        } else {
            Vec::new()
        };
        Feedback {
            verdict,
            note,
            derivation,
        }
    }

    /// Whether "New numbers" can change anything: some parameter can be redrawn.
    pub fn has_variants(&self) -> bool {
        self.def
            .params
            .iter()
            .any(|p| p.min < p.max || matches!(p.scale, Scale::Choice(n) if n.len() > 1))
    }

    /// Adds to a factor-of-two or power-of-ten diagnosis which of this
    /// exercise's inputs the answer scales with, found by re-solving with each
    /// input scaled by the reader's ratio (or its inverse).
    fn explain_scaling(&self, diagnosis: Option<Diagnosis>) -> Option<Diagnosis> {
        let mut d = diagnosis?;
        if !matches!(d.mistake, Mistake::FactorTwo(_) | Mistake::PowerOfTen(_)) {
            return Some(d);
        }
        let Some(expected) = self.expected_value() else {
            return Some(d);
        };
        let mut with: Vec<String> = Vec::new();
        for (i, p) in self.params.iter().enumerate() {
            if matches!(p.scale, Scale::Choice(_)) || p.value == 0.0 {
                continue;
            }
            for factor in [d.ratio, 1.0 / d.ratio] {
                let mut params = self.params.clone();
                params[i].value = p.value * factor;
                let Ok(sol) = (self.def.solve)(&params) else {
                    continue;
                };
                if let Answer::Numeric { value, .. } = sol.answer {
                    if within(expected * d.ratio, value, 0.01) {
                        with.push(format!(
                            "{} = {} instead of {}",
                            p.label,
                            n(p.value * factor),
                            n(p.value)
                        ));
                        break;
                    }
                }
            }
        }
        if !with.is_empty() {
            d.message.push_str(&format!(
                " In this computation that is what {} gives.",
                with.join(", or ")
            ));
        }
        Some(d)
    }
}

/// What to show after a check: the verdict, the note on the book's answer,
/// and the derivation once the answer is correct.
#[derive(Debug, Clone, PartialEq)]
pub struct Feedback {
    /// The verdict with its diagnosis or reason.
    pub verdict: Verdict,
    /// The note on the book's answer (its rounding, or its slip), shown after
    /// the first check and never before.
    pub note: Option<String>,
    /// The derivation, given once the answer is correct (empty otherwise).
    pub derivation: Vec<String>,
}

/// Longest multiple-choice answer read (as for other kinds of answer).
const MAX_CHOICE_LEN: usize = super::quantity::MAX_ANSWER_LEN;

/// Reads a multiple-choice answer: the letter (`b`, `(b)`, `b)`, `b.`,
/// `option b`), the option's text, or an unambiguous start of it.
pub fn pick_option(options: &[(&'static str, String)], text: &str) -> Result<&'static str, String> {
    let ids = || {
        options
            .iter()
            .map(|(id, _)| *id)
            .collect::<Vec<_>>()
            .join(", ")
    };
    if text.chars().count() > MAX_CHOICE_LEN {
        return Err(format!(
            "the answer is longer than {MAX_CHOICE_LEN} characters: give the letter of one option ({})",
            ids()
        ));
    }
    let norm = |t: &str| {
        t.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let t = norm(text);
    let t = t.strip_prefix("option ").unwrap_or(&t).trim();
    let letter = t
        .trim_start_matches('(')
        .trim_end_matches(['.', ')', ':'])
        .trim();
    if let Some((id, _)) = options.iter().find(|(id, _)| *id == letter) {
        return Ok(id);
    }
    // A letter followed by the option's text: `b) ...`, `(b) ...`.
    if let Some((head, _)) = t.trim_start_matches('(').split_once([')', ':']) {
        if let Some((id, _)) = options.iter().find(|(id, _)| *id == head.trim()) {
            return Ok(id);
        }
    }
    let body = t;
    if body.is_empty() {
        return Err(format!("choose one of the options: {}", ids()));
    }
    if let Some((id, _)) = options.iter().find(|(_, label)| norm(label) == body) {
        return Ok(id);
    }
    let starts: Vec<&'static str> = options
        .iter()
        .filter(|(_, label)| norm(label).starts_with(body))
        .map(|(id, _)| *id)
        .collect();
    match starts.as_slice() {
        [one] => Ok(one),
        [] => Err(format!("choose one of the options: {}", ids())),
        many => Err(format!(
            "“{}” starts more than one option ({}): give the letter",
            text.trim().chars().take(40).collect::<String>(),
            many.join(", ")
        )),
    }
}

/// Every definition, in book order (of the parts whose Cargo feature is on:
/// all of them by default).
pub fn defs() -> Vec<Def> {
    #[allow(unused_mut)]
    let mut all = Vec::new();
    #[cfg(feature = "part1")]
    all.extend(super::part1::defs());
    #[cfg(feature = "part2")]
    all.extend(super::part2::defs());
    #[cfg(feature = "part3")]
    all.extend(super::part3::defs());
    #[cfg(feature = "part4")]
    all.extend(super::part4::defs());
    #[cfg(feature = "part5")]
    all.extend(super::part5::defs());
    #[cfg(feature = "part6")]
    all.extend(super::part6::defs());
    #[cfg(feature = "part7")]
    all.extend(super::part7::defs());
    #[cfg(feature = "part8")]
    all.extend(super::part8::defs());
    #[cfg(feature = "part9")]
    all.extend(super::part9::defs());
    #[cfg(feature = "part10")]
    all.extend(super::part10::defs());
    #[cfg(feature = "part12")]
    all.extend(super::part12::defs());
    all
}

/// Every exercise with the book's values, in book order (definitions core
/// cannot solve are skipped; the tests check there are none).
pub fn exercises() -> Vec<Exercise> {
    defs()
        .into_iter()
        .filter_map(|d| Exercise::from_def(d).ok())
        .collect()
}

/// The exercise with this id, with the book's values.
pub fn exercise(id: &str) -> Result<Exercise, ExerciseError> {
    let def = defs()
        .into_iter()
        .find(|d| d.id == id)
        .ok_or_else(|| ExerciseError::UnknownId(id.to_string()))?;
    Exercise::from_def(def)
}

/// The ids of every defined exercise, in book order.
pub fn covered_ids() -> Vec<&'static str> {
    defs().into_iter().map(|d| d.id).collect()
}
