//! Which line of a listing an answer blames ("line 3", "the third line", "L3").

use super::*;
use crate::grader::lexicon::lexicon;

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

pub(crate) fn number_word(w: &str) -> Option<u32> {
    NUMBER_WORDS
        .iter()
        .position(|n| *n == w)
        .map(|i| i as u32 + 1)
}

pub(crate) fn ordinal_word(w: &str) -> Option<u32> {
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
/// line", "l3", "#3", "3:", a leading number, or, given the transcript, "the last line" and
/// "the second data line"), the one whose claim calls it the bug rather than fine ("Lines 1
/// and 3 look right. Line 5 is where it goes wrong"); the first named when nothing tells them
/// apart. Returns the line and its byte range in the answer.
pub fn named_line(answer: &str) -> Option<(u32, usize, usize)> {
    let s = Segments::new(answer);
    blamed_line(&s, None)
}

pub(crate) fn blamed_line(a: &Segments, transcript: Option<&str>) -> Option<(u32, usize, usize)> {
    let mentions = line_mentions(a, transcript);
    let words_of = |claim: usize| -> Vec<&str> {
        a.claim_range(claim)
            .map(|i| a.tokens[i].norm.as_str())
            .collect()
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
                .is_some_and(|w| lexicon().blame.pointers.has(w))
        {
            s += blame(&next).max(0);
        }
        s
    };
    let (best, top) = mentions
        .iter()
        .enumerate()
        .map(|(i, m)| (i, m, score(m.3) + if m.4 { 3 } else { 0 }))
        .max_by_key(|&(i, _, s)| (s, std::cmp::Reverse(i)))
        .map(|(_, m, s)| (*m, s))?;
    // Every line named is called fine ("Lines 2 and 5 are fine: ..."): none is blamed.
    if top < 0 {
        return None;
    }
    Some((best.0, best.1, best.2))
}

/// How strongly a claim calls something the bug (positive) or fine (negative).
fn blame(words: &[&str]) -> i32 {
    let b = &lexicon().blame;
    let has = |w: &dyn Fn(&str) -> bool| words.iter().any(|x| w(x));
    let mut s = 0;
    if has(&|w| b.bug.has(w)) || b.bug_pairs.in_words(words) {
        s += 2;
    }
    // "So, line one.": a short conclusion names the pick.
    if words.len() <= 4 && words.first().is_some_and(|w| b.conclusions.has(w)) {
        s += 2;
    }
    // "a -32022 error" may describe the line's content rather than blame it.
    if has(&|w| w == "error") && s == 0 {
        s += 1;
    }
    // "is fine" acquits; "doesn't look right" blames.
    let fine = words.iter().enumerate().filter(|(_, w)| b.fine.has(w));
    for (i, _) in fine {
        let denied = words[i.saturating_sub(3)..i]
            .iter()
            .any(|w| matches!(*w, "not" | "never" | "no") || w.ends_with("n't"));
        s += if denied { 2 } else { -2 };
    }
    // "isn't allowed" blames; "did nothing wrong", "no problem", "not the bug" acquit.
    if b.blame_pairs.in_words(words) {
        s += 4;
    }
    let not_the = words.windows(2).any(|p| p[0] == "not" && p[1] == "the");
    if b.acquit_pairs.in_words(words) || (not_the && has(&|w| b.acquit_nouns.has(w))) {
        s -= 5;
    }
    if words.first().is_some_and(|w| matches!(*w, "not" | "no")) {
        s -= 3;
    }
    // "..., as it should be", "as expected": the line does what it must.
    if words
        .windows(2)
        .any(|p| p[0] == "as" && b.as_intended.has(p[1]))
    {
        s -= 2;
    }
    // "Line 3." on its own: the answer's pick, stated before any reason.
    if words.len() <= 2 {
        s += 1;
    }
    s
}

/// Every line an answer names: (number, start, end in the answer, claim).
pub(super) fn line_mentions(
    a: &Segments,
    transcript: Option<&str>,
) -> Vec<(u32, usize, usize, usize, bool)> {
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
    let lines: Vec<&str> = transcript.map(|t| t.lines().collect()).unwrap_or_default();
    let mut push = |n: u32, s: usize, e: usize, at: usize| {
        // "Line 3: ..." opening its claim is the answer's pick, whatever follows.
        let claim = a.tokens[at].claim;
        let lead = a.claim_range(claim).start == at
            && a.tokens[at].norm != "lines"
            && a.norm()[e..].trim_start().starts_with([':', '.']);
        let (s, e) = a.original(s, e);
        out.push((n, s, e, claim, lead));
    };
    let is_line = |i: usize| {
        a.tokens
            .get(i)
            .is_some_and(|l| matches!(l.norm.as_str(), "line" | "lines" | "ln"))
    };
    for (i, t) in a.tokens.iter().enumerate() {
        // "the third line", "the last line", "the second data line"
        let ordinal = ordinal_word(&t.norm)
            .or_else(|| (t.norm == "last" && !lines.is_empty()).then_some(u32::MAX));
        if let Some(n) = ordinal {
            let kind = a.tokens.get(i + 1).map(|k| k.norm.as_str());
            let (line_at, prefix) = if is_line(i + 1) {
                (Some(i + 1), None)
            } else if is_line(i + 2) && matches!(kind, Some("data" | "event" | "sse" | "json")) {
                (Some(i + 2), kind)
            } else {
                (None, None)
            };
            if let Some(l) = line_at {
                if let Some(line) = resolve(&lines, n, prefix) {
                    push(line, t.start, a.tokens[l].end, i);
                }
                continue;
            }
        }
        if is_line(i) {
            if let Some(n) = num(i + 1) {
                push(n.0, t.start, n.2, i);
            }
            continue;
        }
        if let Some(rest) = t.norm.strip_prefix('l')
            && let Ok(n) = rest.parse::<u32>()
        {
            push(n, t.start, t.end, i);
            continue;
        }
        if let Some(n) = num(i) {
            let before = a.norm()[..t.start].chars().next_back();
            let after = a.norm()[t.end..].chars().next();
            // A leading "3" or "3:" picks a line; "Two concurrent subscriptions ...", "One of
            // the notifications ..." and "subscription 2: ..." do not.
            let digits = t.norm.chars().all(|c| c.is_ascii_digit());
            let opens = a.claim_range(t.claim).start == i;
            let marked = matches!(after, Some(':' | '.' | ')'));
            let leading = opens && (digits || marked);
            if !is_line(i.wrapping_sub(1))
                && (leading || before == Some('#') || (after == Some(':') && opens))
            {
                push(n.0, t.start, t.end, i);
            }
        }
    }
    out
}

/// The line number meant by "the `n`th [data] line" (`u32::MAX` for "last") in `lines`; without
/// a transcript, a plain ordinal is its own number.
fn resolve(lines: &[&str], n: u32, prefix: Option<&str>) -> Option<u32> {
    let Some(kind) = prefix else {
        if n == u32::MAX {
            // The last line with anything on it: blank lines count in numbering, not as "last".
            return lines
                .iter()
                .rposition(|l| !l.trim().is_empty())
                .map(|i| i as u32 + 1);
        }
        return Some(n);
    };
    let marker = match kind {
        "data" => "data:",
        "event" => "event:",
        _ => "",
    };
    let numbered: Vec<u32> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            if marker.is_empty() {
                l.starts_with('{') || l.starts_with("data:")
            } else {
                l.starts_with(marker)
            }
        })
        .map(|(i, _)| i as u32 + 1)
        .collect();
    if n == u32::MAX {
        numbered.last().copied()
    } else {
        numbered.get(n as usize - 1).copied()
    }
}

