//! The reader's saved models and chips as every page reads them: the compact
//! index ([`ridgeline_core::reader::compact`], one line per entry) that the library
//! bundle keeps in `localStorage` under [`INDEX_KEY`], as one reactive value
//! every picker reads.
//!
//! Page bundles carry only this: the compact form's small hand-written parser,
//! no JSON, no `config.json` import and no library file. The full library (its
//! versioned JSON, backups, export and import, the forms that save) is
//! [`store`], compiled only into the library bundle (Cargo feature `library`),
//! which rewrites the index on every save and announces it with the window
//! event [`EVENT`]; the pickers of the page then show the new entry at once.
//!
//! An entry is picked by `my:NAME` (from the index) or by its compact text
//! itself, which is the id its chip or model carries: a widget's URL therefore
//! holds the whole entry, and a link reproduces the plot in a browser that never
//! saw it. Natively (the static pages) the index is empty, so the build writes
//! the same pages as without it.

use std::cell::RefCell;

use leptos::prelude::*;
use ridgeline_core::hardware::{chip, Chip};
use ridgeline_core::model::accounting::params;
use ridgeline_core::model::config::{model, ModelPreset, ModelSource};
use ridgeline_core::reader::compact::{self, CHIP_TAG, MODEL_TAG, PREFIX};

#[cfg(feature = "library")]
pub mod store;

/// The `localStorage` key of the compact index.
pub const INDEX_KEY: &str = "ridgeline.library.index";
/// The window event the library bundle dispatches after it rewrote the index.
pub const EVENT: &str = "ridgeline-library";
/// The most index lines read (a library is a handful of entries).
const MAX_ENTRIES: usize = 200;

/// Leaked registry-type copies of entries, by compact text, so that each
/// entry is leaked once however often it is picked.
type Leaked<T> = RefCell<Vec<(String, &'static T)>>;

thread_local! {
    static INDEX: ArcRwSignal<Vec<String>> = start();
    static CHIPS: Leaked<Chip> = const { RefCell::new(Vec::new()) };
    static MODELS: Leaked<ModelPreset> = const { RefCell::new(Vec::new()) };
    /// Compact texts picked from a link rather than from the index (shown in
    /// the pickers too, so that the select can show the choice).
    static FROM_LINKS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The lines of an index text that look like entries (a chip's or a model's
/// tag, at most [`compact::MAX_CODE`] bytes). They are decoded only when a
/// picker lists or resolves them, each kind by its own decoder, so that a
/// bundle whose pickers take only chips carries only the chip decoder; one
/// that does not decode is skipped there (the library bundle rewrites the
/// index from the library it keeps).
pub fn read_index(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.len() <= compact::MAX_CODE)
        .filter(|l| l.starts_with(CHIP_TAG) || l.starts_with(MODEL_TAG))
        .take(MAX_ENTRIES)
        .map(str::to_string)
        .collect()
}

#[cfg(target_arch = "wasm32")]
fn stored_index() -> Vec<String> {
    let text = window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(INDEX_KEY).ok().flatten())
        .unwrap_or_default();
    read_index(&text)
}

fn start() -> ArcRwSignal<Vec<String>> {
    let index = ArcRwSignal::new(Vec::new());
    listen(&index);
    index
}

/// Reads the stored index into `index` now and again whenever the library
/// bundle saves (in this tab, or in another: the `storage` event).
#[cfg(target_arch = "wasm32")]
fn listen(index: &ArcRwSignal<Vec<String>>) {
    use wasm_bindgen::prelude::Closure;
    use wasm_bindgen::JsCast;
    index.set(stored_index());
    let again = index.clone();
    let reread = Closure::<dyn Fn()>::new(move || again.set(stored_index()));
    for event in [EVENT, "storage"] {
        let _ = window().add_event_listener_with_callback(event, reread.as_ref().unchecked_ref());
    }
    // The listener lives as long as the page.
    reread.forget();
}

/// Natively (the static pages, tests) nothing is stored: the index starts empty.
#[cfg(not(target_arch = "wasm32"))]
fn listen(_: &ArcRwSignal<Vec<String>>) {}

/// The index as this page last read it (reactive: reading it in a view tracks it).
pub fn index() -> ArcRwSignal<Vec<String>> {
    INDEX.with(ArcRwSignal::clone)
}

/// Replaces the index this page reads with `text`'s entries (the library
/// bundle after a save, and tests).
pub fn set_index(text: &str) {
    index().set(read_index(text));
}

/// The cached leak of `code`, else `make`'s, kept for next time.
fn cached<T>(
    cache: &'static std::thread::LocalKey<Leaked<T>>,
    code: &str,
    make: impl FnOnce() -> Option<&'static T>,
) -> Option<&'static T> {
    cache.with(|c| {
        if let Some((_, t)) = c.borrow().iter().find(|(x, _)| x == code) {
            return Some(*t);
        }
        let t = make()?;
        c.borrow_mut().push((code.to_string(), t));
        Some(t)
    })
}

