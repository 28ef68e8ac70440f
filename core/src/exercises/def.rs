//! What an exercise is made of: its kind, its parameters, its answer and the
//! solution its `solve` function returns, and the [`Def`] that ties them together.
//!
//! Every part's exercises (`part1` … `part12`) and their shared helpers (`kit`)
//! are written with these types alone; [`registry`](super::registry) gathers the
//! definitions and turns each into a gradable [`Exercise`](super::registry::Exercise).

use std::fmt;
use std::sync::Arc;

use super::expr::Var;
use super::grade::{BookValue, Context, Perturbation, Precision};
use super::quantity::{format_in, parse_unit, Dimension, Quantity};

/// Which kind of problem the book poses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Worked through in the chapter's text.
    WorkedExample,
    /// A question at the end of the chapter.
    Question,
    /// A short quiz inside the text.
    PopQuiz,
}

impl Kind {
    /// A label for display.
    pub fn label(self) -> &'static str {
        match self {
            Kind::WorkedExample => "worked example",
            Kind::Question => "question",
            Kind::PopQuiz => "pop quiz",
        }
    }
}

/// How a parameter's values are drawn for variants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Uniform on the range, rounded to three significant digits.
    Linear,
    /// Log-uniform on the range, rounded to two significant digits.
    Log,
    /// Whole numbers on the range.
    Int,
    /// Powers of two on the range.
    Pow2,
    /// One of these names; the value is the index.
    Choice(&'static [&'static str]),
}

/// One parameter of an exercise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// Short name used by the solver (`B`, `chip`).
    pub name: &'static str,
    /// What it is, for display.
    pub label: &'static str,
    /// Its value in this exercise (an index for [`Scale::Choice`]).
    pub value: f64,
    /// The book's value.
    pub default: f64,
    /// Smallest value for variants.
    pub min: f64,
    /// Largest value for variants.
    pub max: f64,
    /// How variants draw it.
    pub scale: Scale,
}

impl Param {
    /// The chosen name, for a [`Scale::Choice`] parameter.
    pub fn choice(&self) -> Option<&'static str> {
        match self.scale {
            Scale::Choice(names) => {
                crate::check::whole(self.value).and_then(|i: usize| names.get(i).copied())
            }
            _ => None,
        }
    }
}

/// A parameter with the book's value as default.
pub const fn param(
    name: &'static str,
    label: &'static str,
    default: f64,
    min: f64,
    max: f64,
    scale: Scale,
) -> Param {
    Param {
        name,
        label,
        value: default,
        default,
        min,
        max,
        scale,
    }
}

/// A choice parameter whose default is `names[0]`.
pub const fn choice(
    name: &'static str,
    label: &'static str,
    names: &'static [&'static str],
) -> Param {
    param(
        name,
        label,
        0.0,
        0.0,
        (names.len() as f64) - 1.0,
        Scale::Choice(names),
    )
}

/// The value of parameter `name` (NaN if the exercise has none).
pub fn value(params: &[Param], name: &str) -> f64 {
    params
        .iter()
        .find(|p| p.name == name)
        .map_or(f64::NAN, |p| p.value)
}

/// The chosen name of choice parameter `name`.
pub fn chosen(params: &[Param], name: &str) -> Result<&'static str, String> {
    params
        .iter()
        .find(|p| p.name == name)
        .and_then(Param::choice)
        .ok_or_else(|| format!("no choice parameter {name}"))
}

/// A function of the declared variables' values, in declaration order.
pub type Evaluator = dyn Fn(&[f64]) -> f64 + Send + Sync;

/// A reference formula evaluated by core (variables in declaration order).
#[derive(Clone)]
pub struct Reference(pub Arc<Evaluator>);

impl fmt::Debug for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Reference(..)")
    }
}

/// The expected answer of an exercise.
#[derive(Debug, Clone)]
pub enum Answer {
    /// A number with a unit.
    Numeric {
        /// The value in the canonical unit of `dimension` (seconds, bytes, …).
        value: f64,
        /// The unit the book states it in; a bare number is read in it.
        unit: &'static str,
        /// What it measures.
        dimension: Dimension,
        /// How precisely it must be given (the grading policy).
        precision: Precision,
        /// Relative tolerance, from `precision` and the value.
        tolerance: f64,
    },
    /// A formula in declared variables.
    Symbolic {
        /// The reference formula as text (also a valid answer).
        expr: String,
        /// The variables, with sampling ranges.
        vars: Vec<Var>,
        /// Core's evaluation of the reference at a point.
        reference: Reference,
    },
    /// A sharding in Part 3's notation; any of the accepted ones is correct.
    Sharding {
        /// The accepted answers.
        accepted: Vec<String>,
    },
    /// A multiple choice.
    Choice {
        /// Option ids (`a`, `b`, …) and texts.
        options: Vec<(&'static str, String)>,
        /// The id of the correct option.
        correct: &'static str,
    },
}

/// Smallest relative tolerance of an answer graded to two significant
/// figures (one unit in the third figure).
pub const MIN_TOLERANCE: f64 = 0.01;

impl Answer {
    /// A numeric answer: `value` in canonical units, stated in `unit`, with
    /// the policy's precision for it ([`Precision::default_for`]).
    pub fn numeric(value: f64, unit: &'static str) -> Answer {
        let u = parse_unit(unit).ok();
        let dimension = u.map_or(Dimension::NONE, |u| u.dimension);
        let factor = u.map_or(1.0, |u| u.factor);
        let precision = Precision::default_for(value / factor, unit);
        Answer::Numeric {
            value,
            unit,
            dimension,
            precision,
            tolerance: precision.tolerance(value, dimension),
        }
    }

