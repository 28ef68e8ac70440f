//! The registry as a table (`data-widget="spec-table"`): every chip's numbers,
//! each cell citing the book's table it comes from. With `family=gpu` a second
//! table follows: Part 12's two GPU spec tables, every generation from V100 to
//! B200 with clocks, SMs, SMEM, L2 and the fp8 and fp4 rates.

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
use ridgeline_core::gpu::specs::GPU_GENERATIONS;
use ridgeline_core::hardware::{Chip, Link, Source, Topology, Vendor, CHIPS};

fn cite(s: &Source) -> String {
    match s.note {
        Some(n) => format!("Part {}, {} ({n})", s.part, s.table),
        None => format!("Part {}, {}", s.part, s.table),
    }
}

/// The book's tables the shown numbers come from, numbered in order of first
/// use: each cell carries its source's number, and the numbered list sits in
/// a disclosure under the table, so a citation is reachable by touch and
/// keyboard, not only on hover. (Not fragment links: the pages set a `<base>`,
/// against which `#…` would leave the page.)
#[derive(Debug, Default)]
struct Sources {
    cites: Vec<String>,
}

impl Sources {
    /// The footnote number of `source`, adding it if new.
    fn number(&mut self, source: &Source) -> usize {
        let c = cite(source);
        match self.cites.iter().position(|x| *x == c) {
            Some(i) => i + 1,
            None => {
                self.cites.push(c);
                self.cites.len()
            }
        }
    }

    /// A cell showing `text` with the number of its source, if any.
    fn cell(&mut self, text: String, source: Option<&Source>) -> AnyView {
        let Some(source) = source else {
            return view! { <td>{text}</td> }.into_any();
        };
        let n = self.number(source);
        let title = cite(source);
        view! {
            <td title=title>{text}<sup class="cite" data-source=n>{n}</sup></td>
        }
        .into_any()
    }

    fn peak_cell(&mut self, c: &Chip, d: Dtype) -> AnyView {
        let p = c.peaks.iter().find(|p| p.dtype == d);
        self.cell(
            p.map(|p| sci(p.rate.0, 3)).unwrap_or_else(|| "—".into()),
            p.map(|p| &p.source),
        )
    }

    fn link_cell(&mut self, c: &Chip, l: Link) -> AnyView {
        let spec = c.link(l);
        self.cell(
            spec.map(|s| sci(s.bandwidth.0, 3))
                .unwrap_or_else(|| "—".into()),
            spec.map(|s| &s.source),
        )
    }
}

/// One cell of the generations table: its text and the book's table behind it.
type GenCell = (String, Option<&'static Source>);

/// Part 12's GPU spec tables, one row per generation (V100 to B200): name,
/// architecture, base/boost clock, SMs, SMEM per SM, L2, HBM, HBM bandwidth,
/// and dense bf16, fp8 (int8 where the registry has no fp8) and fp4 rates.
/// A dash where the book gives nothing (V100's FLOPs, B200's clock).
pub fn generation_rows() -> Vec<Vec<GenCell>> {
    let dash = || ("—".to_string(), None);
    GPU_GENERATIONS
        .iter()
        .map(|g| {
            let src = Some(&g.source);
            let chip = g.registry_chip();
            let peak = |ds: &[Dtype]| -> GenCell {
                chip.and_then(|c| {
                    ds.iter()
                        .find_map(|d| c.peaks.iter().find(|p| p.dtype == *d))
                })
                .map_or_else(dash, |p| (sci(p.rate.0, 2), Some(&p.source)))
            };
            let clock = match (g.base_clock, g.boost_clock) {
                (Some(b), Some(t)) => (format!("{} / {}", si(b.0, "Hz", 3), si(t.0, "Hz", 3)), src),
                _ => dash(),
            };
            vec![
                (g.name.to_string(), None),
                (g.architecture.name().to_string(), src),
                clock,
                (g.sms.to_string(), src),
                (si(g.smem_per_sm.0 / 1024.0, "KiB", 3), src),
                (si(g.l2.0, "B", 3), src),
                (si(g.hbm_capacity.0, "B", 3), src),
                g.hbm_bw().map_or_else(dash, |w| (sci(w.0, 2), src)),
                peak(&[Dtype::Bf16]),
                peak(&[Dtype::Fp8, Dtype::Int8]),
                peak(&[Dtype::Fp4]),
            ]
        })
        .collect()
}

const GEN_HEADS: [&str; 11] = [
    "GPU",
    "generation",
    "base / boost clock",
    "SMs",
    "SMEM per SM",
    "L2",
    "HBM",
    "HBM B/s",
    "bf16 FLOPs/s",
    "fp8 / int8",
    "fp4",
];

/// Which chips to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// TPUs only.
    Tpu,
    /// GPUs only.
    Gpu,
    /// Every chip.
    All,
}

