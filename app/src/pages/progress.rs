//! The progress page: exercises solved per part and overall, with export to and
//! import from a JSON file, and every kept copy of stored data the page could
//! not use ([`crate::backups`]), each to download, restore or remove.

use crate::backups::{self, Backup, Kind};
use crate::content::{EXERCISE_IDS, PARTS};
use crate::progress::{self, Progress};
use crate::widgets::controls::Notice;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// (part number, title, slug, exercise ids) for every part with exercises.
fn parts_with_exercises() -> Vec<(u8, &'static str, &'static str, Vec<&'static str>)> {
    PARTS
        .iter()
        .filter_map(|p| {
            let ids: Vec<&'static str> = EXERCISE_IDS
                .iter()
                .filter(|(_, part)| *part == p.number)
                .map(|(id, _)| *id)
                .collect();
            (!ids.is_empty()).then_some((p.number, p.title, p.slug, ids))
        })
        .collect()
}

/// Offers `text` as a JSON file called `name` to download (a Blob URL).
pub(crate) fn download(name: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type("application/json");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)
        .map_err(|_| "could not build the file")?;
    let url =
        web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| "could not build the file")?;
    let a: web_sys::HtmlAnchorElement = document()
        .create_element("a")
        .map_err(|_| "no document")?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// Reads the file picked in the `<input type="file">` that `ev` came from as
/// text and hands it to `then`, then clears the input; a file over `max` bytes
/// is refused with `too_large` in `notice`.
pub(crate) fn read_picked_file(
    ev: &leptos::ev::Event,
    max: f64,
    too_large: &str,
    notice: RwSignal<Option<String>>,
    then: impl FnOnce(String) + 'static,
) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    if file.size() > max {
        notice.set(Some(too_large.to_string()));
        return;
    }
    let promise = file.text();
    wasm_bindgen_futures::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        then(text);
        input.set_value("");
    });
}

/// The progress page.
#[component]
pub fn ProgressPage() -> impl IntoView {
    let loaded = progress::load();
    let can_save = loaded.can_save;
    let state = RwSignal::new(loaded.progress);
    let notice = RwSignal::new(loaded.notice);
    // Listed after loading, which may have kept a copy just now.
    let kept = RwSignal::new(backups::list());
    // Stores `p` as the reader's progress unless stored data that could not
    // be kept aside would be overwritten; returns why not, if not.
    let store = move |p: Progress| -> Option<String> {
        let refused = if can_save {
            progress::save(&p)
        } else {
            Some("It is not saved: the stored progress this page could not read is left in place until it can be kept (export your progress to keep it).".into())
        };
        state.set(p);
        refused
    };
    let parts = parts_with_exercises();
    let total: usize = parts.iter().map(|p| p.3.len()).sum();

    let rows = parts
        .into_iter()
        .map(|(number, title, slug, ids)| {
            let n = ids.len();
            let ids = StoredValue::new(ids);
            let solved = move || {
                state.with(|s| {
                    ids.with_value(|ids| {
                        ids.iter().filter(|id| s.solved.contains_key(**id)).count()
                    })
                })
            };
            view! {
                <tr data-progress-part=number>
                    <th scope="row"><a href=slug>{format!("Part {number}. {title}")}</a></th>
                    <td class="num">{move || format!("{} / {n}", solved())}</td>
                    <td><progress max=n value=solved></progress></td>
                </tr>
            }
        })
        .collect_view();
    let overall = move || state.with(|s| s.solved.len());

    let on_import = move |ev: leptos::ev::Event| {
        let too_large = "That file is larger than 1 MiB; nothing was imported.";
        read_picked_file(
            &ev,
            progress::MAX_BYTES as f64,
            too_large,
            notice,
            move |text| {
                let known = crate::content::is_exercise;
                match Progress::from_json(&text, &known) {
                    Ok(read) => {
                        let count = read.progress.solved.len();
                        let mut merged = state.get_untracked();
                        merged.merge(&read.progress);
                        let mut said = format!("Imported {count} solved exercises; your own progress was kept and merged.");
                        if !read.set_aside.is_empty() {
                            let ids = progress::Read::set_aside_text(&read.set_aside);
                            said.push_str(&format!(" Not imported, as this version does not know them (the file keeps them): {ids}."));
                        }
                        if let Some(e) = store(merged) {
                            said.push_str(&format!(" {e}"));
                        }
                        notice.set(Some(said));
                    }
                    Err(e) => notice.set(Some(format!(
                        "Nothing was imported: {}. Your progress is unchanged.",
                        e.describe("the file")
                    ))),
                }
            },
        );
    };

    view! {
        <section class="page progress-page" data-page="progress">
            <h1>"Your progress"</h1>
            <p class="lede">
                "Exercises you have solved are remembered in this browser only. "
                <strong data-progress-total="">{move || format!("{} of {total}", overall())}</strong>
                " solved so far."
            </p>
            <table class="progress-table">
                <thead><tr><th scope="col">"part"</th><th scope="col">"solved"</th><th scope="col">""</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <div class="progress-tools">
                <button type="button" on:click=move |_| {
                    if let Err(e) = download("ridgeline-progress.json", &state.with_untracked(|s| s.to_json())) {
                        notice.set(Some(e));
                    }
                }>"Export to a file"</button>
                <label class="import">"Import a file " <input type="file" accept="application/json,.json" on:change=on_import /></label>
            </div>
            <Notice notice=notice />
            <KeptCopies kept=kept notice=notice state=state store=store />
        </section>
    }
}

