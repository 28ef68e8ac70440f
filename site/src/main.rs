//! The site writer's command line; see the crate docs.

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("bundles") => {
            print!(
                "{}",
                ridgeline_site::bundle_lines(&ridgeline_site::parts()?)
            );
            Ok(())
        }
        Some("write") => {
            let dir = args.get(1).ok_or("write needs the site folder")?;
            let mut public_url = "/".to_string();
            let mut rest = args[2..].iter();
            while let Some(a) = rest.next() {
                match a.as_str() {
                    "--public-url" => {
                        public_url = rest.next().ok_or("--public-url needs a path")?.clone()
                    }
                    other => return Err(format!("unknown argument {other}")),
                }
            }
            if !public_url.starts_with('/') || !public_url.ends_with('/') {
                return Err(format!(
                    "--public-url must start and end with /: {public_url}"
                ));
            }
            let s = ridgeline_site::write_site(std::path::Path::new(dir), &public_url)?;
            println!(
                "wrote {} pages; {} files precompressed",
                s.pages, s.compressed
            );
            Ok(())
        }
        _ => Err("usage: ridgeline-site bundles | write DIR [--public-url /sub/]".into()),
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("ridgeline-site: {e}");
        std::process::exit(1);
    }
}
