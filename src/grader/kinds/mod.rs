//! The structured card kinds: choice, order, cloze and spot-the-bug.

use super::idents::{find_exact, near_miss};
use super::phrase::{Phrase, phrase_at};
use super::segment::Segments;
use super::stance::Stance;
use super::verdict::{FlagHit, NearMiss, Parts, PointResult, Span};
use super::words::{typo_close, word_key};
use crate::card::{Card, CardKind};

mod cloze;
mod golden;
mod lines;
pub use cloze::*;
pub use golden::*;
pub use lines::*;

/// A span of the segmented text, mapped back to the answer.
pub(super) fn span_of(s: &Segments, answer: &str, start: usize, end: usize) -> Span {
    let (a, b) = s.original(start, end);
    Span::of(answer, a, b)
}

/// The label shown for option or item `i`: a, b, c, ...
pub fn choice_label(i: usize) -> String {
    let letters = b"abcdefghijklmnopqrstuvwxyz";
    letters
        .get(i)
        .map_or_else(|| (i + 1).to_string(), |&b| (b as char).to_string())
}

fn label_index(word: &str, n: usize) -> Option<usize> {
    let w = word.to_lowercase();
    if let Ok(k) = w.parse::<usize>() {
        return (1..=n).contains(&k).then(|| k - 1);
    }
    let mut cs = w.chars();
    let c = cs.next()?;
    if cs.next().is_some() || !c.is_ascii_lowercase() {
        return None;
    }
    let k = (c as u8 - b'a') as usize;
    (k < n).then_some(k)
}

/// Words that may surround option letters without changing the pick ("I'd say a and c").
fn is_filler(w: &str) -> bool {
    matches!(
        w,
        "answer"
            | "answers"
            | "option"
            | "options"
            | "choice"
            | "choices"
            | "and"
            | "or"
            | "both"
            | "the"
            | "is"
            | "are"
            | "correct"
            | "right"
            | "pick"
            | "picks"
            | "choose"
            | "i"
            | "i'd"
            | "would"
            | "say"
            | "it's"
            | "its"
            | "letter"
            | "letters"
            | "only"
            | "my"
            | "then"
            | "order"
            | "first"
            | "next"
            | "last"
    )
}

/// `(item index, span)` picks written as labels, when the answer is nothing but labels.
fn labels_only(a: &Segments, answer: &str, n: usize) -> Option<Vec<(usize, Span)>> {
    let mut picks = Vec::new();
    for t in &a.tokens {
        if let Some(k) = label_index(&t.norm, n) {
            picks.push((k, span_of(a, answer, t.start, t.end)));
        } else if !is_filler(&t.norm) {
            return None;
        }
    }
    (!picks.is_empty()).then_some(picks)
}

/// Where an option's or item's text occurs in the answer, matched like a key point.
fn text_position(a: &Segments, text: &str) -> Option<(usize, usize)> {
    let p = Phrase::parse(&text.replace('|', " "));
    if !p.words.is_empty()
        && let Some(o) = (0..a.tokens.len()).find_map(|i| phrase_at(a, i, &p, &|_| true))
    {
        return Some((a.tokens[o.first].start, a.tokens[o.last].end));
    }
    // Option texts often are identifiers (`notifications/cancelled`).
    find_exact(a.norm(), text.trim())
        .first()
        .map(|h| (h.start, h.end))
}

/// Whether the clause around `norm[start..end]` denies it ("not true", "never b").
fn negated_at(a: &Segments, st: &Stance, start: usize, end: usize) -> bool {
    let own: Vec<usize> = (a.token_at(start)..a.token_at(end)).collect();
    st.denies(a, a.clause_of(start), &own)
}

/// A true/false card: two options reading "True" and "False" (in either order).
fn true_false(card: &Card) -> Option<(usize, usize)> {
    let texts: Vec<String> = card
        .choices
        .iter()
        .map(|c| c.text.trim().to_lowercase())
        .collect();
    let t = texts.iter().position(|x| x == "true")?;
    let f = texts.iter().position(|x| x == "false")?;
    (texts.len() == 2).then_some((t, f))
}

