//! The site's small files besides the pages: the stylesheet (the app's CSS
//! plus the chart colours of the dark theme), two tiny scripts (the start
//! script also marks the section being read in a chapter's contents), the search
//! index and the service worker. Every name but `sw.js` carries a hash of its
//! content, so hosts may cache them for a year.

use std::path::Path;

use ridgeline_content::search;
use ridgeline_content::widgets::Bundle;
use ridgeline_core::rng::{fnv1a, fnv1a_from};

use crate::compress::files_below;
use crate::{read, write, Error};

/// The first 12 hex digits of a content hash (FNV-1a, 64 bits, twice with
/// different offsets): enough to tell builds apart, not a security measure.
pub fn short_hash(bytes: &[u8]) -> String {
    let (a, b) = hash_pair(bytes);
    format!("{:06x}{:06x}", a & 0xff_ffff, b & 0xff_ffff)
}

/// 32 hex digits of two independent FNV-1a hashes of `bytes`: the name of a
/// kept build product (a compressed copy, a bundle's chapter inputs), where a
/// collision would serve stale bytes rather than a stale name.
pub fn long_hash(bytes: &[u8]) -> String {
    let (a, b) = hash_pair(bytes);
    format!("{a:016x}{b:016x}")
}

/// Two independent 64-bit FNV-1a hashes of `bytes` (two starting values).
fn hash_pair(bytes: &[u8]) -> (u64, u64) {
    (fnv1a(bytes), fnv1a_from(0x6c62_272e_07bb_0142, bytes))
}

/// Site-relative names of the shared files every page links.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Assets {
    /// The stylesheet.
    pub css: String,
    /// Applies the reader's stored theme before the page paints.
    pub theme: String,
    /// Starts the page's bundle, or marks the page as static if it cannot.
    pub start: String,
    /// Every chapter's text, fetched on the first search.
    pub search: String,
    /// The icon.
    pub favicon: String,
    /// The math font (`mathfont`), which only pages with MathML load.
    pub math_font: String,
}

/// Runs before the body is parsed (a blocking script in `<head>`, so that a
/// reader who chose a theme never sees the other one flash), and tells the
/// stylesheet that scripts run (`data-js`).
const THEME_JS: &str =
    "// Applies the reader's stored theme, else the system's, before the page paints
// (without scripts the stylesheet follows prefers-color-scheme on its own).
(function () {
  var root = document.documentElement;
  root.setAttribute('data-js', '');
  var t = null;
  try {
    t = localStorage.getItem('ridgeline.theme.v1');
  } catch (e) {
    // Storage may be blocked; the system's preference applies.
  }
  if (t !== 'dark' && t !== 'light') {
    t = window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  root.setAttribute('data-theme', t);
})();
";

/// Starts the bundle named by the page's `<meta name="ridgeline-bundle">`;
/// if it cannot be loaded (offline before it was cached, a broken deploy),
/// the page stays as written and says that its widgets could not start.
///
/// The exercise checker (`<meta name="ridgeline-exercises">`, on pages with
/// problems) is a bundle of its own of about 200 KiB gzip, and the reader's
/// library (`<meta name="ridgeline-library">`, on pages with the own-model and
/// own-chip forms or the trace viewer) another: one loader starts each only once the page's
/// bundle is done and the reader nears one of its islands (400 px ahead of the
/// viewport) or touches or focuses one, so a first load never carries them.
/// The root says `data-exercises` (or `data-library`) `="loading"`, then
/// `"live"` (set by the bundle) or `"failed"`.
///
/// The page loads it `async`, so that the bundle is fetched, compiled and
/// started while the parser is still writing the page; the bundle mounts each
/// island once the parser is past it (`islands::start`), and this script
/// looks up the lazy bundles' islands once the document is complete.
const START_JS: &str = "// Starts this page's WebAssembly bundle, which makes its islands live.
const root = document.documentElement;
const meta = document.querySelector('meta[name=ridgeline-bundle]');
const page = meta
  ? import(new URL(meta.content, document.baseURI).href).catch(() => {
    root.setAttribute('data-islands', 'failed');
  })
  : Promise.resolve();
// A bundle of its own (named by <meta name=NAME>), started after the page's
// when the reader reaches one of its islands; the root's attribute says how it went.
const lazy = (name, islands, attr) => {
  const boot = document.querySelector(`meta[name=${name}]`);
  if (!boot) return;
  const hosts = document.querySelectorAll(islands);
  let started = false;
  const go = () => {
    if (started) return;
    started = true;
    if (seen) seen.disconnect();
    root.setAttribute(attr, 'loading');
    page.then(() => import(new URL(boot.content, document.baseURI).href)).catch(() => {
      root.setAttribute(attr, 'failed');
    });
  };
  const seen = 'IntersectionObserver' in window
    ? new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) go(); }, { rootMargin: '400px 0px' })
    : null;
  for (const h of hosts) {
    h.addEventListener('focusin', go);
    h.addEventListener('pointerdown', go);
  }
  page.then(() => {
    if (!seen) go();
    else for (const h of hosts) seen.observe(h);
  });
};
// This script is async (it may run before the page is parsed): the islands
// are looked up once the document is complete.
const parsed = (f) => (document.readyState === 'loading'
  ? document.addEventListener('DOMContentLoaded', f, { once: true })
  : f());
