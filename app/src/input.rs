//! Validation of everything a reader can type, drag or put in a URL.
//!
//! Each parser returns the value or a sentence saying what is wrong; widgets
//! show the sentence inline and keep their last valid state.

/// Parses a positive count such as `4096`, `4,096`, `4_096`, `1e4` or `2^12`,
/// and checks it lies in `min..=max`.
pub fn parse_count(text: &str, what: &str, min: f64, max: f64) -> Result<f64, String> {
    let t: String = text
        .trim()
        .chars()
        .filter(|c| *c != ',' && *c != '_')
        .collect();
    if t.is_empty() {
        return Err(format!("{what} is empty"));
    }
    let value = if let Some((base, exp)) = t.split_once('^') {
        match (base.trim().parse::<f64>(), exp.trim().parse::<f64>()) {
            (Ok(b), Ok(e)) if e.abs() <= 1000.0 => b.powf(e),
            _ => return Err(format!("{what}: “{}” is not a number", short(text))),
        }
    } else {
        t.parse::<f64>()
            .map_err(|_| format!("{what}: “{}” is not a number", short(text)))?
    };
    if value.is_nan() {
        return Err(format!("{what}: “{}” is not a number", short(text)));
    }
    if value < min {
        return Err(format!("{what} must be at least {}", bound(min)));
    }
    if value > max || value.is_infinite() {
        return Err(format!("{what} must be at most {}", bound(max)));
    }
    Ok(value)
}

/// Parses a whole count as [`parse_count`] does, rounded to the nearest whole
/// number and returned as the count type `T` (`u32`, `u64`, `usize`): a value
/// in range that the type cannot hold is refused, never wrapped or cut.
pub fn parse_whole<T: TryFrom<u64>>(
    text: &str,
    what: &str,
    min: f64,
    max: f64,
) -> Result<T, String> {
    let value = parse_count(text, what, min, max)?.round();
    ridgeline_core::check::whole(value).ok_or_else(|| {
        format!(
            "{what}: {} is more than a count can hold here",
            bound(value)
        )
    })
}

/// A limit as a refusal states it: exact for a whole number a reader would
/// type in full (`65,536`, not `65500`), in scientific notation beyond.
fn bound(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e7 {
        ridgeline_core::format::grouped(x)
    } else {
        ridgeline_core::format::sci(x, 3)
    }
}

/// Parses an on/off setting (`1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`).
pub fn parse_flag(text: &str, what: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!(
            "{what}: “{}” is not on (1) or off (0)",
            short(text)
        )),
    }
}

/// Cuts what a reader typed to a length safe to echo back in a message.
pub fn short(text: &str) -> String {
    let t: String = text.chars().take(24).collect();
    if text.chars().count() > 24 {
        format!("{t}…")
    } else {
        t
    }
}

/// Maps a log-scale slider position `0..=steps` onto `min..=max`.
pub fn slider_to_value(pos: f64, steps: f64, min: f64, max: f64) -> f64 {
    let t = (pos / steps).clamp(0.0, 1.0);
    (min.ln() + t * (max.ln() - min.ln())).exp()
}

/// The slider position nearest to `value` on a log scale.
pub fn value_to_slider(value: f64, steps: f64, min: f64, max: f64) -> f64 {
    if !(value.is_finite() && value > 0.0) {
        return 0.0;
    }
    let t = (value.ln() - min.ln()) / (max.ln() - min.ln());
    (t.clamp(0.0, 1.0) * steps).round()
}

/// Largest global batch a training widget takes, tokens (2^30).
pub const GLOBAL_BATCH_MAX: f64 = 1_073_741_824.0;

/// Parses a mesh of chips, `16x16x16` (or `16×16`, `16,16`), into 1 to 3
/// axis sizes of 1 to 100,000 chips each.
pub fn parse_mesh(text: &str) -> Result<Vec<u32>, String> {
    let parts: Vec<&str> = text
        .split(['x', 'X', '×', ',', '*'])
        .map(str::trim)
        .collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!(
            "a mesh is 1 to 3 axis sizes like 16x16x16, got “{}”",
            short(text)
        ));
    }
    parts
        .iter()
        .map(|p| {
            p.parse::<u32>()
                .ok()
                .filter(|&n| (1..=100_000).contains(&n))
                .ok_or_else(|| format!("mesh axis “{}” is not a whole number of chips", short(p)))
        })
        .collect()
}

