//! A hand-written parser for the book's sharding notation, meshes and sizes.
//!
//! Every function here takes arbitrary text and returns a value or a
//! [`ShardingError`] with the byte offset of the problem; none can panic (the
//! cursor only ever advances by whole characters).
//!
//! ```
//! use ridgeline_core::sharding::parser::{parse_array, parse_matmul, parse_mesh};
//!
//! let m = parse_matmul("A[I_X,J]xB[J,K_Y]→C[I_X,K_Y]").unwrap();
//! assert_eq!(m.b.dims[1].axes, vec!['Y']);
//! assert_eq!(parse_mesh("{'X': 4, 'Y': 2}").unwrap().devices(), 8);
//! let e = parse_array("A[I_X, J").unwrap_err();
//! assert_eq!(e.position, Some(8));
//! ```

use super::{ArraySpec, Dim, Dims, ErrorKind, MatmulSpec, Mesh, ShardingError, MAX_TEXT};

struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Result<Cursor<'a>, ShardingError> {
        if text.len() > MAX_TEXT {
            return Err(ShardingError::new(
                ErrorKind::BadSize,
                format!(
                    "the text is {} bytes long; at most {MAX_TEXT} are accepted",
                    text.len()
                ),
            ));
        }
        if text.trim().is_empty() {
            return Err(ShardingError::new(ErrorKind::Empty, "nothing was given"));
        }
        Ok(Cursor { text, pos: 0 })
    }

    fn peek(&self) -> Option<char> {
        self.text.get(self.pos..).and_then(|s| s.chars().next())
    }

    fn peek2(&self) -> Option<char> {
        let mut it = self.text.get(self.pos..)?.chars();
        it.next();
        it.next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.bump();
        }
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn err(&self, message: impl Into<String>) -> ShardingError {
        ShardingError::at(ErrorKind::Syntax, self.pos, message)
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(c) => format!("{c:?}"),
            None => "the end of the text".into(),
        }
    }

    fn expect(&mut self, c: char, what: &str) -> Result<(), ShardingError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected {what} but found {}", self.found())))
        }
    }

    /// `letter (letter | digit | extra)*`.
    fn ident(&mut self, extra: Option<char>, what: &str) -> Result<String, ShardingError> {
        let start = self.pos;
        match self.peek() {
            Some(c) if c.is_ascii_alphabetic() => {}
            _ => return Err(self.err(format!("expected {what} but found {}", self.found()))),
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || Some(c) == extra)
        {
            self.bump();
        }
        Ok(self
            .text
            .get(start..self.pos)
            .unwrap_or_default()
            .to_string())
    }

    /// One or more single-letter mesh axis names.
    fn axes(&mut self) -> Result<Vec<char>, ShardingError> {
        let mut out = Vec::new();
        while let Some(c) = self.peek() {
            if c.is_ascii_alphabetic() {
                out.push(c);
                self.bump();
            } else {
                break;
            }
        }
        if out.is_empty() {
            return Err(self.err(format!(
                "expected mesh axis letters after '_' but found {}",
                self.found()
            )));
        }
        if self.peek().is_some_and(|c| c.is_ascii_digit() || c == '_') {
            return Err(self.err(
                "mesh axis names are single letters; a subscript such as _XY means axes X and Y",
            ));
        }
        Ok(out)
    }

    fn number(&mut self, what: &str) -> Result<u64, ShardingError> {
        let start = self.pos;
        let mut value: u64 = 0;
        let mut digits = 0;
        while let Some(c) = self.peek() {
            let Some(d) = c.to_digit(10) else { break };
            self.bump();
            digits += 1;
            value = value.saturating_mul(10).saturating_add(d as u64);
        }
        if digits == 0 {
            return Err(self.err(format!("expected {what} but found {}", self.found())));
        }
        if digits > 15 {
            return Err(ShardingError::at(
                ErrorKind::BadSize,
                start,
                format!("{what} has {digits} digits; that is absurdly large"),
            ));
        }
        Ok(value)
    }
}

