//! Published measurements set beside core's own predictions.
//!
//! The measurements are data, not code: `data/measured.json` holds each one
//! with its value and unit, its configuration, the exact source and how the
//! entry was checked against it. This module reads that file, expresses each
//! configuration in core's terms (a registry chip, a model preset or shape, a
//! precision, a collective) and computes what core predicts for it with the
//! formulas the widgets use, so the ratio measured / predicted is core's own.
//!
//! Native only (feature `measured`): the site renders the marks and the
//! gathering page at build time, and no page bundle carries the dataset.

use crate::dtype::Dtype;
use crate::gpu::collectives::sharp_gain;
use crate::hardware::{chip, Chip, Link};
use crate::inference::{decode_step, Precision, ServingModel, ServingSlice};
use crate::model::config::{try_model, ModelConfig};
use crate::training::Job;
use serde_json::{Map, Value};
use std::fmt;

/// The dataset as committed: `data/measured.json`.
pub const DATA: &str = include_str!("../../data/measured.json");

/// The largest chip count an entry may name.
const MAX_CHIPS: u64 = 1 << 20;

/// What a measurement measures; each kind has one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Model FLOPs per chip per second in a training run.
    TrainingFlops,
    /// Training tokens per chip per second.
    TrainingTokens,
    /// One chip's best dense matmul rate.
    Matmul,
    /// NCCL bus bandwidth of a collective inside one node.
    BusBandwidth,
    /// One-way copy bandwidth between two GPUs.
    P2pBandwidth,
    /// A TPU AllGather's bandwidth over one ring.
    AllgatherBandwidth,
    /// Decode throughput of a serving slice.
    DecodeThroughput,
}

impl Kind {
    /// Every kind, in the order the gathering page lists them.
    pub const ALL: [Kind; 7] = [
        Kind::TrainingFlops,
        Kind::TrainingTokens,
        Kind::Matmul,
        Kind::BusBandwidth,
        Kind::P2pBandwidth,
        Kind::AllgatherBandwidth,
        Kind::DecodeThroughput,
    ];

    /// The name the dataset uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::TrainingFlops => "training-flops",
            Kind::TrainingTokens => "training-tokens",
            Kind::Matmul => "matmul",
            Kind::BusBandwidth => "bus-bandwidth",
            Kind::P2pBandwidth => "p2p-bandwidth",
            Kind::AllgatherBandwidth => "allgather-bandwidth",
            Kind::DecodeThroughput => "decode-throughput",
        }
    }

    /// A reader's label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::TrainingFlops => "training FLOP/s per chip",
            Kind::TrainingTokens => "training tokens/s per chip",
            Kind::Matmul => "matmul rate of one chip",
            Kind::BusBandwidth => "collective bus bandwidth",
            Kind::P2pBandwidth => "GPU-to-GPU copy bandwidth",
            Kind::AllgatherBandwidth => "TPU AllGather bandwidth",
            Kind::DecodeThroughput => "decode throughput",
        }
    }

    /// The unit every entry of this kind is given in.
    pub fn unit(self) -> &'static str {
        match self {
            Kind::TrainingFlops => "TFLOP/s per chip",
            Kind::TrainingTokens => "tokens/s per chip",
            Kind::Matmul => "TFLOP/s",
            Kind::BusBandwidth | Kind::P2pBandwidth | Kind::AllgatherBandwidth => "GB/s",
            Kind::DecodeThroughput => "tokens/s",
        }
    }

    /// The SI value of one of [`Kind::unit`].
    fn scale(self) -> f64 {
        match self {
            Kind::TrainingFlops | Kind::Matmul => 1e12,
            Kind::BusBandwidth | Kind::P2pBandwidth | Kind::AllgatherBandwidth => 1e9,
            Kind::TrainingTokens | Kind::DecodeThroughput => 1.0,
        }
    }

    /// Parses a dataset name.
    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == text)
    }
}

