//! The book's profiler screenshots redrawn (Part 9), three static figures
//! over `core`'s `profiling::book`:
//!
//! - `profiler-tools` (`ProfilerTools`): the profiler's tool menu, and what
//!   each tool the book points out shows;
//! - `book-trace` (`BookTraceFigure`, `trace=viewer|layer|attention|q1`): a
//!   trace viewer's rows on `TPU:0`, the XLA Ops row first with the HLO op
//!   names and the rows the profiler rebuilds from scopes below it, the
//!   book's annotations above, a bracketed layer, and the details pane of
//!   the op the book clicked (its HLO line read by `core`'s `xla_op`);
//! - `book-graph` (`BookGraphFigure`, `graph=fusion.143|fusion.1`): a graph
//!   viewer's picture of one fusion, its inputs, its ops and its one matmul
//!   inside one box, and the collective XLA compiles a pattern into.

use super::figure::{arg, line, plain, rect, WIDTH};
use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::profiling::book::{
    graph, trace, BookGraph, BookTrace, NodeKind, Span, SpanKind, TOOLS,
};
use ridgeline_core::profiling::xla_op::parse_op;

/// Width of the trace rows' label column.
const LEFT: f64 = 58.0;
/// Right edge of the trace rows.
const RIGHT: f64 = WIDTH - 6.0;
/// Estimated width of one character of the figures' small (11 px) text.
const CHAR: f64 = 6.8;
/// Levels of annotations above the XLA Ops row.
const NOTE_LEVELS: usize = 4;

/// The profiler's tool menu.
#[component]
pub fn ProfilerTools(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let rows = TOOLS
        .iter()
        .map(|t| {
            let shows = if t.shows.is_empty() {
                view! { <td class="muted">"not described in the book"</td> }.into_any()
            } else {
                view! { <td>{t.shows}</td> }.into_any()
            };
            view! { <tr><td><code>{t.name}</code></td>{shows}</tr> }
        })
        .collect_view();
    view! {
        <figure class="widget fig profiler-tools" data-widget="profiler-tools">
            <table class="tool-menu">
                <thead><tr><th scope="col">"tool"</th><th scope="col">"what it shows"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <figcaption>
                {format!(
                    "The {} tools of the profile plugin's menu, in its order (the book's figure \
                     xprof-overview.png). The trace viewer and the graph viewer are drawn below from \
                     the book's own screenshots; the two memory tools are described in the text.",
                    TOOLS.len()
                )}
            </figcaption>
        </figure>
    }
}

/// `x` on the trace's time axis, clamped to the rows.
fn at(t: &BookTrace, ms: f64) -> f64 {
    let (a, b) = t.window_ms;
    (LEFT + (ms - a) / (b - a) * (RIGHT - LEFT)).clamp(LEFT, RIGHT)
}

/// A round tick step for a window of `span` ms: the least of 1, 2 or 5
/// times a power of ten that gives at most five steps.
fn tick_step(span: f64) -> f64 {
    let raw = span / 5.0;
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// Whether `text` fits in `w` units of small text.
fn fits(text: &str, w: f64) -> bool {
    text.chars().count() as f64 * CHAR + 6.0 <= w
}

/// The class of a span's box.
fn span_class(s: &Span, selected: bool) -> &'static str {
    match (selected, s.kind) {
        (true, _) => "fig-sel",
        (_, SpanKind::Compute) => "fig-op",
        (_, SpanKind::Collective) => "fig-coll",
        (_, SpanKind::Scope) => "fig-box",
    }
}

/// The label an op of the XLA Ops row carries above the row: the book's
/// annotation, or else its name when the name does not fit in its box and
/// the box lies wholly inside the window; none for a box narrower than
/// three units, which is too thin to point at.
fn note_of(t: &BookTrace, s: &Span) -> Option<&'static str> {
    let w = at(t, s.end_ms) - at(t, s.start_ms);
    let (a, b) = t.window_ms;
    let whole = s.start_ms >= a && s.end_ms <= b;
    if w < 3.0 {
        None
    } else if !s.note.is_empty() {
        Some(s.note)
    } else if whole && !s.name.is_empty() && !fits(s.name, w) {
        Some(s.name)
    } else {
        None
    }
}