fn array(c: &mut Cursor) -> Result<ArraySpec, ShardingError> {
    c.ws();
    let position = c.pos;
    let name = c.ident(Some('_'), "an array name such as A")?;
    c.ws();
    c.expect('[', &format!("'[' after the array name {name}"))?;
    let mut dims: Vec<Dim> = Vec::new();
    loop {
        c.ws();
        if c.peek() == Some(']') {
            if dims.is_empty() {
                return Err(c.err(format!("{name} needs at least one dimension")));
            }
            c.bump();
            break;
        }
        let dpos = c.pos;
        let dname = c.ident(None, "a dimension name such as I")?;
        let axes = if c.eat('_') { c.axes()? } else { Vec::new() };
        dims.push(Dim {
            name: dname,
            axes,
            position: dpos,
        });
        c.ws();
        if c.eat(',') {
            continue;
        }
        if c.peek() == Some(']') {
            continue;
        }
        return Err(c.err(format!(
            "expected ',' or ']' in {name}'s dimensions but found {}",
            c.found()
        )));
    }
    if dims.len() > 8 {
        return Err(ShardingError::at(
            ErrorKind::BadSize,
            position,
            format!(
                "{name} has {} dimensions; at most 8 are accepted",
                dims.len()
            ),
        ));
    }
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].iter().any(|e| e.name == d.name) {
            return Err(ShardingError::at(
                ErrorKind::Syntax,
                d.position,
                format!("{name} names dimension {} twice", d.name),
            ));
        }
    }
    let save = c.pos;
    c.ws();
    let mut unreduced = Vec::new();
    if c.eat('{') {
        loop {
            c.ws();
            c.expect('U', "'U_' for an unreduced marker such as {U_X}")?;
            c.expect('_', "'_' after U in an unreduced marker")?;
            unreduced.extend(c.axes()?);
            c.ws();
            if c.eat(',') {
                continue;
            }
            c.expect('}', "'}' closing the unreduced marker")?;
            break;
        }
    } else {
        c.pos = save;
    }
    let spec = ArraySpec {
        name,
        dims,
        unreduced,
        position,
    };
    // An axis used twice is wrong whatever the mesh.
    let mut seen: Vec<char> = Vec::new();
    for (a, pos) in spec.mentions() {
        if seen.contains(&a) {
            return Err(ShardingError::at(
                ErrorKind::AxisReused,
                pos,
                format!(
                    "mesh axis {a} is used twice in {}; each mesh axis may shard an array once",
                    spec.name
                ),
            ));
        }
        seen.push(a);
    }
    Ok(spec)
}

/// Parses one array such as `A[I_XY, J]` or `C[I, K]{U_X}`.
pub fn parse_array(text: &str) -> Result<ArraySpec, ShardingError> {
    let mut c = Cursor::new(text)?;
    let a = array(&mut c)?;
    c.ws();
    if !c.at_end() {
        return Err(c.err(format!("unexpected {} after the array", c.found())));
    }
    Ok(a)
}

fn product(c: &mut Cursor) -> Result<(), ShardingError> {
    c.ws();
    match c.peek() {
        Some('·' | '⋅' | '*' | '@' | '×' | 'x') => {
            c.bump();
            Ok(())
        }
        Some('\\') if c.text.get(c.pos..).is_some_and(|s| s.starts_with("\\cdot")) => {
            c.pos += "\\cdot".len();
            Ok(())
        }
        _ => Err(c.err(format!(
            "expected a product sign (·, *, @ or x) between the inputs but found {}",
            c.found()
        ))),
    }
}

fn arrow(c: &mut Cursor) -> bool {
    c.ws();
    match (c.peek(), c.peek2()) {
        (Some('→'), _) => {
            c.bump();
            true
        }
        (Some('-'), Some('>')) => {
            c.bump();
            c.bump();
            true
        }
        _ => false,
    }
}

/// Parses `A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]`; the output is optional.
pub fn parse_matmul(text: &str) -> Result<MatmulSpec, ShardingError> {
    let mut c = Cursor::new(text)?;
    let a = array(&mut c)?;
    product(&mut c)?;
    let b = array(&mut c)?;
    let out = if arrow(&mut c) {
        Some(array(&mut c)?)
    } else {
        None
    };
    c.ws();
    if !c.at_end() {
        let what = if out.is_none() {
            "'->' and the output array"
        } else {
            "the end"
        };
        return Err(c.err(format!("expected {what} but found {}", c.found())));
    }
    for (arr, which) in [(&a, "input"), (&b, "input")] {
        if !arr.unreduced.is_empty() {
            return Err(ShardingError::at(
                ErrorKind::Unsupported,
                arr.position,
                format!(
                    "{} is an {which} with an unreduced marker; only the output may be unreduced",
                    arr.name
                ),
            ));
        }
    }
    Ok(MatmulSpec { a, b, c: out })
}

