//! Published measurements in the pages, as static HTML.
//!
//! A chapter places `{{measured id=nccl-h100-ring}}` in a paragraph of its
//! own, beside the widget that predicts that quantity; the renderer replaces it
//! with a small "measured" mark ([`mark`]): the measured value, its
//! configuration, core's prediction and the ratio measured / predicted, one
//! sentence on why the gap has its size, the source and a link to the page that
//! gathers every measurement ([`page`], served at `/measured`). The numbers
//! come from `ridgeline_core::measured`, which reads `data/measured.json`; no
//! page bundle carries any of it.
//!
//! ```
//! use ridgeline_content::measured::mark;
//!
//! let html = mark("nccl-h100-ring").unwrap();
//! assert!(html.contains("data-measured=\"nccl-h100-ring\""));
//! assert!(html.contains("370 GB/s"));
//! assert!(mark("no-such-run").unwrap_err().contains("no-such-run"));
//! ```

use crate::html::escape;
use ridgeline_core::format::grouped;
use ridgeline_core::measured::{predictions, Entry, Kind, Prediction, Setup};

/// The path of the gathering page, relative to a page of the site.
pub const PAGE: &str = "measured";

fn rows() -> Result<Vec<(Entry, Prediction)>, String> {
    predictions().map_err(|e| format!("data/measured.json: {e}"))
}

/// A value as a reader reads it: whole numbers grouped by thousands, others to
/// three significant figures.
fn number(x: f64) -> String {
    if x >= 100.0 {
        grouped(x.round())
    } else {
        let r = ridgeline_core::format::round_sig(x, 3);
        format!("{r}")
    }
}

/// The model of an entry, where it has one.
fn model(e: &Entry) -> Option<&str> {
    match &e.setup {
        Setup::Training { model, .. } | Setup::Decode { model, .. } => Some(&model.name),
        _ => None,
    }
}

/// The configuration in one line: chips, model, format, sequence, batch,
/// parallelism and software.
fn configuration(e: &Entry) -> String {
    let mut parts = vec![format!("{} × {}", grouped(e.chips as f64), e.chip.name)];
    if let Some(m) = model(e) {
        parts.push(m.to_string());
    }
    match &e.setup {
        Setup::Decode { precision, .. } => parts.push(format!(
            "weights {}, KV cache {}, FLOPs {}",
            precision.weights.name(),
            precision.kv.name(),
            precision.compute.name()
        )),
        Setup::Bus { .. } | Setup::P2p => {}
        _ => parts.push(e.precision.name().to_string()),
    }
    if let Setup::Training { seq, .. } = &e.setup {
        parts.push(format!("sequence {}", grouped(*seq)));
    }
    parts.push(e.batch.clone());
    parts.push(e.parallelism.clone());
    parts.push(e.software.clone());
    parts.join("; ")
}

fn source_link(e: &Entry) -> String {
    format!(
        "<a href=\"{}\" rel=\"noopener\">{}</a>, {} ({})",
        escape(&e.source.url),
        escape(&e.source.title),
        escape(&e.source.section),
        escape(&e.source.date)
    )
}

/// The mark for the entry `id`: static HTML to stand beside a widget.
pub fn mark(id: &str) -> Result<String, String> {
    let rows = rows()?;
    let (e, p) = rows
        .iter()
        .find(|(e, _)| e.id == id)
        .ok_or_else(|| format!("no measurement `{id}` in data/measured.json"))?;
    let unit = e.kind.unit();
    Ok(format!(
        "<aside class=\"measured\" data-measured=\"{id}\">\
         <p><strong>Measured:</strong> <span class=\"measured-value\">{value} {unit}</span> \
         ({kind}; {config}). Core predicts <span class=\"measured-predicted\">{pred} {unit}</span> \
         from the {basis}: measured / predicted = <strong class=\"measured-ratio\">{ratio:.2}</strong>.</p>\
         <p>{gap}</p>\
         <p class=\"measured-source\">Source: {source}. <a href=\"{PAGE}#{id}\">Every measurement beside its prediction</a></p>\
         </aside>\n",
        id = escape(&e.id),
        value = number(e.value),
        unit = escape(unit),
        kind = escape(e.kind.label()),
        config = escape(&configuration(e)),
        pred = number(p.value),
        basis = escape(&p.basis),
        ratio = p.ratio,
        gap = escape(&e.gap),
        source = source_link(e),
    ))
}

