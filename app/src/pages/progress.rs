//! The progress page: exercises solved per part and overall, with export to and
//! import from a JSON file.

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
    let (loaded, load_notice) = progress::load();
    let state = RwSignal::new(loaded);
    let notice = RwSignal::new(load_notice);
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
                    Ok(imported) => {
                        let count = imported.solved.len();
                        let mut merged = state.get_untracked();
                        merged.merge(&imported);
                        let saved = progress::save(&merged);
                        state.set(merged);
                        notice.set(Some(saved.unwrap_or_else(|| format!("Imported {count} solved exercises; your own progress was kept and merged."))));
                    }
                    Err(e) => notice.set(Some(format!(
                        "Nothing was imported: {e}. Your progress is unchanged."
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
        </section>
    }
}
