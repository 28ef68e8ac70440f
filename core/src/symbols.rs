//! The book's symbols: one table read by the chapters, the grader and the
//! notation page.
//!
//! Each [`Symbol`] gives the name a student types (`W_ici`), its TeX as the
//! chapters write it (`W_\text{ici}`), what it means, its unit, the bare symbol
//! it specialises (`W` for every bandwidth `W_…`, `T` for every time `T_…`) and
//! the part of the book that introduces it. [`lookup`] reads all the spellings
//! a reader or a chapter uses: `W_ici`, `W_{ici}`, `W_\text{ici}`,
//! `W_{\text{ici}}`, `W_\mathrm{ici}`, and a subscript in another case (`W_ICI`)
//! when only one symbol fits.
//!
//! The grader ([`crate::exercises::expr`]) reads a subscripted symbol as a
//! declared bare one only when [`Symbol::specialises`] says so: `W_ici` stands
//! for `W`, `W_in` (a weight matrix) does not, and `W_banana` is refused with
//! the known forms ([`forms_of`]).
//!
//! ```
//! use ridgeline_core::symbols::{lookup, stands_for};
//!
//! let ici = lookup(r"W_\text{ici}").unwrap();
//! assert_eq!(ici.name, "W_ici");
//! assert_eq!(lookup("W_{ici}"), Some(ici));
//! assert_eq!(ici.unit, "bytes/s");
//! assert!(stands_for("W_link", "W"));
//! assert!(!stands_for("W_in", "W"));
//! assert!(!stands_for("W_banana", "W"));
//! ```

/// One symbol of the book's notation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Symbol {
    /// The name as a student types it (`W_ici`, `α`).
    pub name: &'static str,
    /// Its TeX as the chapters write it (`W_\text{ici}`, `\alpha`).
    pub tex: &'static str,
    /// What it means, in a phrase.
    pub meaning: &'static str,
    /// Its unit (`bytes/s`, `s`), or `""` for a pure number.
    pub unit: &'static str,
    /// The bare symbol it is a case of (`W` for `W_ici`), if any: only then may
    /// it stand for that symbol in a formula.
    pub specialises: Option<&'static str>,
    /// The part of the book that introduces it.
    pub part: u8,
}

impl Symbol {
    /// The symbol for display: its letter and its subscript as the chapters
    /// write it, TeX wrappers removed and spaces kept (`("T", "AG or RS")`;
    /// `("B", "")` for a bare letter).
    pub fn display(&self) -> (String, String) {
        let base = key(self.name).0;
        let sub = self.tex.split_once('_').map_or("", |(_, s)| s);
        let mut sub = sub.to_string();
        for cmd in TEX_WRAPPERS {
            sub = sub.replace(cmd, "");
        }
        (base, sub.replace(['{', '}'], "").trim().to_string())
    }
}

const fn sym(
    name: &'static str,
    tex: &'static str,
    meaning: &'static str,
    unit: &'static str,
    specialises: Option<&'static str>,
    part: u8,
) -> Symbol {
    Symbol {
        name,
        tex,
        meaning,
        unit,
        specialises,
        part,
    }
}

