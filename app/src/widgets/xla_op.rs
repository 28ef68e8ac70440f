//! Reading an XLA op (`data-widget="xla-op"`, Part 9): the reader pastes or
//! edits one HLO op line, or picks one of the book's, and sees it taken apart
//! by `ridgeline_core::profiling::xla_op`: its output type, layout (minor-to-major order,
//! tiles, memory space), the shape its tiles pad it to, every operand, the
//! bytes it touches with and without padding, its FLOPs and its roofline time
//! on a chip (and on a second chip, `vs`, beside it, with a table of the
//! differences). Text that does not parse is refused with a message that points at
//! the character where reading stopped, and the last valid op stays shown.

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds, si};
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::profiling::xla_op::{
    op_cost, parse_op, HloOp, HloShape, OpCost, ParseError, MAX_LINE,
};

use super::compare::{chip_rows, compare_picker, compare_table, Comparison, Diff, VS};
use super::controls::option;
use super::params::{WidgetParams, WidgetState};

/// Op lines to pick from: `(label, line)`.
pub const EXAMPLES: [(&str, &str); 4] = [
    (
        "the book's fused reduce-scatter",
        "%fusion.3 = bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)} fusion(bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)} %fusion.32), kind=kCustom, calls=%all-reduce-scatter.3",
    ),
    (
        "a matmul (dot)",
        "%dot.1 = bf16[1024,8192]{1,0:T(8,128)(2,1)} dot(bf16[1024,4096]{1,0:T(8,128)(2,1)} %x, bf16[4096,8192]{1,0:T(8,128)(2,1)} %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
    ),
    (
        "a small padded add",
        "%add.7 = f32[3,5]{1,0:T(2,2)} add(f32[3,5]{1,0:T(2,2)} %a, f32[3,5]{1,0:T(2,2)} %b)",
    ),
    (
        "a column-major copy",
        "%copy.2 = f32[100,130]{0,1:T(8,128)} copy(f32[100,130]{1,0:T(8,128)} %p)",
    ),
];
/// Formats the FLOPs may run in.
pub const COMPUTE: [Dtype; 3] = [Dtype::Bf16, Dtype::Int8, Dtype::F32];

/// The reader's settings: an op line that parses and can be costed.
#[derive(Debug, Clone, PartialEq)]
pub struct XlaOpParams {
    /// The op line.
    pub op: String,
    /// The chip it runs on.
    pub chip: &'static Chip,
    /// The format its FLOPs run in.
    pub compute: Dtype,
    /// A second chip the same op is costed on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for XlaOpParams {
    /// The book's fused reduce-scatter on a TPU v5e in bf16.
    fn default() -> Self {
        XlaOpParams {
            op: EXAMPLES[0].1.to_string(),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            compute: Dtype::Bf16,
            vs: None,
        }
    }
}

/// Everything the widget shows.
#[derive(Debug, Clone, PartialEq)]
pub struct XlaOpView {
    /// The parsed line.
    pub op: HloOp,
    /// What it costs.
    pub cost: OpCost,
}

impl XlaOpParams {
    /// Parses and costs the op.
    pub fn view(&self) -> Result<XlaOpView, String> {
        let op = parse_op(&self.op).map_err(|e| pointed(&self.op, &e))?;
        let cost = op_cost(&op, self.chip, self.compute)?;
        Ok(XlaOpView { op, cost })
    }

    /// The op's cost on the compared chip, if there is one.
    pub fn vs_cost(&self) -> Option<Result<OpCost, String>> {
        let chip = self.vs?;
        let op = parse_op(&self.op).map_err(|e| pointed(&self.op, &e));
        Some(op.and_then(|op| op_cost(&op, chip, self.compute)))
    }

    /// This chip beside the compared one: the peak in the op's format, HBM
    /// bandwidth, the roofline time and the verdict.
    pub fn comparison(&self) -> Option<Comparison> {
        let (a, b) = (self.view().ok()?.cost, self.vs_cost()?.ok()?);
        let other = self.vs?;
        let mut rows = chip_rows(self.chip, other, self.compute);
        rows.extend([
            Diff::number(
                "time",
                "roofline time",
                a.analysis.lower.0,
                b.analysis.lower.0,
                seconds,
            ),
            Diff::words(
                "verdict",
                "verdict",
                a.analysis.verdict.text(),
                b.analysis.verdict.text(),
            ),
        ]);
        Some(Comparison {
            a: self.chip.name.into(),
            b: other.name.into(),
            rows,
        })
    }
}

