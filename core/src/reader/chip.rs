//! A reader's own chip, defined in a small JSON object whose numbers may carry
//! units in the answer syntax of the exercises (`2.6 PFLOP/s`, `5.3 TB/s`,
//! `192 GB`), and produced as the same [`Chip`] the registry holds, so every
//! formula of `core` works on it unchanged.
//!
//! ```json
//! { "name": "My accelerator", "start_from": "h100",
//!   "peaks": { "bf16": "1.3 PFLOP/s", "fp8": "2.6 PFLOP/s" },
//!   "hbm": { "capacity": "192 GB", "bandwidth": "5.3 TB/s" },
//!   "links": { "nvlink": "450 GB/s", "scaleout": "50 GB/s" },
//!   "topology": { "nvlink_domain": { "gpus": 8, "sms": 304 } } }
//! ```
//!
//! `start_from` copies a registry chip (with its citations); every other field
//! replaces the copied value, cited as the reader's own. A bare number is read
//! in the canonical unit (FLOPs/s, bytes, bytes/s). Every value is checked
//! against a stated limit, and the vendor must match the topology (a torus
//! and an ICI link for a TPU-like chip; an NVLink domain and an NVLink link for
//! a GPU-like one). The user entries live beside the registry, never inside it.
//!
//! ```
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::hardware::Link;
//! use ridgeline_core::reader::chip::parse_chip;
//!
//! let spec = parse_chip(r#"{"name": "fast v5e", "start_from": "v5e",
//!                           "hbm": {"bandwidth": "1.62 TB/s"}}"#).unwrap();
//! let chip = spec.leak();
//! assert_eq!(chip.ridge(Dtype::Bf16, Link::Hbm).unwrap().0.round(), 122.0);
//! let err = parse_chip(r#"{"name": "x", "start_from": "v5e", "hbm": {"bandwidth": "5 TFLOP/s"}}"#)
//!     .unwrap_err();
//! assert_eq!(err.field, "hbm.bandwidth");
//! ```

use crate::hardware::{Chip, Cited, Link, LinkSpec, Peak, Source, Topology, Vendor};
use crate::units::Bytes;
use std::fmt;

// Reading the JSON definition needs serde_json and the answer syntax's unit
// parser: only the library bundle (Cargo feature `library`) carries them. The
// limits and checks below are also what the compact form of every page uses.
#[cfg(feature = "library")]
use crate::dtype::Dtype;
#[cfg(feature = "library")]
use crate::exercises::quantity::{parse_expecting, Dimension, Unit};
#[cfg(feature = "library")]
use crate::hardware::{chip, WrapRule, CHIPS};
#[cfg(feature = "library")]
use crate::units::{BytesPerSec, FlopsPerSec};
#[cfg(feature = "library")]
use serde_json::{Map, Value};

/// Why a chip definition or a model configuration was refused: the field (a
/// JSON key, `text_config.…` for a nested one, or a description of the whole
/// input) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The field at fault.
    pub field: String,
    /// What was wrong and what was expected, as a sentence fragment.
    pub message: String,
}

