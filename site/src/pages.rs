//! The HTML documents: one per route, each the app's own components rendered
//! natively with Leptos (`RenderHtml::to_html`) inside a head written here.

use std::collections::BTreeMap;
use std::path::Path;

use leptos::prelude::*;
use ridgeline_app::content::{neighbours, PartPage, PARTS};
use ridgeline_app::islands::names;
use ridgeline_app::pages::{self, Frame};
use ridgeline_content::html::escape;
use ridgeline_content::summary::Part as SummaryPart;
use ridgeline_content::widgets::Bundle as Carrier;

use crate::figures::{self, Figure, NARROW_WIDTH};
use crate::scripts::Assets;
use crate::{write, Bundle, Error};

/// What every page needs to know about the build.
#[derive(Debug, Clone)]
pub struct Context {
    /// The path the site is served under (`/` or `/sub/`).
    pub public_url: String,
    /// The shared files.
    pub assets: Assets,
    /// Every bundle, by name.
    pub bundles: BTreeMap<String, Bundle>,
    /// The bundle of the pages that are neither parts nor home.
    pub default_bundle: String,
    /// The exercise checker's bundle, which pages with problems start lazily.
    pub exercises: Bundle,
    /// The reader's library bundle, which pages with its forms start lazily.
    pub library: Bundle,
    /// What "make available offline" downloads, gzip bytes.
    pub offline_bytes: f64,
}

/// One route of the site.
#[derive(Debug, Clone, Copy)]
pub enum Route {
    /// The list of parts (`index.html`).
    Home,
    /// A part of the book.
    Part(&'static PartPage),
    /// The reader's progress.
    Progress,
    /// Every registry constant with its source.
    Numbers,
    /// Every published measurement beside core's prediction (`data/measured.json`).
    Measured,
    /// What a host serves for an unknown path.
    NotFound,
}

impl Route {
    /// Every route: home, the parts in book order, progress, numbers, measured, 404.
    pub fn all() -> Vec<Route> {
        let mut routes = vec![Route::Home];
        routes.extend(PARTS.iter().map(Route::Part));
        routes.extend([
            Route::Progress,
            Route::Numbers,
            Route::Measured,
            Route::NotFound,
        ]);
        routes
    }

    /// The path below the site's base (`""` for home).
    pub fn path(self) -> &'static str {
        match self {
            Route::Home => "",
            Route::Part(p) => p.slug,
            Route::Progress => "progress",
            Route::Numbers => "numbers",
            Route::Measured => ridgeline_content::measured::PAGE,
            Route::NotFound => "404",
        }
    }

    /// The folder of its narrow chart copies below `_f/` (`index` for home).
    pub fn figure_dir(self) -> &'static str {
        match self {
            Route::Home => "index",
            other => other.path(),
        }
    }

    /// The file that serves it (`rooflines.html`: hosts serve `/rooflines` from it).
    pub fn file(self) -> String {
        match self {
            Route::Home => "index.html".to_string(),
            other => format!("{}.html", other.path()),
        }
    }

    /// The document's title.
    pub fn title(self) -> String {
        match self {
            Route::Home => "ridgeline — a companion to How to Scale Your Model".to_string(),
            Route::Part(p) => p.page_title(),
            Route::Progress => "Your progress — ridgeline".to_string(),
            Route::Numbers => "About the numbers — ridgeline".to_string(),
            Route::Measured => "Measured beside predicted — ridgeline".to_string(),
            Route::NotFound => "Not found — ridgeline".to_string(),
        }
    }

    /// The bundle the page starts: a part's own; for home, the bundle of the
    /// part that carries its figure's widget, so that the figure is live and
    /// a reader going on to that part finds its bundle cached; the default
    /// bundle for the other pages.
    fn bundle(self, ctx: &Context) -> Option<&Bundle> {
        let name = match self {
            Route::Part(p) => p.bundle,
            Route::Home => {
                pages::home::figure_part().map_or(ctx.default_bundle.as_str(), |p| p.bundle)
            }
            _ => ctx.default_bundle.as_str(),
        };
        ctx.bundles.get(name)
    }

    fn prev_next(self) -> (Option<&'static PartPage>, Option<&'static PartPage>) {
        match self {
            Route::Part(p) => neighbours(p),
            Route::Home => (None, PARTS.iter().find(|p| p.written)),
            _ => (None, None),
        }
    }
}