/// Where a measurement was published.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Title of the paper, page or thread.
    pub title: String,
    /// The table, section or comment holding the number.
    pub section: String,
    /// Its address.
    pub url: String,
    /// When it was published (or read, for pages that change).
    pub date: String,
}

/// A model as an entry names it: a preset id or a shape of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedModel {
    /// The id shown to the reader.
    pub name: String,
    /// Its shape.
    pub config: ModelConfig,
}

/// The kind-specific part of a configuration, in core's terms.
#[derive(Debug, Clone, PartialEq)]
pub enum Setup {
    /// A training run of `model` at sequence length `seq`.
    Training {
        /// The model trained.
        model: NamedModel,
        /// Tokens per sequence.
        seq: f64,
    },
    /// One chip's matmuls.
    Matmul,
    /// A collective in one NVLink node, with or without SHARP.
    Bus {
        /// Whether the switches reduce (NVLink SHARP).
        sharp: bool,
    },
    /// A copy between two GPUs of a node.
    P2p,
    /// An AllGather over a ring of TPUs.
    Allgather {
        /// Chips on the ring.
        ring: u32,
    },
    /// Decoding a batch on a serving slice.
    Decode {
        /// The model served.
        model: NamedModel,
        /// Chips per replica.
        tp: u64,
        /// Sequences decoded together.
        batch: f64,
        /// Context each sequence attends to (tokens of KV cache read per step).
        context: f64,
        /// Formats of weights, KV cache and FLOPs.
        precision: Precision,
    },
}

/// One published measurement and its configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Stable id (lowercase letters, digits and hyphens).
    pub id: String,
    /// What it measures.
    pub kind: Kind,
    /// The measured value in [`Kind::unit`].
    pub value: f64,
    /// The chip.
    pub chip: &'static Chip,
    /// Chips in the measured system.
    pub chips: u64,
    /// The number format of the work.
    pub precision: Dtype,
    /// The kind-specific configuration.
    pub setup: Setup,
    /// Batch or message sizes, as the source gives them.
    pub batch: String,
    /// The parallelism, as the source gives it.
    pub parallelism: String,
    /// Software and version.
    pub software: String,
    /// The MFU the source itself reports, where it gives one.
    pub reported_mfu: Option<f64>,
    /// Where it was published.
    pub source: Source,
    /// How and where the entry was checked before it went in.
    pub checked: String,
    /// The accounting convention of the number.
    pub convention: String,
    /// Why the gap has the size it has.
    pub gap: String,
}

/// A malformed entry: which entry, which field, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasuredError {
    /// The entry's id, or its position when it has none.
    pub entry: String,
    /// The field at fault.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for MeasuredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entry {}: {}: {}", self.entry, self.field, self.message)
    }
}

impl std::error::Error for MeasuredError {}

/// Core's prediction for an entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The predicted value in the entry's unit.
    pub value: f64,
    /// Measured over predicted.
    pub ratio: f64,
    /// What core computed, in a phrase.
    pub basis: String,
}

