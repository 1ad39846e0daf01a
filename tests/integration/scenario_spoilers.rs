//! A guided scenario asks a question, then runs the steps whose frames answer it. Whatever
//! the lab prints between one prediction and the next (the narration, the notes under each
//! frame, the previous question's explanation) must not already say the next answer.
//!
//! "Say the answer" is judged by meaning-bearing words, not by string equality: the words of
//! the right option that no wrong option and no stop word share (its *distinctive* words,
//! compared by a crude stem). A prose sentence printed before the prediction gives it away
//! when it holds two thirds of them (all of them when there are two or fewer). A paraphrase of
//! the right option therefore trips the check even though it never repeats the option, and a
//! note that merely uses the topic's vocabulary (which the wrong options share) does not.

use std::collections::BTreeSet;

/// One prediction as the lab printed it: its prompt, its options, and the text before it.
#[derive(Debug)]
pub struct Prediction {
    pub prompt: String,
    pub options: Vec<String>,
    /// Everything printed since the previous prediction's options (or the start).
    pub before: String,
}

/// Splits a scenario transcript into its predictions.
pub fn predictions(transcript: &str) -> Vec<Prediction> {
    let mut out = Vec::new();
    let mut before = String::new();
    let mut lines = transcript.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(prompt) = line.strip_prefix("predict: ") else {
            before.push_str(line);
            before.push('\n');
            continue;
        };
        let mut prompt = prompt.to_string();
        let mut options: Vec<String> = Vec::new();
        // The block goes on while lines are indented: prompt continuations, then `  a) …`.
        while let Some(next) = lines.peek().filter(|l| l.starts_with(' ')) {
            let t = next.trim();
            let lettered =
                t.len() > 2 && t.as_bytes()[1] == b')' && t.as_bytes()[0].is_ascii_lowercase();
            if lettered {
                options.push(t[2..].trim().to_string());
            } else if let Some(last) = options.last_mut() {
                last.push(' ');
                last.push_str(t);
            } else {
                prompt.push(' ');
                prompt.push_str(t);
            }
            lines.next();
        }
        out.push(Prediction {
            prompt,
            options,
            before: std::mem::take(&mut before),
        });
    }
    out
}

const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "so", "of", "to", "in", "on", "at", "by", "for", "with",
    "from", "as", "is", "are", "was", "be", "been", "it", "its", "it's", "this", "that", "these",
    "those", "there", "then", "than", "no", "not", "all", "any", "each", "every", "one", "only",
    "same", "what", "which", "who", "does", "do", "did", "has", "have", "had", "will", "would",
    "can", "could", "may", "might", "should", "must", "since", "because", "again", "still", "yet",
    "own", "also", "just", "here", "now", "once",
];

/// A crude stem, enough to make "resumes", "resumed" and "resume" one word.
fn stem(word: &str) -> String {
    let mut w = word.to_lowercase();
    for suffix in ["ing", "ed", "es", "s", "e"] {
        if w.len() > suffix.len() + 3 && w.ends_with(suffix) {
            w.truncate(w.len() - suffix.len());
            break;
        }
    }
    w
}

/// The meaning-bearing words of `text`, stemmed. Ids and numbers (`lab-1`, `7`) are left
/// out: they name the setup every option shares (which stream, which id), not an answer.
fn words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '/'))
        .map(|w| w.trim_matches(|c: char| c == '-' || c == '/'))
        .filter(|w| w.chars().count() >= 2 && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| !STOP.contains(&w.to_lowercase().as_str()))
        .map(stem)
        .collect()
}

/// The right option's words that no wrong option has.
pub fn distinctive(right: &str, wrong: &[&str]) -> BTreeSet<String> {
    let shared: BTreeSet<String> = wrong.iter().flat_map(|w| words(w)).collect();
    words(right).difference(&shared).cloned().collect()
}

/// Lines that open an item of their own: the wire (`→`, `←`), typed steps, verdict lines.
const MARKERS: &[&str] = &[
    "→",
    "←",
    "lab>",
    "✓",
    "✗",
    "==",
    "predict:",
    "notice:",
    "mcp-tutor lab:",
    "client:",
];
/// Items that are the wire or data, not prose: what went out or came in, the honoured filter,
/// the rules a frame passed. The notes under them (indented deeper) are items of their own.
const NOT_PROSE: &[&str] = &[
    "→",
    "←",
    "lab>",
    "==",
    "mcp-tutor lab:",
    "honoured:",
    "frame:",
    "spec:",
];

/// The lab's output as items: a note and its wrapped lines (indented two more), or a
/// paragraph of narration (lines at the margin).
fn items(text: &str) -> Vec<String> {
    let mut items: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let marker = MARKERS.iter().any(|m| t.starts_with(m));
        let continues = match items.last() {
            Some((open, prev)) => {
                (indent == open + 2 && !t.starts_with("client:"))
                    || (indent == 0
                        && *open == 0
                        && !marker
                        && !NOT_PROSE.iter().any(|m| prev.starts_with(m)))
            }
            None => false,
        };
        match items.last_mut() {
            Some((_, prev)) if continues => {
                prev.push(' ');
                prev.push_str(t);
            }
            _ => items.push((indent, t.to_string())),
        }
    }
    items.into_iter().map(|(_, t)| t).collect()
}