/// The family to show from the arguments (`family=tpu|gpu|all`, default all),
/// and a notice when the value is not one of those (the whole table is shown).
pub fn parse_family(args: &[(String, String)]) -> (Family, Option<String>) {
    match args
        .iter()
        .rev()
        .find(|(k, _)| k == "family")
        .map(|(_, v)| v.trim())
    {
        None | Some("all") => (Family::All, None),
        Some("tpu") => (Family::Tpu, None),
        Some("gpu") => (Family::Gpu, None),
        Some(other) => (
            Family::All,
            Some(format!(
                "Family “{}” is not tpu, gpu or all; showing every chip.",
                crate::input::short(other)
            )),
        ),
    }
}

/// The table.
#[component]
pub fn SpecTable(
    /// The chapter's arguments: `family=tpu|gpu|all`.
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let (args, url_notice) = super::params::initial_args("spec-table", &args);
    let (family, notice) = parse_family(&args);
    let notice = notice.or(url_notice);
    let mut sources = Sources::default();
    let rows: Vec<AnyView> = CHIPS
        .iter()
        .filter(|c| match family {
            Family::Tpu => c.vendor == Vendor::Google,
            Family::Gpu => c.vendor == Vendor::Nvidia,
            Family::All => true,
        })
        .map(|c| {
            let chip_link = if c.vendor == Vendor::Google {
                Link::Ici
            } else {
                Link::NvLink
            };
            let ridge = c
                .ridge(Dtype::Bf16, Link::Hbm)
                .map(|r| sci(r.0, 3))
                .unwrap_or_default();
            let link_ridge = c
                .ridge(Dtype::Bf16, chip_link)
                .map(|r| sci(r.0, 3))
                .unwrap_or_default();
            let topo = match c.topology {
                Topology::Torus {
                    dims,
                    max_slice,
                    host,
                    ..
                } => {
                    let shape = |s: [u32; 3]| {
                        if dims == 2 {
                            format!("{}×{}", s[0], s[1])
                        } else {
                            format!("{}×{}×{}", s[0], s[1], s[2])
                        }
                    };
                    format!(
                        "{}D torus, up to {}; host {}",
                        dims,
                        shape(max_slice),
                        shape(host)
                    )
                }
                Topology::NvlinkDomain { gpus, sms, .. } => {
                    format!("{gpus} GPUs per NVLink domain; {sms} SMs")
                }
            };
            view! {
                <tr data-chip=c.id>
                    <th scope="row">{c.name}</th>
                    {sources.peak_cell(c, Dtype::Bf16)}
                    {sources.peak_cell(c, Dtype::Int8)}
                    {sources.cell(si(c.hbm_capacity.value.0, "B", 3), Some(&c.hbm_capacity.source))}
                    {sources.link_cell(c, Link::Hbm)}
                    {sources.link_cell(c, chip_link)}
                    <td>{ridge}</td>
                    <td>{link_ridge}</td>
                    <td>{topo}</td>
                </tr>
            }
            .into_any()
        })
        .collect();
    let generations = (family == Family::Gpu).then(|| {
        let rows = generation_rows()
            .into_iter()
            .map(|cells| {
                let mut cells = cells.into_iter();
                let name = cells.next().map(|c| c.0).unwrap_or_default();
                let rest = cells
                    .map(|(text, src)| sources.cell(text, src))
                    .collect_view();
                view! { <tr><th scope="row">{name}</th>{rest}</tr> }
            })
            .collect_view();
        let heads = GEN_HEADS
            .iter()
            .map(|h| view! { <th scope="col">{*h}</th> })
            .collect_view();
        view! {
            <div class="table-scroll" tabindex="0" role="region" aria-label="GPU generations">
                <table class="generations">
                    <caption>"Part 12's GPU spec tables: every generation, V100 to B200"</caption>
                    <thead><tr>{heads}</tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        }
    });
    let source_list = sources
        .cites
        .iter()
        .enumerate()
        .map(|(i, c)| view! { <li data-source=i + 1>{c.clone()}</li> })
        .collect_view();
    view! {
        <figure class="widget spec-table" data-widget="spec-table">
            <Notice notice=RwSignal::new(notice) />
            <div class="table-scroll" tabindex="0" role="region" aria-label="chip specifications">
                <table>
                    <thead>
                        <tr>
                            <th scope="col">"chip"</th>
                            <th scope="col">"bf16 FLOPs/s"</th>
                            <th scope="col">"int8 OPs/s"</th>
                            <th scope="col">"HBM"</th>
                            <th scope="col">"HBM B/s"</th>
                            <th scope="col">"ICI / NVLink B/s"</th>
                            <th scope="col">"HBM ridge"</th>
                            <th scope="col">"link ridge"</th>
                            <th scope="col">"topology"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {generations}
            <figcaption class="muted">"Each number's superscript names the book's table it comes from. ICI is per link, both directions; ridges are bf16 FLOPs per byte."</figcaption>
            <details class="sources">
                <summary>"Sources: the book's tables behind each numbered cell"</summary>
                <ol>{source_list}</ol>
            </details>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(v: &str) -> Vec<(String, String)> {
        vec![("family".to_string(), v.to_string())]
    }

    #[test]
    fn generations_follow_the_books_tables() {
        let rows = generation_rows();
        let text = |r: usize| -> Vec<String> { rows[r].iter().map(|c| c.0.clone()).collect() };
        let names: Vec<_> = rows.iter().map(|r| r[0].0.as_str()).collect();
        assert_eq!(names, ["V100", "A100", "H100", "H200", "B200"]);
        // V100: 1.25/1.38 GHz, 80 SMs, 96 kB SMEM, 6 MB L2, 32 GB, 9.0e11 B/s; no FLOPs.
        assert_eq!(
            text(0),
            [
                "V100",
                "Volta",
                "1.25 GHz / 1.38 GHz",
                "80",
                "96 KiB",
                "6 MB",
                "32 GB",
                "9e11",
                "—",
                "—",
                "—"
            ]
        );
        // B200: no clock in the book; 2.3e15 bf16 (2.25e15 in the registry), 4.5e15 fp8, 9e15 fp4.
        let b200 = text(4);
        assert_eq!(b200[2], "—");
        assert_eq!(b200[5], "126 MB");
        assert_eq!(b200[10], "9e15");
        // A100 has int8 where the book's column says fp8/int8.
        assert_eq!(text(1)[9], "6.2e14");
        // Every number cites the book's table.
        assert!(rows
            .iter()
            .all(|r| r[1..].iter().all(|(t, s)| t == "—" || s.is_some())));
    }

    #[test]
    fn family_is_validated() {
        assert_eq!(parse_family(&[]), (Family::All, None));
        assert_eq!(parse_family(&arg("tpu")), (Family::Tpu, None));
        assert_eq!(parse_family(&arg("gpu")).0, Family::Gpu);
        let (f, notice) = parse_family(&arg("<script>"));
        assert_eq!(f, Family::All);
        assert!(notice.is_some_and(|n| n.contains("<script>")));
    }
}