impl ImportError {
    /// An error for `field`.
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for ImportError {}

/// The largest chip definition accepted, in bytes; longer input is refused before parsing.
pub const MAX_CHIP_BYTES: usize = 64 << 10;
/// The lowest peak accepted, FLOPs/s per chip (10^6: a million operations a
/// second, below any accelerator; smaller rates only make numbers no page can show).
pub const MIN_PEAK: f64 = 1e6;
/// The highest peak accepted, FLOPs/s per chip (10^18, about 100 times today's fastest).
pub const MAX_PEAK: f64 = 1e18;
/// The smallest HBM capacity accepted, bytes per chip (10^6, 1 MB).
pub const MIN_HBM: f64 = 1e6;
/// The largest HBM capacity accepted, bytes per chip (10^13, 10 TB).
pub const MAX_HBM: f64 = 1e13;
/// The lowest bandwidth accepted, bytes/s (10^3, 1 kB/s).
pub const MIN_BANDWIDTH: f64 = 1e3;
/// The highest bandwidth accepted, bytes/s (10^15, about 100 times today's fastest HBM).
pub const MAX_BANDWIDTH: f64 = 1e15;
/// The most chips along one torus axis, and in one NVLink domain.
pub const MAX_CHIPS: u32 = 100_000;
/// The most chips in one torus slice (all axes together): 10^6, about a
/// hundred times the largest pod, so every count fits every integer type a
/// formula uses and every drawing stays a summary.
pub const MAX_SLICE_CHIPS: u64 = 1_000_000;
/// The longest name accepted, in characters.
pub const MAX_NAME: usize = 60;

/// Where a reader's own value comes from.
pub const READER: Source = Source {
    part: 0,
    table: "defined by the reader (not from the book)",
    note: None,
};

/// A chip as the reader defined it, owned and validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ChipSpec {
    /// Display name.
    pub name: String,
    /// The registry chip it started from, if any.
    pub started_from: Option<&'static str>,
    /// Which topology model applies.
    pub vendor: Vendor,
    /// Dense peaks by format.
    pub peaks: Vec<Peak>,
    /// HBM capacity per chip.
    pub hbm_capacity: Cited<Bytes>,
    /// Link bandwidths, HBM first.
    pub links: Vec<LinkSpec>,
    /// How chips are wired.
    pub topology: Topology,
}

impl ChipSpec {
    /// Checks every value against its limit and the vendor against the topology.
    pub fn validate(&self) -> Result<(), ImportError> {
        self.check()
    }

    /// [`ChipSpec::validate`] with the refusal as `E` chooses: an
    /// [`ImportError`], its text, or only the fact ([`Refused`]).
    pub fn check<E: Refusal<ImportError>>(&self) -> Result<(), E> {
        check(
            &self.name,
            self.vendor,
            &self.peaks,
            self.hbm_capacity.value.0,
            &self.links,
            &self.topology,
        )
    }

    /// The ridge point `C / W` for a format and a link: the same formula as
    /// [`Chip::ridge`], over this chip's own peaks and links.
    pub fn ridge(&self, dtype: crate::dtype::Dtype, link: Link) -> Option<crate::units::Intensity> {
        crate::hardware::ridge_point(&self.peaks, &self.links, dtype, link)
    }

    /// The chip as the registry's type. Registry chips are static, so this keeps
    /// the chip's few hundred bytes for the life of the program: call it once per
    /// chip the reader saves, not per keystroke.
    pub fn leak(self) -> &'static Chip {
        self.leak_as("own")
    }

    /// [`ChipSpec::leak`] under the id `id` (a library entry's `my:NAME`), so
    /// that a widget's URL names the chip the reader picked.
    pub fn leak_as(self, id: &str) -> &'static Chip {
        let id: &'static str = if id == "own" {
            "own"
        } else {
            Box::leak(id.to_string().into_boxed_str())
        };
        let chip = Chip {
            id,
            name: Box::leak(self.name.into_boxed_str()),
            vendor: self.vendor,
            peaks: Box::leak(self.peaks.into_boxed_slice()),
            hbm_capacity: self.hbm_capacity,
            links: Box::leak(self.links.into_boxed_slice()),
            topology: self.topology,
        };
        Box::leak(Box::new(chip))
    }
}

/// Checks a chip of the registry's type with the limits a reader's chip must
/// meet (every registry chip meets them too).
pub fn validate_chip(c: &Chip) -> Result<(), ImportError> {
    check(
        c.name,
        c.vendor,
        c.peaks,
        c.hbm_capacity.value.0,
        c.links,
        &c.topology,
    )
}