/// A mesh as [`parse_mesh`] reads it: `16x16x16`.
pub fn mesh_text(mesh: &[u32]) -> String {
    mesh.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole count is rounded, checked against its range, and refused (not
    /// wrapped) when its type cannot hold it: 300 lanes as a `u8` was 44.
    #[test]
    fn a_whole_count_is_rounded_and_refused_past_its_type() {
        assert_eq!(parse_whole::<u32>("2.6", "stages", 1.0, 64.0), Ok(3));
        assert_eq!(parse_whole::<u64>("2^40", "tokens", 1.0, 1e15), Ok(1 << 40));
        assert_eq!(
            parse_whole::<u8>("300", "lanes", 1.0, 1000.0),
            Err("lanes: 300 is more than a count can hold here".to_string())
        );
        assert_eq!(
            parse_whole::<u32>("65", "stages", 1.0, 64.0),
            Err("stages must be at most 64".to_string())
        );
        assert_eq!(
            parse_whole::<u32>("NaN", "stages", 1.0, 64.0),
            Err("stages: “NaN” is not a number".to_string())
        );
    }

    /// The limit in a refusal is the one applied: 65,536 GPUs was refused
    /// as "at most 65500" (three significant figures of 65,536).
    #[test]
    fn a_refusal_states_the_exact_limit() {
        assert_eq!(
            parse_count("70000", "gpus", 2.0, 65_536.0).unwrap_err(),
            "gpus must be at most 65,536"
        );
        assert_eq!(
            parse_count("1e13", "batch", 1.0, 1e12).unwrap_err(),
            "batch must be at most 1e12"
        );
        assert_eq!(
            parse_count("0.5", "MFU (%)", 0.1, 100.0).map_err(|e| e.len()),
            Ok(0.5)
        );
        assert_eq!(
            parse_count("0.05", "MFU (%)", 0.1, 100.0).unwrap_err(),
            "MFU (%) must be at least 0.1"
        );
    }

    #[test]
    fn flags_are_on_off_or_refused() {
        assert_eq!(parse_flag(" 1", "wraparound"), Ok(true));
        assert_eq!(parse_flag("False", "wraparound"), Ok(false));
        assert!(parse_flag("<script>", "wraparound").is_err());
        assert!(parse_flag("", "wraparound").is_err());
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("4096", "B", 1.0, 1e9), Ok(4096.0));
        assert_eq!(parse_count(" 4,096 ", "B", 1.0, 1e9), Ok(4096.0));
        assert_eq!(parse_count("2^12", "B", 1.0, 1e9), Ok(4096.0));
        assert_eq!(parse_count("1e4", "B", 1.0, 1e9), Ok(1e4));
        for bad in ["", "abc", "NaN", "-3", "0", "1e400", "inf", "2^99999", "∞"] {
            assert!(parse_count(bad, "B", 1.0, 1e9).is_err(), "{bad}");
        }
        let e = parse_count("0", "batch", 1.0, 1e9).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
        let e = parse_count(&"9".repeat(400), "batch", 1.0, 1e9).unwrap_err();
        assert!(e.len() < 80, "{e}");
    }

    #[test]
    fn meshes() {
        assert_eq!(parse_mesh("16×20×28"), Ok(vec![16, 20, 28]));
        assert_eq!(parse_mesh(" 16 x 16 "), Ok(vec![16, 16]));
        assert_eq!(mesh_text(&[16, 20, 28]), "16x20x28");
        for bad in ["", "0x4", "1x2x3x4", "16xx16", "1e3", "100001"] {
            assert!(parse_mesh(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slider_round_trip() {
        for v in [1.0, 64.0, 240.0, 1e6] {
            let pos = value_to_slider(v, 400.0, 1.0, 1048576.0);
            let back = slider_to_value(pos, 400.0, 1.0, 1048576.0);
            assert!((back / v - 1.0).abs() < 0.02, "{v} -> {pos} -> {back}");
        }
        assert_eq!(value_to_slider(f64::NAN, 400.0, 1.0, 2.0), 0.0);
    }
}