/// Places each label of the XLA Ops row ([`note_of`]) on the lowest free
/// level above it: ops that compute first, wider spans first. Returns
/// (label, level, left x, centre x); a label with no free level is left out.
fn place_notes(t: &BookTrace) -> Vec<(&'static str, usize, f64, f64)> {
    let mut notes: Vec<(&Span, &'static str)> = t
        .ops()
        .filter_map(|s| note_of(t, s).map(|n| (s, n)))
        .collect();
    notes.sort_by(|(a, _), (b, _)| {
        (a.kind != SpanKind::Compute)
            .cmp(&(b.kind != SpanKind::Compute))
            .then(b.ms().total_cmp(&a.ms()))
    });
    let mut taken: Vec<Vec<(f64, f64)>> = vec![Vec::new(); NOTE_LEVELS];
    let mut out = Vec::new();
    for (s, note) in notes {
        let cx = (at(t, s.start_ms) + at(t, s.end_ms)) / 2.0;
        let w = note.chars().count() as f64 * CHAR;
        let x0 = (cx - w / 2.0).clamp(4.0, RIGHT - w);
        let free = taken
            .iter()
            .position(|l| l.iter().all(|(a, b)| x0 + w + 6.0 < *a || x0 > *b + 6.0));
        if let Some(level) = free {
            taken[level].push((x0, x0 + w));
            out.push((note, level, x0, cx));
        }
    }
    out
}

/// The trace drawing and its height.
fn trace_drawing(t: &BookTrace) -> (Vec<AnyView>, f64) {
    let mut parts = vec![plain(
        4.0,
        14.0,
        "start",
        "fig-title",
        &format!("{} · {}", t.device, t.module),
    )];
    let mut y = 24.0;
    if let Some((s, ms)) = t.bracketed() {
        let (x0, x1) = (at(t, s.start_ms), at(t, s.end_ms));
        parts.push(plain(
            (x0 + x1) / 2.0,
            y + 8.0,
            "middle",
            "fig-small",
            &format!("{}: {}", s.name, seconds(ms * 1e-3)),
        ));
        parts.push(line(x0, y + 14.0, x1, y + 14.0, "fig-flow"));
        parts.push(line(x0, y + 10.0, x0, y + 18.0, "fig-flow"));
        parts.push(line(x1, y + 10.0, x1, y + 18.0, "fig-flow"));
        y += 22.0;
    }
    let notes = place_notes(t);
    let levels = notes.iter().map(|n| n.1 + 1).max().unwrap_or(0);
    let ops_top = y + levels as f64 * 13.0 + 6.0;
    for (note, level, x0, cx) in notes {
        let ny = ops_top - 8.0 - level as f64 * 13.0;
        parts.push(line(cx, ny + 2.0, cx, ops_top, "fig-leader"));
        parts.push(plain(x0, ny, "start", "fig-small fig-note", note));
    }
    let mut row_y = ops_top;
    for (i, row) in t.rows.iter().enumerate() {
        let h = if i == 0 { 24.0 } else { 20.0 };
        parts.push(plain(
            4.0,
            row_y + h / 2.0 + 4.0,
            "start",
            "fig-small fig-muted",
            row.label,
        ));
        let (a, b) = t.window_ms;
        for s in row.spans.iter().filter(|s| s.end_ms > a && s.start_ms < b) {
            let (x0, x1) = (at(t, s.start_ms), at(t, s.end_ms));
            let w = (x1 - x0).max(1.0);
            let sel = i == 0 && s.name == t.selected.op;
            parts.push(rect(x0, row_y, w, h, span_class(s, sel)));
            if fits(s.name, w) {
                parts.push(plain(
                    x0 + w / 2.0,
                    row_y + h / 2.0 + 4.0,
                    "middle",
                    "fig-small",
                    s.name,
                ));
            }
        }
        row_y += h + 3.0;
    }
    // The time axis.
    let (a, b) = t.window_ms;
    let step = tick_step(b - a);
    parts.push(line(LEFT, row_y + 2.0, RIGHT, row_y + 2.0, "fig-rule"));
    let mut k = (a / step).ceil();
    while k * step <= b + 1e-9 {
        let x = at(t, k * step);
        let label = seconds(k * step * 1e-3);
        // A label that would run past the right edge ends at its tick.
        let anchor = if x + label.chars().count() as f64 * CHAR / 2.0 > WIDTH {
            "end"
        } else {
            "middle"
        };
        parts.push(line(x, row_y + 2.0, x, row_y + 7.0, "fig-rule"));
        parts.push(plain(
            x,
            row_y + 19.0,
            anchor,
            "fig-small fig-muted",
            &label,
        ));
        k += 1.0;
    }
    (parts, row_y + 26.0)
}

/// The details pane of the selected op: its HLO line, read by `core`.
fn details(t: &BookTrace) -> AnyView {
    let s = &t.selected;
    let mut rows: Vec<(String, AnyView)> = vec![
        ("Title".into(), view! { <code>{s.op}</code> }.into_any()),
        (
            "Start".into(),
            view! { {format!("{} ns", grouped(s.start_ns as f64))} }.into_any(),
        ),
        (
            "Wall duration".into(),
            view! { {format!("{} ns ({})", grouped(s.wall_ns as f64), seconds(s.wall().0))} }
                .into_any(),
        ),
        (
            "HLO".into(),
            view! { <code class="hlo">{s.hlo}</code> }.into_any(),
        ),
    ];
    if let Ok(op) = parse_op(s.hlo) {
        let role = if s.output_role.is_empty() {
            String::new()
        } else {
            format!(": {}", s.output_role)
        };
        rows.push((
            "Output".into(),
            view! { <code>{op.output.short()}</code>{role} }.into_any(),
        ));
        for (i, o) in op.operands.iter().enumerate() {
            let role = s
                .operand_roles
                .iter()
                .find(|(j, _)| *j == i)
                .map(|(_, r)| format!(": {r}"))
                .unwrap_or_default();
            let shape = o.shape.as_ref().map(|sh| sh.short()).unwrap_or_default();
            let from = format!(" from %{}{role}", o.name);
            rows.push((
                format!("Operand {i}"),
                view! { <code>{shape}</code>{from} }.into_any(),
            ));
        }
    }
    rows.push(("hlo_category".into(), view! { {s.category} }.into_any()));
    if let Some(f) = s.model_flops {
        rows.push((
            "model_flops".into(),
            view! { {grouped(f as f64)} }.into_any(),
        ));
    }
    if let Some(b) = s.bytes_accessed {
        rows.push((
            "bytes_accessed".into(),
            view! { {grouped(b as f64)} }.into_any(),
        ));
    }
    if let Some(i) = s.intensity() {
        rows.push((
            "FLOPs per byte".into(),
            view! { {format!("{} (model_flops / bytes_accessed)", sci(i, 3))} }.into_any(),
        ));
    }
    rows.push((
        "source".into(),
        view! { <code>{s.source}</code> }.into_any(),
    ));
    let rows = rows
        .into_iter()
        .map(|(k, v)| view! { <dt>{k}</dt><dd>{v}</dd> })
        .collect_view();
    view! { <dl class="op-details" data-selected=s.op>{rows}</dl> }.into_any()
}

/// One of the book's trace screenshots redrawn.
#[component]
pub fn BookTraceFigure(
    /// The chapter's arguments: `trace` (`viewer`, `layer`, `attention`, `q1`).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let id = arg(&args, "trace", "viewer").to_string();
    let Some(t) = trace(&id) else {
        return view! {
            <figure class="widget fig book-trace" data-widget="book-trace">
                <p class="notice" role="status">{format!("no book trace `{id}`: viewer, layer, attention or q1")}</p>
            </figure>
        }
        .into_any();
    };
    let (parts, height) = trace_drawing(t);
    let aria = format!(
        "The book's trace {}: rows {}, {} selected",
        t.id,
        t.rows
            .iter()
            .map(|r| r.label)
            .collect::<Vec<_>>()
            .join(", "),
        t.selected.op
    );
    view! {
        <figure class="widget fig book-trace" data-widget="book-trace" data-trace=t.id>
            <svg viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-label=aria>
                {parts.into_iter().collect_view()}
            </svg>
            {details(t)}
            <figcaption>
                {format!(
                    "Redrawn from the book's {}. Top row: the HLO ops {} ran (blue computes, orange \
                     moves data; a box left blank is one whose name the screenshot cuts short). The rows \
                     below are the profiler's reconstruction from named scopes. Outlined: the op the book \
                     clicked, whose details pane is listed under the drawing.",
                    t.figure, t.device
                )}
            </figcaption>
        </figure>
    }
    .into_any()
}

/// Column pitch, node size and row pitch of a graph drawing.
const COL: f64 = 98.0;
const NODE_W: f64 = 96.0;
const NODE_H: f64 = 32.0;
const ROW: f64 = 58.0;
const GRAPH_TOP: f64 = 10.0;

/// A node's top-left corner.
fn node_at(col: u8, row: u8) -> (f64, f64) {
    (4.0 + f64::from(col) * COL, GRAPH_TOP + f64::from(row) * ROW)
}

/// The graph drawing and its height.
fn graph_drawing(g: &BookGraph) -> (Vec<AnyView>, f64) {
    let marker = format!("arrow-{}", g.id.replace('.', "-"));
    let mut parts = vec![view! {
        <defs>
            <marker id=marker.clone() viewBox="0 0 8 8" refX="8" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
                <path d="M0,0 L8,4 L0,8 z" class="fig-arrow" />
            </marker>
        </defs>
    }
    .into_any()];
    // The fusion's box around every node that is not outside it.
    let inside = || g.nodes.iter().filter(|n| n.kind != NodeKind::Outside);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for n in inside() {
        let (x, y) = node_at(n.at.0, n.at.1);
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x + NODE_W);
        y1 = y1.max(y + NODE_H);
    }
    // The fusion's name sits in its box's bottom right corner, clear of the
    // edges that enter it from above.
    let (bx, by, bw, bh) = (x0 - 3.0, y0 - 8.0, x1 - x0 + 6.0, y1 - y0 + 28.0);
    parts.push(rect(bx, by, bw, bh, "fig-fused"));
    parts.push(plain(
        bx + bw - 6.0,
        by + bh - 6.0,
        "end",
        "fig-small fig-title",
        &format!("{} (kind={})", g.fusion, g.kind),
    ));
    let url = format!("url(#{marker})");
    for (a, b) in g.edges {
        let (Some(na), Some(nb)) = (g.nodes.get(*a), g.nodes.get(*b)) else {
            continue;
        };
        let (ax, ay) = node_at(na.at.0, na.at.1);
        let (bx2, by2) = node_at(nb.at.0, nb.at.1);
        let (x1, y1, x2, y2) = (
            ax + NODE_W / 2.0,
            ay + NODE_H,
            bx2 + NODE_W / 2.0,
            by2 - 1.0,
        );
        parts.push(
            view! {
                <line x1=format!("{x1:.1}") y1=format!("{y1:.1}") x2=format!("{x2:.1}") y2=format!("{y2:.1}")
                    class="fig-edge" marker-end=url.clone() />
            }
            .into_any(),
        );
    }
    let mut bottom = by + bh;
    for n in g.nodes {
        let (x, y) = node_at(n.at.0, n.at.1);
        let class = match n.kind {
            NodeKind::Parameter => "fig-param",
            NodeKind::Outside | NodeKind::Pointwise => "fig-box",
            NodeKind::Matmul => "fig-matmul",
            NodeKind::Collective => "fig-coll",
        };
        parts.push(rect(x, y, NODE_W, NODE_H, class));
        parts.push(plain(
            x + NODE_W / 2.0,
            y + 13.0,
            "middle",
            "fig-tiny fig-title",
            n.name,
        ));
        parts.push(plain(
            x + NODE_W / 2.0,
            y + 26.0,
            "middle",
            "fig-tiny",
            n.shape,
        ));
        bottom = bottom.max(y + NODE_H);
    }
    if let Some(c) = g.compiled_to {
        // Beside the fusion: the one collective XLA runs in its place.
        let (cx, cy) = (bx + bw + 18.0, by + bh / 2.0 - 40.0);
        let cw = RIGHT - cx;
        let (ax0, ax1, ay) = (bx + bw + 2.0, cx - 2.0, cy + 40.0);
        parts.push(
            view! {
                <line x1=format!("{ax0:.1}") y1=format!("{ay:.1}") x2=format!("{ax1:.1}") y2=format!("{ay:.1}")
                    class="fig-edge" marker-end=url.clone() />
            }
            .into_any(),
        );
        parts.push(rect(cx, cy, cw, 80.0, "fig-coll"));
        let (op, shapes) = c.split_once(": ").unwrap_or((c, ""));
        let (from, to) = shapes.split_once(" → ").unwrap_or((shapes, ""));
        for (i, (text, class)) in [
            ("compiled into", "fig-tiny fig-muted"),
            (op, "fig-small fig-title"),
            (from, "fig-tiny"),
            (&format!("→ {to}"), "fig-tiny"),
        ]
        .into_iter()
        .enumerate()
        {
            parts.push(plain(
                cx + cw / 2.0,
                cy + 16.0 + i as f64 * 17.0,
                "middle",
                class,
                text,
            ));
        }
    }
    (parts, bottom + 8.0)
}