/// What a check gives back when it refuses, made from the message `M` it
/// would write: the message itself, its text, or only the fact that it
/// refused ([`Refused`]).
///
/// The message is a closure, called only by a type that keeps it. A page
/// bundle that decodes the reader's saved chips and models only needs to
/// know whether each one is sound (a broken entry is left out of its
/// pickers, and the library bundle, which keeps the messages, explains it),
/// so it decodes with [`Refused`]: the messages and the code that formats
/// them are then never called and the compiler leaves them out of that
/// bundle: on /gpus 11.6 KB of WebAssembly code and 2.7 KB of text, 4.6 KB
/// of gzip (327,671 against 323,062 B, gzip -9 of a one-bundle build).
pub trait Refusal<M>: Sized {
    /// The refusal `why` describes.
    fn refuse(why: impl FnOnce() -> M) -> Self;
}

/// A refusal without its message: see [`Refusal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refused;

impl<M> Refusal<M> for Refused {
    fn refuse(_: impl FnOnce() -> M) -> Refused {
        Refused
    }
}

impl Refusal<ImportError> for ImportError {
    fn refuse(why: impl FnOnce() -> ImportError) -> ImportError {
        why()
    }
}

/// The refusal as one line of text, `field: message`.
impl Refusal<ImportError> for String {
    fn refuse(why: impl FnOnce() -> ImportError) -> String {
        why().to_string()
    }
}

impl Refusal<String> for String {
    fn refuse(why: impl FnOnce() -> String) -> String {
        why()
    }
}

fn err(field: impl Into<String>, message: impl Into<String>) -> ImportError {
    ImportError::new(field, message)
}

/// Refuses with [`err`]`(field, message)`, built only if `E` keeps it.
fn no<E: Refusal<ImportError>>(
    field: impl FnOnce() -> String,
    message: impl FnOnce() -> String,
) -> E {
    E::refuse(|| err(field(), message()))
}

/// Refuses `value` unless it is finite and within `min..=max`: a physical
/// floor and ceiling ([`MIN_PEAK`] and [`MAX_PEAK`], and the others).
fn in_range<E: Refusal<ImportError>>(
    field: impl FnOnce() -> String,
    value: f64,
    (min, max): (f64, f64),
    unit: &str,
) -> Result<(), E> {
    if !value.is_finite() || value < min || value > max {
        return Err(no(field, || {
            format!(
                "{value:e} {unit} is outside the accepted range: at least {min:e} {unit}, at most {max:e} {unit}"
            )
        }));
    }
    Ok(())
}