/// Renders a view to HTML natively, in its own reactive owner, without
/// Leptos's `<!>` markers.
///
/// The markers tell a hydrating client where a dynamic child starts; islands
/// are mounted, never hydrated (`ridgeline_app::islands`), so on a static page
/// they are bytes with no reader. Without them a page is the same whichever
/// way the app was compiled: every build erases component types
/// (`--cfg erase_components` in `.cargo/config.toml`: half the native compile
/// time, a smaller wasm), which renders the same elements with more markers.
pub fn render_html<V: IntoView + 'static>(view: impl FnOnce() -> V) -> String {
    let owner = Owner::new();
    owner
        .with(|| view().into_view().to_html())
        .replace("<!>", "")
}

/// The body of `route`: the frame with the page inside.
pub fn body(route: Route, ctx: &Context) -> String {
    let bytes = ctx.offline_bytes;
    let path = route.path();
    render_html(move || {
        let page = match route {
            Route::Home => {
                view! { <pages::home::Home about=home_about().unwrap_or_default() /> }.into_any()
            }
            Route::Part(p) => view! { <pages::part::Part page=p /> }.into_any(),
            Route::Progress => view! {
                <div class="island" data-island=names::PROGRESS>
                    <pages::progress::ProgressPage />
                </div>
            }
            .into_any(),
            Route::Numbers => view! { <pages::numbers::NumbersPage /> }.into_any(),
            // `write_site` and `write_static` check the dataset first, so an
            // error cannot reach here; the page would be empty, not wrong.
            Route::Measured => {
                let html = ridgeline_content::measured::page().unwrap_or_default();
                view! { <section class="page measured-page prose" data-page="measured" inner_html=html></section> }
                    .into_any()
            }
            Route::NotFound => view! { <pages::NotFound /> }.into_any(),
        };
        view! { <Frame route=path offline_bytes=bytes title=route.title()>{page}</Frame> }
    })
}

/// What the home page says of each part, in book order: its line of
/// `chapters/teaches.md`, reading time, widgets and problem count.
pub fn home_about() -> Result<Vec<pages::home::About>, Error> {
    let path = ridgeline_app::content::chapters_dir().join("teaches.md");
    let text = crate::read(&path)?;
    let lines = pages::home::parse_teaches(&text, &PARTS)?;
    Ok(PARTS
        .iter()
        .map(|p| {
            let teaches = lines
                .iter()
                .find(|(slug, _)| *slug == p.slug)
                .map_or("", |(_, t)| *t);
            pages::home::about(p, teaches)
        })
        .collect())
}

/// Whether a page's body holds an island of one of `carrier`'s widgets.
pub fn has_islands_of(body: &str, carrier: Carrier) -> bool {
    carrier
        .widgets()
        .any(|w| body.contains(&format!("data-island=\"{}\"", w.name)))
}

/// The whole document for `route`, as JavaScript makes no difference to it:
/// without the narrow copies of its charts ([`page`] adds them).
pub fn document(route: Route, ctx: &Context) -> String {
    wrap(route, ctx, &body(route, ctx))
}

/// The document for `route` with a `<noscript>` image in each chart box, and
/// the narrow copies of its charts those images name (see [`figures`]): the
/// body is rendered once at design width and once with every chart drawn at
/// [`NARROW_WIDTH`].
pub fn page(route: Route, ctx: &Context) -> Result<(String, Vec<Figure>), Error> {
    let wide = body(route, ctx);
    let narrow = ridgeline_app::charts::size::drawn_at(NARROW_WIDTH, || body(route, ctx));
    let (body, figures) = figures::attach(&wide, &narrow, route.figure_dir(), &ctx.public_url)?;
    Ok((wrap(route, ctx, &body), figures))
}

/// The description every page shares (`description`, `og:description`).
const DESCRIPTION: &str = "An interactive companion to How to Scale Your Model: rooflines, sharding, training and inference arithmetic, live in the browser.";

/// The Highwire (`citation_*`, read by Google Scholar and reference managers)
/// and Open Graph tags of `route`: its title, and the book it accompanies as
/// a `citation_reference`. No `og:url`: the build does not know the host.
pub fn citation_meta(route: Route) -> String {
    let title = escape(&route.title());
    let kind = match route {
        Route::Part(_) => "article",
        _ => "website",
    };
    let authors: String = ridgeline_app::pages::cite::BOOK_AUTHORS
        .iter()
        .map(|a| format!("citation_author={a}; "))
        .collect();
    format!(
        r#"<meta name="citation_title" content="{title}" />
<meta name="citation_language" content="en" />
<meta name="citation_reference" content="citation_title=How to Scale Your Model; {authors}citation_publisher=Google DeepMind; citation_publication_date=2025; citation_fulltext_html_url=https://jax-ml.github.io/scaling-book/" />
<meta property="og:type" content="{kind}" />
<meta property="og:site_name" content="ridgeline" />
<meta property="og:title" content="{title}" />
<meta property="og:description" content="{DESCRIPTION}" />
"#
    )
}