struct Fields<'a> {
    id: String,
    map: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn err(&self, field: &str, message: impl Into<String>) -> MeasuredError {
        MeasuredError {
            entry: self.id.clone(),
            field: field.to_string(),
            message: message.into(),
        }
    }

    fn text(&self, field: &str) -> Result<String, MeasuredError> {
        match self.map.get(field) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
            Some(Value::String(_)) => Err(self.err(field, "must not be empty")),
            Some(_) => Err(self.err(field, "must be a string")),
            None => Err(self.err(field, "is missing")),
        }
    }

    fn number(&self, field: &str, lo: f64, hi: f64) -> Result<f64, MeasuredError> {
        let v = match self.map.get(field) {
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(_) => return Err(self.err(field, "must be a number")),
            None => return Err(self.err(field, "is missing")),
        };
        if !v.is_finite() || v <= lo || v > hi {
            return Err(self.err(
                field,
                format!("must be above {lo} and at most {hi} (got {v})"),
            ));
        }
        Ok(v)
    }

    fn count(&self, field: &str, hi: u64) -> Result<u64, MeasuredError> {
        let v = self.number(field, 0.0, hi as f64)?;
        if v.fract() != 0.0 {
            return Err(self.err(field, format!("must be a whole number (got {v})")));
        }
        crate::check::whole(v)
            .ok_or_else(|| self.err(field, format!("must be a whole number (got {v})")))
    }

    fn dtype(&self, field: &str) -> Result<Dtype, MeasuredError> {
        let t = self.text(field)?;
        Dtype::parse(&t).ok_or_else(|| self.err(field, format!("unknown format '{t}'")))
    }

    fn model(&self) -> Result<NamedModel, MeasuredError> {
        let name = self.text("model")?;
        let config =
            match self.map.get("model_shape") {
                None => {
                    try_model(&name)
                        .map_err(|e| self.err("model", e.to_string()))?
                        .config
                }
                Some(Value::Array(dims)) if dims.len() == 8 => {
                    let mut d = [0u64; 8];
                    for (slot, v) in d.iter_mut().zip(dims) {
                        *slot = v.as_u64().filter(|&x| x > 0).ok_or_else(|| {
                            self.err("model_shape", "every dimension must be a positive integer")
                        })?;
                    }
                    let c = ModelConfig::gqa(d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
                    c.validate()
                        .map_err(|e| self.err("model_shape", e.to_string()))?;
                    c
                }
                Some(_) => return Err(self.err(
                    "model_shape",
                    "must list d_model, d_ff, layers, heads, kv_heads, head_dim, vocab, max_seq",
                )),
            };
        Ok(NamedModel { name, config })
    }
}

fn entry(index: usize, value: &Value) -> Result<Entry, MeasuredError> {
    let map = value.as_object().ok_or_else(|| MeasuredError {
        entry: format!("#{}", index + 1),
        field: "entry".into(),
        message: "must be an object".into(),
    })?;
    let mut f = Fields {
        id: format!("#{}", index + 1),
        map,
    };
    let id = f.text("id")?;
    if !id
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(f.err("id", "only lowercase letters, digits and hyphens"));
    }
    f.id = id.clone();
    let kind_name = f.text("kind")?;
    let kind = Kind::parse(&kind_name)
        .ok_or_else(|| f.err("kind", format!("unknown kind '{kind_name}'")))?;
    let value = f.number("value", 0.0, 1e9)?;
    let unit = f.text("unit")?;
    if unit != kind.unit() {
        return Err(f.err(
            "unit",
            format!(
                "a {} is given in {} (got '{unit}')",
                kind.name(),
                kind.unit()
            ),
        ));
    }
    let chip_id = f.text("chip")?;
    let chip = chip(&chip_id).ok_or_else(|| f.err("chip", format!("unknown chip '{chip_id}'")))?;
    let chips = f.count("chips", MAX_CHIPS)?;
    let precision = f.dtype("precision").or_else(|e| match kind {
        // Bandwidths carry no number format.
        Kind::BusBandwidth | Kind::P2pBandwidth => Ok(Dtype::Bf16),
        _ => Err(e),
    })?;
    let setup = match kind {
        Kind::TrainingFlops | Kind::TrainingTokens => Setup::Training {
            model: f.model()?,
            seq: f.number("seq", 0.0, 1e9)?,
        },
        Kind::Matmul => Setup::Matmul,
        Kind::BusBandwidth => Setup::Bus {
            sharp: match map.get("sharp") {
                Some(Value::Bool(b)) => *b,
                _ => return Err(f.err("sharp", "must be true or false")),
            },
        },
        Kind::P2pBandwidth => Setup::P2p,
        Kind::AllgatherBandwidth => Setup::Allgather {
            ring: u32::try_from(f.count("ring", chips)?)
                .map_err(|_| f.err("ring", "must fit a 32-bit count"))?,
        },
        Kind::DecodeThroughput => Setup::Decode {
            model: f.model()?,
            tp: f.count("tp", chips)?,
            batch: f.count("decode_batch", 1 << 20)? as f64,
            context: f.number("context", 0.0, 1e9)?,
            precision: Precision::new(f.dtype("weights")?, f.dtype("kv")?, f.dtype("compute")?),
        },
    };
    let source = match map.get("source") {
        Some(Value::Object(s)) => {
            let g = Fields {
                id: id.clone(),
                map: s,
            };
            let url = g.text("url").map_err(|e| f.err("source.url", e.message))?;
            if !url.starts_with("https://") {
                return Err(f.err("source.url", "must be an https:// address"));
            }
            let sub = |k: &str| {
                g.text(k)
                    .map_err(|e| f.err(&format!("source.{k}"), e.message))
            };
            Source {
                title: sub("title")?,
                section: sub("section")?,
                url,
                date: sub("date")?,
            }
        }
        _ => return Err(f.err("source", "must be an object with title, section, url, date")),
    };
    let reported_mfu = match map.get("reported_mfu") {
        None => None,
        Some(_) => Some(f.number("reported_mfu", 0.0, 1.0)?),
    };
    Ok(Entry {
        kind,
        value,
        chip,
        chips,
        precision,
        setup,
        batch: f.text("batch")?,
        parallelism: f.text("parallelism")?,
        software: f.text("software")?,
        reported_mfu,
        source,
        checked: f.text("checked")?,
        convention: f.text("convention")?,
        gap: f.text("gap")?,
        id,
    })
}

