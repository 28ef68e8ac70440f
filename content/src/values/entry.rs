//! What one value directive is: the shape of every row of the domain tables.

use crate::directive::Directive;

/// One value directive a chapter may use, declared once: its name, its
/// arguments, what it computes, an example and the function that evaluates it.
#[derive(Debug, Clone, Copy)]
pub struct ValueDirective {
    /// The name a chapter writes (`ridge` in `{{ridge chip=v5e}}`).
    pub name: &'static str,
    /// The arguments it accepts; any other argument is an error.
    pub args: &'static [&'static str],
    /// What it computes, for the chapter-writing guide and error messages.
    pub doc: &'static str,
    /// A directive body that gives every one of [`args`](Self::args).
    pub example: &'static str,
    /// The text [`example`](Self::example) evaluates to.
    pub shows: &'static str,
    /// Computes the text the reader sees, once the dispatcher has checked the
    /// arguments' names against [`args`](Self::args).
    pub eval: fn(&Directive) -> Result<String, String>,
}