/// The head written here around a rendered `body`.
fn wrap(route: Route, ctx: &Context, body: &str) -> String {
    let public = &ctx.public_url;
    let a = &ctx.assets;
    let mut head = format!(
        r#"<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="description" content="{DESCRIPTION}" />
<meta name="color-scheme" content="light dark" />
{citation}
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'" />
<title>{title}</title>
<base href="{public}" />
<link rel="stylesheet" href="{public}{css}" />
<script src="{public}{theme}"></script>
<link rel="icon" href="{public}{icon}" type="image/svg+xml" />
<meta name="ridgeline-search" content="{public}{search}" />
"#,
        title = escape(&route.title()),
        citation = citation_meta(route),
        theme = a.theme,
        css = a.css,
        icon = a.favicon,
        search = a.search,
    );
    // The math font, fetched early by the pages that draw math only (a page
    // without MathML never loads it: the stylesheet names it for `math` alone).
    if body.contains("<math") {
        head.push_str(&format!(
            r#"<link rel="preload" href="{public}{font}" as="font" type="font/woff2" crossorigin="anonymous" />
"#,
            font = a.math_font
        ));
    }
    if let Some(b) = route.bundle(ctx) {
        head.push_str(&format!(
            r#"<meta name="ridgeline-bundle" content="{public}{boot}" />
<link rel="modulepreload" href="{public}{boot}" crossorigin="anonymous" />
<link rel="modulepreload" href="{public}{js}" crossorigin="anonymous" />
<link rel="preload" href="{public}{wasm}" as="fetch" type="application/wasm" crossorigin="anonymous" fetchpriority="low" />
<script type="module" async src="{public}{start}"></script>
"#,
            boot = b.boot,
            js = b.js,
            wasm = b.wasm,
            start = a.start,
        ));
        // The checker is not preloaded: the loader starts it when the reader
        // nears a problem (see scripts.rs).
        if has_islands_of(body, Carrier::Exercises) {
            head.push_str(&format!(
                "<meta name=\"ridgeline-exercises\" content=\"{public}{}\" />\n",
                ctx.exercises.boot
            ));
        }
        // Likewise the library's forms, when the reader nears them.
        if has_islands_of(body, Carrier::Library) {
            head.push_str(&format!(
                "<meta name=\"ridgeline-library\" content=\"{public}{}\" />\n",
                ctx.library.boot
            ));
        }
    }
    let (prev, next) = route.prev_next();
    for (rel, p) in [("prev", prev), ("next", next)] {
        if let Some(p) = p {
            head.push_str(&format!(
                r#"<link rel="{rel}" href="{public}{}" />"#,
                p.slug
            ));
            head.push('\n');
        }
    }
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n{head}</head>\n<body>\n{}\n</body>\n</html>\n",
        body
    )
}

/// What [`write_pages`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Every route's path (for the service worker's list of pages).
    pub paths: Vec<String>,
    /// Every narrow chart copy, site-relative.
    pub figures: Vec<String>,
}