fn check<E: Refusal<ImportError>>(
    name: &str,
    vendor: Vendor,
    peaks: &[Peak],
    hbm_capacity: f64,
    links: &[LinkSpec],
    topology: &Topology,
) -> Result<(), E> {
    if name.trim().is_empty() || name.chars().count() > MAX_NAME {
        return Err(no(
            || "name".into(),
            || format!("expected 1 to {MAX_NAME} characters"),
        ));
    }
    if peaks.is_empty() {
        return Err(no(
            || "peaks".into(),
            || "expected at least one format's peak, such as \"bf16\": \"197 TFLOP/s\"".into(),
        ));
    }
    for p in peaks {
        in_range(
            || format!("peaks.{}", p.dtype.name()),
            p.rate.0,
            (MIN_PEAK, MAX_PEAK),
            "FLOPs/s",
        )?;
    }
    in_range(
        || "hbm.capacity".into(),
        hbm_capacity,
        (MIN_HBM, MAX_HBM),
        "bytes",
    )?;
    if !links.iter().any(|l| l.link == Link::Hbm) {
        return Err(no(
            || "hbm.bandwidth".into(),
            || "missing; every chip needs its HBM bandwidth".into(),
        ));
    }
    for l in links {
        let field = || {
            if l.link == Link::Hbm {
                "hbm.bandwidth".to_string()
            } else {
                format!("links.{}", l.link.name())
            }
        };
        in_range(
            field,
            l.bandwidth.0,
            (MIN_BANDWIDTH, MAX_BANDWIDTH),
            "bytes/s",
        )?;
    }
    let has = |link| links.iter().any(|l| l.link == link);
    match (vendor, topology) {
        (
            Vendor::Google,
            Topology::Torus {
                dims,
                max_slice,
                host,
                cores,
                ..
            },
        ) => {
            if !has(Link::Ici) {
                return Err(no(
                    || "links.ici".into(),
                    || "missing; a torus needs its ICI bandwidth per link".into(),
                ));
            }
            if !(2..=3).contains(dims) {
                return Err(no(
                    || "topology.torus.dims".into(),
                    || format!("{dims}: expected 2 or 3"),
                ));
            }
            for (i, (&s, &h)) in max_slice.iter().zip(host).enumerate() {
                if s == 0 || s > MAX_CHIPS {
                    return Err(no(
                        || "topology.torus.max_slice".into(),
                        || format!("axis {i} = {s}: expected 1 to {MAX_CHIPS}"),
                    ));
                }
                if h == 0 || h > s {
                    return Err(no(
                        || "topology.torus.host".into(),
                        || format!("axis {i} = {h}: expected 1 to the slice's {s}"),
                    ));
                }
            }
            let chips: u64 = max_slice.iter().map(|&s| u64::from(s)).product();
            if chips > MAX_SLICE_CHIPS {
                return Err(no(
                    || "topology.torus.max_slice".into(),
                    || format!("{chips} chips in one slice: expected at most {MAX_SLICE_CHIPS}"),
                ));
            }
            if *dims == 2 && max_slice[2] != 1 {
                return Err(no(
                    || "topology.torus.max_slice".into(),
                    || "a 2D torus has 1 chip along z".into(),
                ));
            }
            if !(1..=8).contains(cores) {
                return Err(no(
                    || "topology.torus.cores".into(),
                    || format!("{cores}: expected 1 to 8 TensorCores"),
                ));
            }
        }
        (
            Vendor::Nvidia,
            Topology::NvlinkDomain {
                gpus,
                sms,
                node_egress,
                ..
            },
        ) => {
            if !has(Link::NvLink) {
                return Err(no(
                    || "links.nvlink".into(),
                    || "missing; an NVLink domain needs its NVLink bandwidth per GPU".into(),
                ));
            }
            if *gpus == 0 || *gpus > MAX_CHIPS {
                return Err(no(
                    || "topology.nvlink_domain.gpus".into(),
                    || format!("{gpus}: expected 1 to {MAX_CHIPS}"),
                ));
            }
            if *sms == 0 || *sms > 10_000 {
                return Err(no(
                    || "topology.nvlink_domain.sms".into(),
                    || format!("{sms}: expected 1 to 10000"),
                ));
            }
            if let Some(e) = node_egress {
                in_range(
                    || "topology.nvlink_domain.node_egress".into(),
                    e.0,
                    (MIN_BANDWIDTH, MAX_BANDWIDTH),
                    "bytes/s",
                )?;
            }
        }
        (Vendor::Google, _) => {
            return Err(no(
                || "topology".into(),
                || "a google chip is wired as a torus".into(),
            ))
        }
        (Vendor::Nvidia, _) => {
            return Err(no(
                || "topology".into(),
                || "an nvidia chip is wired as an nvlink_domain".into(),
            ))
        }
    }
    Ok(())
}

/// A quantity field: a JSON number in the canonical unit, or text in the answer syntax.
#[cfg(feature = "library")]
fn quantity(field: &str, v: &Value, dim: Dimension, unit: &str) -> Result<f64, ImportError> {
    let value = match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) => {
            let bare = Unit {
                factor: 1.0,
                dimension: dim,
            };
            parse_expecting(s, dim, bare)
                .map_err(|e| err(field, format!("{} (expected {unit})", e.reason)))?
                .value
        }
        _ => {
            return Err(err(
                field,
                format!("expected a number in {unit} or text such as \"5.3 TB/s\""),
            ))
        }
    };
    Ok(value)
}

