//! The site writer's command line; see the crate docs.

#![warn(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_possible_wrap
)]

/// `after - before` with its sign, for a size table.
fn delta(after: usize, before: usize) -> String {
    if after >= before {
        (after - before).to_string()
    } else {
        format!("-{}", before - after)
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        // For each bundle, what it compiles from the chapters, hashed: one
        // line `name features hash` (scripts/build.sh keys its bundle cache
        // on it, so an edit to a chapter's prose rebuilds no bundle).
        Some("bundle-inputs") => {
            use ridgeline_content::app_build::{generate, Features};
            let chapters = ridgeline_app::content::chapters_dir();
            for line in ridgeline_site::bundle_lines(&ridgeline_site::parts()?).lines() {
                let (name, features) = line.split_once(' ').unwrap_or((line, ""));
                let compiled = generate(&chapters, &Features::parse(features)?, true)?.compiled();
                let hash = ridgeline_site::scripts::long_hash(compiled.as_bytes());
                println!("{name} {features} {hash}");
            }
            Ok(())
        }
        // The characters the chapters' MathML uses, as hex code points
        // separated by commas (scripts/math-font.sh cuts the font to them).
        Some("math-chars") => {
            let chars = ridgeline_site::mathfont::chapter_math_chars()?;
            let hex: Vec<String> = chars.iter().map(|c| format!("{:X}", *c as u32)).collect();
            println!("{}", hex.join(","));
            Ok(())
        }
        Some("check") => ridgeline_site::check_chapters(),
        Some("write") => {
            let dir = args.get(1).ok_or("write needs the site folder")?;
            let mut public_url = "/".to_string();
            let mut compress = true;
            let mut rest = args[2..].iter();
            while let Some(a) = rest.next() {
                match a.as_str() {
                    "--public-url" => {
                        public_url = rest.next().ok_or("--public-url needs a path")?.clone()
                    }
                    "--no-compress" => compress = false,
                    other => return Err(format!("unknown argument {other}")),
                }
            }
            if !public_url.starts_with('/') || !public_url.ends_with('/') {
                return Err(format!(
                    "--public-url must start and end with /: {public_url}"
                ));
            }
            if let Some(kept) = std::env::var_os("RIDGELINE_COMPRESSED") {
                ridgeline_site::compress::keep_in(std::path::Path::new(&kept))?;
            }
            let s = ridgeline_site::write_site(std::path::Path::new(dir), &public_url, compress)?;
            println!(
                "wrote {} pages, {} narrow chart copies; {} files precompressed",
                s.pages, s.figures, s.compressed
            );
            Ok(())
        }
        Some("pages") => {
            let dir = args.get(1).ok_or("pages needs the site folder")?;
            let sizes = ridgeline_site::write_static(std::path::Path::new(dir))?;
            println!("page                     html gz before  after   delta  copies  bytes  gz");
            let (mut before, mut after, mut n, mut bytes, mut gz) = (0, 0, 0, 0, 0);
            for s in &sizes {
                println!(
                    "{:<24} {:>14} {:>6} {:>7} {:>7} {:>6} {:>6}",
                    s.file,
                    s.html_gzip_without,
                    s.html_gzip,
                    delta(s.html_gzip, s.html_gzip_without),
                    s.figures,
                    s.figure_bytes,
                    s.figure_gzip
                );
                before += s.html_gzip_without;
                after += s.html_gzip;
                n += s.figures;
                bytes += s.figure_bytes;
                gz += s.figure_gzip;
            }
            println!(
                "{:<24} {before:>14} {after:>6} {:>7} {n:>7} {bytes:>6} {gz:>6}",
                "all",
                delta(after, before)
            );
            Ok(())
        }
        _ => {
            Err("usage: ridgeline-site bundle-inputs | math-chars | check | write DIR [--public-url /sub/] [--no-compress] | pages DIR".into())
        }
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("ridgeline-site: {e}");
        std::process::exit(1);
    }
}
