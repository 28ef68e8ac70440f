//! A static page shows every control at the widget's arguments: the native
//! render writes no `prop:value`, so each `<select>` marks its chosen
//! `<option selected>` and each field carries a `value` attribute.

use leptos::prelude::*;
use ridgeline_app::widgets::{widget_view, NAMES};

/// A widget rendered to HTML natively, as the page writer does, in its own owner.
fn render(name: &str, args: &[(&str, &str)]) -> String {
    let owner = Owner::new();
    owner.with(|| widget_view(name, args).to_html())
}

/// The text of every `<TAG …>…</TAG>` element in `html`, in order.
fn elements<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find(&open) {
        let tail = &rest[start..];
        let end = tail.find(&close).map_or(tail.len(), |e| e + close.len());
        out.push(&tail[..end]);
        rest = &tail[end..];
    }
    out
}

/// The opening tags `<TAG …>` in `html`.
fn tags<'a>(html: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    html.match_indices(&open)
        .map(|(i, _)| {
            let tail = &html[i..];
            &tail[..tail.find('>').map_or(tail.len(), |e| e + 1)]
        })
        .collect()
}

/// Whether an opening tag carries the boolean attribute `selected`.
fn is_selected(option_tag: &str) -> bool {
    option_tag
        .trim_end_matches('>')
        .split_whitespace()
        .any(|a| a == "selected" || a.starts_with("selected="))
}

/// The values of the chosen options of every select in `html`.
fn chosen(html: &str) -> Vec<String> {
    elements(html, "select")
        .iter()
        .flat_map(|s| tags(s, "option"))
        .filter(|o| is_selected(o))
        .map(|o| attr(o, "value").unwrap_or_default())
        .collect()
}

/// An attribute's value in an opening tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_string())
}

/// A widget, its arguments, the options its selects must then mark chosen and
/// the values its fields must show.
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
    &'static [&'static str],
);

/// Widgets at arguments other than their defaults, and what their controls
/// must then show.
const CASES: &[Case] = &[
    (
        "roofline",
        &[("chip", "h100"), ("b", "1500")],
        &["h100"],
        &["1500"],
    ),
    (
        "transformer",
        &[("model", "llama3-8b"), ("f", "2"), ("dtype", "int8")],
        &["", "int8"],
        &["2"],
    ),
    (
        "serving",
        &[
            ("model", "llama3-8b"),
            ("chip", "v5p"),
            ("chips", "64"),
            ("tp", "8"),
            ("dtype", "bf16"),
            ("batch", "32"),
        ],
        &["llama3-8b", "v5p", "64", "8", "bf16"],
        &["32"],
    ),
    (
        "inference-roofline",
        &[("phase", "prefill"), ("chip", "v5p")],
        &["v5p", "prefill"],
        &[],
    ),
    ("torus", &[("chip", "v4p")], &["v4p"], &[]),
    (
        "collective",
        &[("op", "reducescatter"), ("n", "8")],
        &["reducescatter", "8"],
        &[],
    ),
    (
        "training-planner",
        &[("model", "llama3-8b"), ("scheme", "best")],
        &["llama3-8b", "best"],
        &[],
    ),
    ("link-roofline", &[("d", "4096")], &[], &["4096"]),
    ("systolic", &[("k", "6"), ("m", "3")], &[], &["6", "3"]),
    (
        "chip-map",
        &[("chip", "v5e"), ("bytes", "2e9")],
        &["v5e"],
        &["2000000000"],
    ),
    (
        "streaming",
        &[("op", "matmul"), ("chip", "v6e"), ("chunk", "65536")],
        &["v6e", "matmul"],
        &["65536"],
    ),
];

#[test]
fn static_controls_show_the_widgets_arguments() {
    for (name, args, options, values) in CASES {
        let html = render(name, args);
        let picked = chosen(&html);
        for want in *options {
            assert!(
                picked.iter().any(|p| p == want),
                "{name}: no option “{want}” is selected (selected: {picked:?})"
            );
        }
        let fields: Vec<String> = tags(&html, "input")
            .iter()
            .filter_map(|t| attr(t, "value"))
            .collect();
        for want in *values {
            assert!(
                fields.iter().any(|v| v == want),
                "{name}: no field shows {want} (values: {fields:?})"
            );
        }
    }
}

#[test]
fn every_select_shows_one_choice_and_every_field_a_value() {
    let mut selects = 0;
    for name in NAMES {
        let html = render(name, &[]);
        for select in elements(&html, "select") {
            let options = tags(select, "option");
            let marked = options.iter().filter(|o| is_selected(o)).count();
            assert_eq!(marked, 1, "{name}: {marked} options selected in {select}");
            selects += 1;
        }
        for input in tags(&html, "input") {
            let kind = attr(input, "type").unwrap_or_else(|| "text".into());
            // A file picker has no value to show (the reader picks a file).
            if matches!(
                kind.as_str(),
                "checkbox" | "radio" | "submit" | "button" | "file"
            ) {
                continue;
            }
            assert!(
                attr(input, "value").is_some(),
                "{name}: a field without a value: {input}"
            );
        }
    }
    assert!(selects >= 30, "only {selects} selects were rendered");
}
