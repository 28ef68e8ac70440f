//! The reader's library in full (library bundle only, Cargo feature
//! `library`): the saved models and chips ([`ridgeline_core::reader::library`], a
//! versioned JSON text) as one reactive value, kept in `localStorage` under
//! [`STORAGE_KEY`], with the panel that lists, exports and imports them.
//!
//! In the browser it is loaded once, when first read. Natively (the static
//! pages) it starts empty, so the build writes the same pages as without it.
//! Storage that cannot be read whole is kept as a dated copy
//! ([`crate::backups`]) before anything is written, and stays there until the
//! reader removes it (here or on the progress page); if the browser will not
//! keep the copy, the panel says so and offers it as a download. Every
//! change rewrites the compact index the pages read ([`super::INDEX_KEY`]) and
//! dispatches [`super::EVENT`], so the pickers of the page update at once.

use leptos::prelude::*;
use ridgeline_core::reader::library::Library;

/// The `localStorage` key of the library.
pub const STORAGE_KEY: &str = "ridgeline.library";
/// A stored library text that could not be read whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Unread {
    /// The text, as it was stored.
    pub text: String,
    /// Why it could not be read.
    pub why: String,
    /// The key of its kept copy, or why the browser would not keep one.
    pub kept: Result<String, String>,
}

/// The library and, if the stored text could not be read whole, that text.
#[derive(Clone)]
struct Store {
    library: ArcRwSignal<Library>,
    backup: ArcRwSignal<Option<Unread>>,
}

thread_local! {
    static STORE: Store = start();
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
        let loaded = ridgeline_core::reader::library::load(&text);
        // Keep the unread text before anything overwrites it.
        let unread = loaded.backup.map(|(text, why)| Unread {
            kept: crate::backups::keep(crate::backups::Kind::Library, &text, &why),
            text,
            why,
        });
        (loaded.library, unread)
    };
    #[cfg(not(target_arch = "wasm32"))]
    let loaded = (Library::default(), None::<Unread>);
    let (library, unread) = loaded;
    // An index written by another version (or none) is rewritten from the
    // library, so that the pickers offer what is saved; a library not read
    // whole leaves the index as it was until the reader changes something.
    if unread.is_none() {
        publish(&library);
    }
    Store {
        library: ArcRwSignal::new(library),
        backup: ArcRwSignal::new(unread),
    }
}

/// The reader's library (reactive: reading it in a view tracks it).
pub fn library() -> ArcRwSignal<Library> {
    STORE.with(|s| s.library.clone())
}

/// The stored text that could not be read whole on this visit (reactive).
pub fn backup() -> ArcRwSignal<Option<Unread>> {
    STORE.with(|s| s.backup.clone())
}

/// Writes the compact index of `lib` for the pages (when it changed) and
/// tells them; this bundle's own pickers read it at once.
fn publish(lib: &Library) {
    let text = lib.index();
    #[cfg(target_arch = "wasm32")]
    if let Some(s) = storage() {
        if s.get_item(super::INDEX_KEY).ok().flatten().as_deref() != Some(text.as_str()) {
            let _ = s.set_item(super::INDEX_KEY, &text);
            if let Ok(event) = web_sys::Event::new(super::EVENT) {
                let _ = window().dispatch_event(&event);
            }
        }
    }
    super::set_index(&text);
}

