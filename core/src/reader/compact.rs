//! The compact form of a reader's own chip or model: one short line of text
//! with a version tag, which every page can read and a widget's URL can carry
//! (so that a link reproduces the reader's plot on another machine).
//!
//! ```text
//! c1~fast v5e~g~bf16:1.97e14_int8:3.94e14~1.6e10~hbm:1.62e12_ici:9e10:4.5e10~t:2:16x16x1:4x2x1:axis16:1
//! m1~half 8B~4096~14336~16~32~8~128~128256~8192~g~-~-
//! ```
//!
//! A chip is `c1~NAME~VENDOR~PEAKS~HBM~LINKS~TOPOLOGY`: the vendor `g` (a
//! torus) or `n` (an NVLink domain); peaks as `dtype:FLOPs/s` joined by `_`;
//! the HBM capacity in bytes; links as `link:bytes/s[:one-way bytes/s]`; the
//! topology as `t:dims:XxYxZ:XxYxZ:wrap:cores` (slice, host, `cube`/`axis16`/
//! `pod`) or `n:gpus:sms:egress` (`-` for no egress figure). A model is
//! `m1~NAME~D~F~L~N~K~H~V~context~FLAGS~MOE~MLA`: flags `g` (gated MLP) and `t`
//! (tied embeddings) or `-`; the MoE as `E:k:shared:expert width:dense layers`
//! and MLA as `q rank:kv rank:nope:rope:v`, each `-` when absent. Numbers are
//! written in Rust's shortest exact form, so a decoded entry has every number
//! of the encoded one.
//!
//! The parser is written by hand (`split` and `str::parse`) rather than with a
//! JSON library: every page bundle reads this form, and a JSON parser would add
//! tens of kilobytes of WebAssembly to each of them. Decoded values go through
//! the same checks as an imported chip ([`ChipSpec::validate`]) or model
//! ([`ModelConfig::checked`]); decoding never panics.
//!
//! ```
//! use ridgeline_core::reader::compact::{decode_chip, encode_chip, spec_of};
//! use ridgeline_core::dtype::Dtype;
//! use ridgeline_core::hardware::{chip, Link};
//!
//! let mut spec = spec_of(chip("v5e").unwrap());
//! spec.name = "fast v5e".into();
//! for l in spec.links.iter_mut().filter(|l| l.link == Link::Hbm) {
//!     l.bandwidth.0 = 1.62e12;
//! }
//! let code = encode_chip(&spec).unwrap();
//! assert!(code.starts_with("c1~fast v5e~g~"));
//! let again = decode_chip(&code).unwrap();
//! assert_eq!(encode_chip(&again).unwrap(), code);
//! let c = again.leak_as(&code);
//! assert_eq!(c.ridge(Dtype::Bf16, Link::Hbm).unwrap().0.round(), 122.0);
//! assert!(decode_chip("c1~x~g~bf16:NaN~1e10~hbm:1e12~t:2:4x4x1:1x1x1:axis16:1").is_err());
//! ```

use crate::check::is_positive;
use crate::dtype::Dtype;
use crate::hardware::{Chip, Cited, Link, LinkSpec, Peak, Topology, Vendor, WrapRule};
use crate::model::config::{Mla, ModelConfig, Moe};
use crate::reader::chip::{ChipSpec, Refusal, Refused, MAX_NAME, READER};
use crate::units::{Bytes, BytesPerSec, FlopsPerSec};

/// The prefix of a saved entry's id in a picker (`my:NAME`), so that it can
/// never shadow a preset's.
pub const PREFIX: &str = "my:";
/// The tag that starts a chip's compact form (version 1).
pub const CHIP_TAG: &str = "c1~";
/// The tag that starts a model's compact form (version 1).
pub const MODEL_TAG: &str = "m1~";
/// The longest compact text read, in bytes (a registry chip takes about 150).
pub const MAX_CODE: usize = 1000;

/// The field separator, which a name may therefore not hold.
const SEP: char = '~';

