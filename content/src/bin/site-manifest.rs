//! Describes the site for `scripts/build.sh` and writes its search index.
//!
//! ```text
//! cargo run -q -p ridgeline-content --bin site-manifest -- [--summary chapters/SUMMARY.md] [--write-search DIR]
//! {"default":"main","search":"search-….txt","bundles":[{"name":"main","features":"part0,part1","slugs":["introduction","rooflines"]}, …]}
//! ```
//!
//! Each bundle lists the Cargo features that build it and the routes it serves.
//! With `--write-search DIR` the chapters are rendered and their text written to
//! `DIR/<search file>` ([`ridgeline_content::search`]).

use ridgeline_content::render::render_chapter;
use ridgeline_content::search;
use ridgeline_content::summary::{bundles, parse_summary, DEFAULT_BUNDLE};
use std::path::PathBuf;

fn run() -> Result<String, String> {
    let mut summary = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../chapters/SUMMARY.md"
    ));
    let mut search_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--summary" => summary = args.next().ok_or("--summary needs a path")?.into(),
            "--write-search" => {
                search_dir = Some(args.next().ok_or("--write-search needs a folder")?.into())
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let parts = parse_summary(&read(&summary)?)?;
    let mut search_entry = String::new();
    if let Some(dir) = search_dir {
        let chapters = summary.parent().map(PathBuf::from).unwrap_or_default();
        let mut texts = Vec::new();
        for p in &parts {
            if let Some(file) = &p.file {
                let rendered = render_chapter(&read(&chapters.join(file))?)
                    .map_err(|e| format!("chapters/{file}: {e}"))?;
                texts.push((p.slug.as_str(), rendered.text));
            }
        }
        let entries: Vec<(&str, &str)> = texts.iter().map(|(s, t)| (*s, t.as_str())).collect();
        let index = search::encode(&entries);
        let name = search::file_name(&index);
        let path = dir.join(&name);
        std::fs::write(&path, index).map_err(|e| format!("{}: {e}", path.display()))?;
        search_entry = format!("\"search\":{name:?},");
    }
    let list: Vec<String> = bundles(&parts)
        .iter()
        .map(|(name, parts)| {
            let features: Vec<String> = parts.iter().map(|p| format!("part{}", p.number)).collect();
            let slugs: Vec<String> = parts.iter().map(|p| format!("{:?}", p.slug)).collect();
            format!(
                "{{\"name\":{name:?},\"features\":{:?},\"slugs\":[{}]}}",
                features.join(","),
                slugs.join(",")
            )
        })
        .collect();
    Ok(format!(
        "{{\"default\":{DEFAULT_BUNDLE:?},{search_entry}\"bundles\":[{}]}}",
        list.join(",")
    ))
}

fn main() {
    match run() {
        Ok(json) => println!("{json}"),
        Err(e) => {
            eprintln!("site-manifest: {e}");
            std::process::exit(1);
        }
    }
}