/// Changes the library with `f` and stores it (and its index); returns what
/// `f` returned, or why storing failed (the page keeps the change either way).
pub fn update<R>(f: impl FnOnce(&mut Library) -> R) -> (R, Option<String>) {
    let lib = library();
    let r = f(&mut lib.write());
    lib.with_untracked(publish);
    #[cfg(target_arch = "wasm32")]
    {
        // Unread stored text whose copy the browser refused is not overwritten.
        if backup().with_untracked(|b| b.as_ref().is_some_and(|u| u.kept.is_err())) {
            return (
                r,
                Some("This browser would not keep a copy of the library data it could not read, so that data was left in place and this change was not stored; download the data below, then export the library to keep your change.".into()),
            );
        }
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

/// The name field, the save button (`button`) and its message of a form that
/// saves an entry: `save(library, name)` saves it and says whether it replaced
/// one of that name, or why it was refused. `kind` is "model" or "chip".
pub fn save_controls(
    button: &'static str,
    kind: &'static str,
    save: impl Fn(&mut Library, &str) -> Result<bool, String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let saved = RwSignal::new(None::<String>);
    let on_save = move |_| {
        let n = name.get_untracked();
        let (r, stored) = update(|l| save(l, &n));
        saved.set(Some(match r {
            Ok(replaced) => {
                let verb = if replaced { "Replaced" } else { "Saved" };
                let s = format!("{verb} “{n}”: pick it under “Yours” in any {kind} picker.");
                stored.map_or(s.clone(), |e| format!("{s} {e}"))
            }
            Err(e) => e,
        }));
    };
    view! {
        <div class="controls">
            <label>"Name "
                <input type="text" size="16" maxlength="40" data-save-name="" value="" prop:value=move || name.get()
                    on:input=move |ev| name.set(event_target_value(&ev)) />
            </label>
            <button type="button" data-save="" on:click=on_save>{button}</button>
        </div>
        <p class="notice" role="status" data-saved="" hidden=move || saved.with(|n| n.is_none())>{move || saved.get().unwrap_or_default()}</p>
    }
}

/// Removes the kept copy of the unread stored text (after the reader has
/// downloaded it, or has no use for it).
pub fn discard_backup() {
    if let Some(Ok(key)) = backup().with_untracked(|b| b.as_ref().map(|u| u.kept.clone())) {
        crate::backups::remove(&key);
    }
    backup().set(None);
}

/// The largest library file imported, in bytes.
const MAX_IMPORT: f64 = ridgeline_core::reader::library::MAX_LIBRARY_BYTES as f64;

/// The reader's library: each saved model and chip with a delete button, export
/// to and import from one JSON file, and the stored text that could not be read
/// (with a download button, kept until the reader discards it).
#[component]
pub fn LibraryPanel() -> impl IntoView {
    let lib: RwSignal<Library> = library().into();
    let kept: RwSignal<Option<Unread>> = backup().into();
    let notice = RwSignal::new(None::<String>);
    let entries = move || {
        lib.with(|l| {
            let models = l.models.iter().map(|m| ("model", m.name.clone()));
            let chips = l.chips.iter().map(|c| ("chip", c.name.clone()));
            models
                .chain(chips)
                .map(|(kind, name)| {
                    let id = ridgeline_core::reader::library::entry_id(&name);
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
        let too_large = "That file is too large to be a library; nothing was imported.";
        crate::pages::progress::read_picked_file(&ev, MAX_IMPORT, too_large, notice, move |text| {
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
                {move || kept.with(|b| b.as_ref().map(|u| match &u.kept {
                    Ok(_) => format!("Stored library data could not be read ({}); a dated copy is kept in this browser, listed on the progress page. ", u.why),
                    Err(e) => format!("Stored library data could not be read ({}), and {e}: it was left where it was, and nothing is stored until you download it. ", u.why),
                }).unwrap_or_default())}
                <button type="button" on:click=move |_| {
                    let text = kept.with_untracked(|b| b.as_ref().map(|u| u.text.clone()).unwrap_or_default());
                    notice.set(crate::pages::progress::download("ridgeline-library-backup.json", &text).err());
                }>"Download it"</button>
                " "
                <button type="button" on:click=move |_| discard_backup()>"Discard it"</button>
            </p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::library::{resolve_chip, resolve_model};
    use ridgeline_core::dtype::Dtype;
    use ridgeline_core::hardware::Link;
    use ridgeline_core::model::config::model;
    use ridgeline_core::reader::hf_config::export;

    #[test]
    fn saving_rewrites_the_index_the_pickers_read() {
        let cfg = export(&model("llama3-8b").unwrap().config)
            .unwrap()
            .replace("\"num_hidden_layers\":32", "\"num_hidden_layers\":16");
        assert!(resolve_model("my:half 8B").is_none());
        let ((), notice) = update(|l| {
            l.save_model("half 8B", &cfg).unwrap();
            l.save_chip(
                "fast v5e",
                r#"{"start_from": "v5e", "hbm": {"bandwidth": "1.62 TB/s"}}"#,
            )
            .unwrap();
        });
        assert_eq!(notice, None);
        let m = resolve_model("my:half 8B").unwrap();
        assert_eq!(m.config.layers, 16);
        assert_eq!(m.config, library().with_untracked(|l| l.models[0].config));
        let c = resolve_chip("my:fast v5e").unwrap();
        // Part 1: v5e's ridge is 1.97e14 / 8.2e11 ≈ 240; with 1.62 TB/s of HBM, 122.
        assert_eq!(c.ridge(Dtype::Bf16, Link::Hbm).unwrap().0.round(), 122.0);
        let (removed, _) = update(|l| l.remove("my:fast v5e"));
        assert!(removed);
        assert!(resolve_chip("my:fast v5e").is_none());
        assert!(resolve_model("my:half 8B").is_some());
    }
}