/// A reader's model as the compact form carries it.
#[derive(Debug, Clone, PartialEq)]
pub struct OwnModel {
    /// The reader's name for it.
    pub name: String,
    /// Its shape.
    pub config: ModelConfig,
}

/// A decoded compact entry of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    /// A chip.
    Chip(ChipSpec),
    /// A model.
    Model(OwnModel),
}

impl Entry {
    /// The reader's name for the entry.
    pub fn name(&self) -> &str {
        match self {
            Entry::Chip(c) => &c.name,
            Entry::Model(m) => &m.name,
        }
    }
}

/// Decodes a compact entry of either kind (by its tag).
pub fn decode(code: &str) -> Result<Entry, String> {
    if code.starts_with(CHIP_TAG) {
        decode_chip(code).map(Entry::Chip)
    } else {
        decode_model(code).map(Entry::Model)
    }
}

/// Checks a name for the compact form: 1 to [`MAX_NAME`] characters without
/// spaces at either end, control characters or `~`.
pub fn check_name(name: &str) -> Result<(), String> {
    name_ok(name)
}

fn name_ok<E: Refusal<String>>(name: &str) -> Result<(), E> {
    let n = name.chars().count();
    if name.trim() != name || n == 0 || n > MAX_NAME {
        return Err(E::refuse(|| {
            format!("a name has 1 to {MAX_NAME} characters, without spaces at either end")
        }));
    }
    if name.chars().any(|c| c.is_control() || c == SEP) {
        return Err(E::refuse(|| {
            "a name may not hold control characters or “~”".into()
        }));
    }
    Ok(())
}

/// A registry chip as an owned [`ChipSpec`] under its own name (to change and encode).
pub fn spec_of(c: &Chip) -> ChipSpec {
    ChipSpec {
        name: c.name.to_string(),
        started_from: None,
        vendor: c.vendor,
        peaks: c.peaks.to_vec(),
        hbm_capacity: c.hbm_capacity,
        links: c.links.to_vec(),
        topology: c.topology,
    }
}

fn wrap_name(w: WrapRule) -> &'static str {
    match w {
        WrapRule::FullCube => "cube",
        WrapRule::Axis16 => "axis16",
        WrapRule::FullPod => "pod",
    }
}

fn triple(t: [u32; 3]) -> String {
    format!("{}x{}x{}", t[0], t[1], t[2])
}

/// The compact form of a chip, after the same checks as a decoded one.
pub fn encode_chip(spec: &ChipSpec) -> Result<String, String> {
    check_name(&spec.name)?;
    spec.validate().map_err(|e| e.to_string())?;
    let vendor = match spec.vendor {
        Vendor::Google => "g",
        Vendor::Nvidia => "n",
    };
    let peaks: Vec<String> = spec
        .peaks
        .iter()
        .map(|p| format!("{}:{:e}", p.dtype.name(), p.rate.0))
        .collect();
    let links: Vec<String> = spec
        .links
        .iter()
        .map(|l| match l.one_way {
            Some(o) => format!("{}:{:e}:{:e}", l.link.name(), l.bandwidth.0, o.0),
            None => format!("{}:{:e}", l.link.name(), l.bandwidth.0),
        })
        .collect();
    let topology = match spec.topology {
        Topology::Torus {
            dims,
            max_slice,
            host,
            wrap,
            cores,
            ..
        } => format!(
            "t:{dims}:{}:{}:{}:{cores}",
            triple(max_slice),
            triple(host),
            wrap_name(wrap)
        ),
        Topology::NvlinkDomain {
            gpus,
            sms,
            node_egress,
            ..
        } => format!(
            "n:{gpus}:{sms}:{}",
            node_egress.map_or("-".to_string(), |e| format!("{:e}", e.0))
        ),
    };
    Ok(format!(
        "{CHIP_TAG}{}~{vendor}~{}~{:e}~{}~{topology}",
        spec.name,
        peaks.join("_"),
        spec.hbm_capacity.value.0,
        links.join("_"),
    ))
}

