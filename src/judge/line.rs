//! Which lines of a spot-the-bug transcript some words name, counted as the quiz shows the
//! transcript (every line numbered, blank ones included): "line 3", "L3", "#3", "the 3",
//! "line three", "the third line", "3rd", "the second data line", "the last line".
//!
//! The judge's line guard reads the model's own quote with it: a quote is where the model says
//! the answer names the line, so a bare number in it counts ("The wrong line is the 4.").
//! Across a whole answer only explicit mentions count (`explicit`): an answer is full of numbers
//! that are not lines (`-32602`, "2 subscriptions").

use crate::grader;

/// A line named, and whether it was named as a line ("line 3", "the third line") rather than
/// by a bare number ("the 3").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mention {
    pub line: u32,
    pub explicit: bool,
}

/// Words in lower case; `-`, `.`, `/`, `_` and `'` between two letters or digits join a word
/// (`tutor-7`, `2.0`, `-32602` is `32602` behind a sign), and a possessive `'s` is dropped
/// ("Line 5's _meta"). Each word says whether a colon follows it at once ("6: …").
fn words(text: &str) -> Vec<(String, bool)> {
    let text = grader::normalise(text).to_lowercase();
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        let joins = matches!(c, '-' | '.' | '/' | '_' | '\'')
            && !cur.is_empty()
            && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
        if c.is_alphanumeric() || joins {
            cur.push(c);
        } else if !cur.is_empty() {
            out.push((std::mem::take(&mut cur), c == ':'));
        }
    }
    if !cur.is_empty() {
        out.push((cur, false));
    }
    for (w, _) in &mut out {
        if let Some(bare) = w.strip_suffix("'s") {
            *w = bare.to_string();
        }
    }
    out
}

fn number(w: &str) -> Option<u32> {
    w.parse::<u32>().ok().or_else(|| grader::number_word(w))
}

/// "third", "3rd", "4th".
fn ordinal(w: &str) -> Option<u32> {
    grader::ordinal_word(w)
}

fn is_line(w: Option<&String>) -> bool {
    w.is_some_and(|w| matches!(w.as_str(), "line" | "lines" | "ln"))
}

/// The `n`th line of `kind` (`data`, `event`, `non-blank`; every line when none) of the
/// transcript, `u32::MAX` meaning the last, as its number in the quiz's display.
fn resolve(transcript: &str, n: u32, kind: Option<&str>) -> Option<u32> {
    let lines: Vec<&str> = transcript.trim_end().lines().collect();
    if kind.is_none() && n != u32::MAX {
        return Some(n);
    }
    let keep = |l: &str| -> bool {
        let l = l.trim_start();
        match kind {
            Some("data") => l.starts_with("data:"),
            Some("event") => l.starts_with("event:"),
            // "the last line": blank lines are numbered but are nobody's "last line".
            _ => !l.is_empty(),
        }
    };
    let numbered: Vec<u32> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| keep(l))
        .map(|(i, _)| i as u32 + 1)
        .collect();
    if n == u32::MAX {
        numbered.last().copied()
    } else {
        numbered.get(n.checked_sub(1)? as usize).copied()
    }
}