/// The prose sentences of a stretch of lab output: narration, notes, explanations, and the
/// validator's `✗` verdicts (the `✓` list of rules passed is data).
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for item in items(text) {
        if NOT_PROSE.iter().any(|m| item.starts_with(m))
            || (item.starts_with('✓') && !item.starts_with("✓ you said"))
        {
            continue;
        }
        let mut cur = String::new();
        let mut chars = item.chars().peekable();
        while let Some(c) = chars.next() {
            cur.push(c);
            if matches!(c, '.' | '?' | '!') && chars.peek().is_none_or(|n| n.is_whitespace()) {
                out.push(std::mem::take(&mut cur));
            }
        }
        if !cur.trim().is_empty() {
            out.push(cur);
        }
    }
    out
}

/// How many of `n` distinctive words a sentence must hold to say the answer: all of one or
/// two, two thirds of more (a note about the same topic shares a word or two by nature).
fn needed(n: usize) -> usize {
    if n <= 2 {
        n
    } else {
        (2 * n).div_ceil(3).max(2)
    }
}

/// The sentences printed before `p` that say its right answer, with the words they share.
pub fn giveaways(p: &Prediction, right: usize) -> Vec<(String, Vec<String>)> {
    let wrong: Vec<&str> = p
        .options
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != right)
        .map(|(_, o)| o.as_str())
        .collect();
    let key = distinctive(&p.options[right], &wrong);
    let need = needed(key.len());
    sentences(&p.before)
        .into_iter()
        .filter_map(|s| {
            let hit: Vec<String> = words(&s).intersection(&key).cloned().collect();
            (need > 0 && hit.len() >= need).then_some((s, hit))
        })
        .collect()
}

/// Fails when any prediction of `transcript` is answered by a note printed before it.
/// `answers` are the right letters in the scenario's order.
pub fn assert_no_giveaway(name: &str, transcript: &str, answers: &[usize]) {
    let ps = predictions(transcript);
    assert_eq!(
        ps.len(),
        answers.len(),
        "{name}: the transcript shows {} predictions, the scenario has {}",
        ps.len(),
        answers.len()
    );
    for (p, &right) in ps.iter().zip(answers) {
        let wrong: Vec<&str> = p
            .options
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != right)
            .map(|(_, o)| o.as_str())
            .collect();
        assert!(
            !distinctive(&p.options[right], &wrong).is_empty(),
            "{name}: the right option of “{}” has no word of its own, so no note can be checked \
             against it; word the options so the right one says something the others do not",
            p.prompt
        );
        let found = giveaways(p, right);
        assert!(
            found.is_empty(),
            "{name}: before “{}” the lab already says its answer “{}”:\n{}",
            p.prompt,
            p.options[right],
            found
                .iter()
                .map(|(s, w)| format!("  “{}” (shares {})", s.trim(), w.join(", ")))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

#[cfg(test)]
mod checker {
    use super::*;

    /// The stale-id transcript as it was when the new user found the giveaway (shortened).
    const STALE_BEFORE: &str = "\
lab> drop
←✕ [\"lab-1\"] stream ended, no result
    no result: an abrupt end (you made the server vanish with `drop`: this is
      what a transport loss looks like). The subscription is gone and nothing is
      resumed; a careful client may listen again, with a NEW request id.
predict: The client reconnects. Which id should the new subscriptions/listen
  carry?
  a) \"lab-1\" again, so the server resumes the old subscription
  b) none: the server assigns the subscription id in the acknowledgement
  c) a new id: the old request is gone and nothing is resumed
lab> listen tools
";

    #[test]
    fn the_reported_giveaway_is_caught() {
        let ps = predictions(STALE_BEFORE);
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].options.len(), 3);
        let found = giveaways(&ps[0], 2);
        assert!(
            found.iter().any(|(s, _)| s.contains("NEW request id")),
            "{found:?}"
        );
    }

    #[test]
    fn a_paraphrase_is_caught_and_shared_vocabulary_is_not() {
        let paraphrase = STALE_BEFORE.replace(
            "The subscription is gone and nothing is\n      resumed; a careful client may listen again, with a NEW request id.",
            "Nothing carries over: the old subscription is gone, and a reconnect is a new request.",
        );
        assert_ne!(paraphrase, STALE_BEFORE);
        assert!(!giveaways(&predictions(&paraphrase)[0], 2).is_empty());
        // Words every option uses (id, server, subscription) say nothing about which is right.
        let neutral = STALE_BEFORE.replace(
            "The subscription is gone and nothing is\n      resumed; a careful client may listen again, with a NEW request id.",
            "The server held this subscription under the id the client chose.",
        );
        assert_ne!(neutral, STALE_BEFORE);
        assert_eq!(giveaways(&predictions(&neutral)[0], 2), vec![]);
    }
}