/// The compact form of a model, after the same checks as a decoded one.
pub fn encode_model(m: &OwnModel) -> Result<String, String> {
    check_name(&m.name)?;
    check_model(&m.config)?;
    let c = &m.config;
    let mut flags = String::new();
    if c.gated {
        flags.push('g');
    }
    if c.tied_embeddings {
        flags.push('t');
    }
    if flags.is_empty() {
        flags.push('-');
    }
    let moe = c.moe.map_or("-".to_string(), |e| {
        format!(
            "{}:{}:{}:{}:{}",
            e.experts, e.active, e.shared, e.expert_ff, e.dense_layers
        )
    });
    let mla = c.mla.map_or("-".to_string(), |a| {
        format!(
            "{}:{}:{}:{}:{}",
            a.q_rank, a.kv_rank, a.nope_dim, a.rope_dim, a.v_dim
        )
    });
    Ok(format!(
        "{MODEL_TAG}{}~{}~{}~{}~{}~{}~{}~{}~{}~{flags}~{moe}~{mla}",
        m.name, c.d_model, c.d_ff, c.layers, c.heads, c.kv_heads, c.head_dim, c.vocab, c.max_seq,
    ))
}

/// The checks every reader's model meets: [`ModelConfig::checked`].
pub fn check_model(c: &ModelConfig) -> Result<(), String> {
    model_ok(c)
}

fn model_ok<E: Refusal<String>>(c: &ModelConfig) -> Result<(), E> {
    c.checked().map_err(|e| E::refuse(|| e.to_string()))?;
    Ok(())
}

/// The fields of a compact text after its tag, each taken with its name for
/// the refusal message.
struct Fields<'a> {
    parts: std::str::Split<'a, char>,
    kind: &'static str,
}

impl<'a> Fields<'a> {
    fn new<E: Refusal<String>>(
        code: &'a str,
        tag: &str,
        kind: &'static str,
    ) -> Result<Fields<'a>, E> {
        if code.len() > MAX_CODE {
            return Err(E::refuse(|| {
                format!(
                    "a compact {kind} has at most {MAX_CODE} bytes, this one {}",
                    code.len()
                )
            }));
        }
        let rest = code.strip_prefix(tag).ok_or_else(|| {
            E::refuse(|| {
                format!("a compact {kind} starts with “{tag}” (this page reads version 1)")
            })
        })?;
        Ok(Fields {
            parts: rest.split(SEP),
            kind,
        })
    }

    fn next<E: Refusal<String>>(&mut self, what: &str) -> Result<&'a str, E> {
        let kind = self.kind;
        self.parts
            .next()
            .ok_or_else(|| E::refuse(|| format!("the compact {kind} ends before its {what}")))
    }

    fn end<E: Refusal<String>>(mut self) -> Result<(), E> {
        match self.parts.next() {
            None => Ok(()),
            Some(_) => Err(E::refuse(|| {
                format!(
                    "the compact {} has more fields than a version-1 one",
                    self.kind
                )
            })),
        }
    }
}

fn number<E: Refusal<String>>(what: impl FnOnce() -> String, text: &str) -> Result<f64, E> {
    text.parse::<f64>()
        .ok()
        .filter(|v| is_positive(*v))
        .ok_or_else(|| {
            E::refuse(|| format!("{}: “{}” is not a positive number", what(), cut(text)))
        })
}

fn whole<E: Refusal<String>>(what: &str, text: &str) -> Result<u64, E> {
    text.parse::<u64>()
        .map_err(|_| E::refuse(|| format!("{what}: “{}” is not a whole number", cut(text))))
}

fn small<E: Refusal<String>>(what: &str, text: &str) -> Result<u32, E> {
    text.parse::<u32>()
        .map_err(|_| E::refuse(|| format!("{what}: “{}” is not a whole number", cut(text))))
}

/// At most 20 characters of a refused piece, for a message.
fn cut(text: &str) -> String {
    text.chars().take(20).collect()
}

