//! The registry as a table (`data-widget="spec-table"`): every chip's numbers,
//! each cell citing the book's table it comes from.

use super::controls::Notice;
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{sci, si};
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
    fn family_is_validated() {
        assert_eq!(parse_family(&[]), (Family::All, None));
        assert_eq!(parse_family(&arg("tpu")), (Family::Tpu, None));
        assert_eq!(parse_family(&arg("gpu")).0, Family::Gpu);
        let (f, notice) = parse_family(&arg("<script>"));
        assert_eq!(f, Family::All);
        assert!(notice.is_some_and(|n| n.contains("<script>")));
    }
}