/// Every line `text` names, given the transcript it speaks of.
pub fn mentions(text: &str, transcript: &str) -> Vec<Mention> {
    let (w, colon): (Vec<String>, Vec<bool>) = words(text).into_iter().unzip();
    let mut out = Vec::new();
    let mut push = |line: Option<u32>, explicit: bool| {
        if let Some(line) = line {
            out.push(Mention { line, explicit });
        }
    };
    let mut i = 0;
    while i < w.len() {
        let word = w[i].as_str();
        // "the third line", "the 3rd data line", "the last non-blank line"
        let nth = ordinal(word).or_else(|| matches!(word, "last" | "final").then_some(u32::MAX));
        if let Some(n) = nth {
            let kind = w.get(i + 1).map(String::as_str);
            if is_line(w.get(i + 1)) {
                push(resolve(transcript, n, None), true);
                i += 2;
                continue;
            }
            if is_line(w.get(i + 2))
                && let Some(k @ ("data" | "event" | "non-blank" | "non-empty" | "nonblank")) = kind
            {
                let k = if k == "data" || k == "event" {
                    k
                } else {
                    "non-blank"
                };
                push(resolve(transcript, n, Some(k)), true);
                i += 3;
                continue;
            }
            // A bare "3rd" points at a line, and so does "the third one" in an answer to "which
            // line?"; a bare "third" or "last" is any order ("the first message must be …").
            if word.as_bytes()[0].is_ascii_digit() || kind == Some("one") {
                push(resolve(transcript, n, None), false);
            }
            i += 1;
            continue;
        }
        if is_line(Some(&w[i])) {
            // "line 3", "line three", "lines 1 to 3" (the first one named)
            if let Some(n) = w.get(i + 1).and_then(|x| number(x)) {
                push(Some(n), true);
                i += 2;
                continue;
            }
        }
        // "l3", "ln3"
        if let Some(rest) = word.strip_prefix("ln").or_else(|| word.strip_prefix('l'))
            && !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_digit())
        {
            push(rest.parse().ok(), true);
        } else if word.bytes().all(|b| b.is_ascii_digit()) {
            // "6: the server pushes …" picks a line as plainly as "line 6".
            push(word.parse().ok(), colon[i]);
        }
        i += 1;
    }
    out
}

/// Whether the words `quote` (the model's own quote) name line `n`.
pub fn quote_names(quote: &str, transcript: &str, n: u32) -> bool {
    mentions(quote, transcript).iter().any(|m| m.line == n)
}

/// Whether `answer` names line `n` as a line somewhere ("line 5", "the fifth line").
pub fn answer_names(answer: &str, transcript: &str, n: u32) -> bool {
    mentions(answer, transcript)
        .iter()
        .any(|m| m.explicit && m.line == n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seven lines, as in an SSE listen stream: data, blank, data, blank, comment, blank, data.
    const T: &str = "data: {\"a\":1}\n\ndata: {\"b\":2}\n\n:\n\ndata: {\"c\":3}\n";

    fn lines(text: &str) -> Vec<u32> {
        mentions(text, T).iter().map(|m| m.line).collect()
    }

    #[test]
    fn digits_and_words_name_lines() {
        assert_eq!(lines("Third line's the culprit."), [3]);
        assert_eq!(lines("It's line three: the change goes first."), [3]);
        assert_eq!(lines("The wrong line is the 4."), [4]);
        assert_eq!(lines("L5 looks off"), [5]);
        assert_eq!(lines("#2 is just a blank"), [2]);
        assert_eq!(lines("the 3rd one"), [3]);
        assert_eq!(lines("the third one (`\"method\":\"initialize\"`)"), [3]);
        assert_eq!(lines("Line 7. It repeats the list."), [7]);
        assert_eq!(lines("Line 5's _meta is wrong"), [5]);
        assert_eq!(lines("Then 6: the server pushes another change."), [6]);
    }

    #[test]
    fn counting_as_shown_or_by_kind() {
        assert_eq!(lines("line 3 (4 if you count the blank line)"), [3, 4]);
        assert_eq!(lines("the second data line"), [3]);
        assert_eq!(lines("the last line"), [7]);
        assert_eq!(lines("the final data line"), [7]);
        assert_eq!(lines("the third non-blank line"), [5]);
    }

    #[test]
    fn numbers_that_are_not_lines_are_left_alone() {
        assert_eq!(lines("it answers -32602 with HTTP 400"), [32602, 400]);
        assert!(!quote_names("the id tutor-7 on the stream", T, 7));
        assert!(!quote_names("jsonrpc 2.0", T, 2));
        assert!(!quote_names("the first message must be the ack", T, 1));
        assert!(!quote_names("it's the last thing sent", T, 7));
    }

    #[test]
    fn a_walk_through_the_lines_names_the_one_it_ends_on() {
        let a = "Line 1 opens the stream, line 2 is blank, line 3 is the ack. Then line 5 is where it breaks.";
        assert!(quote_names(a, T, 5));
        assert!(answer_names(a, T, 5));
        assert!(!answer_names(a, T, 4));
    }

    #[test]
    fn across_an_answer_only_explicit_mentions_count() {
        assert!(!answer_names("The wrong line is the 4.", T, 4));
        assert!(quote_names("The wrong line is the 4.", T, 4));
        assert!(answer_names("so the fourth line", T, 4));
    }
}