/// Picks written in prose: option texts ("it closes the SSE stream"), denied ones dropped
/// ("not true" picks False), and option letters that stand on their own ("I'd say b", "(c)").
fn prose_picks(card: &Card, a: &Segments, st: &Stance, answer: &str) -> Vec<(usize, Span)> {
    let n = card.choices.len();
    // (option, start in norm, span)
    let mut found: Vec<(usize, usize, Span)> = Vec::new();
    let tf = true_false(card);
    for (i, c) in card.choices.iter().enumerate() {
        let Some((s, e)) = text_position(a, &c.text) else {
            continue;
        };
        let span = span_of(a, answer, s, e);
        if negated_at(a, st, s, e) {
            // "Not true" answers False; any other denied option is simply not picked.
            if let Some((t, f)) = tf {
                found.push((if i == t { f } else { t }, s, span));
            }
        } else {
            found.push((i, s, span));
        }
    }
    let from_text = !found.is_empty();
    let toks = &a.tokens;
    for (i, t) in toks.iter().enumerate() {
        let Some(k) = label_index(&t.norm, n) else {
            continue;
        };
        let after = a.norm()[t.end..].chars().next();
        let before = a.norm()[..t.start].chars().next_back();
        let marked = after == Some(')') || before == Some('(');
        let raw = &a.norm()[t.start..t.end];
        // "a" and "I" are words far more often than option letters: only take them where a
        // letter is expected ("option a", "a and c", "it's a." at the end).
        let ambiguous = matches!(t.norm.as_str(), "a" | "i");
        let cue_before = i > 0
            && matches!(
                toks[i - 1].norm.as_str(),
                "option" | "answer" | "choice" | "and" | "or" | "is" | "it's" | "pick" | "say"
            );
        let cue_after = toks.get(i + 1).is_none_or(|n| {
            n.clause != t.clause
                || n.sentence != t.sentence
                || matches!(n.norm.as_str(), "and" | "or")
        });
        let stands_alone = !ambiguous
            && raw.chars().count() == 1
            && (raw.chars().all(|c| c.is_ascii_uppercase()) || cue_before || cue_after);
        let letter = marked || stands_alone || (ambiguous && cue_before && cue_after);
        if letter && !found.iter().any(|(p, _, _)| *p == k) {
            found.push((k, t.start, span_of(a, answer, t.start, t.end)));
        }
    }
    found.sort_by_key(|(_, s, _)| *s);
    found.dedup_by_key(|(p, _, _)| *p);
    // With one right option, prose that mentions others ("False. It is true that ...") is read
    // by its first pick.
    let single = card.choices.iter().filter(|c| c.correct).count() == 1;
    if single && from_text && found.len() > 1 {
        found.truncate(1);
    }
    found.into_iter().map(|(k, _, span)| (k, span)).collect()
}

pub(super) fn choice(card: &Card, answer: &str, a: &Segments, st: &Stance) -> Parts {
    let n = card.choices.len();
    let picks = labels_only(a, answer, n).unwrap_or_else(|| prose_picks(card, a, st, answer));
    let mut parts = Parts::default();
    for (i, c) in card.choices.iter().enumerate() {
        let pick = picks.iter().find(|(p, _)| *p == i);
        if c.correct {
            parts.points.push(PointResult {
                id: String::new(),
                label: format!("picks ({}) {}", choice_label(i), c.text),
                required: true,
                hit: pick.is_some(),
                span: pick.map(|(_, s)| s.clone()),
            });
        } else if let Some((_, span)) = pick {
            parts.red_flags.push(FlagHit {
                id: String::new(),
                label: format!("picked ({}) {}", choice_label(i), c.text),
                span: span.clone(),
                correction: if c.why.is_empty() {
                    format!("({}) is not right", choice_label(i))
                } else {
                    c.why.clone()
                },
                spec: card.spec.first().cloned().unwrap_or_default(),
                catalogue: false,
            });
        }
    }
    parts
}

