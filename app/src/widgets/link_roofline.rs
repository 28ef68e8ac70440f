//! Which link binds (`data-widget="link-roofline"`): a matmul whose weights
//! arrive over HBM, a neighbour's ICI link, the host's PCIe or the data-centre
//! network, each compared with the time the matmul takes to compute (Part 2).
//! A second TPU (`vs`) adds its column beside each link: the same matmul with
//! the weights over its own link, its verdict, and the difference spelled out.

use super::compare::{
    chip_rows, compare_picker, compare_table, parse_vs_chip, Comparison, Diff, VS,
};
use super::controls::Notice;
use super::controls::{rounded, LogScale, Slider};
use leptos::prelude::*;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::{grouped, sci, seconds};
use ridgeline_core::hardware::{chip, Chip, Link, Vendor, CHIPS};
use ridgeline_core::roofline::Analysis;
use ridgeline_core::units::{Bytes, Flops};

use super::params::{WidgetParams, WidgetState};
use crate::input::parse_count;

const B_RANGE: (f64, f64) = (1.0, 1_048_576.0);
const STEPS: f64 = 400.0;

/// The reader's choices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkParams {
    /// The TPU.
    pub chip: &'static Chip,
    /// Token batch.
    pub b: f64,
    /// Model width.
    pub d: f64,
    /// Hidden width.
    pub f: f64,
    /// A second TPU shown beside the first, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for LinkParams {
    fn default() -> Self {
        LinkParams {
            chip: chip("v6e").unwrap_or(&CHIPS[0]),
            b: 1024.0,
            d: 8192.0,
            f: 32768.0,
            vs: None,
        }
    }
}

/// One row: a link's bandwidth, the time to move the weights over it, and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The link.
    pub link: Link,
    /// Bandwidth, B/s.
    pub bandwidth: f64,
    /// The analysis of the matmul with the weights over this link.
    pub analysis: Analysis,
    /// The batch above which it is compute-bound (weights dominate the bytes).
    pub critical_b: f64,
}

impl LinkParams {
    /// Every link the chip has, with the bf16 weights (2·D·F bytes) moved over it.
    pub fn rows(&self) -> Vec<Row> {
        self.rows_on(self.chip)
    }

    /// The same rows on the compared TPU; empty when nothing is compared.
    pub fn vs_rows(&self) -> Vec<Row> {
        self.vs.map(|c| self.rows_on(c)).unwrap_or_default()
    }

    /// The rows on `chip`.
    fn rows_on(&self, chip: &Chip) -> Vec<Row> {
        let Some(c) = chip.peak(Dtype::Bf16) else {
            return Vec::new();
        };
        let flops = Flops(2.0 * self.b * self.d * self.f);
        let weights = Bytes(2.0 * self.d * self.f);
        [Link::Hbm, Link::Ici, Link::Pcie, Link::Dcn]
            .into_iter()
            .filter_map(|link| {
                let w = chip.bandwidth(link)?;
                Some(Row {
                    link,
                    bandwidth: w.0,
                    analysis: Analysis::new(flops, c, &[(link, weights, w)]),
                    critical_b: (c / w).0,
                })
            })
            .collect()
    }

    /// The TPU beside the compared one: core's chip numbers, the compute
    /// time, then for each link both have, its bandwidth, the time to move
    /// the weights, the verdict and the batch above which it is compute-bound.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.rows(), self.vs_rows());
        let mut rows = chip_rows(self.chip, vs, Dtype::Bf16);
        let (first_a, first_b) = (a.first()?, b.first()?);
        rows.push(Diff::number(
            "compute",
            "compute time",
            first_a.analysis.t_math.0,
            first_b.analysis.t_math.0,
            seconds,
        ));
        for ra in &a {
            let Some(rb) = b.iter().find(|r| r.link == ra.link) else {
                continue;
            };
            let [time, verdict, critical] = match ra.link {
                Link::Hbm => ["time-hbm", "verdict-hbm", "critical-hbm"],
                Link::Ici => ["time-ici", "verdict-ici", "critical-ici"],
                Link::Pcie => ["time-pcie", "verdict-pcie", "critical-pcie"],
                _ => ["time-dcn", "verdict-dcn", "critical-dcn"],
            };
            let short = ra.link.label().split(' ').next().unwrap_or_default();
            let t = |r: &Row| r.analysis.t_comms(r.link).map_or(f64::NAN, |t| t.0);
            rows.push(Diff::number(
                time,
                format!("weights over {short}"),
                t(ra),
                t(rb),
                seconds,
            ));
            rows.push(Diff::words(
                verdict,
                format!("with {short}"),
                ra.analysis.verdict.text(),
                rb.analysis.verdict.text(),
            ));
            rows.push(Diff::number(
                critical,
                format!("{short}: compute-bound above B ="),
                ra.critical_b,
                rb.critical_b,
                grouped,
            ));
        }
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }
}