/// Reads a dataset in the form of `data/measured.json`; every entry checked,
/// ids unique.
pub fn parse(text: &str) -> Result<Vec<Entry>, MeasuredError> {
    let top = |message: String| MeasuredError {
        entry: "(file)".into(),
        field: "entries".into(),
        message,
    };
    let doc: Value = serde_json::from_str(text).map_err(|e| top(e.to_string()))?;
    let list = doc
        .get("entries")
        .and_then(Value::as_array)
        .ok_or_else(|| top("must be a list".into()))?;
    let mut out: Vec<Entry> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let e = entry(i, v)?;
        if out.iter().any(|o| o.id == e.id) {
            return Err(MeasuredError {
                entry: e.id,
                field: "id".into(),
                message: "appears twice".into(),
            });
        }
        out.push(e);
    }
    Ok(out)
}

/// The committed dataset, parsed.
pub fn entries() -> Result<Vec<Entry>, MeasuredError> {
    parse(DATA)
}

/// Core's prediction for `e`, with the formula the matching widget uses.
pub fn predict(e: &Entry) -> Result<Prediction, MeasuredError> {
    let fail = |field: &str, message: String| MeasuredError {
        entry: e.id.clone(),
        field: field.to_string(),
        message,
    };
    let peak = || {
        e.chip.peak(e.precision).map(|p| p.0).ok_or_else(|| {
            fail(
                "precision",
                format!("{} has no {} peak", e.chip.name, e.precision.name()),
            )
        })
    };
    let (si, basis) = match &e.setup {
        Setup::Training { model, seq } => {
            let p = peak()?;
            match e.kind {
                Kind::TrainingTokens => {
                    let job = Job::new(model.config, *seq, *seq)
                        .map_err(|err| fail("seq", err.to_string()))?;
                    let per_token = job.step_flops().0 / job.batch_tokens;
                    (
                        p / per_token,
                        format!(
                            "{} peak over 6 · active parameters per token of {}",
                            e.chip.name, model.name
                        ),
                    )
                }
                _ => (p, format!("{} {} peak", e.chip.name, e.precision.name())),
            }
        }
        Setup::Matmul => (
            peak()?,
            format!("{} {} peak", e.chip.name, e.precision.name()),
        ),
        Setup::Bus { sharp } => {
            let w = e
                .chip
                .bandwidth(Link::NvLink)
                .ok_or_else(|| fail("chip", format!("{} has no NVLink", e.chip.name)))?;
            if *sharp {
                let n = u32::try_from(e.chips).map_err(|_| fail("chips", "too many".into()))?;
                let (gain, _, _) = sharp_gain(n).map_err(|m| fail("chips", m))?;
                (
                    w.0 * (1.0 + gain),
                    format!(
                        "{} NVLink one way, times the AllReduce bytes SHARP saves on {n} GPUs",
                        e.chip.name
                    ),
                )
            } else {
                (w.0, format!("{} NVLink one way", e.chip.name))
            }
        }
        Setup::P2p => (
            e.chip
                .bandwidth(Link::NvLink)
                .ok_or_else(|| fail("chip", format!("{} has no NVLink", e.chip.name)))?
                .0,
            format!("{} NVLink one way", e.chip.name),
        ),
        Setup::Allgather { ring } => {
            let w = e
                .chip
                .link(Link::Ici)
                .and_then(|l| l.one_way)
                .ok_or_else(|| {
                    fail("chip", format!("{} has no one-way ICI figure", e.chip.name))
                })?;
            (
                w.0,
                format!("{} ICI one way per link, ring of {ring}", e.chip.name),
            )
        }
        Setup::Decode {
            model,
            tp,
            batch,
            context,
            precision,
        } => {
            let served =
                ServingModel::new(model.config).map_err(|err| fail("model", err.to_string()))?;
            let work = served
                .workload(*precision, *batch, *context)
                .map_err(|err| fail("context", err.to_string()))?;
            let slice = ServingSlice::new(e.chip, e.chips)
                .and_then(|s| s.with_tp(*tp))
                .map_err(|err| fail("tp", err.to_string()))?;
            let step = decode_step(&work, &slice, precision.compute)
                .map_err(|err| fail("compute", err.to_string()))?;
            (
                step.tokens_per_sec() * slice.replicas() as f64,
                format!(
                    "decode step of {} at batch {batch} and context {context} on {} × {}",
                    model.name, e.chips, e.chip.name
                ),
            )
        }
    };
    let value = si / e.kind.scale();
    Ok(Prediction {
        value,
        ratio: e.value / value,
        basis,
    })
}