#[cfg(feature = "library")]
fn object<'a>(field: &str, v: &'a Value) -> Result<&'a Map<String, Value>, ImportError> {
    v.as_object()
        .ok_or_else(|| err(field, "expected an object of fields"))
}

#[cfg(feature = "library")]
fn whole(field: &str, v: &Value, max: u32) -> Result<u32, ImportError> {
    v.as_u64()
        .filter(|n| (1..=u64::from(max)).contains(n))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| err(field, format!("expected a whole number from 1 to {max}")))
}

#[cfg(feature = "library")]
fn reject_unknown(
    field: &str,
    obj: &Map<String, Value>,
    known: &[&str],
) -> Result<(), ImportError> {
    match obj.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(err(
            format!("{field}{k}"),
            format!(
                "not a field of a chip; expected one of {}",
                known.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// Reads a chip definition. Inputs over [`MAX_CHIP_BYTES`] are refused before
/// parsing; never panics.
#[cfg(feature = "library")]
pub fn parse_chip(text: &str) -> Result<ChipSpec, ImportError> {
    if text.len() > MAX_CHIP_BYTES {
        return Err(err(
            "(the whole definition)",
            format!(
                "{} bytes is more than the {MAX_CHIP_BYTES} a chip definition may have",
                text.len()
            ),
        ));
    }
    let v: Value = text.parse().map_err(|e: serde_json::Error| {
        err(
            "(JSON)",
            format!(
                "not valid JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    let top = object("(JSON)", &v)?;
    reject_unknown(
        "",
        top,
        &[
            "name",
            "start_from",
            "vendor",
            "peaks",
            "hbm",
            "links",
            "topology",
        ],
    )?;
    let base = match top.get("start_from") {
        None | Some(Value::Null) => None,
        Some(Value::String(id)) => Some(chip(id).ok_or_else(|| {
            let ids: Vec<_> = CHIPS.iter().map(|c| c.id).collect();
            err(
                "start_from",
                format!(
                    "no registry chip is called “{id}”; expected one of {}",
                    ids.join(", ")
                ),
            )
        })?),
        Some(_) => {
            return Err(err(
                "start_from",
                "expected a registry chip's id as text, such as \"v5e\"",
            ))
        }
    };
    let name = match top.get("name") {
        Some(Value::String(s)) => s.trim().to_string(),
        Some(_) => return Err(err("name", "expected text")),
        None => match base {
            Some(b) => format!("{} (yours)", b.name),
            None => {
                return Err(err(
                    "name",
                    format!("missing; expected 1 to {MAX_NAME} characters"),
                ))
            }
        },
    };
    let vendor = match (top.get("vendor"), base) {
        (Some(Value::String(s)), _) if s == "google" => Vendor::Google,
        (Some(Value::String(s)), _) if s == "nvidia" => Vendor::Nvidia,
        (Some(_), _) => {
            return Err(err(
                "vendor",
                "expected \"google\" (a torus) or \"nvidia\" (an NVLink domain)",
            ))
        }
        (None, Some(b)) => b.vendor,
        (None, None) => {
            return Err(err(
                "vendor",
                "missing; expected \"google\" or \"nvidia\", or a start_from chip",
            ))
        }
    };
    let mut peaks: Vec<Peak> = base.map(|b| b.peaks.to_vec()).unwrap_or_default();
    if let Some(p) = top.get("peaks") {
        for (k, v) in object("peaks", p)? {
            let field = format!("peaks.{k}");
            let dtype = Dtype::parse(k).ok_or_else(|| {
                let names: Vec<_> = Dtype::ALL.iter().map(|d| d.name()).collect();
                err(
                    &field,
                    format!("not a format; expected one of {}", names.join(", ")),
                )
            })?;
            let rate = FlopsPerSec(quantity(&field, v, Dimension::FLOP_RATE, "FLOPs/s")?);
            peaks.retain(|p| p.dtype != dtype);
            peaks.push(Peak {
                dtype,
                rate,
                source: READER,
            });
        }
    }
    let mut links: Vec<LinkSpec> = base.map(|b| b.links.to_vec()).unwrap_or_default();
    let mut set_link = |link: Link, bandwidth: f64| {
        links.retain(|l| l.link != link);
        links.push(LinkSpec {
            link,
            bandwidth: BytesPerSec(bandwidth),
            one_way: None,
            source: READER,
        });
    };
    let mut hbm_capacity = base.map(|b| b.hbm_capacity);
    if let Some(h) = top.get("hbm") {
        let h = object("hbm", h)?;
        reject_unknown("hbm.", h, &["capacity", "bandwidth"])?;
        if let Some(c) = h.get("capacity") {
            let value = quantity("hbm.capacity", c, Dimension::BYTES, "bytes")?;
            hbm_capacity = Some(Cited {
                value: Bytes(value),
                source: READER,
            });
        }
        if let Some(b) = h.get("bandwidth") {
            set_link(
                Link::Hbm,
                quantity("hbm.bandwidth", b, Dimension::BYTE_RATE, "bytes/s")?,
            );
        }
    }
    if let Some(l) = top.get("links") {
        for (k, v) in object("links", l)? {
            let field = format!("links.{k}");
            let link = Link::parse(k).filter(|l| *l != Link::Hbm).ok_or_else(|| {
                err(
                    &field,
                    "not a link; expected ici, nvlink, scaleout, dcn or pcie (HBM goes under hbm)",
                )
            })?;
            set_link(link, quantity(&field, v, Dimension::BYTE_RATE, "bytes/s")?);
        }
    }
    // The HBM entry comes first, as in the registry.
    links.sort_by_key(|l| l.link != Link::Hbm);
    let hbm_capacity = hbm_capacity
        .ok_or_else(|| err("hbm.capacity", "missing; expected bytes such as \"96 GB\""))?;
    let topology = match top.get("topology") {
        Some(t) => read_topology(t)?,
        None => base
            .map(|b| b.topology)
            .ok_or_else(|| err("topology", "missing; expected a torus or an nvlink_domain"))?,
    };
    let spec = ChipSpec {
        name,
        started_from: base.map(|b| b.id),
        vendor,
        peaks,
        hbm_capacity,
        links,
        topology,
    };
    spec.validate()?;
    Ok(spec)
}

#[cfg(feature = "library")]
fn read_topology(t: &Value) -> Result<Topology, ImportError> {
    let t = object("topology", t)?;
    reject_unknown("topology.", t, &["torus", "nvlink_domain"])?;
    if t.len() != 1 {
        return Err(err(
            "topology",
            "expected exactly one of torus or nvlink_domain",
        ));
    }
    if let Some(torus) = t.get("torus") {
        let o = object("topology.torus", torus)?;
        reject_unknown(
            "topology.torus.",
            o,
            &["dims", "max_slice", "host", "wrap", "cores"],
        )?;
        let need = |k: &str| {
            o.get(k)
                .ok_or_else(|| err(format!("topology.torus.{k}"), "missing"))
        };
        let dims = whole("topology.torus.dims", need("dims")?, 3)?;
        let triple = |k: &str| -> Result<[u32; 3], ImportError> {
            let field = format!("topology.torus.{k}");
            let list = need(k)?
                .as_array()
                .filter(|a| a.len() == 3)
                .ok_or_else(|| err(&field, "expected three whole numbers [x, y, z]"))?;
            let mut out = [1; 3];
            for (slot, v) in out.iter_mut().zip(list) {
                *slot = whole(&field, v, MAX_CHIPS)?;
            }
            Ok(out)
        };
        let wrap = match need("wrap")?.as_str() {
            Some("full-cube") => WrapRule::FullCube,
            Some("axis-16") => WrapRule::Axis16,
            Some("full-pod") => WrapRule::FullPod,
            _ => {
                return Err(err(
                    "topology.torus.wrap",
                    "expected \"full-cube\", \"axis-16\" or \"full-pod\"",
                ))
            }
        };
        Ok(Topology::Torus {
            dims: u8::try_from(dims).map_err(|_| err("topology.torus.dims", "expected 2 or 3"))?,
            max_slice: triple("max_slice")?,
            host: triple("host")?,
            wrap,
            cores: whole("topology.torus.cores", need("cores")?, 8)?,
            source: READER,
        })
    } else {
        let domain = t.get("nvlink_domain").unwrap_or(&Value::Null);
        let o = object("topology.nvlink_domain", domain)?;
        reject_unknown(
            "topology.nvlink_domain.",
            o,
            &["gpus", "sms", "node_egress"],
        )?;
        let need = |k: &str| {
            o.get(k)
                .ok_or_else(|| err(format!("topology.nvlink_domain.{k}"), "missing"))
        };
        let node_egress = match o.get("node_egress") {
            None | Some(Value::Null) => None,
            Some(v) => Some(BytesPerSec(quantity(
                "topology.nvlink_domain.node_egress",
                v,
                Dimension::BYTE_RATE,
                "bytes/s",
            )?)),
        };
        Ok(Topology::NvlinkDomain {
            gpus: whole("topology.nvlink_domain.gpus", need("gpus")?, MAX_CHIPS)?,
            sms: whole("topology.nvlink_domain.sms", need("sms")?, 10_000)?,
            node_egress,
            source: READER,
        })
    }
}

#[cfg(test)]
mod limit_tests {
    use super::*;
    use crate::dtype::Dtype;
    use crate::hardware::CHIPS;

    #[test]
    fn a_specs_ridge_is_the_registry_chips() {
        for c in CHIPS {
            let spec = crate::reader::compact::spec_of(c);
            assert_eq!(validate_chip(c), Ok(()), "{}", c.id);
            assert_eq!(spec.validate(), Ok(()), "{}", c.id);
            assert_eq!(
                spec.ridge(Dtype::Bf16, Link::Hbm),
                c.ridge(Dtype::Bf16, Link::Hbm),
                "{}",
                c.id
            );
        }
    }
}

#[cfg(all(test, feature = "library"))]
mod tests {
    use super::*;

    #[test]
    fn every_registry_chip_meets_the_limits() {
        for c in CHIPS {
            assert_eq!(validate_chip(c), Ok(()), "{}", c.id);
        }
    }

    #[test]
    fn start_from_copies_and_overrides_with_units() {
        let spec = parse_chip(
            r#"{"name": "MI300X-like", "start_from": "h100",
                "peaks": {"bf16": "1.3 PFLOP/s", "fp8": "2.6 PFLOP/s"},
                "hbm": {"capacity": "192 GB", "bandwidth": "5.3 TB/s"},
                "links": {"nvlink": "448e9"}}"#,
        )
        .unwrap();
        let h100 = chip("h100").unwrap();
        let c = spec.clone().leak();
        assert_eq!(c.peak(Dtype::Bf16), Some(FlopsPerSec(1.3e15)));
        assert_eq!(c.peak(Dtype::Int8), h100.peak(Dtype::Int8));
        assert_eq!(c.hbm_capacity.value, Bytes(192e9));
        assert_eq!(c.hbm_bw(), BytesPerSec(5.3e12));
        assert_eq!(c.bandwidth(Link::NvLink), Some(BytesPerSec(448e9)));
        assert_eq!(c.bandwidth(Link::ScaleOut), h100.bandwidth(Link::ScaleOut));
        assert_eq!(c.links[0].link, Link::Hbm);
        assert_eq!(c.topology, h100.topology);
        assert_eq!(validate_chip(c), Ok(()));
        assert_eq!(spec.started_from, Some("h100"));
        // The copied HBM capacity keeps its citation; the reader's is marked.
        assert_eq!(c.hbm_capacity.source, READER);
        assert_eq!(
            c.link(Link::ScaleOut).unwrap().source,
            h100.link(Link::ScaleOut).unwrap().source
        );
    }

    #[test]
    fn a_torus_from_scratch() {
        let spec = parse_chip(
            r#"{"name": "next TPU", "vendor": "google", "peaks": {"bf16": 2.3e15},
                "hbm": {"capacity": "192 GiB", "bandwidth": "7.4 TB/s"},
                "links": {"ici": "200 GB/s", "dcn": "25 GB/s"},
                "topology": {"torus": {"dims": 3, "max_slice": [16, 16, 32], "host": [2, 2, 1],
                             "wrap": "full-cube", "cores": 2}}}"#,
        )
        .unwrap();
        assert_eq!(spec.hbm_capacity.value, Bytes(192.0 * 1024f64.powi(3)));
        assert!(matches!(
            spec.topology,
            Topology::Torus {
                dims: 3,
                cores: 2,
                ..
            }
        ));
    }

    #[test]
    fn refusals_name_the_field_and_the_limit() {
        let cases = [
            (r#"{"start_from": "v9"}"#, "start_from", "v5e"),
            (
                r#"{"start_from": "v5e", "peaks": {"bf17": 1}}"#,
                "peaks.bf17",
                "bf16",
            ),
            (
                r#"{"start_from": "v5e", "peaks": {"bf16": "NaN"}}"#,
                "peaks.bf16",
                "",
            ),
            (
                r#"{"start_from": "v5e", "peaks": {"bf16": 1e30}}"#,
                "peaks.bf16",
                "1e18",
            ),
            (
                r#"{"start_from": "v5e", "peaks": {"bf16": -5}}"#,
                "peaks.bf16",
                "at least 1e6 FLOPs/s",
            ),
            (
                r#"{"start_from": "v5e", "hbm": {"bandwidth": "5 GB"}}"#,
                "hbm.bandwidth",
                "bytes/s",
            ),
            (
                r#"{"start_from": "v5e", "hbm": {"capacity": "0 GB"}}"#,
                "hbm.capacity",
                "at least 1e6 bytes",
            ),
            (
                r#"{"start_from": "v5e", "peaks": {"bf16": 5e-324}}"#,
                "peaks.bf16",
                "at least 1e6 FLOPs/s",
            ),
            (
                r#"{"start_from": "v5e", "hbm": {"bandwidth": "1 B/s"}}"#,
                "hbm.bandwidth",
                "at least 1e3 bytes/s",
            ),
            (
                r#"{"start_from": "v5e", "topology": {"torus": {"dims": 2, "max_slice": [100000, 100000, 1], "host": [1, 1, 1], "wrap": "full-cube", "cores": 1}}}"#,
                "topology.torus.max_slice",
                "at most 1000000",
            ),
            (
                r#"{"start_from": "v5e", "links": {"hbm": "1 TB/s"}}"#,
                "links.hbm",
                "under hbm",
            ),
            (
                r#"{"start_from": "v5e", "colour": "red"}"#,
                "colour",
                "one of",
            ),
            (
                r#"{"start_from": "v5e", "vendor": "nvidia"}"#,
                "topology",
                "nvlink_domain",
            ),
            (
                r#"{"start_from": "h100", "topology": {"nvlink_domain": {"gpus": 0, "sms": 1}}}"#,
                "topology.nvlink_domain.gpus",
                "1 to 100000",
            ),
            (
                r#"{"name": "x", "vendor": "google"}"#,
                "hbm.capacity",
                "missing",
            ),
            (r#"{"start_from": "v5e", "name": ""}"#, "name", "1 to 60"),
            ("[]", "(JSON)", "object"),
            ("{", "(JSON)", "line 1"),
        ];
        for (text, field, says) in cases {
            let e = parse_chip(text).unwrap_err();
            assert_eq!(e.field, field, "{text}: {e}");
            assert!(e.message.contains(says), "{text}: {e}");
        }
        let big = " ".repeat(MAX_CHIP_BYTES + 1);
        assert_eq!(
            parse_chip(&big).unwrap_err().field,
            "(the whole definition)"
        );
    }
}
