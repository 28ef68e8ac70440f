//! The keyboard shortcuts, listed once: in the sheet that `?` opens on every
//! page (a `<dialog>`, opened by the start script; Escape closes it) and on
//! the home page. The keys themselves are handled where they act: `n`/`p` and
//! `/` by the page's bundle (`shell`), `?` and `d` by the start script.

use leptos::prelude::*;

/// Each shortcut: its keys, and what it does.
pub const SHORTCUTS: &[(&[&str], &str)] = &[
    (&["n", "→"], "next part"),
    (&["p", "←"], "previous part"),
    (&["/"], "search the parts"),
    (&["d"], "dark or light theme"),
    (&["?"], "this list of shortcuts"),
    (&["Esc"], "close it, or clear the search"),
];

/// The shortcuts as a definition list.
#[component]
pub fn Shortcuts() -> impl IntoView {
    let rows = SHORTCUTS
        .iter()
        .map(|(keys, what)| {
            let keys = keys
                .iter()
                .map(|k| view! { <kbd>{*k}</kbd>" " })
                .collect_view();
            view! {
                <dt>{keys}</dt>
                <dd>{*what}</dd>
            }
        })
        .collect_view();
    view! { <dl class="shortcuts">{rows}</dl> }
}

/// The sheet `?` opens: the shortcuts in a `<dialog>`, closed by Escape or
/// its button (both handled by the start script and the browser; the page's
/// Content-Security-Policy allows no form, so no `method="dialog"`).
#[component]
pub fn KeysSheet() -> impl IntoView {
    view! {
        <dialog class="keys-sheet" id="keys" aria-labelledby="keys-title">
            <h2 id="keys-title">"Keyboard shortcuts"</h2>
            <Shortcuts />
            <button type="button" data-close="">"Close"</button>
        </dialog>
    }
}