/// The kept copies of stored data, newest first, each with its date, kind
/// and reason, to download, restore (progress: merged into the reader's) or
/// remove. Hidden while there are none.
#[component]
fn KeptCopies(
    kept: RwSignal<Vec<Backup>>,
    notice: RwSignal<Option<String>>,
    state: RwSignal<Progress>,
    store: impl Fn(Progress) -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let row = move |b: Backup| {
        let Backup {
            key,
            kind,
            when,
            why,
            text,
        } = b;
        let size = ridgeline_core::format::count(text.len() as u64, "byte", "bytes");
        let label = format!("{} · {}: {why} ({size})", backups::date(when), kind.name());
        let file = format!("ridgeline-{}-copy-{when}.json", kind.name());
        let text = StoredValue::new(text);
        let gone = key.clone();
        let restore = (kind == Kind::Progress).then(|| {
            view! {
                <button type="button" data-restore="" on:click=move |_| {
                    let read = text.with_value(|t| Progress::from_json(t, &crate::content::is_exercise));
                    notice.set(Some(match read {
                        Ok(read) => {
                            let mut merged = state.get_untracked();
                            merged.merge(&read.progress);
                            let n = read.progress.solved.len();
                            let said = format!("Restored {n} solved exercises from the copy, merged with your progress.");
                            store(merged).map_or(said.clone(), |e| format!("{said} {e}"))
                        }
                        Err(e) => format!("This copy cannot be restored: {}. Download it to keep it.", e.describe("the copy")),
                    }));
                }>"Restore"</button>
            }
        });
        let library_note = (kind == Kind::Library).then_some(
            " To restore it, download it and import the file in the library (under “Your own model”, Part 6). ",
        );
        view! {
            <li data-kept=key>
                {label}" "
                <button type="button" on:click=move |_| {
                    if let Err(e) = text.with_value(|t| download(&file, t)) {
                        notice.set(Some(e));
                    }
                }>"Download"</button>
                " "{restore}" "
                <button type="button" on:click=move |_| {
                    backups::remove(&gone);
                    kept.set(backups::list());
                }>"Remove"</button>
                {library_note}
            </li>
        }
    };
    view! {
        <section class="kept-copies" data-kept-copies="" hidden=move || kept.with(Vec::is_empty)>
            <h2 id="kept-copies">"Kept copies"</h2>
            <p>{format!("Stored data this page could not use is kept here before anything replaces it: the newest {} of each kind, the oldest dropped first.", backups::SLOTS)}</p>
            <ul>{move || kept.get().into_iter().map(row).collect_view()}</ul>
        </section>
    }
}