/// A TPU, or why this widget cannot take the chip.
fn tpu(c: &'static Chip) -> Result<&'static Chip, String> {
    if c.vendor != Vendor::Google {
        return Err(format!("{} is not a TPU", c.name));
    }
    Ok(c)
}

impl WidgetParams for LinkParams {
    /// Sets one parameter from text.
    fn apply(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "chip" => {
                let c = super::controls::chip(value)?;
                self.chip = tpu(c)?;
            }
            VS => self.vs = parse_vs_chip(value, |c| tpu(c).map(|_| ()))?,
            "b" => self.b = parse_count(value, "batch B", B_RANGE.0, B_RANGE.1)?.round(),
            "d" => self.d = parse_count(value, "D", 1.0, 1_048_576.0)?.round(),
            "f" => self.f = parse_count(value, "F", 1.0, 1_048_576.0)?.round(),
            other => return Err(super::params::unknown_setting(other)),
        }
        Ok(())
    }

    /// The parameters as `key=value` pairs.
    fn to_pairs(&self) -> Vec<(String, String)> {
        vec![
            ("chip".into(), self.chip.id.into()),
            ("b".into(), format!("{}", self.b)),
            ("d".into(), format!("{}", self.d)),
            ("f".into(), format!("{}", self.f)),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }
}

/// The widget.
#[component]
pub fn LinkRoofline(
    /// The chapter's `key=value` arguments (URL parameters override them).
    #[prop(into)]
    args: Vec<(String, String)>,
) -> impl IntoView {
    let state = WidgetState::<LinkParams>::new(&args);
    let WidgetState { params, notice } = state;
    let set = move |key: &'static str, value: String| {
        state.set_or_refresh(key, &value, key == VS);
    };
    let rows = Memo::new(move |_| params.with(|p| p.rows()));
    let vs_rows = Memo::new(move |_| params.with(|p| p.vs_rows()));
    let vs_id = move || params.with(|p| p.vs.map_or("", |c| c.id));
    let vs_options = super::controls::chip_options(|c| c.vendor == Vendor::Google, vs_id);
    let vs_name = move || params.with(|p| p.vs.map(|c| c.name));
    let table = move || {
        let rows = rows.get();
        let longest = rows.iter().map(|r| r.analysis.lower.0).fold(0.0, f64::max);
        rows.into_iter()
            .map(|r| {
                let t = r.analysis.t_comms(r.link).map(|t| t.0).unwrap_or(f64::NAN);
                let v = r.analysis.verdict.text();
                let width = format!("width: {:.1}%", (100.0 * t / longest).clamp(0.5, 100.0));
                let vs_cell = vs_rows.with(|vr| {
                    let compared = vr.iter().find(|c| c.link == r.link);
                    vs_name().map(|_| match compared {
                        Some(c) => {
                            let tc = c.analysis.t_comms(c.link).map(|t| t.0).unwrap_or(f64::NAN);
                            let v = c.analysis.verdict.text();
                            view! { <td data-vs-cell="">{seconds(tc)}" "<span class=format!("verdict {v}") data-vs-verdict=v>{v}</span></td> }.into_any()
                        }
                        None => view! { <td data-vs-cell="">"no such link"</td> }.into_any(),
                    })
                });
                view! {
                    <tr data-link=r.link.name()>
                        <th scope="row">{r.link.label()}</th>
                        <td>{sci(r.bandwidth, 3)}</td>
                        <td class="bar-cell"><span class="bar comms" style=width></span>" "{seconds(t)}</td>
                        <td><span class=format!("verdict {v}") data-verdict=v>{v}</span></td>
                        <td>{format!("B > {}", grouped(r.critical_b))}</td>
                        {vs_cell}
                    </tr>
                }
            })
            .collect_view()
    };

    view! {
        <figure class="widget link-roofline" data-widget="link-roofline">
            <div class="controls">
                {super::controls::chip_picker("Chip ", |c| c.vendor == Vendor::Google, move || params.with(|p| p.chip.id).to_string(), set)}
                {compare_picker(vs_options, vs_id, set)}
                <label>"D " <input type="text" size="7" aria-label="D" value=move || format!("{}", params.with(|p| p.d)) prop:value=move || format!("{}", params.with(|p| p.d)) on:input=move |ev| set("d", event_target_value(&ev)) /></label>
                <label>"F " <input type="text" size="7" aria-label="F" value=move || format!("{}", params.with(|p| p.f)) prop:value=move || format!("{}", params.with(|p| p.f)) on:input=move |ev| set("f", event_target_value(&ev)) /></label>
            </div>
            {Slider::positions(STEPS).id("link-roofline-b").valuetext(move || format!("B = {}", grouped(params.with(|p| p.b)))).log_row("Batch B", LogScale::new(STEPS, move || (B_RANGE.0, B_RANGE.1), rounded), move || params.with(|p| p.b), "b", set, view! { <output>{move || format!("B = {}", grouped(params.with(|p| p.b)))}</output> })}
            <p>
                "Compute: " <strong>{move || rows.with(|r| r.first().map(|r| seconds(r.analysis.t_math.0)).unwrap_or_default())}</strong>
                " for the matmul; the weights are " {move || params.with(|p| ridgeline_core::format::si(2.0 * p.d * p.f, "B", 3))} " in bf16."
            </p>
            <div class="table-scroll" tabindex="0">
                <table>
                    <thead><tr><th scope="col">"weights arrive over"</th><th scope="col">"B/s"</th><th scope="col">"time to move them"</th><th scope="col">"verdict"</th><th scope="col">"compute-bound when"</th>{move || vs_name().map(|n| view! { <th scope="col">{format!("on {n}")}</th> })}</tr></thead>
                    <tbody>{table}</tbody>
                </table>
            </div>
            {compare_table(move || params.with(|p| p.comparison()))}
            <Notice notice=notice />
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcie_needs_a_huge_batch() {
        let p = LinkParams::default();
        let rows = p.rows();
        let pcie = rows.iter().find(|r| r.link == Link::Pcie).unwrap();
        assert_eq!(grouped(pcie.critical_b), "28,750");
        let hbm = rows.iter().find(|r| r.link == Link::Hbm).unwrap();
        assert_eq!(hbm.analysis.verdict.text(), "compute-bound");
        assert_eq!(pcie.analysis.verdict.text(), "communication-bound");
    }

    #[test]
    fn a_second_tpu_moves_the_same_weights_over_its_own_links() {
        use crate::widgets::params::testing::{assert_refused_keeps, assert_round_trip};
        let p: LinkParams = assert_round_trip(&[("vs", "v5e")]);
        let c = p.comparison().unwrap();
        let v5e = chip("v5e").unwrap();
        let critical = v5e.peak(Dtype::Bf16).unwrap().0 / v5e.bandwidth(Link::Pcie).unwrap().0;
        let row = c.row("critical-pcie").unwrap();
        assert_eq!(row.a, "28,750");
        assert_eq!(row.b, grouped(critical));
        assert_eq!(c.row("verdict-hbm").unwrap().b, "compute-bound");
        // A GPU is refused with its name, and the comparison stays.
        let messages = assert_refused_keeps(&p, &[("vs", "h100"), ("vs", "tpu-v99")]);
        assert!(messages[0].contains("not a TPU"), "{messages:?}");
        let mut q = p;
        q.apply("vs", "none").unwrap();
        assert_eq!(q.comparison(), None);
        assert!(q.to_pairs().iter().all(|(k, _)| k != "vs"));
    }
}