// Marks the section being read in the table of contents (aria-current): the
// last heading above the top third of the window. Colour only, so nothing moves.
parsed(() => {
  const links = [...document.querySelectorAll('nav.toc a')].filter((a) => a.hash);
  const heads = links.map((a) => document.getElementById(decodeURIComponent(a.hash.slice(1))));
  if (!links.length || heads.includes(null) || !('IntersectionObserver' in window)) return;
  let current = -1;
  const mark = () => {
    let i = 0;
    heads.forEach((h, k) => { if (h.getBoundingClientRect().top < innerHeight / 3) i = k; });
    if (i === current) return;
    if (current >= 0) links[current].removeAttribute('aria-current');
    links[i].setAttribute('aria-current', 'location');
    current = i;
  };
  const seen = new IntersectionObserver(mark, { rootMargin: '0px 0px -66% 0px' });
  for (const h of heads) seen.observe(h);
});
// Every page's own keys: ? opens the sheet of shortcuts (a modal <dialog>:
// Escape closes it), d flips the theme; not while typing or inside a widget.
addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  const a = document.activeElement;
  if (a && (/^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName) || a.isContentEditable || a.closest('[data-widget]'))) return;
  const sheet = document.getElementById('keys');
  if (!sheet || sheet.open) return;
  if (e.key === '?') {
    e.preventDefault();
    sheet.showModal();
  } else if (e.key === 'd') {
    const toggle = document.querySelector('.theme-toggle');
    if (toggle) toggle.click();
  }
});
parsed(() => {
  for (const b of document.querySelectorAll('#keys [data-close]')) b.addEventListener('click', () => b.closest('dialog').close());
});
// Home: each part's solved problems, from the stored progress (nothing when none).
parsed(() => {
  const cells = document.querySelectorAll('[data-progress]');
  if (!cells.length) return;
  let solved = {};
  try {
    solved = JSON.parse(localStorage.getItem('PROGRESS_KEY') || '{}').solved || {};
  } catch (e) {
    return;
  }
  const ids = Object.keys(solved);
  for (const c of cells) {
    const n = ids.filter((id) => id.startsWith(`ch${c.dataset.progress}-`)).length;
    if (n > 0) c.textContent = `${n} of ${c.dataset.problems} problems solved`;
  }
});
// The citation's permalink: the page knows its path, the browser its address.
parsed(() => {
  for (const e of document.querySelectorAll('[data-permalink]')) e.textContent = new URL(e.textContent, document.baseURI).href;
});
// A displayed formula wider than the column scrolls sideways: such a one
// (and only such a one) takes a place in the tab order, so that a reader
// without a pointer can scroll it too. Checked again once the fonts are in
// and when the window is resized.
parsed(() => {
  const wide = () => {
    for (const m of document.querySelectorAll('math[display=block]')) {
      if (m.scrollWidth > m.clientWidth + 1) m.setAttribute('tabindex', '0');
      else m.removeAttribute('tabindex');
    }
  };
  wide();
  if (document.fonts) document.fonts.ready.then(wide);
  let t = 0;
  addEventListener('resize', () => { clearTimeout(t); t = setTimeout(wide, 200); });
});
// Cite this figure: its link carries the widget's settings as the page's
// address holds them (the widget writes `?NAME.key=value` a quarter second
// after a change), updated when the control opens and after each change.
parsed(() => {
  for (const d of document.querySelectorAll('[data-cite-figure]')) {
    const name = d.dataset.citeFigure;
    const a = d.querySelector('[data-figure-link]');
    const spans = d.querySelectorAll('[data-permalink]');
    if (!a) continue;
    const base = new URL(a.getAttribute('href'), document.baseURI);
    const update = () => {
      const url = new URL(base);
      const own = new URLSearchParams();
      for (const [k, v] of new URLSearchParams(location.search)) if (k.startsWith(`${name}.`)) own.append(k, v);
      url.search = own.toString();
      a.href = url.href;
      for (const s of spans) s.textContent = url.href;
    };
    update();
    d.addEventListener('toggle', () => { if (d.open) update(); });
    const host = d.previousElementSibling;
    let timer = 0;
    const later = () => { clearTimeout(timer); timer = setTimeout(update, 400); };
    if (host) for (const t of ['input', 'change', 'click']) host.addEventListener(t, later);
  }
});
";