/// Parses a mesh: `X=4, Y=2`, `{'X': 4, 'Y': 2}`, `Mesh({'X': 4})` or `4x2`.
pub fn parse_mesh(text: &str) -> Result<Mesh, ShardingError> {
    let mut c = Cursor::new(text)?;
    c.ws();
    // A bare shape such as 4x2 or 4x4x4.
    if c.peek().is_some_and(|ch| ch.is_ascii_digit()) {
        let mut sizes = Vec::new();
        loop {
            c.ws();
            let pos = c.pos;
            let n = c.number("an axis size")?;
            sizes.push((pos, n));
            c.ws();
            if c.eat('x') || c.eat('×') || c.eat('*') {
                continue;
            }
            break;
        }
        if !c.at_end() {
            return Err(c.err(format!("unexpected {} in the mesh shape", c.found())));
        }
        let names = ['X', 'Y', 'Z', 'W'];
        if sizes.len() > names.len() {
            return Err(ShardingError::new(
                ErrorKind::BadSize,
                format!("a mesh may have at most {} axes", names.len()),
            ));
        }
        let mut pairs = Vec::new();
        for (i, &(pos, n)) in sizes.iter().enumerate() {
            let n = u32::try_from(n).map_err(|_| {
                ShardingError::at(
                    ErrorKind::BadSize,
                    pos,
                    format!("axis size {n} is too large"),
                )
            })?;
            pairs.push((names[i], n));
        }
        return Mesh::new(&pairs);
    }
    let mut closers = Vec::new();
    if c.text.get(c.pos..).is_some_and(|s| s.starts_with("Mesh")) {
        c.pos += 4;
        c.ws();
        c.expect('(', "'(' after Mesh")?;
        closers.push(')');
        c.ws();
    }
    if c.eat('{') {
        closers.push('}');
    }
    let mut pairs: Vec<(char, u32)> = Vec::new();
    loop {
        c.ws();
        if c.at_end() || c.peek().is_some_and(|ch| closers.contains(&ch)) {
            break;
        }
        let quote = match c.peek() {
            Some(q @ ('\'' | '"')) => {
                c.bump();
                Some(q)
            }
            _ => None,
        };
        let pos = c.pos;
        let name = match c.peek() {
            Some(ch) if ch.is_ascii_alphabetic() => {
                c.bump();
                ch
            }
            _ => {
                return Err(c.err(format!(
                    "expected a one-letter mesh axis name but found {}",
                    c.found()
                )))
            }
        };
        if c.peek().is_some_and(|ch| ch.is_ascii_alphanumeric()) {
            return Err(ShardingError::at(
                ErrorKind::Syntax,
                pos,
                "mesh axis names are single letters such as X",
            ));
        }
        if let Some(q) = quote {
            c.expect(q, "the closing quote")?;
        }
        c.ws();
        if !(c.eat('=') || c.eat(':')) {
            return Err(c.err(format!(
                "expected '=' or ':' after mesh axis {name} but found {}",
                c.found()
            )));
        }
        c.ws();
        let npos = c.pos;
        let n = c.number(&format!("the size of mesh axis {name}"))?;
        let n = u32::try_from(n).map_err(|_| {
            ShardingError::at(
                ErrorKind::BadSize,
                npos,
                format!("mesh axis {name} has size {n}, which is too large"),
            )
        })?;
        if pairs.iter().any(|&(p, _)| p == name) {
            return Err(ShardingError::at(
                ErrorKind::AxisReused,
                pos,
                format!("mesh axis {name} is listed twice"),
            ));
        }
        pairs.push((name, n));
        c.ws();
        if !c.eat(',') && !c.eat(';') {
            // Whitespace alone also separates entries.
            if c.peek().is_some_and(|ch| !closers.contains(&ch)) && !c.at_end() {
                let p = c.peek();
                if !p.is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '\'' || ch == '"') {
                    return Err(c.err(format!(
                        "expected ',' between mesh axes but found {}",
                        c.found()
                    )));
                }
            }
        }
    }
    while let Some(close) = closers.pop() {
        c.ws();
        c.expect(close, &format!("'{close}'"))?;
    }
    c.ws();
    if !c.at_end() {
        return Err(c.err(format!("unexpected {} after the mesh", c.found())));
    }
    if pairs.is_empty() {
        return Err(ShardingError::new(ErrorKind::Empty, "the mesh has no axes"));
    }
    Mesh::new(&pairs).map_err(|mut e| {
        if e.position.is_none() {
            e.position = Some(0);
        }
        e
    })
}