/// A parse error as the reader reads it: the character (counted from 1) and
/// the text just before it, with `⟨…⟩` around the character where reading
/// stopped.
pub fn pointed(text: &str, e: &ParseError) -> String {
    let pos = e.pos.min(text.len());
    // The byte offset falls on a character boundary, or is moved back to one.
    let at = (0..=pos)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before: Vec<char> = text[..at].chars().collect();
    let from = before.len().saturating_sub(24);
    let lead: String = before[from..].iter().collect();
    let here = text[at..]
        .chars()
        .next()
        .map_or("end".to_string(), String::from);
    format!(
        "at character {}: {} (“{}{lead}⟨{here}⟩”)",
        before.len() + 1,
        e.message,
        if from > 0 { "…" } else { "" }
    )
}

impl WidgetParams for XlaOpParams {
    const ORDER: &'static [&'static [&'static str]] = &[&["chip", "compute"], &[VS]];

    /// Sets one parameter from text, or explains why not.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        let mut next = self.clone();
        match key {
            "op" => {
                if value.len() > MAX_LINE {
                    return Err(format!("the line is longer than {MAX_LINE} bytes"));
                }
                next.op = value.trim().to_string();
            }
            "chip" => next.chip = super::controls::chip(value)?,
            "compute" => next.compute = super::controls::dtype_among(value, &COMPUTE, "compute")?,
            VS => next.vs = super::compare::vs_chip(value)?,
            other => return Err(super::params::unknown_setting(other)),
        }
        next.view()?;
        if let Some(Err(e)) = next.vs_cost() {
            return Err(format!("compared chip: {e}"));
        }
        *self = next;
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("op".into(), self.op.clone()),
            ("chip".into(), self.chip.id.into()),
            ("compute".into(), self.compute.name().into()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The layout in words: order, tiles and memory space.
pub fn layout_words(s: &HloShape) -> String {
    let order: Vec<String> = s.minor_to_major.iter().map(|d| d.to_string()).collect();
    let tiles: Vec<String> = s
        .tiles
        .iter()
        .map(|t| {
            let sides: Vec<String> = t.iter().map(|x| x.to_string()).collect();
            format!("({})", sides.join("×"))
        })
        .collect();
    let space = match s.memory_space {
        0 => "HBM".to_string(),
        1 => "VMEM".to_string(),
        n => format!("memory space {n}"),
    };
    let tiles = if tiles.is_empty() {
        "untiled".to_string()
    } else {
        format!("tiles {}", tiles.join(" then "))
    };
    format!(
        "minor to major {{{}}}, {tiles}, in {space}",
        order.join(",")
    )
}

fn dims(d: &[u64]) -> String {
    let v: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    format!("[{}]", v.join(","))
}

/// The xla-op widget.
#[component]
pub fn XlaOp(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<XlaOpParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key != "op");
    };
    let view_ = Memo::new(move |_| params.with(XlaOpParams::view).ok());
    let shown = move |f: fn(&XlaOpView) -> String| {
        move || view_.with(|v| v.as_ref().map(f).unwrap_or_default())
    };
    let chosen = move || {
        params.with(|p| {
            EXAMPLES
                .iter()
                .find(|(_, line)| *line == p.op)
                .map_or("custom".to_string(), |(_, line)| line.to_string())
        })
    };
    let example_options = EXAMPLES
        .iter()
        .map(|(label, line)| option(*line, *label, chosen))
        .chain(std::iter::once(option("custom", "your own line", chosen)))
        .collect_view();
    let compute_options = COMPUTE
        .iter()
        .map(|d| {
            option(d.name(), d.name(), move || {
                params.with(|p| p.compute.name())
            })
        })
        .collect_view();
    let operands = move || {
        view_.with(|v| {
            v.as_ref().map(|v| {
                v.op.operands
                    .iter()
                    .map(|o| {
                        let ty = o
                            .shape
                            .as_ref()
                            .map_or("type not written".to_string(), |s| {
                                format!(
                                    "{} → {} in memory, {}",
                                    s.short(),
                                    dims(&s.padded_dims()),
                                    layout_words(s)
                                )
                            });
                        view! { <li><code>{format!("%{}", o.name)}</code>" " {ty}</li> }
                    })
                    .collect_view()
            })
        })
    };
    let op_text = move || params.with(|p| p.op.clone());
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_time = move || {
        params.with(|p| {
            let (other, cost) = (p.vs?, p.vs_cost()?.ok()?);
            let v = cost.analysis.verdict.text();
            Some(view! {
                <div><dt>{format!("On {}", other.name)}</dt>
                    <dd data-vs-time="">{seconds(cost.analysis.lower.0)}</dd>
                    <dd class=format!("verdict {v}") data-vs-verdict=v>{v}</dd></div>
            })
        })
    };

    view! {
        <figure class="widget xla-op" data-widget="xla-op">
            <div class="controls">
                <label>"Example "
                    <select prop:value=chosen on:change=move |ev| {
                        let v = event_target_value(&ev);
                        if v != "custom" { set("op", v) }
                    }>{example_options}</select>
                </label>
                {super::controls::chip_picker("Chip ", super::controls::any, move || params.with(|p| p.chip.id).to_string(), set)}
                <label>"FLOPs in "
                    <select prop:value=move || params.with(|p| p.compute.name())
                        on:change=move |ev| set("compute", event_target_value(&ev))>{compute_options}</select>
                </label>
                {compare_picker(super::controls::chip_options(super::controls::any, vs_id), vs_id, set)}
            </div>
            <label class="op-line">"HLO op line"
                <textarea rows="3" spellcheck="false" aria-label="one HLO op line"
                    prop:value=op_text
                    on:input=move |ev| set("op", event_target_value(&ev))>{op_text}</textarea>
            </label>
            <Notice notice=notice />
            <dl class="xla-op-parts">
                <div><dt>"Op"</dt><dd data-opcode="">{shown(|v| format!("%{} = {}", v.op.name, v.op.opcode))}</dd></div>
                <div><dt>"Output"</dt><dd data-output="">{shown(|v| v.op.output.short())}</dd></div>
                <div><dt>"Layout"</dt><dd data-layout="">{shown(|v| layout_words(&v.op.output))}</dd></div>
                <div><dt>"Stored as"</dt><dd data-padded="">{shown(|v| dims(&v.op.output.padded_dims()))}</dd></div>
                <div><dt>"Operands"</dt><dd><ul>{operands}</ul></dd></div>
                <div><dt>"Bytes touched"</dt>
                    <dd data-bytes="">{shown(|v| si(v.cost.bytes.0, "B", 4))}</dd>
                    <dd>{shown(|v| format!("{} with padding", si(v.cost.padded_bytes.0, "B", 4)))}</dd></div>
                <div><dt>"FLOPs"</dt>
                    <dd data-flops="">{shown(|v| if v.cost.flops.0 > 0.0 { sci(v.cost.flops.0, 3) } else { "0".into() })}</dd>
                    <dd>{shown(|v| v.cost.note.clone())}</dd></div>
                <div><dt>"Roofline time"</dt>
                    <dd data-time="">{shown(|v| seconds(v.cost.analysis.lower.0))}</dd>
                    <dd data-verdict="">{shown(|v| v.cost.analysis.verdict.text().to_string())}</dd></div>
                {vs_time}
                <div><dt>"Collective"</dt><dd data-collective="">{shown(|v| v.cost.collective.clone().unwrap_or_else(|| "none".into()))}</dd></div>
            </dl>
            <p class="caption">"Bytes count the output and every operand whose type the line writes, each padded up to whole tiles; the time is the larger of the FLOPs at the chip's peak and the padded bytes over its HBM ("
                {move || params.with(|p| format!("{} B/s", grouped(p.chip.hbm_bw().0)))} ")."</p>
            {compare_table(move || params.with(|p| p.comparison()))}
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::params::testing::assert_round_trip;

    #[test]
    fn the_books_fusion_line_reads_as_the_book_says() {
        let v = XlaOpParams::default().view().unwrap();
        assert_eq!(v.op.output.short(), "bf16[32,32,4096]");
        assert_eq!(v.op.output.memory_space, 1);
        assert_eq!(
            layout_words(&v.op.output),
            "minor to major {2,1,0}, tiles (8×128) then (2×1), in VMEM"
        );
        assert_eq!(v.cost.collective.as_deref(), Some("reduce-scatter"));
        // 32·32·4096 + 32·32·8192 bf16 elements, no padding (sides are tile multiples).
        let want = 2.0 * 32.0 * 32.0 * (4096.0 + 8192.0);
        assert_eq!(v.cost.bytes.0, want);
        assert_eq!(v.cost.padded_bytes.0, want);
    }

    #[test]
    fn examples_cost_what_their_shapes_say() {
        let mut p = XlaOpParams::default();
        p.apply("op", EXAMPLES[1].1).unwrap();
        let dot = p.view().unwrap();
        assert_eq!(dot.cost.flops.0, 2.0 * 1024.0 * 8192.0 * 4096.0);
        p.apply("op", EXAMPLES[2].1).unwrap();
        let add = p.view().unwrap();
        // f32[3,5] under T(2,2) is stored as 4 × 6: 60 bytes of data in 96.
        assert_eq!(add.op.output.padded_dims(), vec![4, 6]);
        assert_eq!(add.cost.bytes.0, 3.0 * 60.0);
        assert_eq!(add.cost.padded_bytes.0, 3.0 * 96.0);
    }

    #[test]
    fn malformed_lines_point_at_the_character_and_keep_the_op() {
        let mut p = XlaOpParams::default();
        let e = p.apply("op", "%x = f32[3,5}").unwrap_err();
        assert!(e.starts_with("at character 13:"), "{e}");
        assert!(e.ends_with("(“%x = f32[3,5⟨}⟩”)"), "{e}");
        let e = p
            .apply(
                "op",
                "%x = f32[3,5]{1,0:T(2,2)} dot(f32[3,5] %a, f32[5,2] %b)",
            )
            .unwrap_err();
        assert!(e.contains("lhs_contracting_dims"), "{e}");
        // Offsets inside a multi-byte character still give a message.
        let e = p.apply("op", "%é = f32[").unwrap_err();
        assert!(e.starts_with("at character"), "{e}");
        assert!(p.apply("chip", "v99").is_err());
        assert!(p.apply("compute", "fp4").is_err());
        assert_eq!(p, XlaOpParams::default());
    }

    #[test]
    fn a_second_chip_costs_the_same_op() {
        use crate::widgets::params::testing::{assert_pairs_restore, assert_refused_keeps};
        let mut p = XlaOpParams::default();
        p.apply("op", EXAMPLES[1].1).unwrap();
        p.apply("vs", "v5p").unwrap();
        assert_pairs_restore(&p);
        let op = parse_op(EXAMPLES[1].1).unwrap();
        let on_v5p = op_cost(&op, chip("v5p").unwrap(), Dtype::Bf16).unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.row("time").unwrap().b, seconds(on_v5p.analysis.lower.0));
        assert_eq!(c.row("verdict").unwrap().b, on_v5p.analysis.verdict.text());
        assert_eq!(
            c.row("time").unwrap().a,
            seconds(p.view().unwrap().cost.analysis.lower.0)
        );
        let messages = assert_refused_keeps(&p, &[("vs", "v99")]);
        assert!(messages[0].contains("v99"), "{messages:?}");
        // The reader's own chip compares as a preset does; the URL carries it whole.
        let (_, code) = crate::library::tests::with_own_entries();
        p.apply("vs", "my:fast v5e").unwrap();
        assert_eq!(p.vs.unwrap().id, code);
        assert_pairs_restore(&p);
        let own = op_cost(&op, p.vs.unwrap(), Dtype::Bf16).unwrap();
        let c = p.comparison().unwrap();
        assert_eq!(c.b, "fast v5e");
        assert_eq!(c.row("time").unwrap().b, seconds(own.analysis.lower.0));
        p.apply("vs", "none").unwrap();
        assert_eq!(p.comparison(), None);
        assert!(p.to_pairs().iter().all(|(k, _)| k != "vs"));
    }

    #[test]
    fn pairs_round_trip() {
        assert_round_trip::<XlaOpParams>(&[
            ("op", EXAMPLES[3].1),
            ("chip", "h100"),
            ("compute", "int8"),
        ]);
    }
}
