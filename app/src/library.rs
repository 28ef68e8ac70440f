//! The reader's library in the page: the saved models and chips
//! ([`ridgeline_core::library`]) as one reactive value every picker reads, kept in
//! `localStorage` under [`STORAGE_KEY`].
//!
//! In the browser it is loaded once, when first read. Natively (the static
//! pages) it starts empty, so the build writes the same pages as without it.
//! Storage that cannot be read whole is copied to [`BACKUP_KEY`] before
//! anything is written, and stays there until the reader discards it.

use std::cell::RefCell;

use leptos::prelude::*;
use ridgeline_core::hardware::{chip, Chip};
use ridgeline_core::library::Library;
use ridgeline_core::models::{model, ModelPreset, ModelSource};
use ridgeline_core::transformer::params;

/// The `localStorage` key of the library.
pub const STORAGE_KEY: &str = "ridgeline.library";
/// The `localStorage` key of a library text that could not be read whole.
pub const BACKUP_KEY: &str = "ridgeline.library.backup";

/// The library and, if the stored text could not be read whole, that text
/// and why.
#[derive(Clone)]
struct Store {
    library: ArcRwSignal<Library>,
    backup: ArcRwSignal<Option<(String, String)>>,
}

/// Leaked registry-type copies of library entries, by id and text, so that
/// each saved entry is leaked once however often it is picked.
type Leaked<T> = RefCell<Vec<(String, String, &'static T)>>;

thread_local! {
    static STORE: Store = start();
    static CHIPS: Leaked<Chip> = const { RefCell::new(Vec::new()) };
    static MODELS: Leaked<ModelPreset> = const { RefCell::new(Vec::new()) };
}

#[cfg(target_arch = "wasm32")]
fn storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
}

fn start() -> Store {
    #[cfg(target_arch = "wasm32")]
    let loaded = {
        let s = storage();
        let text = s
            .as_ref()
            .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
            .unwrap_or_default();
        let mut loaded = ridgeline_core::library::load(&text);
        match (&loaded.backup, s) {
            // Keep the unread text before anything overwrites it.
            (Some((raw, _)), Some(s)) => {
                let _ = s.set_item(BACKUP_KEY, raw);
            }
            (None, Some(s)) => {
                if let Ok(Some(raw)) = s.get_item(BACKUP_KEY) {
                    loaded.backup = Some((raw, "kept from an earlier visit".into()));
                }
            }
            _ => {}
        }
        loaded
    };
    #[cfg(not(target_arch = "wasm32"))]
    let loaded = ridgeline_core::library::Loaded::default();
    Store {
        library: ArcRwSignal::new(loaded.library),
        backup: ArcRwSignal::new(loaded.backup),
    }
}

/// The reader's library (reactive: reading it in a view tracks it).
pub fn library() -> ArcRwSignal<Library> {
    STORE.with(|s| s.library.clone())
}

/// The stored text that could not be read whole, and why (reactive).
pub fn backup() -> ArcRwSignal<Option<(String, String)>> {
    STORE.with(|s| s.backup.clone())
}

/// Changes the library with `f` and stores it; returns what `f` returned, or
/// why storing failed (the page keeps the change either way).
pub fn update<R>(f: impl FnOnce(&mut Library) -> R) -> (R, Option<String>) {
    let lib = library();
    let r = f(&mut lib.write());
    #[cfg(target_arch = "wasm32")]
    {
        let text = lib.with_untracked(Library::to_json);
        let stored = storage().and_then(|s| s.set_item(STORAGE_KEY, &text).ok());
        if stored.is_none() {
            return (
                r,
                Some("This browser did not store the library; export it to keep it.".into()),
            );
        }
    }
    (r, None)
}

/// Forgets the unread stored text (after the reader has downloaded it).
pub fn discard_backup() {
    #[cfg(target_arch = "wasm32")]
    if let Some(s) = storage() {
        let _ = s.remove_item(BACKUP_KEY);
    }
    backup().set(None);
}

fn cached<T>(
    cache: &'static std::thread::LocalKey<Leaked<T>>,
    id: &str,
    text: &str,
    make: impl FnOnce() -> &'static T,
) -> &'static T {
    cache.with(|c| {
        if let Some((_, _, t)) = c.borrow().iter().find(|(i, x, _)| i == id && x == text) {
            return *t;
        }
        let t = make();
        c.borrow_mut().push((id.to_string(), text.to_string(), t));
        t
    })
}