/// The compact texts of the index entries of kind `tag` called `name`, in
/// index order (the name is the field after the tag; a name holds no `~`).
fn named(name: &str, tag: &str) -> Vec<String> {
    index().with_untracked(|codes| {
        codes
            .iter()
            .filter(|c| {
                c.strip_prefix(tag)
                    .and_then(|rest| rest.split('~').next())
                    .is_some_and(|n| n == name)
            })
            .cloned()
            .collect()
    })
}

/// Notes a compact text picked from a link, for the pickers.
fn from_link(code: &str) {
    FROM_LINKS.with(|l| {
        let mut l = l.borrow_mut();
        if !l.iter().any(|c| c == code) {
            l.push(code.to_string());
        }
    });
}

/// The reader's chip of compact text `code`, leaked once.
fn chip_of(code: &str) -> Option<&'static Chip> {
    cached(&CHIPS, code, || {
        compact::read_chip(code).map(|spec| spec.leak_as(code))
    })
}

/// The reader's model of compact text `code`, leaked once, cited as the
/// reader's own.
fn model_of(code: &str) -> Option<&'static ModelPreset> {
    cached(&MODELS, code, || {
        let m = compact::read_model(code)?;
        let leaked: &'static ModelPreset = Box::leak(Box::new(ModelPreset {
            id: Box::leak(code.to_string().into_boxed_str()),
            name: Box::leak(m.name.into_boxed_str()),
            config: m.config,
            published_params: params(&m.config).total(),
            source: ModelSource {
                part: None,
                citation: "the reader's own model",
            },
        }));
        Some(leaked)
    })
}

/// The chip picked by `id`: a registry chip, the reader's saved chip
/// (`my:NAME`, from the index), or a chip's compact text (from a link). A
/// reader's chip carries its compact text as its id.
pub fn resolve_chip(id: &str) -> Option<&'static Chip> {
    if let Some(c) = chip(id) {
        return Some(c);
    }
    if let Some(name) = id.strip_prefix(PREFIX) {
        return named(name, CHIP_TAG).iter().find_map(|c| chip_of(c));
    }
    if !id.starts_with(CHIP_TAG) {
        return None;
    }
    let c = chip_of(id)?;
    from_link(id);
    Some(c)
}

/// The model picked by `id`: a registry preset, the reader's saved model
/// (`my:NAME`, from the index), or a model's compact text (from a link),
/// carrying its compact text as its id.
pub fn resolve_model(id: &str) -> Option<&'static ModelPreset> {
    if let Some(m) = model(id) {
        return Some(m);
    }
    if let Some(name) = id.strip_prefix(PREFIX) {
        return named(name, MODEL_TAG).iter().find_map(|c| model_of(c));
    }
    if !id.starts_with(MODEL_TAG) {
        return None;
    }
    let m = model_of(id)?;
    from_link(id);
    Some(m)
}

/// The compact texts of the entries a picker offers under "Yours": the
/// index's (reactive), then those picked from a link.
fn own_codes(tag: &str) -> Vec<String> {
    let mut codes: Vec<String> = index().with(|codes| {
        codes
            .iter()
            .filter(|code| code.starts_with(tag))
            .cloned()
            .collect()
    });
    FROM_LINKS.with(|l| {
        for code in l.borrow().iter().filter(|c| c.starts_with(tag)) {
            if !codes.contains(code) {
                codes.push(code.clone());
            }
        }
    });
    codes
}

