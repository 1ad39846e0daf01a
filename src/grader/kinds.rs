//! The structured card kinds: choice, order, cloze and spot-the-bug.

use super::rules::{self, Mode, Rule, find_exact, near_miss, word_key};
use super::text::{Analysis, typo_close};
use super::{FlagHit, NearMiss, Parts, PointResult, Span};
use crate::card::{Card, CardKind, MatchRule};

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
fn labels_only(a: &Analysis, answer: &str, n: usize) -> Option<Vec<(usize, Span)>> {
    let mut picks = Vec::new();
    for t in &a.tokens {
        if let Some(k) = label_index(&t.norm, n) {
            picks.push((k, Span::from_norm(a, answer, t.start, t.end)));
        } else if !is_filler(&t.norm) {
            return None;
        }
    }
    (!picks.is_empty()).then_some(picks)
}

/// Where an option's or item's text occurs in the answer, matched like a key point.
fn text_position(a: &Analysis, text: &str) -> Option<(usize, usize)> {
    let rule = Rule::compile(&MatchRule {
        exact: Vec::new(),
        all: vec![text.replace('|', " ")],
    });
    if let Some(m) = rules::match_rule(a, &rule, Mode::Plain, &[]) {
        return Some((m.start, m.end));
    }
    // Option texts often are identifiers (`notifications/cancelled`).
    find_exact(&a.norm, text.trim())
        .first()
        .map(|h| (h.start, h.end))
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
fn prose_picks(card: &Card, a: &Analysis, answer: &str) -> Vec<(usize, Span)> {
    let n = card.choices.len();
    // (option, start in norm, span)
    let mut found: Vec<(usize, usize, Span)> = Vec::new();
    let tf = true_false(card);
    for (i, c) in card.choices.iter().enumerate() {
        let Some((s, e)) = text_position(a, &c.text) else {
            continue;
        };
        let span = Span::from_norm(a, answer, s, e);
        if rules::negated_at(a, s, e) {
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
        let after = a.norm[t.end..].chars().next();
        let before = a.norm[..t.start].chars().next_back();
        let marked = after == Some(')') || before == Some('(');
        let raw = &a.norm[t.start..t.end];
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
            found.push((k, t.start, Span::from_norm(a, answer, t.start, t.end)));
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

pub(super) fn choice(card: &Card, answer: &str) -> Parts {
    let a = Analysis::new(answer);
    let n = card.choices.len();
    let picks = labels_only(&a, answer, n).unwrap_or_else(|| prose_picks(card, &a, answer));
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
fn packed_labels(a: &Analysis, answer: &str, n: usize) -> Option<Vec<(usize, Span)>> {
    let [t] = a.tokens.as_slice() else {
        return None;
    };
    let chars: Vec<(usize, char)> = a.norm[t.start..t.end].char_indices().collect();
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
        out.push((idx, Span::from_norm(a, answer, start, end)));
    }
    Some(out)
}

pub(super) fn order(card: &Card, answer: &str) -> Parts {
    let a = Analysis::new(answer);
    let n = card.items.len();
    let display = order_display(card);
    // The user's sequence, as indices into the correct order, each with where it was written.
    let mut seq: Vec<(usize, Span)> = Vec::new();
    if let Some(labels) = labels_only(&a, answer, n).or_else(|| packed_labels(&a, answer, n)) {
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
            .filter_map(|(i, t)| text_position(&a, t).map(|(s, e)| (s, e, i)))
            .collect();
        found.sort();
        seq = found
            .into_iter()
            .map(|(s, e, i)| (i, Span::from_norm(&a, answer, s, e)))
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
fn is_identifier(s: &str) -> bool {
    !s.chars().all(|c| c.is_ascii_lowercase() || c == ' ')
}

fn blank_matches(part: &str, alt: &str) -> bool {
    // Fold typographic quotes, dashes and compatibility forms first ("−32020" is "-32020").
    let folded = Analysis::new(part).norm;
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
fn cloze_parts(answer: &str, blanks: usize, one_word: bool) -> Option<Vec<(usize, usize)>> {
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

pub(super) fn cloze(card: &Card, answer: &str) -> Parts {
    let blanks = cloze_blanks(card.cloze.as_deref().unwrap_or(""));
    let mut parts = Parts::default();
    let one_word = blanks
        .iter()
        .flatten()
        .all(|b| !b.contains(char::is_whitespace));
    let split = cloze_parts(answer, blanks.len(), one_word);
    let a = Analysis::new(answer);
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
                let tail = a.norm.get(from..).unwrap_or("");
                let hit = if is_identifier(alt) {
                    find_exact(tail, alt)
                        .first()
                        .map(|h| (h.start + from, h.end + from))
                } else {
                    let sub = Analysis::new(tail);
                    text_position(&sub, alt).map(|(s, e)| (s + from, e + from))
                };
                if let Some((s, e)) = hit {
                    span = Some(Span::from_norm(&a, answer, s, e));
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

const NUMBER_WORDS: &[&str] = &[
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
];
const ORDINAL_WORDS: &[&str] = &[
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
];

fn number_word(w: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .position(|n| *n == w)
        .map(|i| i as u32 + 1)
}

fn ordinal_word(w: &str) -> Option<u32> {
    ORDINAL_WORDS
        .iter()
        .position(|n| *n == w)
        .map(|i| i as u32 + 1)
        .or_else(|| {
            // "3rd", "2nd"
            let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
            let suffix = &w[digits.len()..];
            matches!(suffix, "st" | "nd" | "rd" | "th")
                .then(|| digits.parse().ok())
                .flatten()
        })
}

/// The line an answer blames: of every line it names ("line 3", "line three", "the third
/// line", "l3", "#3", "3:" or a leading number), the one whose claim calls it the bug rather
/// than fine ("Lines 1 and 3 look right. Line 5 is where it goes wrong"); the first named when
/// nothing tells them apart.
pub fn named_line(answer: &str) -> Option<(u32, usize, usize)> {
    let a = Analysis::new(answer);
    let mentions = line_mentions(&a);
    let score = |claim: usize| -> i32 {
        let words: Vec<&str> = a
            .tokens
            .iter()
            .filter(|t| t.claim == claim)
            .map(|t| t.norm.as_str())
            .collect();
        let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
        let mut s = 0;
        if has(&[
            "bug",
            "wrong",
            "violation",
            "violates",
            "breaks",
            "broken",
            "problem",
            "culprit",
            "offending",
            "invalid",
            "illegal",
            "error",
            "faulty",
            "issue",
            "premature",
            "bad",
        ]) || words
            .windows(2)
            .any(|p| p == ["goes", "wrong"] || p == ["is", "where"])
        {
            s += 2;
        }
        if has(&[
            "fine", "right", "correct", "ok", "okay", "legal", "harmless", "allowed", "valid",
        ]) {
            s -= 2;
        }
        if words.first().is_some_and(|w| matches!(*w, "not" | "no")) {
            s -= 3;
        }
        s
    };
    let best = mentions
        .iter()
        .enumerate()
        .max_by_key(|(i, m)| (score(m.3), std::cmp::Reverse(*i)))
        .map(|(_, m)| *m)?;
    Some((best.0, best.1, best.2))
}

/// Every line an answer names: (number, start, end in the answer, claim).
fn line_mentions(a: &Analysis) -> Vec<(u32, usize, usize, usize)> {
    let mut out = Vec::new();
    let num = |i: usize| {
        a.tokens.get(i).and_then(|t| {
            t.norm
                .parse::<u32>()
                .ok()
                .or_else(|| number_word(&t.norm))
                .map(|n| (n, t.start, t.end))
        })
    };
    let mut push = |n: u32, s: usize, e: usize, at: usize| {
        let (s, e) = a.original(s, e);
        out.push((n, s, e, a.tokens[at].claim));
    };
    for (i, t) in a.tokens.iter().enumerate() {
        // "the third line"
        if let Some(n) = ordinal_word(&t.norm) {
            if a.tokens.get(i + 1).is_some_and(|l| l.norm == "line") {
                push(n, t.start, a.tokens[i + 1].end, i);
                continue;
            }
        }
        if matches!(t.norm.as_str(), "line" | "lines" | "ln") {
            if let Some(n) = num(i + 1) {
                push(n.0, t.start, n.2, i);
            }
            continue;
        }
        if let Some(rest) = t.norm.strip_prefix('l') {
            if let Ok(n) = rest.parse::<u32>() {
                push(n, t.start, t.end, i);
                continue;
            }
        }
        if let Some(n) = num(i) {
            let before = a.norm[..t.start].chars().next_back();
            let after = a.norm[t.end..].chars().next();
            let after_line =
                i > 0 && matches!(a.tokens[i - 1].norm.as_str(), "line" | "lines" | "ln");
            if !after_line && (i == 0 || before == Some('#') || after == Some(':')) {
                push(n.0, t.start, t.end, i);
            }
        }
    }
    out
}

pub(super) fn spot_the_bug(card: &Card, answer: &str) -> Parts {
    let mut parts = Parts::default();
    let Some(tr) = &card.transcript else {
        return parts;
    };
    let named = named_line(answer);
    parts.points.push(PointResult {
        id: "line".into(),
        label: format!("names line {}", tr.bug_line),
        required: true,
        hit: named.is_some_and(|(n, _, _)| n == tr.bug_line),
        span: named.map(|(_, s, e)| Span::of(answer, s, e)),
    });
    parts
}

/// The answer a card's golden self-test grades: its solid answer for prose kinds; the right
/// letters, order, blanks or line (plus the solid answer's prose for spot-the-bug) otherwise.
pub fn golden_answer(card: &Card) -> Option<String> {
    let text = card.answer.as_ref().map(|a| a.text.clone());
    match card.kind {
        CardKind::Recall | CardKind::NameIt => text,
        CardKind::Choice => {
            let letters: Vec<String> = card
                .choices
                .iter()
                .enumerate()
                .filter(|(_, c)| c.correct)
                .map(|(i, _)| choice_label(i))
                .collect();
            Some(letters.join(", "))
        }
        CardKind::Order => {
            let display = order_display(card);
            let labels: Vec<String> = (0..card.items.len())
                .filter_map(|item| display.iter().position(|&d| d == item))
                .map(|k| (k + 1).to_string())
                .collect();
            Some(labels.join(" "))
        }
        CardKind::Cloze => {
            let blanks = cloze_blanks(card.cloze.as_deref().unwrap_or(""));
            let firsts: Vec<String> = blanks.iter().filter_map(|b| b.first().cloned()).collect();
            Some(firsts.join("\n"))
        }
        CardKind::SpotTheBug => {
            let line = card.transcript.as_ref()?.bug_line;
            Some(match text {
                Some(t) => format!("Line {line}: {t}"),
                None => format!("Line {line}"),
            })
        }
    }
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
}