/// Every entry with core's prediction, in dataset order.
pub fn predictions() -> Result<Vec<(Entry, Prediction)>, MeasuredError> {
    entries()?
        .into_iter()
        .map(|e| predict(&e).map(|p| (e, p)))
        .collect()
}

/// The snapshot `data/measured-predictions.md`: one row per entry with the
/// measured value, core's prediction and their ratio, so a change in core that
/// moves a prediction shows in a diff.
pub fn snapshot() -> Result<String, MeasuredError> {
    let mut out = String::from(
        "# Measured beside predicted\n\n\
         Generated from `data/measured.json` by `ridgeline_core::measured::snapshot`; \
         a test in `core` fails when this file and core disagree \
         (set `RIDGELINE_BLESS=1` to rewrite it).\n\n\
         | id | kind | chip × count | measured | predicted | measured / predicted | basis |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for (e, p) in predictions()? {
        out.push_str(&format!(
            "| {} | {} | {} × {} | {} {} | {:.4} {} | {:.4} | {} |\n",
            e.id,
            e.kind.name(),
            e.chip.id,
            e.chips,
            e.value,
            e.kind.unit(),
            p.value,
            e.kind.unit(),
            p.ratio,
            p.basis
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::ALLGATHER_MEASURED_FRACTION;

    const SNAPSHOT: &str = "../data/measured-predictions.md";

    #[test]
    fn every_entry_parses_and_is_predicted() {
        let rows = predictions().expect("the committed dataset is well formed");
        assert!(rows.len() >= 12, "only {} entries", rows.len());
        for (e, p) in &rows {
            assert!(
                p.value.is_finite() && p.value > 0.0,
                "{}: prediction {}",
                e.id,
                p.value
            );
            // A measurement above core's roofline would mean a wrong unit or
            // configuration, not a fast system.
            assert!(
                p.ratio > 0.05 && p.ratio < 1.0,
                "{}: ratio {}",
                e.id,
                p.ratio
            );
        }
    }

    #[test]
    fn snapshot_matches_core() {
        let now = snapshot().unwrap();
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
        if std::env::var_os("RIDGELINE_BLESS").is_some() {
            std::fs::write(&path, &now).unwrap();
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert_eq!(
            committed, now,
            "data/measured-predictions.md is out of date: a change in core moved a prediction \
             (rerun with RIDGELINE_BLESS=1 and review the diff)"
        );
    }

    #[test]
    fn the_books_allgather_entry_is_cores_constant() {
        let e = entries()
            .unwrap()
            .into_iter()
            .find(|e| e.kind == Kind::AllgatherBandwidth)
            .unwrap();
        let p = predict(&e).unwrap();
        assert!((p.ratio - ALLGATHER_MEASURED_FRACTION.value).abs() < 1e-9);
    }

    #[test]
    fn known_ratios() {
        let rows = predictions().unwrap();
        let ratio = |id: &str| rows.iter().find(|(e, _)| e.id == id).unwrap().1.ratio;
        // 430 TFLOP/s over the registry's 990.
        assert!((ratio("llama3-405b-h100-8k") - 430.0 / 990.0).abs() < 1e-9);
        // 370 GB/s over NVLink's 450.
        assert!((ratio("nccl-h100-ring") - 370.0 / 450.0).abs() < 1e-9);
        // SHARP predicted at 1.75 × 450 on 8 GPUs.
        assert!((ratio("nccl-h100-nvls") - 480.0 / (450.0 * 1.75)).abs() < 1e-9);
    }

    fn one(patch: impl FnOnce(&mut Map<String, Value>)) -> MeasuredError {
        let mut doc: Value = serde_json::from_str(DATA).unwrap();
        let list = doc["entries"].as_array_mut().unwrap();
        let first = list[0].as_object_mut().unwrap();
        patch(first);
        let keep = list[0].clone();
        list.truncate(0);
        list.push(keep);
        parse(&doc.to_string()).unwrap_err()
    }

    #[test]
    fn malformed_entries_are_refused_by_field() {
        let e = one(|m| {
            m.insert("value".into(), Value::from(-3.0));
        });
        assert_eq!(e.field, "value");
        assert!(e.message.contains("above 0"), "{e}");
        let e = one(|m| {
            m.insert("unit".into(), Value::from("GB/s"));
        });
        assert_eq!(
            (e.field.as_str(), e.entry.as_str()),
            ("unit", "llama3-405b-h100-8k")
        );
        let e = one(|m| {
            m.insert("chip".into(), Value::from("h900"));
        });
        assert_eq!(e.field, "chip");
        assert!(e.message.contains("unknown chip 'h900'"), "{e}");
        let e = one(|m| {
            m.insert("kind".into(), Value::from("vibes"));
        });
        assert_eq!(e.field, "kind");
        let e = one(|m| {
            m.insert("model".into(), Value::from("llama9-1t"));
        });
        assert_eq!(e.field, "model");
        let e = one(|m| {
            m["source"]
                .as_object_mut()
                .unwrap()
                .insert("url".into(), Value::from("http://example.com"));
        });
        assert_eq!(e.field, "source.url");
        let e = one(|m| {
            m.remove("checked");
        });
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("checked", "is missing")
        );
        let e = one(|m| {
            m.insert("chips".into(), Value::from(2.5));
        });
        assert_eq!(e.field, "chips");
        let e = one(|m| {
            m.insert("id".into(), Value::from("Bad Id"));
        });
        assert_eq!(e.field, "id");
    }

    #[test]
    fn a_repeated_id_is_refused() {
        let mut doc: Value = serde_json::from_str(DATA).unwrap();
        let list = doc["entries"].as_array_mut().unwrap();
        let first = list[0].clone();
        list.push(first);
        let e = parse(&doc.to_string()).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("id", "appears twice")
        );
    }
}