/// The reader's chips that `accept` takes, as they resolve (reactive).
pub fn own_chips(accept: fn(&'static Chip) -> bool) -> Vec<&'static Chip> {
    own_codes(CHIP_TAG)
        .iter()
        .filter_map(|code| chip_of(code))
        .filter(|c| accept(c))
        .collect()
}

/// The reader's models that `accept` takes, as they resolve (reactive).
pub fn own_models(accept: fn(&ModelPreset) -> bool) -> Vec<&'static ModelPreset> {
    own_codes(MODEL_TAG)
        .iter()
        .filter_map(|code| model_of(code))
        .filter(|m| accept(m))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::hardware::Link;
    use ridgeline_core::reader::compact::{encode_chip, encode_model, spec_of, OwnModel};

    /// A 16-layer LLaMA 3 8B and a v5e with 1.62 TB/s HBM, in compact form.
    pub(crate) fn sample_codes() -> (String, String) {
        let mut cfg = model("llama3-8b").unwrap().config;
        cfg.layers = 16;
        let m = encode_model(&OwnModel {
            name: "half 8B".into(),
            config: cfg,
        })
        .unwrap();
        let mut spec = spec_of(chip("v5e").unwrap());
        spec.name = "fast v5e".into();
        for l in spec.links.iter_mut().filter(|l| l.link == Link::Hbm) {
            l.bandwidth.0 = 1.62e12;
        }
        (m, encode_chip(&spec).unwrap())
    }

    /// A registry preset saved as the reader's own under `name`: its compact
    /// text, put in this thread's index.
    pub(crate) fn saved_as(id: &str, name: &str) -> String {
        let code = encode_model(&OwnModel {
            name: name.into(),
            config: model(id).unwrap().config,
        })
        .unwrap();
        set_index(&code);
        code
    }

    /// Puts [`sample_codes`] in this thread's index (each test runs on its own thread).
    pub(crate) fn with_own_entries() -> (String, String) {
        let (m, c) = sample_codes();
        set_index(&format!("{m}\nnot an entry\nc1~broken~g\n{c}\n"));
        (m, c)
    }

    #[test]
    fn resolvers_check_the_registry_then_the_index() {
        assert_eq!(resolve_chip("v5e").unwrap().id, "v5e");
        assert!(resolve_chip("my:fast v5e").is_none());
        let (m_code, c_code) = with_own_entries();
        // The line that is no entry is left out; the broken chip is kept in
        // the index but never offered (it does not decode).
        assert_eq!(index().with_untracked(Vec::len), 3);
        let c = resolve_chip("my:fast v5e").unwrap();
        assert_eq!(c.id, c_code);
        assert_eq!(c.name, "fast v5e");
        // Part 1: v5e's ridge is 1.97e14 / 8.2e11 ≈ 240; with 1.62 TB/s of HBM, 122.
        assert_eq!(c.ridge(Dtype::Bf16, Link::Hbm).unwrap().0.round(), 122.0);
        assert!(std::ptr::eq(c, resolve_chip(&c_code).unwrap()));
        let m = resolve_model("my:half 8B").unwrap();
        assert_eq!((m.id, m.config.layers), (m_code.as_str(), 16));
        assert_eq!(m.published_params, params(&m.config).total());
        assert!(resolve_model("half 8B").is_none());
        assert!(resolve_model("my:fast v5e").is_none());
        assert!(resolve_chip("my:nothing").is_none());
        assert!(resolve_chip("c1~broken").is_none());
        assert_eq!(own_chips(|_| true).len(), 1);
        assert_eq!(own_chips(|c| c.link(Link::NvLink).is_some()).len(), 0);
        assert_eq!(own_models(|_| true)[0].id, m_code);
    }

    #[test]
    fn a_compact_text_from_a_link_resolves_without_the_index() {
        let (m_code, c_code) = sample_codes();
        assert!(index().with_untracked(Vec::is_empty));
        let c = resolve_chip(&c_code).unwrap();
        assert_eq!(c.hbm_bw().0, 1.62e12);
        assert_eq!(resolve_model(&m_code).unwrap().config.layers, 16);
        // The pickers offer it, so that the select shows the choice.
        assert_eq!(own_chips(|_| true)[0].id, c_code);
        assert_eq!(own_models(|_| true)[0].id, m_code);
    }

    #[test]
    fn widgets_accept_saved_ids_and_refuse_unknown_ones() {
        use crate::widgets::kv_cache::KvParams;
        use crate::widgets::params::WidgetParams;
        use crate::widgets::roofline::RooflineParams;
        use crate::widgets::training_planner::PlannerParams;
        let (m_code, c_code) = with_own_entries();
        let mut r = RooflineParams::default();
        r.apply("chip", "my:fast v5e").unwrap();
        assert_eq!(r.chip.id, c_code);
        // The URL carries the whole chip.
        assert!(r.to_pairs().contains(&("chip".into(), c_code.clone())));
        let e = r.apply("chip", "my:nothing").unwrap_err();
        assert!(e.contains("my:nothing"), "{e}");
        assert_eq!(r.chip.id, c_code);
        // A fresh page (another thread: an empty index) reads the link alone.
        let pairs = r.to_pairs();
        let fresh = std::thread::spawn(move || {
            let (q, refused) = RooflineParams::from_pairs(&pairs);
            (q.chip.hbm_bw().0, refused)
        })
        .join()
        .unwrap();
        assert_eq!(fresh, (1.62e12, Vec::<String>::new()));

        let mut k = KvParams::default();
        let before = k;
        assert!(k.apply("model", "my:nothing").is_err());
        assert_eq!(k, before);
        k.apply("model", "my:half 8B").unwrap();
        assert_eq!(k.model.config.layers, 16);

        // The planner's step time on LLaMA 3 8B falls with half its layers,
        // as core computes it for the preset.
        let mut p = PlannerParams::default();
        p.apply("model", "llama3-8b").unwrap();
        let full = p.outcome().unwrap();
        p.apply("model", "my:half 8B").unwrap();
        assert_eq!(p.model.id, m_code);
        let half = p.outcome().unwrap();
        assert!(half.step.0 < full.step.0, "{:?} {:?}", half.step, full.step);
        let (q, refused) = PlannerParams::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(q, p);
        assert!(p.apply("model", "llama3-8B-x").is_err());
        assert!(p.apply("model", "half 8B").is_err());
    }
}