/// The page-start script (`START_JS`) with one `lazy(…)` call per lazily started bundle (the
/// exercise checker, the reader's library), its islands taken from the
/// widget table.
pub fn start_js() -> String {
    let mut calls = String::new();
    for bundle in Bundle::LAZY {
        let (Some(meta), Some(status)) = (bundle.meta(), bundle.status()) else {
            continue;
        };
        let islands: Vec<String> = bundle
            .widgets()
            .map(|w| format!("[data-island={}]", w.name))
            .collect();
        calls.push_str(&format!(
            "  lazy('{meta}', '{}', '{status}');\n",
            islands.join(",")
        ));
    }
    let start = START_JS.replace("PROGRESS_KEY", ridgeline_app::progress::KEY);
    strip_js(&format!("{start}parsed(() => {{\n{calls}}});\n"))
}

/// `js` without its comment lines, blank lines and indentation: every page
/// loads the start script first, and its comments are for the reader of this
/// file. (Lines keep their breaks, so automatic semicolons stay where they were.)
fn strip_js(js: &str) -> String {
    let mut out: String = js
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    out.push('\n');
    out
}

/// The rules for islands: the sign on a figure that is not live yet, and the
/// message when the bundle could not start.
const ISLANDS_CSS: &str = "
/* Islands (generated by ridgeline-site): a small sign on each widget until it is live. */
.island { position: relative; }
.island:not([data-live]) > .widget::before {
  content: 'static figure';
  position: absolute; top: .35rem; right: .5rem; z-index: 1;
  font-size: .72rem; padding: .05rem .45rem; border-radius: 999px;
  background: var(--bg); color: var(--muted, #555); border: 1px solid var(--rule);
}
:root[data-js]:not([data-islands]) .island:not([data-live]) > .widget::before { content: 'starting…'; }
:root[data-islands='failed'] .island:not([data-live]) > .widget::before { content: 'static: widgets could not start'; }
.islands-status { display: none; }
:root[data-islands='failed'] .islands-status { display: block; }
:root:not([data-js]) .search, :root:not([data-js]) .theme-toggle, :root:not([data-js]) .offline { display: none; }
.island:not([data-live]) input, .island:not([data-live]) select, .island:not([data-live]) button { pointer-events: none; }
/* Without JavaScript nothing goes live, so on a phone the sign takes its own line instead of covering the widget's first line. */
@media (max-width: 600px) { :root:not([data-js]) .island:not([data-live]) > .widget::before { position: static; display: block; width: fit-content; margin: 0 0 .5rem auto; } }
@media print { .island > .widget::before, .offline, .islands-status { display: none !important; } }
";

/// The sign a lazily started island shows until it is live: which islands
/// (a `data-island` selector: `=name`, or `^=prefix` for a family), the
/// bundle whose loader sets the root's status attribute, and the words
/// before its bundle loads, while it loads, when it failed, and without
/// JavaScript.
struct LazySign {
    islands: &'static str,
    bundle: Bundle,
    words: [&'static str; 4],
}

const LAZY_SIGNS: [LazySign; 5] = [
    LazySign {
        islands: "^=exercise",
        bundle: Bundle::Exercises,
        words: [
            "the checker loads when you reach the problems",
            "loading the checker…",
            "static: answers cannot be checked (the checker could not load)",
            "answers are checked only with JavaScript on",
        ],
    },
    LazySign {
        islands: "^=own-",
        bundle: Bundle::Library,
        words: [
            "the form loads when you reach it",
            "loading your library…",
            "static: the form could not load",
            "the form needs JavaScript",
        ],
    },
    LazySign {
        islands: "=trace-viewer",
        bundle: Bundle::Library,
        words: [
            "the trace reader loads when you reach it",
            "loading the trace reader…",
            "static: the trace reader could not load",
            "opening a file needs JavaScript",
        ],
    },
    LazySign {
        islands: "=serving-engine",
        bundle: Bundle::Library,
        words: [
            "the simulation loads when you reach it",
            "loading the serving simulation…",
            "static: the simulation could not load",
            "static figure",
        ],
    },
    LazySign {
        islands: "=gpu-parallelism",
        bundle: Bundle::Library,
        words: [
            "the planner loads when you reach it",
            "loading the pipeline planner…",
            "static: the planner could not load",
            "static figure",
        ],
    },
];

/// The four rules of each [`LAZY_SIGNS`] entry.
fn lazy_signs_css() -> String {
    let mut css = String::new();
    for sign in &LAZY_SIGNS {
        let Some(status) = sign.bundle.status() else {
            continue;
        };
        let island = format!(
            ".island[data-island{}]:not([data-live]) > .widget::before",
            sign.islands
        );
        let [before, loading, failed, no_js] = sign.words;
        css.push_str(&format!(
            "{island} {{ content: '{before}'; }}\n\
             :root[{status}='loading'] {island} {{ content: '{loading}'; }}\n\
             :root[{status}='failed'] {island} {{ content: '{failed}'; }}\n\
             :root:not([data-js]) {island} {{ content: '{no_js}'; }}\n"
        ));
    }
    css
}

/// The stylesheet's dark-theme rules (selectors with `[data-theme="dark"]`)
/// again, inside `@media (prefers-color-scheme: dark)` for a root on which the
/// reader chose nothing, so that the page follows the system's theme before
/// any script runs and the stylesheet states each dark colour once.
pub fn system_dark_rules(css: &str) -> String {
    const DARK: &str = "[data-theme=\"dark\"]";
    const SYSTEM: &str = ":root:not([data-theme=\"light\"])";
    let mut out = String::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    for (i, c) in css.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    let rule = css[start..=i].trim();
                    let selector = rule.split('{').next().unwrap_or_default();
                    if selector.contains(DARK) && !selector.trim_start().starts_with('@') {
                        let moved = selector
                            .split(',')
                            .map(|s| {
                                s.trim()
                                    .replace(&format!(":root{DARK}"), SYSTEM)
                                    .replace(DARK, SYSTEM)
                            })
                            .collect::<Vec<_>>()
                            .join(", ");
                        out.push_str("  ");
                        out.push_str(&moved);
                        out.push(' ');
                        out.push_str(&rule[selector.len()..]);
                        out.push('\n');
                    }
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    // Print is always light: paper has no dark mode.
    format!("@media screen and (prefers-color-scheme: dark) {{\n{out}}}\n")
}

/// Writes the stylesheet, scripts, search index and icon into `site`; the
/// stylesheet ends with `figure_css`, the rules of the pages' static figures
/// (`figures::css`).
pub fn write_assets(site: &Path, root: &Path, figure_css: &str) -> Result<Assets, Error> {
    let base = minify_css(&read(&root.join("public/style.css"))?)?;
    let font = std::fs::read(root.join(crate::mathfont::FONT))
        .map_err(|e| format!("{}: {e}", crate::mathfont::FONT))?;
    let math_font = format!("math-{}.woff2", short_hash(&font));
    let css = format!(
        "{base}\n{}\n{}\n{}\n{ISLANDS_CSS}{}{}",
        crate::mathfont::css(&math_font),
        system_dark_rules(&base),
        ridgeline_app::charts::dark_theme_css(),
        lazy_signs_css(),
        figure_css
    );
    let index = ridgeline_app::content::search_index()?.to_string();
    let css = minify_css(&css)?;
    let start_js = start_js();
    let theme_js = strip_js(THEME_JS);
    let assets = Assets {
        css: format!("style-{}.css", short_hash(css.as_bytes())),
        theme: format!("theme-{}.js", short_hash(theme_js.as_bytes())),
        start: format!("start-{}.js", short_hash(start_js.as_bytes())),
        search: search::file_name(&index),
        favicon: "favicon.svg".to_string(),
        math_font,
    };
    write(&site.join(&assets.css), css)?;
    write(&site.join(&assets.theme), &theme_js)?;
    write(&site.join(&assets.start), &start_js)?;
    write(&site.join(&assets.search), index)?;
    write(&site.join(&assets.math_font), font)?;
    let icon = root.join("public/favicon.svg");
    std::fs::copy(&icon, site.join(&assets.favicon))
        .map_err(|e| format!("{}: {e}", icon.display()))?;
    Ok(assets)
}

/// Writes `sw.js`. On install it caches every page (the HTML of every
/// chapter) and the files they share; afterwards it keeps what the reader
/// visits. Everything else (the other pages' bundles) is cached only when the
/// reader asks (`{type: "cache-all"}` from the offline control), because on a
/// phone plan downloading every bundle unasked is a heavy price.
pub fn write_service_worker(site: &Path, public_url: &str, pages: &[String]) -> Result<(), Error> {
    let mut all = Vec::new();
    for path in files_below(site)? {
        let rel = path
            .strip_prefix(site)
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .replace('\\', "/");
        // The narrow chart copies (`_f/`) are for readers without JavaScript,
        // whom no service worker serves: caching them would cost everyone else.
        let skip = rel == "sw.js"
            || rel.starts_with("_f/")
            || rel.ends_with(".gz")
            || rel.ends_with(".br")
            || rel.ends_with(".html")
            || rel.starts_with('.');
        if !skip {
            all.push(format!("{public_url}{rel}"));
        }
    }
    let (bundle_files, shared): (Vec<String>, Vec<String>) =
        all.into_iter().partition(|f| f.contains("/_b/"));
    let shell: Vec<String> = shared
        .into_iter()
        .chain(pages.iter().map(|p| format!("{public_url}{p}")))
        .collect();
    let all: Vec<String> = shell.iter().cloned().chain(bundle_files).collect();
    let list = |v: &[String]| {
        v.iter()
            .map(|f| format!("  {f:?}"))
            .collect::<Vec<_>>()
            .join(",\n")
    };
    let body = format!(
        "// Generated by ridgeline-site: offline support for ridgeline.
// On install: every page's HTML and the files all pages share. Then: what the
// reader visits. On request (the offline control): everything.
const CACHE = 'ridgeline-{version}';
const PAGES = [
{pages}
];
const ALL = [
{all}
];
const NOT_FOUND = '{public_url}404';
self.addEventListener('install', (e) => {{
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(PAGES)).then(() => self.skipWaiting()));
}});
self.addEventListener('activate', (e) => {{
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
}});
self.addEventListener('message', (e) => {{
  if (!e.data || e.data.type !== 'cache-all' || !e.ports[0]) return;
  const port = e.ports[0];
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(ALL))
    .then(() => port.postMessage('ok'), (err) => port.postMessage(String(err && err.message || err))));
}});
self.addEventListener('fetch', (e) => {{
  const req = e.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  if (req.mode === 'navigate') {{
    // Pages: the network first (a new build shows at once), the cache offline.
    e.respondWith(fetch(req).then((res) => {{
      if (res.ok) {{
        const copy = res.clone();
        caches.open(CACHE).then((c) => c.put(new URL(req.url).pathname, copy));
      }}
      return res;
    }}).catch(() => caches.match(new URL(req.url).pathname)
      .then((hit) => hit || caches.match(NOT_FOUND))));
    return;
  }}
  // Everything else is content-hashed: the cache first, and keep what was fetched.
  e.respondWith(caches.match(req, {{ ignoreSearch: true }}).then((hit) => hit || fetch(req).then((res) => {{
    if (res.ok) {{
      const copy = res.clone();
      caches.open(CACHE).then((c) => c.put(req, copy));
    }}
    return res;
  }})));
}});
",
        version = short_hash(list(&all).as_bytes()),
        pages = list(&shell),
        all = list(&all),
    );
    write(&site.join("sw.js"), body)
}