    /// The answer as the reader would type it: `1.01 ms`, `2*B*D*F`, `b`.
    pub fn text(&self) -> String {
        match self {
            Answer::Numeric {
                value,
                unit,
                dimension,
                precision,
                ..
            } => format_in(
                &Quantity {
                    value: *value,
                    dimension: *dimension,
                },
                unit,
                // An exact count is written with every digit.
                if *precision == Precision::Exact {
                    15
                } else {
                    4
                },
            ),
            Answer::Symbolic { expr, .. } => expr.clone(),
            Answer::Sharding { accepted } => accepted.first().cloned().unwrap_or_default(),
            Answer::Choice { correct, .. } => (*correct).to_string(),
        }
    }
}

/// What `solve` returns: the answer, the derivation and what helps diagnose.
#[derive(Debug, Clone)]
pub struct Solution {
    /// The expected answer.
    pub answer: Answer,
    /// Step-by-step lines with this exercise's numbers.
    pub steps: Vec<String>,
    /// Counts and perturbations for diagnoses.
    pub context: Context,
}

impl Solution {
    /// A numeric solution, graded with the policy's precision for its unit.
    pub fn numeric(value: f64, unit: &'static str) -> Solution {
        Solution::new(Answer::numeric(value, unit))
    }

    /// A solution with any answer.
    pub fn new(answer: Answer) -> Solution {
        Solution {
            answer,
            steps: Vec::new(),
            context: Context::default(),
        }
    }

    /// Adds a derivation line.
    pub fn step(mut self, line: impl Into<String>) -> Solution {
        self.steps.push(line.into());
        self
    }

    /// Declares a count (`chips`) for per-device diagnoses.
    pub fn count(mut self, what: &str, n: f64) -> Solution {
        self.context.counts.push((what.to_string(), n));
        self
    }

    /// Declares the answer under a changed assumption.
    pub fn perturb(mut self, value: f64, message: impl Into<String>) -> Solution {
        self.context.perturbations.push(Perturbation {
            value,
            message: message.into(),
        });
        self
    }

    /// Sets the precision of a numeric answer, where the question asks for
    /// another than the policy's default (an exact count, more digits, or an
    /// explicit order-of-magnitude estimate).
    pub fn precision(mut self, p: Precision) -> Solution {
        if let Answer::Numeric {
            value,
            dimension,
            precision,
            tolerance,
            ..
        } = &mut self.answer
        {
            *precision = p;
            *tolerance = p.tolerance(*value, *dimension);
        }
        self
    }

    /// The book's value (canonical units), which follows from the book's own
    /// stated rounding or simplification: graded correct with `note`. Kept only
    /// for the book's parameters.
    pub fn book_rounds(mut self, value: f64, note: impl Into<String>) -> Solution {
        self.context.book = Some(BookValue {
            value,
            accepted: true,
            note: note.into(),
        });
        self
    }

    /// The book's value (canonical units) where the book slips: graded
    /// incorrect, with `note` explaining the slip. Kept only for the book's
    /// parameters.
    pub fn book_slips(mut self, value: f64, note: impl Into<String>) -> Solution {
        self.context.book = Some(BookValue {
            value,
            accepted: false,
            note: note.into(),
        });
        self
    }

    /// Names the likely cause of a factor of two in this exercise.
    pub fn two(mut self, cause: impl Into<String>) -> Solution {
        self.context.factor_two_cause = Some(cause.into());
        self
    }
}

/// The definition of one exercise.
#[derive(Clone, Copy)]
pub struct Def {
    /// The problem's id in `data/problems.json`.
    pub id: &'static str,
    /// Book part.
    pub chapter: u8,
    /// Kind of problem.
    pub kind: Kind,
    /// Parameters with the book's values.
    pub params: &'static [Param],
    /// The prompt, in our own words, for given parameters.
    pub prompt: fn(&[Param]) -> String,
    /// Computes the answer with core.
    pub solve: fn(&[Param]) -> Result<Solution, String>,
    /// Conceptual hints, unlocked one per failed attempt.
    pub hints: &'static [&'static str],
    /// Where the book's answer is wrong: why, and what is graded instead.
    pub correction: Option<&'static str>,
    /// False where the book gives no answer and one is computed here.
    pub book_gave_answer: bool,
}

impl fmt::Debug for Def {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Def").field("id", &self.id).finish()
    }
}

/// Formats a parameter value for a prompt: `8,192`, `1e12`, `0.5`.
pub fn n(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e7 {
        crate::format::grouped(x)
    } else {
        crate::format::sci(x, 3)
    }
}