/// Writes every route's document, and the narrow copies of its charts, into
/// `site`.
pub fn write_pages(site: &Path, parts: &[SummaryPart], ctx: &Context) -> Result<Written, Error> {
    if parts.len() != PARTS.len() {
        return Err(format!(
            "SUMMARY.md lists {} parts but the app was built with {}: rebuild",
            parts.len(),
            PARTS.len()
        ));
    }
    // Report a broken chapters/teaches.md rather than write a bare home.
    home_about()?;
    let mut written = Written::default();
    for route in Route::all() {
        let (html, figures) = page(route, ctx)?;
        write(&site.join(route.file()), html)?;
        for f in figures {
            write(&site.join(&f.path), &f.svg)?;
            written.figures.push(f.path);
        }
        written.paths.push(route.path().to_string());
    }
    Ok(written)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ridgeline_app::content::Segment;

    /// A context with placeholder bundle names, for tests.
    pub(crate) fn ctx() -> Context {
        let bundles = ridgeline_content::summary::bundles(&crate::parts().expect("summary"))
            .into_iter()
            .map(|(name, _)| {
                let b = Bundle {
                    name: name.clone(),
                    boot: format!("_b/{name}/boot-1.js"),
                    js: format!("_b/{name}/app-1.js"),
                    wasm: format!("_b/{name}/app-1_bg.wasm"),
                };
                (name, b)
            })
            .collect();
        Context {
            public_url: "/".into(),
            assets: Assets {
                css: "style-1.css".into(),
                theme: "theme-1.js".into(),
                start: "start-1.js".into(),
                search: "search-1.txt".into(),
                favicon: "favicon.svg".into(),
                math_font: "math-1.woff2".into(),
            },
            bundles,
            default_bundle: "main".into(),
            exercises: Bundle {
                name: "exercises".into(),
                boot: "_b/exercises/boot-1.js".into(),
                js: "_b/exercises/app-1.js".into(),
                wasm: "_b/exercises/app-1_bg.wasm".into(),
            },
            library: Bundle {
                name: "library".into(),
                boot: "_b/library/boot-1.js".into(),
                js: "_b/library/app-1.js".into(),
                wasm: "_b/library/app-1_bg.wasm".into(),
            },
            offline_bytes: 2.5e6,
        }
    }

    /// Leptos marks each dynamic child with `<!>` for hydration; a static
    /// page, mounted and never hydrated, ships none (and so is the same
    /// whether the app's component types were erased or not).
    #[test]
    fn pages_carry_no_hydration_markers() {
        let ctx = ctx();
        let marked =
            Owner::new().with(|| view! { <p>{move || "dynamic"}</p> }.into_view().to_html());
        assert!(marked.contains("<!>"), "{marked}");
        assert_eq!(
            render_html(|| view! { <p>{move || "dynamic"}</p> }),
            marked.replace("<!>", "")
        );
        for route in Route::all() {
            assert!(!document(route, &ctx).contains("<!>"), "{route:?}");
        }
    }

    /// Only a page that draws math names the math font (the stylesheet's
    /// `@font-face` is fetched only when a `math` element uses it).
    #[test]
    fn only_pages_with_math_preload_the_math_font() {
        let ctx = ctx();
        let link = format!("href=\"/{}\" as=\"font\"", ctx.assets.math_font);
        let mut with = Vec::new();
        for route in Route::all() {
            let doc = document(route, &ctx);
            assert_eq!(
                doc.contains(&link),
                doc.contains("<math"),
                "{}",
                route.path()
            );
            if doc.contains(&link) {
                with.push(route.path());
            }
        }
        assert!(
            with.contains(&"training") && !with.contains(&""),
            "{with:?}"
        );
    }

    /// Each widget is followed by its "Cite this figure" control: a link to
    /// the figure (its id) and a BibTeX entry naming it, complete without
    /// JavaScript; the start script adds the widget's settings.
    #[test]
    fn every_widget_can_be_cited_with_a_link_to_it() {
        let ctx = ctx();
        let mut n = 0;
        for p in PARTS.iter().filter(|p| p.written) {
            let doc = document(Route::Part(p), &ctx);
            let figures: Vec<&str> = doc.split(" id=\"figure-").skip(1).collect();
            for island in figures {
                let name = &island[..island.find('"').expect("id ends")];
                if name.starts_with("exercise") {
                    assert!(
                        !island.contains("data-cite-figure"),
                        "{name}: a problem is no figure"
                    );
                    continue;
                }
                let tag = &island[..island.find('>').expect("tag ends")];
                // A live widget's island, or a static figure drawn at build time.
                assert!(
                    tag.contains(&format!("data-island=\"{name}\""))
                        || tag.contains("class=\"static-figure\""),
                    "{tag}"
                );
                let cite = format!("data-cite-figure=\"{name}\"");
                let at = island
                    .find(&cite)
                    .unwrap_or_else(|| panic!("{}: {name}", p.slug));
                let at = island[..at].rfind("<details").expect("a details element");
                let open = &island[at..at + island[at..].find('>').expect("tag ends")];
                assert!(open.contains("class=\"cite cite-figure\""), "{open}");
                let block = &island[at..island[at..].find("</details>").expect("closed") + at];
                let link = format!("{}#figure-{name}", p.slug);
                assert!(block.contains(&format!("href=\"{link}\"")), "{block}");
                assert!(
                    block.contains(&format!("@misc{{ridgeline-{}-{name},", p.slug)),
                    "{block}"
                );
                assert!(
                    block.contains(&format!("<span data-permalink=\"\">{link}</span>")),
                    "{block}"
                );
                n += 1;
            }
        }
        assert!(n > 30, "{n} widgets");
        let start = crate::scripts::start_js();
        assert!(start.contains("[data-cite-figure]") && start.contains("k.startsWith(`${name}.`)"));
    }

    /// Home opens with the roofline and its ridge, drawn at build time with
    /// core's numbers as an island of Part 1's bundle, which the page starts
    /// (and no other), and a way into Part 1's whole widget.
    #[test]
    fn home_shows_the_ridge_live_from_part_ones_bundle() {
        let home = document(Route::Home, &ctx());
        let f = ridgeline_app::pages::home::ridge_facts().expect("facts");
        assert!(home.contains("data-home-figure"));
        let ridge = format!(
            "HBM ridge {} FLOPs/B",
            ridgeline_core::format::sci(f.ridge, 3)
        );
        assert_eq!(home.matches(&ridge).count(), 1, "{ridge}");
        assert!(home.contains(
            "data-island=\"roofline\" data-args=\"chip=v5e&amp;b=64&amp;d=8192&amp;f=8192&amp;controls=batch\""
        ));
        assert!(home.contains("data-verdict=\"memory-bound\""));
        assert!(home.contains("type=\"range\""));
        // Only the batch: no chip picker, no derate, no times.
        assert!(!home.contains("class=\"controls\"") && !home.contains("data-derate"));
        assert!(home.contains("href=\"rooflines#figure-roofline\""));
        assert!(home.find("data-home-figure") < home.find("class=\"parts\""));
        // The bundle that carries the widget, Part 1's, and no other.
        assert!(
            home.contains(r#"<meta name="ridgeline-bundle" content="/_b/rooflines/boot-1.js" />"#)
        );
        assert!(!home.contains("_b/main/"));
    }

    #[test]
    fn every_route_of_the_summary_gets_a_document() {
        let routes = Route::all();
        assert_eq!(routes.len(), PARTS.len() + 5);
        let files: Vec<String> = routes.iter().map(|r| r.file()).collect();
        for p in PARTS.iter() {
            assert!(files.contains(&format!("{}.html", p.slug)), "{}", p.slug);
        }
        for f in [
            "index.html",
            "progress.html",
            "numbers.html",
            "measured.html",
            "404.html",
        ] {
            assert!(files.iter().any(|x| x == f), "{f}");
        }
    }

    #[test]
    fn the_measured_page_and_its_marks_link_each_other() {
        let ctx = ctx();
        let page = document(Route::Measured, &ctx);
        assert!(
            page.contains("<h1>Measured beside predicted</h1>"),
            "{page}"
        );
        assert!(page.contains("<title>Measured beside predicted — ridgeline</title>"));
        let entries = ridgeline_core::measured::entries().unwrap();
        for e in &entries {
            // One row the marks link to, one more in the view sorted by chip.
            assert!(page.contains(&format!("<tr id=\"{}\"", e.id)), "{}", e.id);
        }
        assert_eq!(page.matches("<tr ").count(), 2 * entries.len());
        assert!(!page.contains("<script>"), "no inline script");
        // Every mark placed in a chapter names a row of the page.
        let mut marks = 0;
        for p in PARTS.iter().filter(|p| p.written) {
            let doc = document(Route::Part(p), &ctx);
            for chunk in doc.split("data-measured=\"").skip(1) {
                let id = chunk.split('"').next().unwrap();
                assert!(
                    page.contains(&format!("<tr id=\"{id}\"")),
                    "{}: {id}",
                    p.slug
                );
                assert!(
                    chunk.contains(&format!("href=\"measured#{id}\"")),
                    "{}: {id}",
                    p.slug
                );
                marks += 1;
            }
        }
        assert!(marks >= 10, "only {marks} marks in the chapters");
    }

    #[test]
    fn every_page_links_the_measured_page_from_its_footer() {
        let ctx = ctx();
        for route in Route::all() {
            let html = document(route, &ctx);
            let footer = between(&html, "<footer class=\"site-footer\">", "</footer>");
            assert!(
                footer.contains("<a href=\"measured\">Predicted beside measured</a>"),
                "{}: {footer}",
                route.file()
            );
        }
    }

    #[test]
    fn a_part_page_holds_its_chapter_and_every_widgets_static_figure() {
        let ctx = ctx();
        for p in PARTS.iter().filter(|p| p.written) {
            let html = document(Route::Part(p), &ctx);
            assert!(
                html.contains(&format!("data-page=\"{}\"", p.slug)),
                "{}",
                p.slug
            );
            assert!(!html.contains("{{"), "{}: an unexpanded directive", p.slug);
            assert!(!html.contains("<script>"), "{}: an inline script", p.slug);
            assert!(html.contains(&format!("_b/{}/boot-1.js", p.bundle)));
            for s in p.segments {
                if let Segment::Widget(name, _) = s {
                    // A static figure is drawn and never mounted: no island.
                    let figure = ridgeline_app::widgets::STATIC.contains(name);
                    assert_eq!(
                        html.contains(&format!("data-island=\"{name}\"")),
                        !figure,
                        "{}: {name}'s island (static figure: {figure})",
                        p.slug
                    );
                    if !name.starts_with("exercise") {
                        assert!(
                            html.contains(&format!("data-widget=\"{name}\"")),
                            "{}: widget {name} has no static rendering",
                            p.slug
                        );
                    }
                }
            }
            for (id, _) in p.sections {
                assert!(
                    html.contains(&format!("id=\"{id}\"")),
                    "{}: no anchor {id}",
                    p.slug
                );
            }
        }
    }

    /// The values of `attr="…"` in `html`, in order.
    fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
        let key = format!("{attr}=\"");
        html.split(key.as_str())
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect()
    }

    /// The text of `html` from the first `start` to the next `end` after it.
    fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
        let from = html.find(start).unwrap_or_else(|| panic!("no {start}"));
        let rest = &html[from..];
        &rest[..rest.find(end).unwrap_or(rest.len())]
    }

    #[test]
    fn the_contents_link_every_section_heading_of_the_chapter_in_order() {
        let ctx = ctx();
        for p in PARTS.iter().filter(|p| p.written) {
            let html = document(Route::Part(p), &ctx);
            let toc = between(&html, "class=\"toc\">", "</nav>");
            let links: Vec<&str> = attr_values(toc, "href");
            let body = between(&html, "<div class=\"chapter-body\">", "class=\"pager\">");
            let headings: Vec<String> = attr_values(body, "<h2 id")
                .into_iter()
                .map(|id| format!("{}#{id}", p.slug))
                .collect();
            assert!(!headings.is_empty(), "{}: no section headings", p.slug);
            assert_eq!(links, headings, "{}", p.slug);
        }
    }

    #[test]
    fn every_page_says_how_to_cite_it_in_its_head_and_its_footer() {
        let ctx = ctx();
        for route in Route::all() {
            let html = document(route, &ctx);
            let head = between(&html, "<head>", "</head>");
            let title = escape(&route.title());
            for tag in [
                format!(r#"<meta name="citation_title" content="{title}" />"#),
                format!(r#"<meta property="og:title" content="{title}" />"#),
                r#"<meta property="og:site_name" content="ridgeline" />"#.to_string(),
            ] {
                assert!(head.contains(&tag), "{}: no {tag}", route.file());
            }
            let reference = attr_values(head, "name=\"citation_reference\" content");
            assert_eq!(reference.len(), 1, "{}", route.file());
            assert!(reference[0].starts_with(
                "citation_title=How to Scale Your Model; citation_author=Austin, Jacob; "
            ));
            assert_eq!(reference[0].matches("citation_author=").count(), 11);
            // The footer's Cite: the page's entry with its permalink, and the book's.
            let cite = between(&html, "data-cite=\"\"", "</details>");
            let page = between(cite, "<pre data-bibtex=\"page\">", "</pre>");
            assert!(page.contains(&format!(
                "@misc{{{},",
                ridgeline_app::pages::cite::key(route.path())
            )));
            assert!(page.contains(&format!("title = {{{title}}}")), "{page}");
            assert!(
                page.contains(&format!(
                    "url = {{<span data-permalink=\"\">{}</span>}}",
                    ridgeline_app::pages::cite::permalink(route.path())
                )),
                "{page}"
            );
            assert!(page.contains(&format!("version {}", ridgeline_app::pages::cite::VERSION)));
            assert!(cite.contains("@article{scaling-book,"));
        }
    }

    #[test]
    fn every_page_holds_the_sheet_of_shortcuts_and_home_lists_them() {
        use ridgeline_app::pages::keys::SHORTCUTS;
        let ctx = ctx();
        for route in Route::all() {
            let html = document(route, &ctx);
            let sheet = between(&html, "<dialog", "</dialog>");
            assert!(sheet.contains("id=\"keys\""), "{}", route.file());
            for (keys, what) in SHORTCUTS {
                assert!(
                    sheet.contains(&format!("<dd>{}</dd>", escape(what))),
                    "{what}"
                );
                for k in *keys {
                    assert!(sheet.contains(&format!("<kbd>{}</kbd>", escape(k))), "{k}");
                }
            }
        }
        let home = document(Route::Home, &ctx);
        let main = between(&home, "<main", "</main>");
        assert_eq!(main.matches("<dd>").count(), SHORTCUTS.len());
    }

    #[test]
    fn home_says_what_each_part_teaches_how_long_it_takes_and_its_widgets() {
        let about = home_about().expect("teaches.md");
        let home = document(Route::Home, &ctx());
        for (p, a) in PARTS.iter().zip(&about) {
            let item = between(&home, &format!("data-part=\"{}\"", p.number), "</li>");
            // (Up to its first apostrophe, which HTML escapers write differently.)
            let teaches = a.teaches.split('\'').next().unwrap_or_default();
            assert!(item.contains(teaches), "part {}", p.number);
            assert!(!a.teaches.is_empty());
            if p.written {
                assert!(a.minutes > 0);
                assert!(item.contains(&format!("{} min read", a.minutes)), "{item}");
            }
            for w in &a.widgets {
                assert!(item.contains(w), "part {}: widget {w}", p.number);
            }
            assert!(item.contains(&format!("data-problems=\"{}\"", a.problems)));
            assert!(item.contains(p.book_url));
        }
        let rooflines = &about[1];
        assert!(rooflines.widgets.contains(&"roofline") && rooflines.problems > 0);
    }

    #[test]
    fn pages_with_the_library_forms_name_its_bundle_without_preloading_it() {
        let ctx = ctx();
        let mut with = Vec::new();
        for route in Route::all() {
            let html = document(route, &ctx);
            let named = html
                .contains(r#"<meta name="ridgeline-library" content="/_b/library/boot-1.js" />"#);
            assert_eq!(
                named,
                has_islands_of(&html, Carrier::Library),
                "{}",
                route.path()
            );
            assert!(!html.contains("_b/library/app-1"), "{}", route.path());
            if named {
                with.push(route.path());
            }
        }
        // The reader's forms (Part 6), the serving engine (Part 7), the trace
        // viewer (Part 9) and the GPU pipeline planner (Part 12); the spec
        // tables of Parts 2 and 12 are static figures, which need no bundle.
        assert_eq!(
            with,
            vec!["applied-training", "inference", "profiling", "gpus"]
        );
    }

    #[test]
    fn pages_with_problems_name_the_checker_without_preloading_it() {
        let ctx = ctx();
        let mut with = 0;
        for route in Route::all() {
            let html = document(route, &ctx);
            let named = html.contains(
                r#"<meta name="ridgeline-exercises" content="/_b/exercises/boot-1.js" />"#,
            );
            assert_eq!(
                named,
                has_islands_of(&html, Carrier::Exercises),
                "{}",
                route.path()
            );
            // Only the page's own bundle is preloaded.
            assert!(!html.contains("_b/exercises/app-1"), "{}", route.path());
            with += usize::from(named);
        }
        let parts_with_problems = PARTS
            .iter()
            .filter(|p| {
                p.segments
                    .iter()
                    .any(|s| matches!(s, Segment::Widget(n, _) if n.starts_with("exercise")))
            })
            .count();
        assert!(parts_with_problems >= 10, "{parts_with_problems}");
        assert_eq!(with, parts_with_problems);
    }

    #[test]
    fn the_roofline_figure_is_drawn_with_its_verdict() {
        let p = PARTS
            .iter()
            .find(|p| p.slug == "rooflines")
            .expect("rooflines");
        let html = document(Route::Part(p), &ctx());
        let at = html
            .find("data-widget=\"roofline\"")
            .expect("roofline widget");
        let rest = &html[at..];
        assert!(rest.contains("<svg"), "no inline SVG figure");
        assert!(html.contains("<math"), "the chapter's math is not MathML");
        assert!(
            rest.contains(">memory-bound<") || rest.contains(">compute-bound<"),
            "no verdict text"
        );
    }

    #[test]
    fn home_links_every_part_and_the_next_one() {
        let html = document(Route::Home, &ctx());
        for p in PARTS.iter() {
            assert!(html.contains(&format!("href=\"{}\"", p.slug)), "{}", p.slug);
        }
        assert!(html.contains("rel=\"next\""));
        assert!(html.contains("data-island=\"site-search\""));
    }

    /// The introduction draws one Transformer layer (the book's
    /// `transformer-diagram.png`) statically, with a button per operation.
    #[test]
    fn the_introduction_draws_a_transformer_layer() {
        let p = PARTS
            .iter()
            .find(|p| p.slug == "introduction")
            .expect("introduction");
        let html = document(Route::Part(p), &ctx());
        let at = html
            .find("data-widget=\"layer-diagram\"")
            .expect("a layer diagram on /introduction");
        let rest = &html[at..];
        for op in ["W_Q", "QKᵀ", "W_in", "W_out"] {
            assert!(
                rest.contains(&format!("data-op=\"{op}\"")),
                "no {op} box on /introduction"
            );
        }
    }

    /// Every row of `chapters/coverage/*.md` (the book's sections and figures,
    /// or its key points, each with what covers it on our page) must name
    /// something that exists on the built page; prints the share covered.
    #[test]
    fn the_coverage_maps_name_only_what_the_pages_have() {
        let dir = crate::repo_root().join("chapters/coverage");
        let ctx = ctx();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("chapters/coverage exists")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        assert!(
            files.len() >= 12,
            "coverage maps for every chapter: {files:?}"
        );
        let (mut rows, mut live, mut planned, mut link_only) = (0, 0, 0, 0);
        for file in files {
            let name = file
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_string();
            // `02-tpus.md` maps Part 2.
            let number: u8 = name
                .split('-')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(255);
            let part = PARTS
                .iter()
                .find(|p| p.number == number)
                .unwrap_or_else(|| panic!("{name}: no part with that number"));
            let html = document(Route::Part(part), &ctx);
            let text = crate::read(&file).expect("readable");
            // A map in the key-point format (one row per key point of the
            // part; `ridgeline_content::coverage`): each place it names is on
            // the built page.
            if ridgeline_content::coverage::is_keypoint_map(&text) {
                use ridgeline_content::coverage::{parse_map, Place};
                for row in parse_map(&text).unwrap_or_else(|e| panic!("{name}: {e}")) {
                    rows += 1;
                    for place in &row.places {
                        let there = match place {
                            Place::Heading(id) => html.contains(&format!("id=\"{id}\"")),
                            Place::Widget(w) => html.contains(&format!("data-widget=\"{w}\"")),
                            Place::Exercise(e) => html.contains(&format!("data-exercise=\"{e}\"")),
                        };
                        assert!(
                            there,
                            "{name}: {}: {place:?} is not on /{}",
                            row.id, part.slug
                        );
                    }
                    live += usize::from(!row.places.is_empty());
                }
                continue;
            }
            for line in text.lines().filter(|l| l.starts_with('|')).skip(2) {
                let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
                assert_eq!(cells.len(), 3, "{name}: a row needs three cells: {line}");
                let covered = cells[2];
                rows += 1;
                if let Some(anchor) = covered.strip_prefix('#') {
                    assert!(
                        html.contains(&format!("id=\"{anchor}\"")),
                        "{name}: no anchor #{anchor} on /{}",
                        part.slug
                    );
                    live += 1;
                } else if let Some(w) = covered.strip_prefix("widget ") {
                    assert!(
                        html.contains(&format!("data-widget=\"{w}\""))
                            || html.contains(&format!("data-island=\"{w}\"")),
                        "{name}: no widget {w} on /{}",
                        part.slug
                    );
                    live += 1;
                } else if let Some(id) = covered.strip_prefix("exercise ") {
                    assert!(
                        html.contains(&format!("data-exercise=\"{id}\"")),
                        "{name}: no exercise {id} on /{}",
                        part.slug
                    );
                    live += 1;
                } else if covered.starts_with("planned widget ") {
                    planned += 1;
                } else if covered.starts_with("link only: ")
                    && covered.len() > "link only: ".len() + 3
                {
                    link_only += 1;
                } else {
                    panic!("{name}: unreadable \"covered by\": {covered}");
                }
            }
        }
        eprintln!("coverage: {rows} rows, {live} covered on the page, {planned} planned widgets, {link_only} link only");
        assert!(rows > 200 && live * 2 > rows, "{live} of {rows}");
    }
}
