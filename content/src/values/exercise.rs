//! Worked answers (Parts 8–9 and any part with graded problems): the answer
//! core's grader expects for the book's version of a registered exercise, so a
//! page can work a problem in its prose with the numbers the card checks.

use super::entry::ValueDirective;
use crate::directive::Directive;
use ridgeline_core::exercises::registry::{defs, Exercise};

/// The worked-answer directive.
pub const VALUES: &[ValueDirective] = &[ValueDirective {
    name: "answer",
    args: &["id"],
    doc: "the expected answer of a registered exercise's book version, as a reader would type \
          it (a `/$` unit written out as per dollar): id=ch8-q3a",
    example: "answer id=ch8-q3a",
    shows: "17.22 ms",
    eval: answer,
}];

fn answer(d: &Directive) -> Result<String, String> {
    let id = d.arg("id").ok_or("`answer` needs id=")?;
    let def = defs()
        .into_iter()
        .find(|def| def.id == id)
        .ok_or_else(|| format!("answer id=`{id}` is not a registered exercise"))?;
    let ex = Exercise::from_def(def).map_err(|e| format!("answer id=`{id}`: {e}"))?;
    // A dollar sign would open math on the page: `FLOPs/$` is written out.
    Ok(ex.answer_text().replace("/$", " per dollar"))
}
