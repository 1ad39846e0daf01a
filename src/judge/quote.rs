//! Where a quote stands in the answer. Both are compared after the grader's normalisation
//! (Unicode NFKC, typographic quotes and dashes folded), in lower case, with runs of white space
//! as one space; a quote must start and end on word boundaries, and an ellipsis in it stands
//! for words left out (its parts must appear in order).

use crate::grader;

/// The answer in comparable form, with the answer's byte offset for each byte of it.
pub struct Comparable {
    text: String,
    /// For byte `i` of `text`, where the character it came from starts and ends in the answer.
    from: Vec<(usize, usize)>,
}

fn push_char(out: &mut Comparable, c: char, at: (usize, usize)) {
    for l in c.to_lowercase() {
        let l = if l.is_whitespace() { ' ' } else { l };
        if l == ' ' && (out.text.is_empty() || out.text.ends_with(' ')) {
            continue;
        }
        let before = out.text.len();
        out.text.push(l);
        out.from
            .extend(std::iter::repeat_n(at, out.text.len() - before));
    }
}

impl Comparable {
    pub fn new(answer: &str) -> Comparable {
        let mut out = Comparable {
            text: String::with_capacity(answer.len()),
            from: Vec::with_capacity(answer.len()),
        };
        for (at, c) in answer.char_indices() {
            let span = (at, at + c.len_utf8());
            if c.is_ascii_alphanumeric() || c == ' ' {
                push_char(&mut out, c, span);
            } else {
                // The grader's own normaliser, one character at a time so offsets map back.
                for n in grader::normalise(c.encode_utf8(&mut [0; 4])).chars() {
                    push_char(&mut out, n, span);
                }
            }
        }
        out
    }

    /// The byte range in the answer that `quote` covers, if it is there.
    pub fn find(&self, quote: &str) -> Option<(usize, usize)> {
        let q = Comparable::new(quote).text;
        let parts: Vec<&str> = q
            .split("...")
            .map(trim_quote)
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() || !parts.iter().any(|p| p.chars().any(char::is_alphanumeric)) {
            return None;
        }
        let mut from = 0;
        let mut span: Option<(usize, usize)> = None;
        for p in parts {
            let (s, e) = self.find_from(p, from)?;
            from = e;
            span = Some(span.map_or((s, e), |(s0, _)| (s0, e)));
        }
        let (s, e) = span?;
        Some((self.from.get(s)?.0, self.from.get(e.checked_sub(1)?)?.1))
    }

    /// The first occurrence of `p` at or after byte `from` that starts and ends on word
    /// boundaries, as a byte range of `text`.
    fn find_from(&self, p: &str, mut from: usize) -> Option<(usize, usize)> {
        let word = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
        while let Some(i) = self.text.get(from..)?.find(p) {
            let s = from + i;
            let e = s + p.len();
            let before = self.text[..s].chars().next_back();
            let after = self.text[e..].chars().next();
            let open = !word(p.chars().next()) || !word(before);
            let close = !word(p.chars().next_back()) || !word(after);
            if open && close {
                return Some((s, e));
            }
            from = s + p.chars().next().map_or(1, char::len_utf8);
        }
        None
    }
}

/// A quote without the marks and sentence punctuation a model wraps it in.
fn trim_quote(q: &str) -> &str {
    q.trim_matches(|c: char| c.is_whitespace() || "\"'`.,;:!?()[]«»".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at<'a>(answer: &'a str, quote: &str) -> Option<&'a str> {
        Comparable::new(answer)
            .find(quote)
            .map(|(s, e)| &answer[s..e])
    }

    #[test]
    fn a_quote_is_found_across_case_spacing_and_typography() {
        let a = "The server MUST   send it first — before any “change” notification.";
        assert_eq!(at(a, "must send it first"), Some("MUST   send it first"));
        assert_eq!(
            at(a, "\"before any \"change\" notification.\""),
            Some("before any “change” notification")
        );
    }

    #[test]
    fn words_not_in_the_answer_or_cut_words_are_not_found() {
        let a = "The server sends the acknowledgement first.";
        assert_eq!(at(a, "the client sends"), None);
        assert_eq!(at(a, "erver sends"), None);
        assert_eq!(at(a, "acknowledge"), None);
        assert_eq!(at(a, ""), None);
        assert_eq!(at(a, "..."), None);
        assert_eq!(at(a, "\"\""), None);
    }

    #[test]
    fn an_ellipsis_stands_for_words_left_out_in_order() {
        let a = "The server sends the acknowledgement first, then notifications.";
        assert_eq!(
            at(a, "server sends … first"),
            Some("server sends the acknowledgement first")
        );
        assert_eq!(at(a, "first ... server sends"), None);
    }

    #[test]
    fn identifiers_are_found_inside_punctuation() {
        let a = "It goes in _meta as io.modelcontextprotocol/subscriptionId.";
        assert_eq!(
            at(a, "io.modelcontextprotocol/subscriptionId"),
            Some("io.modelcontextprotocol/subscriptionId")
        );
        assert_eq!(at(a, "_meta"), Some("_meta"));
    }
}