/// A spot-the-bug answer: the blamed line is a required point; the card's prose points (the
/// rule) count only together with the right line, since the right rule pinned on a wrong line
/// is a wrong diagnosis. An answer that names no line but states the rule is right as far as it
/// goes: partial.
pub(crate) fn spot_the_bug(
    card: &Card,
    answer: &str,
    a: &Segments,
    prose_points: &mut [PointResult],
) -> Parts {
    let mut parts = Parts::default();
    let Some(tr) = &card.transcript else {
        return parts;
    };
    let named = blamed_line(a, Some(&tr.text));
    let right = named.is_some_and(|(n, _, _)| n == tr.bug_line);
    parts.points.push(PointResult {
        id: "line".into(),
        label: format!("names line {}", tr.bug_line),
        required: true,
        hit: right,
        span: named.map(|(_, s, e)| Span::of(answer, s, e)),
    });
    if named.is_some() && !right {
        for p in prose_points.iter_mut() {
            p.hit = false;
            p.span = None;
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(t: &str) -> Option<u32> {
        named_line(t).map(|(n, _, _)| n)
    }

    #[test]
    fn words_that_count_things_name_no_line() {
        assert_eq!(
            line("Two concurrent subscriptions are fine as long as each has its own id."),
            None
        );
        assert_eq!(
            line("One of the notifications has the id as a string."),
            None
        );
        assert_eq!(
            line("Something's off with subscription 2: its ack came late."),
            None
        );
        assert_eq!(line("3: the ack comes after the change."), Some(3));
        assert_eq!(line("Three. The ack comes after the change."), Some(3));
    }

    #[test]
    fn lines_called_fine_are_not_blamed_and_a_conclusion_picks() {
        assert_eq!(
            line("Lines 2 and 5 are fine: other subscriptions' messages may interleave."),
            None
        );
        assert_eq!(
            line(
                "The ack must be tagged, just like the list_changed on line 3 does. So, line one."
            ),
            Some(1)
        );
    }
}
