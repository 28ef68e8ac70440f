//! A sharded matmul as the reader writes it: the book's notation, a mesh,
//! sizes and a chip, and the plan `ridgeline-core` derives from them. The
//! sharding visualizer (`sharding`) draws it; `jax-code` writes it as a
//! program.

use super::compare::{chip_rows, diff_rows, ici_row, parse_vs_chip, Comparison, Diff, VS};
use ridgeline_core::comms::collectives::Network;
use ridgeline_core::dtype::Dtype;
use ridgeline_core::format::seconds;
use ridgeline_core::hardware::{chip, Chip, CHIPS};
use ridgeline_core::sharding::plan::{MatmulPlan, StepKind};

/// The book's examples, one per case (and ReduceScatter for case 3).
pub const PRESETS: &[(&str, &str)] = &[
    (
        "case 1: nothing to communicate",
        "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]",
    ),
    (
        "case 2: gather the contracting shards",
        "A[I, J_X] · B[J, K] -> C[I, K]",
    ),
    (
        "case 3: partial sums, AllReduce",
        "A[I, J_X] · B[J_X, K] -> C[I, K]",
    ),
    (
        "case 3: partial sums, ReduceScatter",
        "A[I, J_X] · B[J_X, K] -> C[I, K_X]",
    ),
    (
        "case 4: same axis on both free dims",
        "A[I_X, J] · B[J, K_X] -> C[I_X, K]",
    ),
    ("2D mesh, both axes", "A[I_X, J_Y] · B[J_Y, K] -> C[I_X, K]"),
];

/// The reader's texts and chip; the plan is derived.
#[derive(Debug, Clone, PartialEq)]
pub struct ShardingParams {
    /// The matmul in the book's notation.
    pub spec: String,
    /// The mesh, e.g. `X=4, Y=2`.
    pub mesh: String,
    /// Sizes, e.g. `I=512, J=1024, K=256`.
    pub dims: String,
    /// The chip collectives and compute are timed on.
    pub chip: &'static Chip,
    /// A second chip the same plan is timed on, if any.
    pub vs: Option<&'static Chip>,
}

impl Default for ShardingParams {
    fn default() -> Self {
        ShardingParams {
            spec: PRESETS[1].1.to_string(),
            mesh: "X=4, Y=2".into(),
            dims: "I=512, J=1024, K=256".into(),
            chip: chip("v5e").unwrap_or(&CHIPS[0]),
            vs: None,
        }
    }
}

impl ShardingParams {
    /// Builds the plan, or says precisely what is wrong with the input.
    pub fn plan(&self) -> Result<MatmulPlan, String> {
        MatmulPlan::parse(&self.spec, &self.mesh, &self.dims, self.chip).map_err(|e| e.to_string())
    }

    /// The same plan on the compared chip; `None` when nothing is compared.
    pub fn vs_plan(&self) -> Option<Result<MatmulPlan, String>> {
        let chip = self.vs?;
        Some(
            ShardingParams {
                chip,
                vs: None,
                ..self.clone()
            }
            .plan(),
        )
    }

    /// The plan beside the same plan on the compared chip: the chips' bf16
    /// peaks and ICI links, then the communication, the local matmul, both
    /// together (overlapped and one after the other) and what bounds it.
    pub fn comparison(&self) -> Option<Comparison> {
        let vs = self.vs?;
        let (a, b) = (self.plan().ok()?, self.vs_plan()?.ok()?);
        let mut rows: Vec<Diff> = chip_rows(self.chip, vs, Dtype::Bf16)
            .into_iter()
            .filter(|d| d.key == "peak")
            .collect();
        rows.push(ici_row(self.chip, vs));
        rows.extend(diff_rows(
            &a,
            &b,
            seconds,
            &[
                ("comms", "communication", |p| p.comm_time().0),
                ("matmul", "local matmul", |p| nan(p.compute_time())),
                ("overlapped", "both, overlapped", |p| nan(p.time_lower())),
                ("serial", "both, one after the other", |p| {
                    nan(p.time_upper())
                }),
            ],
        ));
        let word = |p: &MatmulPlan| p.verdict().map_or("—", |v| v.text());
        rows.push(Diff::words(
            "verdict",
            "overlapped, it is",
            word(&a),
            word(&b),
        ));
        Some(Comparison {
            a: self.chip.name.into(),
            b: vs.name.into(),
            rows,
        })
    }

    /// The parameters as `key=value` pairs, for the URL.
    pub fn pairs(&self) -> Vec<(String, String)> {
        vec![
            ("spec".into(), self.spec.clone()),
            ("mesh".into(), self.mesh.clone()),
            ("dims".into(), self.dims.clone()),
            ("chip".into(), self.chip.id.into()),
        ]
        .into_iter()
        .chain(self.vs.map(|c| (VS.into(), c.id.into())))
        .collect()
    }

    /// Sets one field; the caller keeps the old params if the plan fails.
    pub fn with(&self, key: &str, value: &str) -> Result<ShardingParams, String> {
        let mut next = self.clone();
        match key {
            "spec" => next.spec = value.chars().take(400).collect(),
            "mesh" => next.mesh = value.chars().take(100).collect(),
            "dims" => next.dims = value.chars().take(200).collect(),
            "chip" => next.chip = super::controls::chip(value)?,
            VS => {
                next.vs = parse_vs_chip(value, |c| {
                    Network::ici(c).map(|_| ()).map_err(|e| e.to_string())
                })?
            }
            other => return Err(super::params::unknown_setting(other)),
        }
        next.plan()?;
        if let Some(Err(e)) = next.vs_plan() {
            return Err(e);
        }
        Ok(next)
    }
}

/// A time that may be missing, as a number (`NaN`, shown as `—`, when it is).
fn nan(t: Option<ridgeline_core::units::Seconds>) -> f64 {
    t.map_or(f64::NAN, |t| t.0)
}

/// The collectives of a plan in a few words: `AllGather A over X`.
pub fn collectives_text(plan: &MatmulPlan) -> String {
    let list: Vec<String> = plan
        .steps
        .iter()
        .filter_map(|s| match s.kind {
            StepKind::Collective(c) => Some(format!("{c} {} over {}", s.array, s.axes)),
            _ => None,
        })
        .collect();
    if list.is_empty() {
        "no communication".into()
    } else {
        list.join(", then ")
    }
}