/// `css` without its comments and the spaces no rule needs (rustdoc's
/// minifier). The whole stylesheet, which every page loads before its first
/// paint, goes from 11.2 to 8.6 KB of gzip.
fn minify_css(css: &str) -> Result<String, Error> {
    minifier::css::minify(css)
        .map(|m| m.to_string().trim().to_owned())
        .map_err(|e| format!("the stylesheet could not be minified: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dark_rules_follow_the_system_unless_the_reader_chose_light() {
        let css = "/* c */ :root { --bg: #fff; }\n[data-theme=\"dark\"] {\n  --bg: #000;\n}\n.a { x: 1 }\n[data-theme=\"dark\"] .v, .w { color: #111; }\n@media print { .a { y: 2 } }\n";
        let out = system_dark_rules(&minify_css(css).unwrap());
        assert!(
            out.starts_with("@media screen and (prefers-color-scheme: dark)"),
            "{out}"
        );
        assert!(
            out.contains(":root:not([data-theme=\"light\"]) {--bg:#000;}"),
            "{out}"
        );
        assert!(
            out.contains(":root:not([data-theme=\"light\"]) .v, .w {color:#111;}"),
            "{out}"
        );
        assert!(
            !out.contains(".a{") && !out.contains("--bg:#fff") && !out.contains("/*"),
            "{out}"
        );
    }

    #[test]
    fn the_stylesheet_is_minified_without_changing_a_rule() {
        let css = "/* a note */\n.a .b > c, d:has(> e) {\n  margin: 0 calc(-1 * var(--x, 2px));\n  content: \"a  b\";\n}\n@media (max-width: 600px) { .a { x: 1 } }\n";
        let out = minify_css(css).unwrap();
        assert_eq!(
            out,
            ".a .b>c,d:has(>e){margin:0 calc(-1 * var(--x,2px));content:\"a  b\";}@media (max-width:600px){.a{x:1}}"
        );
    }

    #[test]
    fn the_start_script_ships_without_comments_or_indentation() {
        assert_eq!(
            strip_js("// a note\nconst a = 1;\n\n  if (a) {\n    f(); // kept\n  }\n"),
            "const a = 1;\nif (a) {\nf(); // kept\n}\n"
        );
        let start = start_js();
        assert!(!start.contains("\n//") && !start.contains("\n "), "{start}");
    }

    #[test]
    fn hashes_are_stable_and_tell_contents_apart() {
        // FNV-1a (64 bits) of "abc" is 0xe71fa2190541574b (the published test
        // vector); from the second offset, 0x6c62272e07bb0142, it ends in
        // 0x8f71e6. The short hash is the low 24 bits of each.
        assert_eq!(short_hash(b"abc"), "41574b8f71e6");
        assert_eq!(long_hash(b"abc")[..16], *"e71fa2190541574b");
        // An empty input leaves both offsets as they are.
        assert_eq!(short_hash(b""), "222325bb0142");
        assert_ne!(short_hash(b"abc"), short_hash(b"abd"));
    }

    #[test]
    fn the_scripts_have_no_inline_handlers_and_the_css_covers_islands() {
        assert!(THEME_JS.contains("ridgeline.theme.v1"));
        let start = start_js();
        assert!(start.contains("data-islands"));
        // One loader starts both lazily loaded bundles.
        assert_eq!(start.matches("lazy('ridgeline-").count(), 2);
        assert!(start.contains("'data-library'") && start.contains("'data-exercises'"));
        assert!(start.contains(
            "lazy('ridgeline-library', '[data-island=serving-engine],[data-island=own-model],[data-island=own-chip],[data-island=trace-viewer],[data-island=gpu-parallelism]', 'data-library');"
        ));
        // It marks the section being read in the table of contents.
        assert!(start.contains("nav.toc a") && start.contains("'aria-current', 'location'"));
        // It opens the sheet of shortcuts and flips the theme.
        assert!(start.contains("e.key === '?'") && start.contains("sheet.showModal()"));
        assert!(
            start.contains("e.key === 'd'") && start.contains("querySelector('.theme-toggle')")
        );
        // It shows the home page's progress from the progress's own key.
        assert!(start.contains(&format!(
            "localStorage.getItem('{}')",
            ridgeline_app::progress::KEY
        )));
        // It makes the citation's permalink absolute.
        assert!(start.contains("querySelectorAll('[data-permalink]')"));
        assert!(ISLANDS_CSS.contains("[data-live]"));
        let signs = lazy_signs_css();
        assert!(signs.contains(
            ":root[data-library='failed'] .island[data-island=trace-viewer]:not([data-live]) > .widget::before { content: 'static: the trace reader could not load'; }"
        ));
        assert_eq!(signs.lines().count(), 4 * LAZY_SIGNS.len());
        // Every lazily started island has exactly one sign, from its own bundle.
        for bundle in Bundle::LAZY {
            for w in bundle.widgets() {
                let covering: Vec<&LazySign> = LAZY_SIGNS
                    .iter()
                    .filter(|s| {
                        match s.islands.split_at(s.islands.find('=').map_or(0, |i| i + 1)) {
                            ("^=", prefix) => w.name.starts_with(prefix),
                            (_, name) => w.name == name,
                        }
                    })
                    .collect();
                assert_eq!(covering.len(), 1, "{}", w.name);
                assert_eq!(covering[0].bundle, bundle, "{}", w.name);
            }
        }
    }
}