/// Every symbol of the book that the chapters or the exercises write: the
/// single letters first, then the subscripted ones grouped by letter. (One
/// row per line, so the table reads as one.)
#[rustfmt::skip]
pub const SYMBOLS: &[Symbol] = &[
    // The single letters of the book's notation.
    sym("B", "B", "batch size in tokens (Part 12 also writes B for the bytes of a collective)", "tokens", None, 1),
    sym("D", "D", "model width (d_model), the contracting dimension of a matmul", "elements", None, 1),
    sym("F", "F", "MLP hidden width (d_ff), the output dimension of a matmul", "elements", None, 1),
    sym("T", "T", "a time; Part 4 also writes T for the sequence length", "s", None, 1),
    sym("C", "C", "an accelerator's peak FLOPs per second", "FLOPs/s", None, 1),
    sym("W", "W", "a bandwidth, bytes moved per second over one kind of link", "bytes/s", None, 1),
    sym("I", "I", "arithmetic intensity: FLOPs per byte moved", "FLOPs/byte", None, 1),
    sym("N", "N", "query heads (Part 4); the number of devices in a collective (Parts 3, 12)", "", None, 3),
    sym("V", "V", "the bytes of an array in a collective (Part 3); the vocabulary size (Part 4)", "bytes", None, 3),
    sym("X", "X", "a mesh axis and its size in chips; the data-parallel degree in Part 5", "chips", None, 3),
    sym("Y", "Y", "a mesh axis and its size in chips; the tensor-parallel degree in Part 5", "chips", None, 3),
    sym("Z", "Z", "a mesh axis and its size in chips; the expert-parallel degree in Part 12", "chips", None, 3),
    sym("\u{3b1}", r"\alpha", "the ICI intensity C / W_ici: FLOPs per byte of inter-chip traffic", "FLOPs/byte", None, 3),
    sym("L", "L", "number of layers", "", None, 4),
    sym("K", "K", "key/value heads", "", None, 4),
    sym("H", "H", "head dimension", "elements", None, 4),
    sym("S", "S", "sequence (context) length; Part 5 also writes S for pipeline stages", "tokens", None, 4),
    sym("E", "E", "experts in a Mixture-of-Experts layer", "", None, 4),
    sym("k", "k", "experts each token is routed to", "", None, 4),
    sym("G", "G", "query heads sharing one key/value head (N / K); Part 8 also writes G for generated tokens", "", None, 4),
    sym("P", "P", "parameter count (Part 8 also writes P for the prompt length)", "parameters", None, 4),
    sym("M", "M", "microbatches of a pipeline (Part 5); nodes in a collective (Part 12)", "", None, 5),
    sym("\u{3b2}", r"\beta", "bits per weight over bits per activation", "", None, 7),
    // Times.
    sym("T_math", r"T_\text{math}", "time spent on FLOPs", "s", Some("T"), 1),
    sym("T_comms", r"T_\text{comms}", "time spent moving bytes", "s", Some("T"), 1),
    sym("T_AllGather", r"T_\text{AllGather}", "time of an AllGather", "s", Some("T"), 3),
    sym("T_ReduceScatter", r"T_\text{ReduceScatter}", "time of a ReduceScatter", "s", Some("T"), 3),
    sym("T_AllReduce", r"T_\text{AllReduce}", "time of an AllReduce", "s", Some("T"), 3),
    sym("T_min", r"T_\text{min}", "latency of one hop of a collective", "s", Some("T"), 3),
    sym("T_hop", r"T_\text{hop}", "time of one hop of a ring collective: the larger of its latency and its transfer", "s", Some("T"), 3),
    sym("T_step", r"T_\text{step}", "time of one decode step", "s", Some("T"), 7),
    sym("T_ici", r"T_\text{ici}", "time spent on inter-chip traffic", "s", Some("T"), 7),
    sym("T_hbm", r"T_\text{hbm}", "time spent reading HBM", "s", Some("T"), 7),
    sym("T_AGorRS", r"T_\text{AG or RS}", "time of an AllGather or a ReduceScatter", "s", Some("T"), 12),
    sym("T_AllToAll", r"T_\text{AllToAll}", "time of an AllToAll", "s", Some("T"), 3),
    sym("T_SHARP", r"T_\text{SHARP}", "time of an AllReduce reduced in the switches (SHARP)", "s", Some("T"), 12),
    sym("T_total", r"T_\text{total}", "time of a whole collective (Part 3: over every hop of a ring; Part 12: over all levels of the network)", "s", Some("T"), 3),
    sym("T_PPcomms", r"T_\text{PP comms}", "communication time of a pipeline", "s", Some("T"), 12),
    sym("T_perlayer", r"T_\text{per layer}", "communication time of a pipeline per layer", "s", Some("T"), 12),
    // Bandwidths, and the weight matrices that share the letter.
    sym("W_hbm", r"W_\text{hbm}", "HBM bandwidth of one chip", "bytes/s", Some("W"), 1),
    sym("W_ici", r"W_\text{ici}", "inter-chip (ICI) bandwidth of one chip", "bytes/s", Some("W"), 2),
    sym("W_vmem", r"W_\text{vmem}", "VMEM bandwidth of one TensorCore (about 22 times HBM's)", "bytes/s", Some("W"), 2),
    sym("W_dcn", r"W_\text{dcn}", "data-centre network bandwidth of one chip", "bytes/s", Some("W"), 2),
    sym("W_pcie", r"W_\text{pcie}", "PCIe bandwidth between host and chip", "bytes/s", Some("W"), 2),
    sym("W_link", r"W_\text{link}", "bandwidth of one link of the network", "bytes/s", Some("W"), 12),
    sym("W_gpu", r"W_\text{gpu}", "NVLink bandwidth of one GPU", "bytes/s", Some("W"), 12),
    sym("W_node", r"W_\text{node}", "egress bandwidth of one node", "bytes/s", Some("W"), 12),
    sym("W_collective", r"W_\text{collective}", "bandwidth a collective sees on one axis (W_gpu or W_node)", "bytes/s", Some("W"), 12),
    sym("W_in", r"W_\text{in}", "the MLP's input weight matrix [D, F]", "", None, 4),
    sym("W_in1", r"W_\text{in1}", "a gated MLP's first input weight matrix [D, F]", "", None, 4),
    sym("W_in2", r"W_\text{in2}", "a gated MLP's second input (gate) weight matrix [D, F]", "", None, 4),
    sym("W_out", r"W_\text{out}", "the MLP's output weight matrix [F, D]", "", None, 4),
    // Intensities.
    sym("I_dot", r"I_\text{dot}", "intensity of a dot product", "FLOPs/byte", Some("I"), 1),
    sym("I_matmul", r"I_\text{matmul}", "intensity of a matmul", "FLOPs/byte", Some("I"), 1),
    sym("I_tile", r"I_\text{tile}", "intensity of one tile of a blocked matmul", "FLOPs/byte", Some("I"), 1),
    // Peaks per dtype.
    sym("C_bf16", r"C_\text{bf16}", "peak bf16 FLOPs per second", "FLOPs/s", Some("C"), 1),
    sym("C_int8", r"C_\text{int8}", "peak int8 operations per second", "FLOPs/s", Some("C"), 1),
    // Batches and degrees.
    sym("B_crit", r"B_\text{crit}", "the critical batch above which a matmul is compute-bound", "tokens", Some("B"), 1),
    sym("X_opt", r"X_\text{opt}", "the best FSDP degree of an FSDP + tensor-parallel split", "chips", Some("X"), 5),
    sym("T_FSDP", r"T_\text{FSDP}", "the FSDP (weight) collectives' time in an FSDP + tensor-parallel split", "s", Some("T"), 5),
    sym("T_TP", r"T_\text{TP}", "the tensor-parallel (activation) collectives' time in an FSDP + tensor-parallel split", "s", Some("T"), 5),
    sym("M_X", "M_X", "mesh axes the FSDP dimension is sharded over", "", None, 5),
    sym("M_Y", "M_Y", "mesh axes the tensor-parallel dimension is sharded over", "", None, 5),
    // Counts and sizes in Parts 7 and 12.
    sym("P_bytes", r"P_\text{bytes}", "bytes of the parameters", "bytes", None, 7),
    sym("N_SM", r"N_\text{SM}", "streaming multiprocessors of a GPU", "", None, 12),
    sym("N_MB", r"N_\text{MB}", "microbatches of a pipeline", "", None, 12),
    sym("N_stages", r"N_\text{stages}", "stages of a pipeline", "", None, 12),
    sym("N_layers", r"N_\text{layers}", "layers of a model", "", None, 12),
    sym("D_node", r"D_\text{node}", "GPUs in one node", "GPUs", None, 12),
    sym("f_clock", r"f_\text{clock}", "clock frequency", "Hz", None, 12),
];