/// One of the book's graph-viewer pictures redrawn.
#[component]
pub fn BookGraphFigure(
    /// The chapter's arguments: `graph` (`fusion.143`, `fusion.1`).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let id = arg(&args, "graph", "fusion.143").to_string();
    let Some(g) = graph(&id) else {
        return view! {
            <figure class="widget fig book-graph" data-widget="book-graph">
                <p class="notice" role="status">{format!("no book graph `{id}`: fusion.143 or fusion.1")}</p>
            </figure>
        }
        .into_any();
    };
    let (parts, height) = graph_drawing(g);
    let aria = format!(
        "The graph viewer's picture of {}: {}",
        g.fusion,
        g.nodes
            .iter()
            .map(|n| n.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    view! {
        <figure class="widget fig book-graph" data-widget="book-graph" data-graph=g.id>
            <svg viewBox=format!("0 0 {WIDTH} {height:.0}") role="img" aria-label=aria>
                {parts.into_iter().collect_view()}
            </svg>
            <figcaption>
                {format!(
                    "Redrawn from the book's {}, abridged. Inside the shaded box is one fusion: amber \
                     boxes are its parameters (its operands, read from HBM), white boxes elementwise and \
                     reshaping ops, blue the one matmul, orange a collective; boxes outside it are the \
                     ops that feed it or read it.",
                    g.figure
                )}
            </figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_trace(id: &str) -> String {
        let args = vec![("trace".to_string(), id.to_string())];
        strip(Owner::new().with(|| view! { <BookTraceFigure args=args /> }.to_html()))
    }

    fn render_graph(id: &str) -> String {
        let args = vec![("graph".to_string(), id.to_string())];
        strip(Owner::new().with(|| view! { <BookGraphFigure args=args /> }.to_html()))
    }

    /// `html` without the `<!>` markers Leptos writes after dynamic text.
    fn strip(html: String) -> String {
        html.replace("<!>", "")
    }

    /// Where `needle` first occurs in `html`.
    fn pos(html: &str, needle: &str) -> usize {
        html.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    }

    #[test]
    fn the_tool_menu_lists_every_tool_and_what_four_show() {
        let none: Vec<(String, String)> = Vec::new();
        let html = strip(Owner::new().with(|| view! { <ProfilerTools args=none /> }.to_html()));
        assert!(html.contains(r#"data-widget="profiler-tools""#));
        for t in TOOLS {
            assert!(
                html.contains(&format!("<code>{}</code>", t.name)),
                "{}",
                t.name
            );
        }
        assert!(pos(&html, "overview_page") < pos(&html, "trace_viewer"));
        assert!(html.contains("which buffers hold the most memory"));
        assert!(html.contains("every TPU op in the order it ran"));
    }

    #[test]
    fn the_layer_trace_shows_its_ops_rows_and_the_selected_details() {
        let html = render_trace("layer");
        assert!(html.contains(r#"data-widget="book-trace""#));
        // The rows in order, XLA Ops first.
        let rows = ["XLA Ops", "layer", "block"].map(|r| pos(&html, &format!(">{r}</text>")));
        assert!(rows.windows(2).all(|w| w[0] < w[1]), "{rows:?}");
        // The ops of the layer under their HLO names, and the annotations.
        for name in [
            "fusion.16",
            "fusion.31",
            "up-projection",
            "down-projection",
            "FSDP AllGather",
        ] {
            assert!(html.contains(&format!(">{name}</text>")), "{name}");
        }
        // The bracketed layer: layer_0 from 185.9 to 459.9 ms.
        assert!(html.contains(">layer_0: 274 ms</text>"), "{html}");
        // fusion.16's details: its duration, its operands with the book's roles.
        assert!(html.contains(r#"data-selected="fusion.16""#));
        assert!(html.contains("96,994,547 ns (97 ms)"), "{html}");
        assert!(html.contains("from %all-gather.11: In"), "{html}");
        assert!(html.contains("from %all-gather.10: W1"), "{html}");
        assert!(
            html.contains("bf16[8,1024,16384]</code>: this core"),
            "{html}"
        );
        assert_eq!(html.matches(r#"class="fig-sel""#).count(), 1);
    }

    #[test]
    fn each_trace_draws_its_books_numbers() {
        let viewer = render_trace("viewer");
        for name in [
            "fusion.143",
            "all-gather.16",
            "fusion.180",
            "layer_1: 79.1 ms",
        ] {
            assert!(viewer.contains(&format!(">{name}</text>")), "{name}");
        }
        assert!(viewer.contains("549,772,591,104"));
        assert!(viewer.contains("TPU:0 · jit_forward(9697585473876885109)"));
        let attention = render_trace("attention");
        for note in [
            "Q",
            "K",
            "V",
            "O",
            "QK product",
            "softmax",
            "KV product",
            "FSDP AllGather",
        ] {
            assert!(attention.contains(&format!(">{note}</text>")), "{note}");
        }
        assert!(attention.contains("13,883,036 ns (13.9 ms)"), "{attention}");
        let q1 = render_trace("q1");
        for name in [
            "fusion.1",
            "fusion",
            "AllReduce",
            "fw,bw-&gt;bf",
            "wf,bf-&gt;bw",
        ] {
            assert!(q1.contains(&format!(">{name}</text>")), "{name}");
        }
        assert!(q1.contains("209,227 ns (209 µs)"), "{q1}");
        assert!(q1.contains("67,104,768") && q1.contains("67,133,440"));
        assert!(q1.contains("1 (model_flops / bytes_accessed)"), "{q1}");
        // Time axis labels in each window's unit.
        assert!(q1.contains(">25.1 ms</text>"), "{q1}");
        assert!(render_trace("nope").contains("no book trace `nope`"));
    }

    #[test]
    fn the_graphs_show_one_fusion_around_one_matmul() {
        let g = render_graph("fusion.143");
        assert!(g.contains(r#"data-graph="fusion.143""#));
        assert!(g.contains(">fusion.143 (kind=kOutput)</text>"), "{g}");
        assert_eq!(g.matches(r#"class="fig-matmul""#).count(), 1);
        assert_eq!(g.matches(r#"class="fig-param""#).count(), 4);
        assert!(g.contains(">convolution.55</text>"));
        let rs = render_graph("fusion.1");
        for name in [
            "all-reduce.17",
            "partition-id.2",
            "dynamic-slice.147",
            "reduce-scatter",
            "compiled into",
        ] {
            assert!(rs.contains(&format!(">{name}</text>")), "{name}");
        }
        assert!(rs.contains(">→ bf16[8,1024,4096]</text>"), "{rs}");
        assert!(render_graph("x").contains("no book graph `x`"));
    }

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(300.0), 100.0);
        assert_eq!(tick_step(96.0), 20.0);
        assert!((tick_step(0.465) - 0.1).abs() < 1e-12);
    }
}
