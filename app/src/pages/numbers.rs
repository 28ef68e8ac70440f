//! "About the numbers": every hardware and model constant in the registry with
//! the place in the book it comes from, and the book's notation (the symbol
//! table the chapters and the grader share), generated from `core`.

use leptos::prelude::*;
use ridgeline_core::format::{grouped, sci, si};
use ridgeline_core::hardware::{Source, Topology, CHIPS, HOST_DRAM, PART12_PRICES, PRICES};
use ridgeline_core::model::config::MODELS;
use ridgeline_core::symbols::SYMBOLS;

fn cite(s: &Source) -> String {
    match s.note {
        Some(n) => format!("Part {}: {} — {n}", s.part, s.table),
        None => format!("Part {}: {}", s.part, s.table),
    }
}

/// The page.
#[component]
pub fn NumbersPage() -> impl IntoView {
    let mut rows = Vec::new();
    for c in CHIPS {
        for p in c.peaks {
            rows.push((
                c.name,
                format!("{} peak", p.dtype),
                format!("{} FLOPs/s", sci(p.rate.0, 3)),
                cite(&p.source),
            ));
        }
        rows.push((
            c.name,
            "HBM capacity".into(),
            si(c.hbm_capacity.value.0, "B", 3),
            cite(&c.hbm_capacity.source),
        ));
        for l in c.links {
            let mut v = format!("{} B/s", sci(l.bandwidth.0, 3));
            if let Some(w) = l.one_way {
                v.push_str(&format!(" ({} one way)", sci(w.0, 3)));
            }
            rows.push((
                c.name,
                format!("{} bandwidth", l.link.label()),
                v,
                cite(&l.source),
            ));
        }
        match c.topology {
            Topology::Torus {
                dims,
                max_slice,
                host,
                cores,
                source,
                ..
            } => {
                rows.push((
                    c.name,
                    "topology".into(),
                    format!(
                        "{dims}D torus, largest slice {:?}, host {:?}, {cores} TensorCore(s)",
                        max_slice, host
                    ),
                    cite(&source),
                ));
            }
            Topology::NvlinkDomain {
                gpus,
                sms,
                node_egress,
                source,
            } => {
                let egress = node_egress
                    .map(|e| format!(", node egress {} B/s", sci(e.0, 3)))
                    .unwrap_or_default();
                rows.push((
                    c.name,
                    "topology".into(),
                    format!("{gpus} GPUs per NVLink domain, {sms} SMs{egress}"),
                    cite(&source),
                ));
            }
        }
    }
    for t in ridgeline_core::hardware::TENSOR_CORES {
        let name = ridgeline_core::hardware::chip(t.chip)
            .map(|c| c.name)
            .unwrap_or(t.chip);
        rows.push((
            name,
            "MXU size".into(),
            format!("{0}×{0}", t.mxu_side.value),
            cite(&t.mxu_side.source),
        ));
        if let Some(m) = t.mxus_per_core {
            rows.push((
                name,
                "MXUs per TensorCore".into(),
                m.value.to_string(),
                cite(&m.source),
            ));
        }
        if let Some(c) = t.clock_hz {
            rows.push((name, "clock".into(), si(c.value, "Hz", 3), cite(&c.source)));
        }
    }
    for g in ridgeline_core::gpu::specs::GPU_GENERATIONS {
        rows.push((
            g.name,
            "SMs; SMEM per SM; L2".into(),
            format!(
                "{}; {}; {}",
                g.sms,
                si(g.smem_per_sm.0, "B", 3),
                si(g.l2.0, "B", 3)
            ),
            cite(&g.source),
        ));
    }
    let hop = ridgeline_core::hardware::ICI_HOP_LATENCY;
    rows.push((
        "all TPUs",
        "ICI latency per hop".into(),
        si(hop.value.0, "s", 2),
        cite(&hop.source),
    ));
    let vmem = ridgeline_core::hardware::VMEM_OVER_HBM;
    rows.push((
        "all TPUs",
        "VMEM bandwidth over HBM".into(),
        format!("{}×", vmem.value),
        cite(&vmem.source),
    ));
    let share = ridgeline_core::hardware::ACHIEVABLE_PEAK;
    for (who, c) in [("all TPUs", share.tpu), ("NVIDIA GPUs", share.gpu)] {
        let (lo, hi) = c.value;
        let pct = |x: f64| format!("{:.0}", x * 100.0);
        rows.push((
            who,
            "share of peak reached in normal use".into(),
            if lo == hi {
                format!("{}%", pct(lo))
            } else {
                format!("{}–{}%", pct(lo), pct(hi))
            },
            cite(&c.source),
        ));
    }
    for h in HOST_DRAM {
        let name = ridgeline_core::hardware::chip(h.chip)
            .map(|c| c.name)
            .unwrap_or(h.chip);
        rows.push((
            name,
            "host DRAM (one host)".into(),
            si(h.dram.value.0, "B", 3),
            cite(&h.dram.source),
        ));
    }
    for p in PRICES.iter().chain(PART12_PRICES) {
        let name = ridgeline_core::hardware::chip(p.chip)
            .map(|c| c.name)
            .unwrap_or(p.chip);
        rows.push((
            name,
            "price".into(),
            format!("${}/hour", p.usd_per_hour.value),
            cite(&p.usd_per_hour.source),
        ));
    }
    let chip_rows = rows
        .into_iter()
        .map(|(chip, what, value, source)| view! { <tr><th scope="row">{chip}</th><td>{what}</td><td class="num">{value}</td><td class="source">{source}</td></tr> })
        .collect_view();
    let model_rows = MODELS
        .iter()
        .map(|m| {
            let c = &m.config;
            let shape = format!(
                "D={} F={} L={} N={} K={} H={} V={}{}",
                grouped(c.d_model as f64),
                grouped(c.d_ff as f64),
                c.layers,
                c.heads,
                c.kv_heads,
                c.head_dim,
                grouped(c.vocab as f64),
                c.moe
                    .map(|e| format!(", {} experts, {} active", e.experts, e.active))
                    .unwrap_or_default()
            );
            let source = match m.source.part {
                Some(p) => format!("Part {p}; {}", m.source.citation),
                None => m.source.citation.to_string(),
            };
            view! {
                <tr>
                    <th scope="row">{m.name}</th>
                    <td>{shape}</td>
                    <td class="num">{sci(m.published_params, 3)}</td>
                    <td class="source">{source}</td>
                </tr>
            }
        })
        .collect_view();
    let symbol_rows = SYMBOLS
        .iter()
        .map(|s| {
            let (base, sub) = s.display();
            let unit = if s.unit.is_empty() { "—" } else { s.unit };
            let symbol = if sub.is_empty() {
                view! { <th scope="row">{base}</th> }.into_any()
            } else {
                view! { <th scope="row">{base}<sub>{sub}</sub></th> }.into_any()
            };
            view! {
                <tr>
                    {symbol}
                    <td><code>{s.name}</code></td>
                    <td>{s.meaning}</td>
                    <td>{unit}</td>
                    <td class="num">{s.part}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="page numbers" data-page="numbers">
            <h1>"About the numbers"</h1>
            <p class="lede">
                "Every constant ridgeline computes with lives once, in the registry of "
                <code>"ridgeline-core"</code>
                ", with the part and table of the book it comes from. Where the book gives two values for one quantity, the note says which one we use and what the other was. This page is generated from that registry."
            </p>
            <h2>"Chips"</h2>
            <div class="table-scroll" tabindex="0">
                <table class="registry" data-registry="chips">
                    <thead><tr><th scope="col">"chip"</th><th scope="col">"quantity"</th><th scope="col">"value"</th><th scope="col">"source"</th></tr></thead>
                    <tbody>{chip_rows}</tbody>
                </table>
            </div>
            <h2>"Models"</h2>
            <div class="table-scroll" tabindex="0">
                <table class="registry" data-registry="models">
                    <thead><tr><th scope="col">"model"</th><th scope="col">"shape"</th><th scope="col">"published parameters"</th><th scope="col">"source"</th></tr></thead>
                    <tbody>{model_rows}</tbody>
                </table>
            </div>
            <h2 id="notation">"Notation"</h2>
            <p>
                "The book's symbols, as the chapters write them and as an exercise answer may type them (a subscript also as "
                <code>"W_{ici}"</code>
                "). A subscripted symbol may stand for its bare letter in an answer only where it is a case of it: "
                <code>"W_ici"</code>
                " for "
                <code>"W"</code>
                ", but not the weight matrix "
                <code>"W_in"</code>
                "."
            </p>
            <div class="table-scroll" tabindex="0">
                <table class="registry">
                    <thead><tr><th scope="col">"symbol"</th><th scope="col">"typed as"</th><th scope="col">"meaning"</th><th scope="col">"unit"</th><th scope="col">"part"</th></tr></thead>
                    <tbody>{symbol_rows}</tbody>
                </table>
            </div>
        </section>
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_notation_table_lists_every_symbol() {
        let owner = Owner::new();
        // As the site writes it: without the hydration markers (`<!>`).
        let html = owner
            .with(|| view! { <NumbersPage /> }.into_view().to_html())
            .replace("<!>", "");
        let notation = &html[html.find("id=\"notation\"").expect("a notation section")..];
        for s in SYMBOLS {
            let (base, sub) = s.display();
            let symbol = if sub.is_empty() {
                base
            } else {
                format!("{base}<sub>{sub}</sub>")
            };
            let row = format!("{symbol}</th><td><code>{}</code>", s.name);
            assert!(notation.contains(&row), "{row} missing in {notation}");
        }
        assert!(notation.contains("T<sub>AG or RS</sub>"));
        assert_eq!(
            notation.matches("<tr>").count(),
            SYMBOLS.len() + 1,
            "one row per symbol and the header"
        );
    }
}
