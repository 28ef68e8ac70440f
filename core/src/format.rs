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
    let sig = sig.clamp(1, 15).cast_signed();
    #[allow(
        clippy::cast_possible_truncation,
        reason = "the decimal exponent of a finite non-zero f64 is within -324..=308"
    )]
    let mag = x.abs().log10().floor() as i32;
    let scale = 10f64.powi(sig - 1 - mag);
    let r = (x * scale).round() / scale;
    if r.is_finite() && r != 0.0 {
        return r;
    }
    // Near the ends of the range the scale over- or underflows (10^312 for
    // 1e-310): the standard library's exact decimal formatting rounds instead.
    format!("{:.*e}", usize::try_from(sig - 1).unwrap_or(0), x)
        .parse()
        .unwrap_or(x)
}

/// `r`, already rounded to `sig` significant digits ([`round_sig`]), as a
/// mantissa's digits and a power of ten: `(“1.97”, 14)`.
fn mantissa_exponent(r: f64, sig: u32) -> (String, i32) {
    let text = format!("{:.*e}", sig.clamp(1, 15).saturating_sub(1) as usize, r);
    let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
    (trim(m.to_string()), e.parse().unwrap_or(0))
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
    let (m, mag) = mantissa_exponent(r, sig);
    if (-2..5).contains(&mag) {
        return plain(r, sig, mag);
    }
    format!("{m}e{mag}")
}

fn plain(r: f64, sig: u32, mag: i32) -> String {
    let decimals = usize::try_from(i64::from(sig) - 1 - i64::from(mag)).unwrap_or(0);
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
    let (_, mag) = mantissa_exponent(r, sig);
    if !(-15..21).contains(&mag) {
        // Beyond the prefixes: `1e-310 s`, not three hundred zeros.
        return format!("{} {unit}", sci(x, sig));
    }
    let (exp, prefix) = PREFIXES
        .iter()
        .copied()
        .find(|(e, _)| mag >= *e)
        .unwrap_or((-12, "p"));
    let scaled = r / 10f64.powi(exp);
    let digits = usize::try_from(i64::from(sig) - 1 - i64::from(mag - exp)).unwrap_or(0);
    let text = trim(format!("{scaled:.digits$}"));
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

    /// Below about 1e-307 the rounding scale 10^(sig−1−mag) overflows; the
    /// old code printed `NaN` there (a reader's chip of 1e-300 FLOP/s had a
    /// ridge of `NaN`).
    #[test]
    fn the_ends_of_the_range_print_numbers() {
        assert_eq!(sci(1e-310, 3), "1e-310");
        assert_eq!(sci(1.234e-320, 2), "1.2e-320");
        assert_eq!(sci(5e-324, 2), "4.9e-324");
        assert_eq!(sci(-3e-308, 3), "-3e-308");
        assert_eq!(sci(1.7e308, 2), "1.7e308");
        assert_eq!(round_sig(1e-310, 3), 1e-310);
        assert_eq!(si(1e-310, "s", 3), "1e-310 s");
        assert_eq!(si(2.5e25, "B", 2), "2.5e25 B");
        assert_eq!(si(1.5e-14, "s", 2), "0.015 ps");
        for k in -324..=308 {
            let x = 10f64.powi(k) * 1.5;
            for text in [sci(x, 3), si(x, "s", 3)] {
                assert!(
                    !text.contains("NaN") && !text.contains("inf"),
                    "{x:e}: {text}"
                );
                assert!(text.len() < 40, "{x:e}: {text}");
            }
        }
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
