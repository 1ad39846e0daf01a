//! Cloze cards: the blanks of a text, and how an answer fills them.

use super::*;

/// The blanks of a cloze text, each with its alternatives (`{{a|b}}`).
pub fn cloze_blanks(text: &str) -> Vec<Vec<String>> {
    cloze_scan(text)
        .spans
        .iter()
        .map(|&(s, e)| {
            text[s + 2..e - 2]
                .split('|')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .collect()
}

/// A cloze text read blank by blank.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ClozeScan {
    /// Byte ranges of each `{{…}}`, markers included.
    pub spans: Vec<(usize, usize)>,
    /// Byte offset of a `{{` that no `}}` closes.
    pub unclosed: Option<usize>,
}

/// Blanks are matched pairwise, innermost first: each `}}` closes the nearest `{{` before it.
/// A `}}` with no `{{` before it is text (JSON nesting like `{"a":{"b":1}}`), so only a `{{`
/// left open is a mistake.
pub fn cloze_scan(text: &str) -> ClozeScan {
    let mut scan = ClozeScan::default();
    let mut from = 0;
    while let Some(rel) = text[from..].find("}}") {
        let close = from + rel;
        let Some(open) = text[from..close].rfind("{{").map(|o| from + o) else {
            // Plain braces: step over one so `}}}` is still seen as `}` + `}}`.
            from = close + 1;
            continue;
        };
        if scan.unclosed.is_none() {
            scan.unclosed = text[from..open].find("{{").map(|o| from + o);
        }
        scan.spans.push((open, close + 2));
        from = close + 2;
    }
    if scan.unclosed.is_none() {
        scan.unclosed = text[from..].find("{{").map(|o| from + o);
    }
    scan
}

/// An identifier must be written exactly; a plain lower-case word or phrase is prose.
pub(super) fn is_identifier(s: &str) -> bool {
    !s.chars().all(|c| c.is_ascii_lowercase() || c == ' ')
}

pub(super) fn blank_matches(part: &str, alt: &str) -> bool {
    // Fold typographic quotes, dashes and compatibility forms first ("−32020" is "-32020").
    let folded = super::super::normalise::Text::new(part).norm;
    let part = folded
        .trim()
        .trim_matches(['`', '"', '\''])
        .trim_end_matches(['.', ','])
        .trim();
    if is_identifier(alt) {
        return part == alt;
    }
    let pw: Vec<&str> = part.split_whitespace().collect();
    let aw: Vec<&str> = alt.split_whitespace().collect();
    pw.len() == aw.len()
        && pw.iter().zip(&aw).all(|(p, w)| {
            let (pk, wk) = (word_key(p), word_key(w));
            pk == wk || (w.len() >= 5 && typo_close(&p.to_lowercase(), &w.to_lowercase()))
        })
}

/// Split an answer into one part per blank: lines, else `;`, else `,`, else (when every blank
/// is one word) spaces.
pub(super) fn cloze_parts(
    answer: &str,
    blanks: usize,
    one_word: bool,
) -> Option<Vec<(usize, usize)>> {
    if blanks == 1 {
        let t = answer.trim();
        let s = answer.find(t).unwrap_or(0);
        return Some(vec![(s, s + t.len())]);
    }
    for sep in ['\n', ';', ','] {
        let mut parts = Vec::new();
        let mut start = 0;
        for (i, c) in answer
            .char_indices()
            .chain(std::iter::once((answer.len(), sep)))
        {
            if c == sep {
                let piece = &answer[start..i];
                let t = piece.trim();
                if !t.is_empty() {
                    let s = start + piece.find(t).unwrap_or(0);
                    parts.push((s, s + t.len()));
                }
                start = i + c.len_utf8();
            }
        }
        if parts.len() == blanks {
            return Some(parts);
        }
    }
    if one_word {
        let mut parts = Vec::new();
        let mut start = None;
        for (i, c) in answer
            .char_indices()
            .chain(std::iter::once((answer.len(), ' ')))
        {
            let sep = c.is_whitespace() || c == ',' || c == ';';
            match (start, sep) {
                (None, false) => start = Some(i),
                (Some(s), true) => {
                    parts.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if parts.len() == blanks {
            return Some(parts);
        }
    }
    None
}

pub(crate) fn cloze(card: &Card, answer: &str, a: &Segments) -> Parts {
    let blanks = cloze_blanks(card.cloze.as_deref().unwrap_or(""));
    let mut parts = Parts::default();
    let one_word = blanks
        .iter()
        .flatten()
        .all(|b| !b.contains(char::is_whitespace));
    let split = cloze_parts(answer, blanks.len(), one_word);
    let mut from = 0;
    for (k, alts) in blanks.iter().enumerate() {
        let shown = alts.first().cloned().unwrap_or_default();
        let mut span = None;
        if let Some(split) = &split {
            let (s, e) = split[k];
            let part = &answer[s..e];
            if alts.iter().any(|alt| blank_matches(part, alt)) {
                span = Some(Span::of(answer, s, e));
            } else if let Some(alt) = alts.iter().find(|alt| {
                is_identifier(alt) && near_miss(part.trim_matches(['`', '"', '\'']), alt)
            }) {
                parts.near_misses.push(NearMiss {
                    expected: alt.clone(),
                    found: part.to_string(),
                    span: Span::of(answer, s, e),
                });
            }
        } else {
            // Parts not separable: look for each blank in order anywhere after the last one.
            for alt in alts {
                let tail = a.norm().get(from..).unwrap_or("");
                let hit = if is_identifier(alt) {
                    find_exact(tail, alt)
                        .first()
                        .map(|h| (h.start + from, h.end + from))
                } else {
                    let sub = Segments::new(tail);
                    text_position(&sub, alt).map(|(s, e)| (s + from, e + from))
                };
                if let Some((s, e)) = hit {
                    span = Some(span_of(a, answer, s, e));
                    from = e;
                    break;
                }
            }
        }
        parts.points.push(PointResult {
            id: String::new(),
            label: format!("blank {}: {}", k + 1, shown),
            required: true,
            hit: span.is_some(),
            span,
        });
    }
    parts
}
