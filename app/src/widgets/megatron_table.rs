//! The Megatron-LM table (`data-widget="megatron-table"`, Part 12,
//! "Examples" and Quiz 5 Q3), a static figure: every row the book shows, as
//! printed (model shape, tensor, pipeline and data-parallel ways, GPUs,
//! batch, per-GPU and aggregate FLOP/s, MFU), beside what the book reads off
//! it: tokens per GPU, the data-parallel threshold once the model-parallel
//! axis spans nodes, and the verdict. Rows and readings are `core`'s
//! `gpu::specs::MEGATRON_ROWS` and `gpu::rooflines::megatron`.

use leptos::prelude::*;
use ridgeline_core::format::grouped;
use ridgeline_core::gpu::rooflines::{megatron, MegatronCheck};
use ridgeline_core::gpu::specs::MEGATRON_SEQ;

/// The column heads: the reading first, then the table as printed.
const HEADS: [&str; 15] = [
    "model",
    "tokens per GPU",
    "threshold",
    "verdict",
    "heads",
    "hidden",
    "layers",
    "TP",
    "PP",
    "DP",
    "GPUs",
    "batch",
    "TFLOP/s/GPU",
    "MFU",
    "PFLOP/s",
];

/// One row's cells after the model name.
fn cells(c: &MegatronCheck) -> Vec<String> {
    let r = &c.row;
    let n = |x: u32| grouped(f64::from(x));
    vec![
        grouped(c.tokens_per_gpu),
        grouped(c.threshold.floor()),
        if c.compute_bound {
            "compute-bound".into()
        } else {
            "communication-bound".into()
        },
        n(r.heads),
        n(r.hidden),
        n(r.layers),
        n(r.tp),
        n(r.pp),
        n(r.dp),
        grouped(r.gpus as f64),
        grouped(r.batch_sequences),
        format!("{:.1}", r.per_gpu.0 / 1e12),
        format!("{:.0}%", r.mfu * 100.0),
        format!("{:.1}", r.aggregate.0 / 1e15),
    ]
}

/// The figure.
#[component]
pub fn MegatronTable(
    /// The chapter's arguments (none).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    drop(args);
    let checks = match megatron() {
        Ok(c) => c,
        Err(e) => return view! { <p class="notice" role="status">{e}</p> }.into_any(),
    };
    let heads = HEADS
        .iter()
        .map(|h| view! { <th scope="col">{*h}</th> })
        .collect_view();
    let rows = checks
        .iter()
        .map(|c| {
            let class = if c.compute_bound {
                "compute"
            } else {
                "bottleneck"
            };
            let tds = cells(c)
                .into_iter()
                .map(|t| view! { <td>{t}</td> })
                .collect_view();
            view! { <tr class=class><th scope="row">{c.row.model}</th>{tds}</tr> }
        })
        .collect_view();
    let reading = format!(
        "Every sequence is {} tokens, and the batch is counted in sequences. The first four \
         columns are the reading: tokens per GPU are the batch times the sequence over the GPUs, \
         and the threshold is what data parallelism across H100 nodes needs per GPU, lowered by as \
         many nodes as one model copy (TP × PP GPUs) spans. The other columns are the table as \
         Megatron-LM prints it, with each GPU's and the whole run's FLOP/s.",
        grouped(MEGATRON_SEQ.value)
    );
    view! {
        <figure class="widget fig megatron-table" data-widget="megatron-table">
            <div class="table-scroll" tabindex="0" role="region" aria-label="Megatron-LM configurations">
                <table>
                    <caption>"Megatron-LM's high-MFU runs, read on H100s"</caption>
                    <thead><tr>{heads}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <figcaption>{reading}</figcaption>
        </figure>
    }
    .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_every_row_with_its_reading() {
        let none: Vec<(String, String)> = Vec::new();
        let html = Owner::new()
            .with(|| view! { <MegatronTable args=none /> }.to_html())
            .replace("<!>", "");
        assert!(html.contains(r#"data-widget="megatron-table""#));
        assert_eq!(html.matches("<tr").count(), 10, "a head and nine rows");
        // The rows the book's answer reads: 4,096 and 2,048 tokens per GPU
        // against 2,475, 1,237 and 309.
        let row = |m: &str| {
            let at = html.find(&format!(r#"<th scope="row">{m}</th>"#)).unwrap();
            html[at..at + html[at..].find("</tr>").unwrap()].to_string()
        };
        assert!(
            row("16B").contains("<td>4,096</td><td>2,475</td><td>compute-bound</td>"),
            "{}",
            row("16B")
        );
        assert!(row("70B").contains("<td>2,048</td><td>1,237</td><td>compute-bound</td>"));
        assert!(row("314B").contains("<td>2,048</td><td>309</td><td>compute-bound</td>"));
        assert!(row("32B").contains("communication-bound"));
        // The printed columns, as the book's figure has them.
        assert!(row("462B").contains("<td>144</td><td>18,432</td><td>112</td><td>8</td><td>16</td><td>48</td><td>6,144</td><td>3,072</td><td>459.9</td><td>47%</td><td>2825.6</td>"), "{}", row("462B"));
        assert!(html.contains("Every sequence is 4,096 tokens"));
    }
}
