//! Turning quantities into the short strings a reader sees.
//!
//! ```
//! use ridgeline_core::format::{grouped, sci, si};
//!
//! assert_eq!(sci(1.97e14, 3), "1.97e14");
//! assert_eq!(si(1.011e-3, "s", 3), "1.01 ms");
//! assert_eq!(si(4.5e-4, "s", 3), "450 µs");
//! assert_eq!(grouped(8755.6), "8,756");
//! ```

/// Rounds `x` to `sig` significant digits.
pub fn round_sig(x: f64, sig: u32) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let sig = sig.clamp(1, 15) as i32;
    let mag = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(sig - 1 - mag);
    (x * scale).round() / scale
}

/// Scientific notation in the book's style: `1.97e14`, `8.2e11`, `240`.
///
/// Numbers from 0.01 to 10 000 are written plainly.
pub fn sci(x: f64, sig: u32) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "—".into()
        } else {
            "∞".into()
        };
    }
    if x == 0.0 {
        return "0".into();
    }
    let r = round_sig(x, sig);
    let mag = r.abs().log10().floor() as i32;
    if (-2..5).contains(&mag) {
        return plain(r, sig, mag);
    }
    let mantissa = r / 10f64.powi(mag);
    let m = trim(format!("{:.*}", (sig.saturating_sub(1)) as usize, mantissa));
    format!("{m}e{mag}")
}

fn plain(r: f64, sig: u32, mag: i32) -> String {
    let decimals = (sig as i32 - 1 - mag).max(0) as usize;
    trim(format!("{r:.decimals$}"))
}

fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

const PREFIXES: [(i32, &str); 11] = [
    (18, "E"),
    (15, "P"),
    (12, "T"),
    (9, "G"),
    (6, "M"),
    (3, "k"),
    (0, ""),
    (-3, "m"),
    (-6, "µ"),
    (-9, "n"),
    (-12, "p"),
];

/// SI-prefixed value and unit: `197 TFLOPs/s`, `1.01 ms`, `16 GB`.
pub fn si(x: f64, unit: &str, sig: u32) -> String {
    if !x.is_finite() {
        return format!("{} {unit}", sci(x, sig));
    }
    if x == 0.0 {
        return format!("0 {unit}");
    }
    let r = round_sig(x, sig);
    let mag = r.abs().log10().floor() as i32;
    let (exp, prefix) = PREFIXES
        .iter()
        .copied()
        .find(|(e, _)| mag >= *e)
        .unwrap_or((-12, "p"));
    let scaled = r / 10f64.powi(exp);
    let digits = sig as i32 - 1 - (mag - exp);
    let text = trim(format!("{:.*}", digits.max(0) as usize, scaled));
    format!("{text} {prefix}{unit}")
}

/// A duration in the most readable SI unit.
pub fn seconds(s: f64) -> String {
    si(s, "s", 3)
}

/// A count of tokens: grouped below a million (`468`, `8,192`), in millions
/// above (`3.48M`).
pub fn tokens(x: f64) -> String {
    if x >= 1e6 {
        format!("{}M", sci(x / 1e6, 3))
    } else {
        grouped(x)
    }
}

/// A whole number with thousands separators: `8,756`.
pub fn grouped(x: f64) -> String {
    if !x.is_finite() {
        return sci(x, 3);
    }
    let n = x.round();
    let neg = n < 0.0;
    let digits = format!("{:.0}", n.abs());
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if neg {
        format!("-{out}")
    } else {
        out
    }
}

/// `n` followed by the singular or plural noun: `1 chip`, `8 chips`.
pub fn count(n: u64, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{} {plural}", grouped(n as f64))
    }
}

/// A byte count in decimal gigabytes (10^9 bytes) with one decimal, the unit
/// named: `141.1 GB`. Use [`binary_bytes`] for GiB; never mix them unnamed.
pub fn decimal_bytes(bytes: f64) -> String {
    format!("{:.1} GB", bytes / 1e9)
}

/// A byte count in binary gibibytes (2^30 bytes) with one decimal: `6.2 GiB`.
pub fn binary_bytes(bytes: f64) -> String {
    format!("{:.1} GiB", bytes / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scientific() {
        assert_eq!(sci(8.2e11, 3), "8.2e11");
        assert_eq!(sci(240.244, 3), "240");
        assert_eq!(sci(0.5, 3), "0.5");
        assert_eq!(sci(1e-4, 2), "1e-4");
        assert_eq!(sci(f64::NAN, 3), "—");
        assert_eq!(sci(-2.5e20, 2), "-2.5e20");
    }

    #[test]
    fn si_prefixes() {
        assert_eq!(si(1.97e14, "FLOPs/s", 3), "197 TFLOPs/s");
        assert_eq!(si(16e9, "B", 3), "16 GB");
        assert_eq!(si(999.96, "s", 4), "1 ks");
        assert_eq!(seconds(0.0101523), "10.2 ms");
    }

    #[test]
    fn grouping() {
        assert_eq!(grouped(0.0), "0");
        assert_eq!(grouped(123.0), "123");
        assert_eq!(grouped(1234567.0), "1,234,567");
        assert_eq!(grouped(-1000.0), "-1,000");
    }

    #[test]
    fn token_counts() {
        assert_eq!(tokens(468.0), "468");
        assert_eq!(tokens(999_999.0), "999,999");
        assert_eq!(tokens(3.48e6), "3.48M");
        assert_eq!(tokens(4_194_304.0), "4.19M");
    }
}

#[cfg(test)]
mod unit_word_tests {
    use super::*;

    #[test]
    fn plurals_and_byte_units() {
        assert_eq!(count(1, "chip", "chips"), "1 chip");
        assert_eq!(count(8, "chip", "chips"), "8 chips");
        assert_eq!(count(0, "chip", "chips"), "0 chips");
        assert_eq!(decimal_bytes(141.1e9), "141.1 GB");
        assert_eq!(binary_bytes(6.7e9), "6.2 GiB");
    }
}