/// The chip picked by `id`: a registry chip, else the reader's saved chip
/// (`my:NAME`), with the id it was picked by.
pub fn resolve_chip(id: &str) -> Option<&'static Chip> {
    chip(id).or_else(|| {
        library().with_untracked(|l| {
            let c = l.chip(id)?;
            Some(cached(&CHIPS, id, &c.text, || c.spec.clone().leak_as(id)))
        })
    })
}

/// The model picked by `id`: a registry preset, else the reader's saved model
/// (`my:NAME`), cited as the reader's own.
pub fn resolve_model(id: &str) -> Option<&'static ModelPreset> {
    model(id).or_else(|| {
        library().with_untracked(|l| {
            let m = l.model(id)?;
            Some(cached(&MODELS, id, &m.text, || {
                Box::leak(Box::new(ModelPreset {
                    id: Box::leak(id.to_string().into_boxed_str()),
                    name: Box::leak(m.name.clone().into_boxed_str()),
                    config: m.config,
                    published_params: params(&m.config).total(),
                    source: ModelSource {
                        part: None,
                        citation: "the reader's own config.json",
                    },
                }))
            }))
        })
    })
}

/// The saved chips that `accept` takes, as they resolve (reactive).
pub fn own_chips(accept: fn(&'static Chip) -> bool) -> Vec<&'static Chip> {
    let ids: Vec<String> = library().with(|l| {
        l.chips
            .iter()
            .map(|c| ridgeline_core::library::entry_id(&c.name))
            .collect()
    });
    ids.iter()
        .filter_map(|id| resolve_chip(id))
        .filter(|c| accept(c))
        .collect()
}

/// The saved models that `accept` takes, as they resolve (reactive).
pub fn own_models(accept: fn(&ModelPreset) -> bool) -> Vec<&'static ModelPreset> {
    let ids: Vec<String> = library().with(|l| {
        l.models
            .iter()
            .map(|m| ridgeline_core::library::entry_id(&m.name))
            .collect()
    });
    ids.iter()
        .filter_map(|id| resolve_model(id))
        .filter(|m| accept(m))
        .collect()
}

/// The largest library file imported, in bytes.
const MAX_IMPORT: f64 = ridgeline_core::library::MAX_LIBRARY_BYTES as f64;

/// The reader's library: each saved model and chip with a delete button, export
/// to and import from one JSON file, and the stored text that could not be read
/// (with a download button, kept until the reader discards it).
#[component]
pub fn LibraryPanel() -> impl IntoView {
    let lib: RwSignal<Library> = library().into();
    let kept: RwSignal<Option<(String, String)>> = backup().into();
    let notice = RwSignal::new(None::<String>);
    let entries = move || {
        lib.with(|l| {
            let models = l.models.iter().map(|m| ("model", m.name.clone()));
            let chips = l.chips.iter().map(|c| ("chip", c.name.clone()));
            models
                .chain(chips)
                .map(|(kind, name)| {
                    let id = ridgeline_core::library::entry_id(&name);
                    let gone = id.clone();
                    view! {
                        <li data-entry=id>{format!("{name} ({kind}) ")}
                            <button type="button" on:click=move |_| {
                                let (_, n) = update(|l| l.remove(&gone));
                                notice.set(n);
                            }>"Delete"</button>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let on_import = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        if file.size() > MAX_IMPORT {
            notice.set(Some(
                "That file is too large to be a library; nothing was imported.".into(),
            ));
            return;
        }
        let promise = file.text();
        wasm_bindgen_futures::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(promise)
                .await
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            let (merged, stored) = update(|l| l.merge(&text));
            notice.set(Some(match merged {
                Err(e) => format!("Nothing was imported: {e}. Your library is unchanged."),
                Ok(m) => {
                    let renamed: Vec<String> = m
                        .renamed
                        .iter()
                        .map(|(a, b)| format!("“{a}” as “{b}”"))
                        .collect();
                    let mut s = format!("Imported {} new, {} already here.", m.added, m.same);
                    if !renamed.is_empty() {
                        s.push_str(&format!(
                            " Renamed (the name was taken): {}.",
                            renamed.join(", ")
                        ));
                    }
                    stored.map_or(s.clone(), |e| format!("{s} {e}"))
                }
            }));
            input.set_value("");
        });
    };
    view! {
        <div class="library-panel" data-library="">
            <p>"Your saved models and chips (kept in this browser; pick them in any widget's picker under “Yours”):"</p>
            <ul data-entries="">{entries}</ul>
            <div class="controls">
                <button type="button" data-export="" on:click=move |_| {
                    let text = lib.with_untracked(Library::to_json);
                    notice.set(crate::pages::progress::download("ridgeline-library.json", &text).err());
                }>"Export library"</button>
                <label>"Import library " <input type="file" accept="application/json,.json" data-import="" on:change=on_import /></label>
            </div>
            <p class="notice" role="status" data-library-notice="" hidden=move || notice.with(|n| n.is_none())>{move || notice.get().unwrap_or_default()}</p>
            <p class="notice" role="status" data-backup="" hidden=move || kept.with(|b| b.is_none())>
                {move || kept.with(|b| b.as_ref().map(|(_, why)| format!("Stored library data could not be read ({why}); it is kept unchanged. ")).unwrap_or_default())}
                <button type="button" on:click=move |_| {
                    let text = kept.with_untracked(|b| b.as_ref().map(|(raw, _)| raw.clone()).unwrap_or_default());
                    notice.set(crate::pages::progress::download("ridgeline-library-backup.json", &text).err());
                }>"Download it"</button>
                " "
                <button type="button" on:click=move |_| discard_backup()>"Discard it"</button>
            </p>
        </div>
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::hardware::Link;
    use ridgeline_core::hf_config::export;

    /// Saves a 16-layer LLaMA 3 8B and a v5e with 1.62 TB/s HBM in this
    /// thread's library (each test runs on its own thread).
    pub(crate) fn with_own_entries() {
        let cfg = export(&model("llama3-8b").unwrap().config)
            .unwrap()
            .replace("\"num_hidden_layers\":32", "\"num_hidden_layers\":16");
        let ((), notice) = update(|l| {
            l.save_model("half 8B", &cfg).unwrap();
            l.save_chip(
                "fast v5e",
                r#"{"start_from": "v5e", "hbm": {"bandwidth": "1.62 TB/s"}}"#,
            )
            .unwrap();
        });
        assert_eq!(notice, None);
    }

    #[test]
    fn resolvers_check_the_registry_then_the_library() {
        assert_eq!(resolve_chip("v5e").unwrap().id, "v5e");
        assert!(resolve_chip("my:fast v5e").is_none());
        with_own_entries();
        let c = resolve_chip("my:fast v5e").unwrap();
        assert_eq!(c.id, "my:fast v5e");
        // Part 1: v5e's ridge is 1.97e14 / 8.1e11 ≈ 240; with twice the bandwidth, 122.
        assert_eq!(c.ridge(Dtype::Bf16, Link::Hbm).unwrap().0.round(), 122.0);
        assert!(std::ptr::eq(c, resolve_chip("my:fast v5e").unwrap()));
        let m = resolve_model("my:half 8B").unwrap();
        assert_eq!((m.id, m.config.layers), ("my:half 8B", 16));
        assert!(resolve_model("half 8B").is_none());
        assert!(resolve_model("my:fast v5e").is_none());
        assert_eq!(own_chips(|_| true).len(), 1);
        assert_eq!(own_chips(|c| c.link(Link::NvLink).is_some()).len(), 0);
        assert_eq!(own_models(|_| true)[0].id, "my:half 8B");
    }

    #[test]
    fn widgets_accept_saved_ids_and_refuse_unknown_ones() {
        use crate::widgets::common::WidgetParams;
        use crate::widgets::kv_cache::KvParams;
        use crate::widgets::roofline::RooflineParams;
        use crate::widgets::training_planner::PlannerParams;
        with_own_entries();
        let mut r = RooflineParams::default();
        r.apply("chip", "my:fast v5e").unwrap();
        assert_eq!(r.chip.id, "my:fast v5e");
        assert!(r
            .to_pairs()
            .contains(&("chip".into(), "my:fast v5e".into())));
        let e = r.apply("chip", "my:nothing").unwrap_err();
        assert!(e.contains("my:nothing"), "{e}");
        assert_eq!(r.chip.id, "my:fast v5e");

        let mut k = KvParams::default();
        let before = k;
        assert!(k.apply("model", "my:nothing").is_err());
        assert_eq!(k, before);
        k.apply("model", "my:half 8B").unwrap();
        assert_eq!(k.model.config.layers, 16);

        // The planner's step time on LLaMA 3 8B halves with half its layers,
        // as core computes it for the preset.
        let mut p = PlannerParams::default();
        p.apply("model", "llama3-8b").unwrap();
        let full = p.outcome().unwrap();
        p.apply("model", "my:half 8B").unwrap();
        let half = p.outcome().unwrap();
        assert!(half.step.0 < full.step.0, "{:?} {:?}", half.step, full.step);
        let (q, refused) = PlannerParams::from_pairs(&p.to_pairs());
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(q, p);
        assert!(p.apply("model", "llama3-8B-x").is_err());
        assert!(p.apply("model", "half 8B").is_err());
    }
}
