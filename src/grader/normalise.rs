//! Stage 1: the answer as typed becomes one canonical text, with a map back to the original.
//!
//! NFKC folds compatibility forms ("ﬁrst", full-width digits); typographic quotes and dashes
//! become ASCII; zero-width characters go. Case is kept, because identifiers are exact.

use unicode_normalization::UnicodeNormalization;

/// The normalised answer.
#[derive(Debug, Clone, Default)]
pub struct Text {
    pub norm: String,
    /// For each byte of `norm` (plus one past the end), the byte offset in the original answer.
    map: Vec<usize>,
}

/// Characters NFKC leaves alone but people type for the same thing.
fn fold_char(c: char) -> Option<char> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201B}' | '\u{2032}' | '`' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{202F}' => ' ',
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{FEFF}' => return None,
        _ => c,
    })
}

impl Text {
    pub fn new(answer: &str) -> Text {
        let mut norm = String::with_capacity(answer.len());
        let mut map = Vec::with_capacity(answer.len() + 1);
        for (at, c) in answer.char_indices() {
            for n in c.nfkc() {
                let Some(n) = fold_char(n) else { continue };
                let before = norm.len();
                norm.push(n);
                map.extend(std::iter::repeat_n(at, norm.len() - before));
            }
        }
        map.push(answer.len());
        Text { norm, map }
    }

    /// A byte range of `norm` as a byte range of the original answer.
    pub fn original(&self, start: usize, end: usize) -> (usize, usize) {
        let s = self.map.get(start).copied().unwrap_or(0);
        let e = self.map.get(end).copied().unwrap_or(s);
        (s, e.max(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_back_to_original_offsets() {
        let answer = "ﬁrst “ack” isn’t late";
        let t = Text::new(answer);
        assert_eq!(t.norm, "first \"ack\" isn't late");
        let at = t.norm.find("ack").unwrap();
        let (s, e) = t.original(at, at + 3);
        assert_eq!(&answer[s..e], "ack");
    }
}