/// The order in which an `order` card's items are shown: `display[k]` is the index (in the
/// correct order) of the item shown with label `k + 1`. Deterministic per card id, so the quiz
/// and the grader agree on what "3 1 2" means; never the correct order itself.
pub fn order_display(card: &Card) -> Vec<usize> {
    let n = card.items.len();
    let mut perm: Vec<usize> = (0..n).collect();
    // FNV-1a of the id seeds a xorshift: stable across runs and platforms.
    let mut x: u64 = 0xcbf2_9ce4_8422_2325;
    for b in card.id.bytes() {
        x ^= u64::from(b);
        x = x.wrapping_mul(0x0100_0000_01b3);
    }
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    if n >= 2 && perm.iter().enumerate().all(|(k, &p)| k == p) {
        perm.rotate_left(1);
    }
    perm
}

/// "3124" or "cabd": every label once, written without separators.
fn packed_labels(a: &Segments, answer: &str, n: usize) -> Option<Vec<(usize, Span)>> {
    let [t] = a.tokens.as_slice() else {
        return None;
    };
    let chars: Vec<(usize, char)> = a.norm()[t.start..t.end].char_indices().collect();
    if chars.len() != n || n > 9 {
        return None;
    }
    let mut out = Vec::new();
    for (k, &(off, c)) in chars.iter().enumerate() {
        let idx = label_index(&c.to_string(), n)?;
        if out.iter().any(|(i, _)| *i == idx) {
            return None;
        }
        let start = t.start + off;
        let end = chars.get(k + 1).map_or(t.end, |&(o, _)| t.start + o);
        out.push((idx, span_of(a, answer, start, end)));
    }
    Some(out)
}

pub(super) fn order(card: &Card, answer: &str, a: &Segments) -> Parts {
    let n = card.items.len();
    let display = order_display(card);
    // The user's sequence, as indices into the correct order, each with where it was written.
    let mut seq: Vec<(usize, Span)> = Vec::new();
    if let Some(labels) = labels_only(a, answer, n).or_else(|| packed_labels(a, answer, n)) {
        // Numbers and letters both work; mixed answers read as written.
        for (k, span) in labels {
            if let Some(&item) = display.get(k) {
                seq.push((item, span));
            }
        }
    } else {
        let mut found: Vec<(usize, usize, usize)> = card
            .items
            .iter()
            .enumerate()
            .filter_map(|(i, t)| text_position(a, t).map(|(s, e)| (s, e, i)))
            .collect();
        found.sort();
        seq = found
            .into_iter()
            .map(|(s, e, i)| (i, span_of(a, answer, s, e)))
            .collect();
    }
    let mut parts = Parts::default();
    for (k, item) in card.items.iter().enumerate() {
        let at = seq.get(k);
        parts.points.push(PointResult {
            id: String::new(),
            label: format!("{}. {}", k + 1, item),
            required: true,
            hit: at.is_some_and(|(i, _)| *i == k),
            span: at.map(|(_, s)| s.clone()),
        });
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cloze_blanks_pair_innermost_first() {
        let json = r#"{"error":{"code":{{-32602}},"data":{"x":{{a|b}}}}}"#;
        let scan = cloze_scan(json);
        assert_eq!(scan.unclosed, None, "JSON braces are not blanks");
        assert_eq!(
            cloze_blanks(json),
            vec![vec!["-32602".to_string()], vec!["a".into(), "b".into()]]
        );
        assert_eq!(cloze_blanks("{{{x}}}"), vec![vec!["x".to_string()]]);
        assert_eq!(cloze_scan("{{a}} and {{b").unclosed, Some(10));
        assert_eq!(cloze_scan("{{a and {{b}}").unclosed, Some(0));
        assert_eq!(cloze_scan(r#"{"a":{"b":1}}"#).spans, vec![]);
    }

    #[test]
    fn the_blamed_line_is_the_one_called_the_bug() {
        let line = |t: &str| named_line(t).map(|(n, _, _)| n);
        assert_eq!(
            line("The server did nothing wrong on line 4. Line 6 is the bug."),
            Some(6)
        );
        assert_eq!(line("Line 2 is fine. The mistake is line 3."), Some(3));
        assert_eq!(
            line("Line 3. Line 2 is a modern -32022 error, as it should be."),
            Some(3)
        );
        assert_eq!(
            line(
                "Lines 1 and 2 are a normal listen. Line 3 sends the change first. That's the mistake."
            ),
            Some(3)
        );
        assert_eq!(line("Line 5 reuses the id, which isn't allowed."), Some(5));
    }
}