fn table(rows: &[&(Entry, Prediction)], ids: bool, caption: &str) -> String {
    let mut out = format!(
        "<div class=\"table-scroll\" tabindex=\"0\"><table class=\"measured-table\">\
         <caption>{caption}</caption><thead><tr>\
         <th scope=\"col\">Kind</th><th scope=\"col\">Chip</th><th scope=\"col\">Configuration</th>\
         <th scope=\"col\">Measured</th><th scope=\"col\">Core predicts</th>\
         <th scope=\"col\">Measured / predicted</th><th scope=\"col\">Source and convention</th>\
         </tr></thead><tbody>",
    );
    for (e, p) in rows {
        let unit = escape(e.kind.unit());
        let id = if ids {
            format!(" id=\"{}\"", escape(&e.id))
        } else {
            String::new()
        };
        let mfu = e
            .reported_mfu
            .map(|m| format!(" The source reports {:.1} % MFU.", m * 100.0))
            .unwrap_or_default();
        out.push_str(&format!(
            "<tr{id} data-kind=\"{kind}\" data-chip=\"{chip_id}\">\
             <td>{label}</td><td>{chip}</td><td>{config}</td>\
             <td class=\"num\">{value} {unit}</td><td class=\"num\">{pred} {unit}<br><small>{basis}</small></td>\
             <td class=\"num\">{ratio:.2}</td>\
             <td>{source}. {convention}{mfu} <small>Checked: {checked}</small></td></tr>",
            kind = e.kind.name(),
            chip_id = e.chip.id,
            label = escape(e.kind.label()),
            chip = escape(e.chip.name),
            config = escape(&configuration(e)),
            value = number(e.value),
            pred = number(p.value),
            basis = escape(&p.basis),
            ratio = p.ratio,
            source = source_link(e),
            convention = escape(&e.convention),
            checked = escape(&e.checked),
        ));
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// The page that gathers every measurement: the accounting conventions, then
/// the whole table twice, sorted by kind (the view the marks link into, one
/// row id per entry) and by chip, each complete without script.
pub fn page() -> Result<String, String> {
    let rows = rows()?;
    let mut by_kind: Vec<&(Entry, Prediction)> = rows.iter().collect();
    by_kind.sort_by(|a, b| (a.0.kind, a.0.chip.id).cmp(&(b.0.kind, b.0.chip.id)));
    let mut by_chip: Vec<&(Entry, Prediction)> = rows.iter().collect();
    by_chip.sort_by(|a, b| (a.0.chip.id, a.0.kind).cmp(&(b.0.chip.id, b.0.kind)));
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .filter(|k| rows.iter().any(|(e, _)| e.kind == **k))
        .map(|k| escape(k.label()))
        .collect();
    let mut html = format!(
        "<h1>Measured beside predicted</h1>\
         <p>Every number the companion shows is a prediction: what a configuration does if its chips \
         run at their quoted peak and its links at their line rate. This page sets {n} published \
         measurements of real systems beside what core predicts for the same configuration, and \
         gives the gap as the ratio measured / predicted. Each chapter shows the measurements of \
         its own widgets beside them. The kinds: {kinds}.</p>\
         <p>Sort: <a href=\"#by-kind\">by kind</a> · <a href=\"#by-chip\">by chip</a> · \
         <a href=\"#conventions\">accounting conventions</a></p>\
         <h2 id=\"conventions\">How each side counts</h2>\
         <p>The companion's own convention: a training step costs six FLOPs per active parameter \
         per token (no attention FLOPs, no rematerialisation); a decode step costs two per \
         parameter per token plus reading the weights and every KV cache; every chip runs at its \
         quoted dense peak in the stated format, and every link at the one-way bandwidth of the \
         registry. So the ratio for a training run is close to the run's model FLOPs utilisation \
         (MFU) by that count.</p>\
         <p>Sources count differently. MFU counts only the FLOPs the model needs; hardware FLOPs \
         utilisation (HFU) also counts recomputed activations, so it is the larger of the two. \
         MaxText's tables count attention FLOPs, and since its pull request 1988 they count a \
         causal mask's attention at half, which lowers the FLOP/s some older figures gave at long \
         sequences. The Llama 3 runs report model FLOP/s per GPU. NCCL's bus bandwidth multiplies a \
         collective's algorithm bandwidth by the ring's factor, even when NVLink SHARP moves fewer \
         bytes. Each row names its source's convention.</p>\
         <p>Every entry was checked against the source it cites before it went in; the row says \
         where. The data is <code>data/measured.json</code> in the repository, and \
         <code>data/measured-predictions.md</code> is core's prediction for each, kept equal to \
         core by a test.</p>\
         <h2 id=\"by-kind\">Sorted by kind</h2>",
        n = rows.len(),
        kinds = kinds.join(", "),
    );
    html.push_str(&table(
        &by_kind,
        true,
        "Every measurement, sorted by kind and then chip",
    ));
    html.push_str("<h2 id=\"by-chip\">Sorted by chip</h2>");
    html.push_str(&table(
        &by_chip,
        false,
        "Every measurement, sorted by chip and then kind",
    ));
    Ok(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_shows_value_prediction_ratio_and_source() {
        let html = mark("llama3-405b-h100-8k").unwrap();
        assert!(html.contains("430 TFLOP/s per chip"), "{html}");
        assert!(html.contains("990 TFLOP/s per chip"), "{html}");
        assert!(html.contains(">0.43<"), "{html}");
        assert!(
            html.contains("https://glennklockwood.com/garden/llama-3.1"),
            "{html}"
        );
        assert!(
            html.contains("href=\"measured#llama3-405b-h100-8k\""),
            "{html}"
        );
        assert!(html.contains("8,192 × NVIDIA H100"), "{html}");
    }

    #[test]
    fn the_page_lists_every_entry_in_both_orders() {
        let html = page().unwrap();
        let n = rows().unwrap().len();
        assert_eq!(
            html.matches("<tr data-kind=").count() + html.matches("<tr id=").count(),
            2 * n
        );
        assert_eq!(html.matches("<tr id=").count(), n);
        assert!(html.contains("id=\"by-chip\"") && html.contains("id=\"conventions\""));
        assert!(html.contains("pull request 1988"));
        assert!(!html.contains("<script"));
        // The by-chip view lists A100 rows before H100 rows.
        let chip_view = html.split("id=\"by-chip\"").nth(1).unwrap();
        let a100 = chip_view.find("data-chip=\"a100\"").unwrap();
        let h100 = chip_view.find("data-chip=\"h100\"").unwrap();
        assert!(a100 < h100);
    }
}