fn read_triple<E: Refusal<String>>(what: &str, text: &str) -> Result<[u32; 3], E> {
    let mut out = [0; 3];
    let mut parts = text.split('x');
    for slot in &mut out {
        *slot = small(what, parts.next().unwrap_or(""))?;
    }
    if parts.next().is_some() {
        return Err(E::refuse(|| {
            format!("{what}: expected three numbers XxYxZ")
        }));
    }
    Ok(out)
}

fn read_topology<E: Refusal<String>>(text: &str) -> Result<Topology, E> {
    let p: Vec<&str> = text.split(':').collect();
    match p.as_slice() {
        ["t", dims, slice, host, wrap, cores] => Ok(Topology::Torus {
            dims: small::<E>("torus dimensions", dims)?.min(255) as u8,
            max_slice: read_triple("largest slice", slice)?,
            host: read_triple("chips per host", host)?,
            wrap: match *wrap {
                "cube" => WrapRule::FullCube,
                "axis16" => WrapRule::Axis16,
                "pod" => WrapRule::FullPod,
                _ => {
                    return Err(E::refuse(|| {
                        "wraparound: expected cube, axis16 or pod".into()
                    }))
                }
            },
            cores: small("TensorCores", cores)?,
            source: READER,
        }),
        ["n", gpus, sms, egress] => Ok(Topology::NvlinkDomain {
            gpus: small("GPUs per NVLink domain", gpus)?,
            sms: small("SMs", sms)?,
            node_egress: match *egress {
                "-" => None,
                e => Some(BytesPerSec(number(|| "node egress".into(), e)?)),
            },
            source: READER,
        }),
        _ => Err(E::refuse(|| {
            "topology: expected t:dims:XxYxZ:XxYxZ:wrap:cores or n:gpus:sms:egress".into()
        })),
    }
}

/// Decodes a chip's compact form, checked as an imported chip is.
pub fn decode_chip(code: &str) -> Result<ChipSpec, String> {
    chip_as(code)
}

/// [`decode_chip`] for a page that only needs the chip if it is sound: the
/// same reading and checks, without the messages (see [`Refusal`]).
pub fn read_chip(code: &str) -> Option<ChipSpec> {
    chip_as::<Refused>(code).ok()
}

fn chip_as<E: Refusal<String> + Refusal<crate::reader::chip::ImportError>>(
    code: &str,
) -> Result<ChipSpec, E> {
    let mut f = Fields::new::<E>(code, CHIP_TAG, "chip")?;
    let name = f.next::<E>("name")?.to_string();
    name_ok::<E>(&name)?;
    let vendor = match f.next::<E>("vendor")? {
        "g" => Vendor::Google,
        "n" => Vendor::Nvidia,
        _ => {
            return Err(E::refuse(|| {
                "vendor: expected g (a torus) or n (an NVLink domain)".to_string()
            }))
        }
    };
    let mut peaks: Vec<Peak> = Vec::new();
    for item in f.next::<E>("peaks")?.split('_') {
        let (d, v) = item.split_once(':').unwrap_or((item, ""));
        let dtype = Dtype::parse(d)
            .ok_or_else(|| E::refuse(|| format!("peaks: “{}” is not a format", cut(d))))?;
        if peaks.iter().any(|p| p.dtype == dtype) {
            return Err(E::refuse(|| {
                format!("peaks: {} is given twice", dtype.name())
            }));
        }
        peaks.push(Peak {
            dtype,
            rate: FlopsPerSec(number::<E>(|| format!("peak {}", dtype.name()), v)?),
            source: READER,
        });
    }
    let hbm_capacity = Cited {
        value: Bytes(number::<E>(
            || "HBM capacity".into(),
            f.next::<E>("HBM capacity")?,
        )?),
        source: READER,
    };
    let mut links: Vec<LinkSpec> = Vec::new();
    for item in f.next::<E>("links")?.split('_') {
        let mut p = item.split(':');
        let l = p.next().unwrap_or("");
        let link = Link::parse(l)
            .ok_or_else(|| E::refuse(|| format!("links: “{}” is not a link", cut(l))))?;
        if links.iter().any(|x| x.link == link) {
            return Err(E::refuse(|| {
                format!("links: {} is given twice", link.name())
            }));
        }
        let what = || format!("{} bandwidth", link.name());
        let bandwidth = BytesPerSec(number::<E>(what, p.next().unwrap_or(""))?);
        let one_way = match p.next() {
            None => None,
            Some(o) => Some(BytesPerSec(number::<E>(what, o)?)),
        };
        if p.next().is_some() {
            return Err(E::refuse(|| {
                format!("{}: expected at most two numbers", what())
            }));
        }
        links.push(LinkSpec {
            link,
            bandwidth,
            one_way,
            source: READER,
        });
    }
    let topology = read_topology::<E>(f.next::<E>("topology")?)?;
    f.end::<E>()?;
    let spec = ChipSpec {
        name,
        started_from: None,
        vendor,
        peaks,
        hbm_capacity,
        links,
        topology,
    };
    spec.check::<E>()?;
    Ok(spec)
}

