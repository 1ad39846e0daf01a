//! Which line of a listing an answer blames ("line 3", "the third line", "L3").

use super::*;

pub(super) const NUMBER_WORDS: &[&str] = &[
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
pub(super) const ORDINAL_WORDS: &[&str] = &[
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

pub(super) fn number_word(w: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .position(|n| *n == w)
        .map(|i| i as u32 + 1)
}

pub(super) fn ordinal_word(w: &str) -> Option<u32> {
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
    let words_of = |claim: usize| -> Vec<&str> {
        a.tokens
            .iter()
            .filter(|t| t.claim == claim)
            .map(|t| t.norm.as_str())
            .collect()
    };
    // How strongly a claim calls something the bug (positive) or fine (negative).
    let blame = |words: &[&str]| -> i32 {
        let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
        let pair = |x: &str, y: &str| words.windows(2).any(|p| p[0] == x && p[1] == y);
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
            "offender",
            "invalid",
            "illegal",
            "faulty",
            "fault",
            "issue",
            "premature",
            "bad",
            "mistake",
            "forbidden",
        ]) || pair("goes", "wrong")
            || pair("is", "where")
        {
            s += 2;
        }
        // "a -32022 error" may describe the line's content rather than blame it.
        if has(&["error"]) && s == 0 {
            s += 1;
        }
        if has(&[
            "fine", "right", "correct", "ok", "okay", "legal", "harmless", "allowed", "valid",
        ]) {
            s -= 2;
        }
        // "isn't allowed" blames; "did nothing wrong", "no problem", "not the bug" acquit.
        if pair("not", "allowed") || pair("isn't", "allowed") || pair("never", "allowed") {
            s += 4;
        }
        if pair("nothing", "wrong")
            || pair("no", "problem")
            || pair("no", "issue")
            || pair("not", "the")
                && words
                    .iter()
                    .any(|w| matches!(*w, "bug" | "problem" | "issue" | "culprit"))
        {
            s -= 5;
        }
        if words.first().is_some_and(|w| matches!(*w, "not" | "no")) {
            s -= 3;
        }
        // "..., as it should be", "as expected": the line does what it must.
        if words
            .windows(2)
            .any(|p| p[0] == "as" && matches!(p[1], "it" | "expected" | "intended" | "required"))
        {
            s -= 2;
        }
        // "Line 3." on its own: the answer's pick, stated before any reason.
        if words.len() <= 2 {
            s += 1;
        }
        s
    };
    let named: Vec<usize> = mentions.iter().map(|m| m.3).collect();
    let score = |claim: usize| -> i32 {
        let mut s = blame(&words_of(claim));
        // "... line 3 sends the change first. That's the mistake.": a verdict in the next
        // claim, naming no line of its own, speaks of this one.
        let next = words_of(claim + 1);
        if !named.contains(&(claim + 1))
            && next
                .first()
                .is_some_and(|w| matches!(*w, "that" | "that's" | "this" | "it" | "it's" | "which"))
        {
            s += blame(&next).max(0);
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
pub(super) fn line_mentions(a: &Analysis) -> Vec<(u32, usize, usize, usize)> {
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

pub(crate) fn spot_the_bug(card: &Card, answer: &str) -> Parts {
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