/// TeX commands for Greek letters, and the letters they write.
const GREEK: &[(&str, &str)] = &[(r"\alpha", "\u{3b1}"), (r"\beta", "\u{3b2}")];

/// A symbol's spelling reduced to `base` and `subscript`: the TeX wrappers
/// (`{…}`, `\text{…}`, `\mathrm{…}`), spaces and commas are dropped, and a TeX
/// Greek letter becomes the letter (`\alpha` is `α`).
pub fn key(text: &str) -> (String, String) {
    let text = text.trim();
    let (base, sub) = match text.split_once('_') {
        Some((b, s)) => (b.trim(), s),
        None => (text, ""),
    };
    let base = GREEK
        .iter()
        .find(|(tex, _)| *tex == base)
        .map_or(base, |(_, letter)| *letter);
    (base.to_string(), subscript(sub))
}

/// TeX commands that only set a subscript's font (longest first, so `\textrm`
/// goes before `\text`).
const TEX_WRAPPERS: [&str; 5] = [r"\textrm", r"\text", r"\mathrm", r"\mathit", r"\rm"];

/// A subscript with its TeX wrappers, spaces and commas removed:
/// `{\text{AG or RS}}` is `AGorRS`.
pub fn subscript(raw: &str) -> String {
    let mut s = raw.to_string();
    for cmd in TEX_WRAPPERS {
        s = s.replace(cmd, "");
    }
    s.chars()
        .filter(|c| !matches!(c, '{' | '}' | ',') && !c.is_whitespace())
        .collect()
}

/// The symbol a name or TeX spelling stands for: `W_ici`, `W_{ici}`,
/// `W_\text{ici}`, `\alpha`. A subscript in another case (`W_ICI`) is read
/// when exactly one symbol fits.
pub fn lookup(text: &str) -> Option<&'static Symbol> {
    let (base, sub) = key(text);
    if let Some(s) = SYMBOLS
        .iter()
        .find(|s| key(s.name) == (base.clone(), sub.clone()))
    {
        return Some(s);
    }
    if sub.is_empty() {
        return None;
    }
    let mut fits = SYMBOLS.iter().filter(|s| {
        let (b, s) = key(s.name);
        b == base && s.eq_ignore_ascii_case(&sub)
    });
    match (fits.next(), fits.next()) {
        (Some(s), None) => Some(s),
        _ => None,
    }
}

