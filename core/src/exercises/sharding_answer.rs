//! Sharding answers compared by structure, not by spelling.
//!
//! An answer such as `In[B, D_XY]` or `A[I_XYZ, J] · B[J, K]` is parsed with
//! Part 3's notation parser ([`crate::sharding`]) and compared with each accepted
//! reference: the same dimensions in the same order, each split over the same
//! set of mesh axes, and the same unreduced axes. Array names, spacing and the
//! order of axes inside one subscript (`D_XY` against `D_YX`) do not matter. A
//! bracket without a name (`[B, D_XY]`) is accepted for a single array.
//!
//! ```
//! use ridgeline_core::exercises::sharding_answer::{grade_sharding, ShardingMatch};
//!
//! let accepted = ["In[B, D_XY]".to_string()];
//! assert_eq!(grade_sharding(&accepted, "X[B, D_YX]"), Ok(ShardingMatch::Accepted(0)));
//! assert_eq!(grade_sharding(&accepted, "[B_X, D_Y]"), Ok(ShardingMatch::Different));
//! assert!(grade_sharding(&accepted, "In[B, D_XY").is_err());
//! ```

use crate::sharding::{ArraySpec, MatmulSpec};

/// How a reader's sharding compares with the accepted ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardingMatch {
    /// Structurally equal to the accepted answer with this index.
    Accepted(usize),
    /// Readable, but equal to none of them.
    Different,
}

fn same_array(a: &ArraySpec, b: &ArraySpec) -> bool {
    let sorted = |v: &[char]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    a.dims.len() == b.dims.len()
        && a.dims
            .iter()
            .zip(&b.dims)
            .all(|(x, y)| x.name == y.name && sorted(&x.axes) == sorted(&y.axes))
        && sorted(&a.unreduced) == sorted(&b.unreduced)
}

fn same_matmul(a: &MatmulSpec, b: &MatmulSpec) -> bool {
    same_array(&a.a, &b.a)
        && same_array(&a.b, &b.b)
        && match (&a.c, &b.c) {
            (Some(x), Some(y)) => same_array(x, y),
            _ => true,
        }
}

enum Parsed {
    Array(ArraySpec),
    Matmul(MatmulSpec),
}

/// The book's notation, rewritten into the parser's: `.` between two arrays
/// is the product `·`, and mesh axes are read case-insensitively (`K_y` is
/// `K_Y`).
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_subscript = false;
    let mut last = ' ';
    for c in text.chars() {
        // `K_{Y}`: braces around a subscript are dropped.
        if (c == '{' && last == '_') || (c == '}' && in_subscript) {
            continue;
        }
        let c = match c {
            '.' if last == ']' => '·',
            '_' => {
                in_subscript = true;
                '_'
            }
            c if in_subscript && c.is_alphabetic() => c.to_ascii_uppercase(),
            c => {
                in_subscript = false;
                c
            }
        };
        if !c.is_whitespace() {
            last = c;
        }
        out.push(c);
    }
    out
}

fn parse(text: &str) -> Result<Parsed, String> {
    let normal = normalize(text);
    let t = normal.trim();
    if t.is_empty() {
        return Err("the answer is empty".into());
    }
    let named = if t.starts_with('[') {
        format!("A{t}")
    } else {
        t.to_string()
    };
    match ArraySpec::parse(&named) {
        Ok(a) => Ok(Parsed::Array(a)),
        Err(array_err) => match MatmulSpec::parse(t) {
            Ok(m) => Ok(Parsed::Matmul(m)),
            Err(matmul_err) => {
                // Report the error of the form the reader seems to attempt.
                let looks_like_matmul = t.contains(['·', '*', '@', '×', '→']) || t.contains("->");
                let e = if looks_like_matmul {
                    matmul_err
                } else {
                    array_err
                };
                Err(format!("not valid sharding notation: {e}"))
            }
        },
    }
}

/// Compares a reader's sharding with the accepted references.
///
/// Errors (with a reason for the reader) if the reader's text is not valid
/// notation or is an array where a matmul is expected (or the reverse).
pub fn grade_sharding(accepted: &[String], text: &str) -> Result<ShardingMatch, String> {
    let reader = parse(text)?;
    let mut kind_mismatch = false;
    for (i, reference) in accepted.iter().enumerate() {
        let Ok(reference) = parse(reference) else {
            continue;
        };
        match (&reader, &reference) {
            (Parsed::Array(a), Parsed::Array(b)) if same_array(a, b) => {
                return Ok(ShardingMatch::Accepted(i))
            }
            (Parsed::Matmul(a), Parsed::Matmul(b)) if same_matmul(a, b) => {
                return Ok(ShardingMatch::Accepted(i))
            }
            (Parsed::Array(_), Parsed::Matmul(_)) | (Parsed::Matmul(_), Parsed::Array(_)) => {
                kind_mismatch = true;
            }
            _ => {}
        }
    }
    if kind_mismatch {
        return Err(match reader {
            Parsed::Array(_) => {
                "expected a sharded matmul such as A[I_X, J] · B[J, K] -> C[I_X, K]".into()
            }
            Parsed::Matmul(_) => "expected one sharded array such as A[I_X, J]".into(),
        });
    }
    Ok(ShardingMatch::Different)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmuls_compare_by_structure() {
        let acc = vec![
            "A[I_XYZ, J] · B[J, K] -> C[I, K]".to_string(),
            "A[I, J] · B[J, K_XYZ] -> C[I, K]".to_string(),
        ];
        assert_eq!(
            grade_sharding(&acc, "A[I_XYZ,J] * B[J,K]"),
            Ok(ShardingMatch::Accepted(0))
        );
        assert_eq!(
            grade_sharding(&acc, "X[I, J] @ Y[J, K_ZYX]"),
            Ok(ShardingMatch::Accepted(1))
        );
        assert_eq!(
            grade_sharding(&acc, "A[I, J_XYZ] · B[J_XYZ, K]"),
            Ok(ShardingMatch::Different)
        );
        assert!(grade_sharding(&acc, "A[I_X, J]").is_err());
        assert!(grade_sharding(&acc, "").is_err());
    }
}