/// Parses concrete sizes: `I=1024, J=4096` (`:` also works; commas optional).
pub fn parse_dims(text: &str) -> Result<Dims, ShardingError> {
    let mut c = Cursor::new(text)?;
    let mut dims = Dims::default();
    loop {
        c.ws();
        if c.at_end() {
            break;
        }
        let pos = c.pos;
        let name = c.ident(None, "a dimension name such as I")?;
        c.ws();
        if !(c.eat('=') || c.eat(':')) {
            return Err(c.err(format!(
                "expected '=' after dimension {name} but found {}",
                c.found()
            )));
        }
        c.ws();
        let n = c.number(&format!("the size of {name}"))?;
        dims.insert(&name, n, Some(pos))?;
        c.ws();
        c.eat(',');
    }
    if dims.iter().next().is_none() {
        return Err(ShardingError::new(ErrorKind::Empty, "no sizes were given"));
    }
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_book_spellings() {
        for text in [
            "A[I_X, J] · B[J, K_Y] -> C[I_X, K_Y]",
            "A[I_X,J]*B[J,K_Y]->C[I_X,K_Y]",
            "A[I_X, J] @ B[J, K_Y] → C[I_X, K_Y]",
            "A[I_X, J] x B[J, K_Y] -> C[I_X, K_Y]",
            "A[I_X,J]xB[J,K_Y]->C[I_X,K_Y]",
            "  A [ I_X , J ] \\cdot B [ J , K_Y ]  ->  C [ I_X , K_Y ]  ",
        ] {
            let m = parse_matmul(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(m.a.dims[0].axes, vec!['X'], "{text}");
            assert_eq!(m.c.unwrap().dims[1].axes, vec!['Y'], "{text}");
        }
        let m = parse_matmul("A[I, J_XY] · B[J_XY, K] -> C[I, K]{U_XY}").unwrap();
        assert_eq!(m.c.unwrap().unreduced, vec!['X', 'Y']);
        let m = parse_matmul("In[B, D_XY] * W_in[D, F_XY]").unwrap();
        assert_eq!(m.b.name, "W_in");
        assert!(m.c.is_none());
        let c = parse_array("C[I, K] { U_X, U_Y }").unwrap();
        assert_eq!(c.unreduced, vec!['X', 'Y']);
    }

    #[test]
    fn rejects_with_positions() {
        let e = parse_matmul("").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Empty);
        let e = parse_matmul("A[I_X, J_X] · B[J, K]").unwrap_err();
        assert_eq!((e.kind, e.position), (ErrorKind::AxisReused, Some(7)));
        let e = parse_matmul("A[I, J] + B[J, K]").unwrap_err();
        assert_eq!(e.position, Some(8));
        assert!(e.message.contains("product"), "{e}");
        let e = parse_matmul("A[I, J] · B[J, K] -> ").unwrap_err();
        assert!(e.message.contains("array name"), "{e}");
        let e = parse_array("A[I_, J]").unwrap_err();
        assert_eq!(e.position, Some(4));
        let e = parse_array("A[]").unwrap_err();
        assert!(e.message.contains("at least one dimension"));
        let e = parse_matmul("A[I, J]{U_X} · B[J, K]").unwrap_err();
        assert_eq!(e.kind, ErrorKind::Unsupported);
        let e = parse_array("A[I_X1, J]").unwrap_err();
        assert!(e.message.contains("single letters"));
        assert_eq!(
            parse_array("A[I, I]").unwrap_err().to_string(),
            "at byte 5: A names dimension I twice"
        );
    }

    #[test]
    fn meshes_and_dims() {
        for text in [
            "X=4, Y=2",
            "X:4 Y:2",
            "{'X': 4, 'Y': 2}",
            "Mesh({'X': 4, 'Y': 2})",
            "{\"X\": 4, \"Y\": 2}",
            "4x2",
        ] {
            let m = parse_mesh(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(m.devices(), 8, "{text}");
            assert_eq!(m.axes()[1].name, 'Y', "{text}");
        }
        assert_eq!(parse_mesh("X=0").unwrap_err().kind, ErrorKind::BadSize);
        assert_eq!(parse_mesh("X=70000").unwrap_err().kind, ErrorKind::BadSize);
        assert_eq!(
            parse_mesh("X=99999999999999999999").unwrap_err().kind,
            ErrorKind::BadSize
        );
        assert_eq!(
            parse_mesh("X=4, X=2").unwrap_err().kind,
            ErrorKind::AxisReused
        );
        assert_eq!(parse_mesh("{}").unwrap_err().kind, ErrorKind::Empty);
        for (text, why) in [
            (
                "XY=4",
                "at byte 0: mesh axis names are single letters such as X",
            ),
            (
                "{'X': 4",
                "at byte 7: expected '}' but found the end of the text",
            ),
        ] {
            assert_eq!(parse_mesh(text).unwrap_err().to_string(), why);
        }
        let d = parse_dims("I=1024, J: 4096 K=8").unwrap();
        assert_eq!(d.get("J"), Some(4096));
        for (text, why) in [
            (
                "I=0",
                "at byte 0: dimension I = 0; sizes run from 1 to 2^40",
            ),
            ("I=4, I=8", "at byte 5: dimension I is given twice"),
            (
                "I",
                "at byte 1: expected '=' after dimension I but found the end of the text",
            ),
        ] {
            assert_eq!(parse_dims(text).unwrap_err().to_string(), why);
        }
    }
}