/// The subscripted symbols that specialise `base` (`W_hbm`, `W_ici`, … for
/// `W`), in table order.
pub fn forms_of(base: &str) -> impl Iterator<Item = &'static Symbol> + '_ {
    SYMBOLS.iter().filter(move |s| s.specialises == Some(base))
}

/// Whether the subscripted `name` (in any spelling [`lookup`] reads) may stand
/// for the bare symbol `base` in a formula.
pub fn stands_for(name: &str, base: &str) -> bool {
    lookup(name).is_some_and(|s| s.specialises == Some(base))
}

/// Why the subscripted `name` may not stand for the bare `base`: what the book
/// means by it, or the forms of `base` it knows. `None` when it may.
pub fn refusal(name: &str, base: &str) -> Option<String> {
    if stands_for(name, base) {
        return None;
    }
    let forms: Vec<&str> = forms_of(base).map(|s| s.name).collect();
    let known = if forms.is_empty() {
        format!("write {base}")
    } else {
        format!(
            "write {base} or one of the book's forms of it: {}",
            forms.join(", ")
        )
    };
    Some(match lookup(name) {
        Some(s) => format!(
            "'{name}' is not a form of {base}: the book writes {} for {}; {known}",
            s.name, s.meaning
        ),
        None => format!("'{name}' is not one of the book's symbols; {known}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_finds_the_same_symbol() {
        let ici = lookup("W_ici").unwrap();
        for text in [
            "W_{ici}",
            r"W_\text{ici}",
            r"W_{\text{ici}}",
            r"W_\mathrm{ici}",
            "W_{ ici }",
            "W_ICI",
        ] {
            assert_eq!(lookup(text), Some(ici), "{text}");
        }
        assert_eq!(lookup(r"T_\text{AG or RS}").unwrap().name, "T_AGorRS");
        assert_eq!(lookup(r"\alpha").unwrap().name, "\u{3b1}");
        assert_eq!(lookup("B").unwrap().unit, "tokens");
        assert_eq!(lookup("W_banana"), None);
        assert_eq!(lookup("Q"), None);
    }

    #[test]
    fn display_keeps_the_chapters_spelling() {
        let show = |name: &str| lookup(name).unwrap().display();
        assert_eq!(show("T_AGorRS"), ("T".into(), "AG or RS".into()));
        assert_eq!(show("W_ici"), ("W".into(), "ici".into()));
        assert_eq!(show("M_X"), ("M".into(), "X".into()));
        assert_eq!(show("\u{3b1}"), ("\u{3b1}".into(), String::new()));
    }

    #[test]
    fn the_table_is_consistent() {
        for (i, s) in SYMBOLS.iter().enumerate() {
            // The typed name and the TeX spell the same symbol.
            assert_eq!(key(s.name), key(s.tex), "{}", s.name);
            // Names are unique, even ignoring the case of the subscript.
            assert_eq!(lookup(s.name), Some(s), "{}", s.name);
            assert!(
                SYMBOLS[..i].iter().all(|t| key(t.name) != key(s.name)),
                "{} twice",
                s.name
            );
            assert!((0..=12).contains(&s.part), "{}", s.name);
            assert!(!s.meaning.is_empty(), "{}", s.name);
            // A specialisation is of its own letter, which has a row, and has
            // that letter's unit.
            if let Some(base) = s.specialises {
                assert_eq!(key(s.name).0, base, "{}", s.name);
                let bare = lookup(base).unwrap_or_else(|| panic!("{base} has no row"));
                assert_eq!(bare.unit, s.unit, "{}", s.name);
                assert!(bare.part <= s.part, "{} before {base}", s.name);
            }
        }
    }

    #[test]
    fn specialisations_decide_what_stands_for_a_bare_symbol() {
        assert!(stands_for("W_ici", "W"));
        assert!(stands_for("W_{hbm}", "W"));
        assert!(stands_for(r"T_\text{math}", "T"));
        assert!(!stands_for("W_ici", "T"));
        assert!(!stands_for("W_in", "W"));
        assert!(!stands_for("N_stages", "N"));
        let w: Vec<&str> = forms_of("W").map(|s| s.name).collect();
        assert!(w.contains(&"W_link") && w.contains(&"W_gpu"), "{w:?}");
        assert!(!w.contains(&"W_out"), "{w:?}");
        assert_eq!(refusal("W_link", "W"), None);
        let banana = refusal("W_banana", "W").unwrap();
        assert!(
            banana.contains("'W_banana' is not one of the book's symbols"),
            "{banana}"
        );
        assert!(banana.contains("W_hbm, W_ici"), "{banana}");
        let weights = refusal("W_in", "W").unwrap();
        assert!(weights.contains("input weight matrix"), "{weights}");
        let layers = refusal("N_layers", "N").unwrap();
        assert!(layers.ends_with("write N"), "{layers}");
    }
}