fn read_list<const N: usize, E: Refusal<String>>(
    what: &str,
    text: &str,
) -> Result<Option<[u64; N]>, E> {
    if text == "-" {
        return Ok(None);
    }
    let mut out = [0; N];
    let mut parts = text.split(':');
    for slot in &mut out {
        *slot = whole(what, parts.next().unwrap_or(""))?;
    }
    if parts.next().is_some() {
        return Err(E::refuse(|| format!("{what}: expected {N} numbers or -")));
    }
    Ok(Some(out))
}

/// Decodes a model's compact form, checked as an imported model is.
pub fn decode_model(code: &str) -> Result<OwnModel, String> {
    model_as(code)
}

/// [`decode_model`] for a page that only needs the model if it is sound:
/// the same reading and checks, without the messages (see [`Refusal`]).
pub fn read_model(code: &str) -> Option<OwnModel> {
    model_as::<Refused>(code).ok()
}

fn model_as<E: Refusal<String>>(code: &str) -> Result<OwnModel, E> {
    let mut f = Fields::new::<E>(code, MODEL_TAG, "model")?;
    let name = f.next::<E>("name")?.to_string();
    name_ok::<E>(&name)?;
    let mut dims = [0u64; 8];
    let names = [
        "d_model (D)",
        "d_ff (F)",
        "layers (L)",
        "query heads (N)",
        "key/value heads (K)",
        "head dimension (H)",
        "vocabulary (V)",
        "context length",
    ];
    for (slot, what) in dims.iter_mut().zip(names) {
        *slot = whole::<E>(what, f.next::<E>(what)?)?;
    }
    let flags = f.next::<E>("flags")?;
    if flags != "-" && !flags.chars().all(|c| c == 'g' || c == 't') {
        return Err(E::refuse(|| {
            "flags: expected g (gated), t (tied) or -".into()
        }));
    }
    let moe = read_list::<5, E>("MoE", f.next::<E>("MoE")?)?.map(|m| Moe {
        experts: m[0],
        active: m[1],
        shared: m[2],
        expert_ff: m[3],
        dense_layers: m[4],
    });
    let mla = read_list::<5, E>("MLA", f.next::<E>("MLA")?)?.map(|m| Mla {
        q_rank: m[0],
        kv_rank: m[1],
        nope_dim: m[2],
        rope_dim: m[3],
        v_dim: m[4],
    });
    f.end::<E>()?;
    let [d_model, d_ff, layers, heads, kv_heads, head_dim, vocab, max_seq] = dims;
    let config = ModelConfig {
        gated: flags.contains('g'),
        tied_embeddings: flags.contains('t'),
        moe,
        mla,
        ..ModelConfig::gqa(
            d_model, d_ff, layers, heads, kv_heads, head_dim, vocab, max_seq,
        )
    };
    model_ok::<E>(&config)?;
    Ok(OwnModel { name, config })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::CHIPS;
    use crate::model::accounting::params;
    use crate::model::config::MODELS;
    use proptest::prelude::*;

    /// Every number of a chip, without the citations.
    fn numbers(s: &ChipSpec) -> String {
        let peaks: Vec<_> = s.peaks.iter().map(|p| (p.dtype, p.rate)).collect();
        let links: Vec<_> = s
            .links
            .iter()
            .map(|l| (l.link, l.bandwidth, l.one_way))
            .collect();
        let topology = match s.topology {
            Topology::Torus {
                dims,
                max_slice,
                host,
                wrap,
                cores,
                ..
            } => format!("{dims} {max_slice:?} {host:?} {wrap:?} {cores}"),
            Topology::NvlinkDomain {
                gpus,
                sms,
                node_egress,
                ..
            } => format!("{gpus} {sms} {node_egress:?}"),
        };
        format!(
            "{} {:?} {peaks:?} {:?} {links:?} {topology}",
            s.name, s.vendor, s.hbm_capacity.value
        )
    }

    #[test]
    fn every_registry_chip_round_trips_with_every_number() {
        for c in CHIPS {
            let spec = spec_of(c);
            let code = encode_chip(&spec).unwrap();
            assert!(code.len() < 250, "{code}");
            let again = decode_chip(&code).unwrap();
            assert_eq!(numbers(&again), numbers(&spec), "{code}");
            assert_eq!(encode_chip(&again).unwrap(), code);
            let leaked = again.leak_as(&code);
            assert_eq!(leaked.id, code);
            assert_eq!(leaked.hbm_bw(), c.hbm_bw());
            assert_eq!(leaked.peak(Dtype::Bf16), c.peak(Dtype::Bf16));
        }
    }

    #[test]
    fn every_model_preset_round_trips_with_every_number() {
        for m in MODELS {
            let own = OwnModel {
                name: m.name.to_string(),
                config: m.config,
            };
            let code = encode_model(&own).unwrap();
            assert!(code.len() < 200, "{code}");
            assert_eq!(decode_model(&code).unwrap(), own, "{code}");
            assert_eq!(decode(&code).unwrap().name(), m.name);
            assert_eq!(
                params(&decode_model(&code).unwrap().config).total(),
                params(&m.config).total()
            );
        }
    }

    #[test]
    fn the_doc_example_model_is_half_of_llama3_8b() {
        let code = "m1~half 8B~4096~14336~16~32~8~128~128256~8192~g~-~-";
        let m = decode_model(code).unwrap();
        let full = crate::model::config::model("llama3-8b").unwrap().config;
        assert_eq!(m.config.layers * 2, full.layers);
        assert_eq!(m.config.d_model, full.d_model);
        assert_eq!(encode_model(&m).unwrap(), code);
    }

    #[test]
    fn refusals_say_what_was_expected() {
        let v5e = encode_chip(&spec_of(crate::hardware::chip("v5e").unwrap())).unwrap();
        let llama = "m1~x~4096~14336~16~32~8~128~128256~8192~g~-~-";
        let cases: Vec<(String, &str)> = vec![
            ("".into(), "starts with"),
            ("c2~x".into(), "version 1"),
            (v5e.replacen("~g~", "~q~", 1), "vendor"),
            (v5e.replacen("bf16:", "bf17:", 1), "not a format"),
            (
                v5e.replacen("bf16:1.97e14", "bf16:NaN", 1),
                "positive number",
            ),
            (v5e.replacen("bf16:1.97e14", "bf16:1e30", 1), "1e18"),
            (v5e.replacen("hbm:", "hbm:-", 1), "positive number"),
            (v5e.replacen("hbm:", "warp:", 1), "not a link"),
            (v5e.replacen("axis16", "axis17", 1), "wraparound"),
            (v5e.replacen("~t:2:", "~t:7:", 1), "expected 2 or 3"),
            (format!("{v5e}~extra"), "more fields"),
            (v5e.replacen("TPU v5e", " v5e", 1), "1 to 60"),
            (v5e.replacen("~t:", "~z:", 1), "topology"),
            (llama.replace("~16~", "~0~"), "layers (L) must be positive"),
            (llama.replace("~16~", "~1e3~"), "layers (L)"),
            (llama.replace("~32~8~", "~32~7~"), "divide"),
            (llama.replace("~g~", "~gx~"), "flags"),
            (llama.replace("~g~-~", "~g~8:9:0:10:0~"), "activates 9"),
            (
                llama
                    .replace("~16~", "~99999~")
                    .replace("~4096~", "~999999~"),
                "parameters",
            ),
            (llama.replace("~-~-", "~-"), "ends before its MLA"),
            ("m1~a~b".into(), "d_model"),
            (format!("c1~{}", "x".repeat(MAX_CODE)), "at most"),
        ];
        for (code, says) in cases {
            let e = decode(&code).unwrap_err();
            assert!(e.contains(says), "{code}: {e}");
        }
        let mut named = spec_of(crate::hardware::chip("h100").unwrap());
        named.name = "a~b".into();
        assert!(encode_chip(&named).unwrap_err().contains("~"));
    }

    proptest! {
        #[test]
        fn decoding_never_panics(s in "\\PC{0,300}") {
            // Whatever is accepted encodes back to a code that reads the same;
            // whatever is refused says why.
            for code in [s.clone(), format!("c1~{s}"), format!("m1~{s}")] {
                match decode(&code) {
                    Ok(Entry::Chip(c)) => {
                        prop_assert_eq!(decode_chip(&encode_chip(&c).unwrap()), Ok(c));
                    }
                    Ok(Entry::Model(m)) => {
                        let again = decode_model(&encode_model(&m).unwrap());
                        prop_assert_eq!(again, Ok(m));
                    }
                    Err(e) => prop_assert!(e.contains(':') || e.len() > 10, "{}: {}", code, e),
                }
            }
        }

        /// The quiet readers take exactly what the decoders take, and read
        /// it the same: only the messages are left out.
        #[test]
        fn the_quiet_readers_agree_with_the_decoders(i in 0usize..100, at in 0usize..250, ch in "[~:_xgnt0-9.e-]", s in "\\PC{0,80}") {
            let chip = encode_chip(&spec_of(&CHIPS[i % CHIPS.len()])).unwrap();
            let m = &MODELS[i % MODELS.len()];
            let model = encode_model(&OwnModel { name: m.name.to_string(), config: m.config }).unwrap();
            for code in [chip, model, format!("c1~{s}"), format!("m1~{s}")] {
                let mut chars: Vec<char> = code.chars().collect();
                let at = at % chars.len();
                chars[at] = ch.chars().next().unwrap_or('~');
                for c in [code.clone(), chars.into_iter().collect()] {
                    prop_assert_eq!(read_chip(&c), decode_chip(&c).ok(), "{}", c);
                    prop_assert_eq!(read_model(&c), decode_model(&c).ok(), "{}", c);
                }
            }
        }

        #[test]
        fn changed_registry_codes_never_panic(i in 0usize..100, at in 0usize..250, ch in "[~:_x0-9.e-]") {
            let c = &CHIPS[i % CHIPS.len()];
            let code = encode_chip(&spec_of(c)).unwrap();
            let mut bytes: Vec<char> = code.chars().collect();
            let at = at % bytes.len();
            bytes[at] = ch.chars().next().unwrap_or('~');
            let changed: String = bytes.into_iter().collect();
            match decode_chip(&changed) {
                // A changed code still accepted is a sound chip that encodes back
                // to a code read the same way.
                Ok(spec) => {
                    prop_assert_eq!(spec.validate(), Ok(()));
                    let again = encode_chip(&spec).unwrap();
                    prop_assert_eq!(decode_chip(&again), Ok(spec));
                }
                Err(e) => prop_assert!(!e.trim().is_empty(), "{}", changed),
            }
        }
    }
}
