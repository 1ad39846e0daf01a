//! `decks corpus import`: answers a learner disputed in the quiz (the disputes folder) turned
//! into graded-corpus entries for a deck's author, each saying where it came from. The verdict
//! is the learner's (they disputed the one given). The points and misconceptions are the kept
//! judge's reading after the guards when its verdict is the learner's too; otherwise, or with
//! no judgement kept, they are left for the author, and the entry says so.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::reply::Reply;
use super::{guard, replay, request};
use crate::deck::Library;
use crate::deck::eval::Corpus;
use crate::store::Store;

/// The entries, per deck, as the text of `DECK.toml`.
#[derive(Debug, Default)]
pub struct Imported {
    pub files: BTreeMap<String, String>,
    pub entries: usize,
    /// Entries whose points and flags come from a kept judgement.
    pub labelled: usize,
    /// Answers to cards no loaded deck has, with where they are.
    pub skipped: Vec<String>,
}

/// Turn every answer of `corpus` into an entry, labelled from the judgements in `store`.
pub fn import(lib: &Library, corpus: &Corpus, store: Option<&Store>) -> Imported {
    let mut out = Imported::default();
    for e in &corpus.entries {
        let key = e.key();
        let Some((_, card)) = lib.card(&key) else {
            out.skipped
                .push(format!("{}:{}: no card `{key}`", e.file, e.line));
            continue;
        };
        let a = &e.answer;
        let mut text = format!("\n# from {}:{}", e.file, e.line);
        if let Some(g) = a.graded {
            let _ = write!(
                text,
                " (disputed: graded {}, the learner says {})",
                g.name(),
                a.verdict.name()
            );
        }
        text.push('\n');
        let kept = store
            .filter(|_| request::judges(card.kind))
            .and_then(|s| s.judgements_of(&key, &replay::answer_key(&a.text)).ok())
            .unwrap_or_default();
        let read = kept
            .iter()
            .find_map(|k| serde_json::from_str::<Reply>(&k.reply).ok().map(|r| (k, r)));
        let labels = match read {
            None => {
                text.push_str(
                    "# no judgement kept for this answer: points and flags are left for you\n",
                );
                String::new()
            }
            Some((k, reply)) => {
                let (why, labels) = labels(card, a, k, &reply);
                text.push_str(&why);
                out.labelled += usize::from(!labels.is_empty());
                labels
            }
        };
        let _ = write!(
            text,
            "[[answers]]\ncard = {}\ntext = {}\nverdict = {}\n{labels}",
            q(&a.card),
            q(&a.text),
            q(a.verdict.name())
        );
        out.files.entry(e.deck.clone()).or_default().push_str(&text);
        out.entries += 1;
    }
    out
}

fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// The comment saying where the labels come from, and the labels (`points`, `flags`, `other`
/// lines; empty when the judge's verdict after the guards is not the learner's).
fn labels(
    card: &crate::card::Card,
    a: &crate::deck::eval::GradedAnswer,
    k: &crate::store::Kept,
    reply: &Reply,
) -> (String, String) {
    let answer = &a.text[..super::cut(&a.text)];
    let rules = crate::grader::grade(card, answer);
    let c = guard::check(card, answer, &rules, reply);
    let when = chrono::DateTime::from_timestamp_millis(k.at_ms)
        .map(|t| t.format("%Y-%m-%d").to_string())
        .unwrap_or_default();
    let judge = format!("the judge {} ({}, {when})", k.model, k.prompt);
    if c.verdict != a.verdict {
        return (
            format!(
                "# {judge} says {} after the guards, the learner {}: points and flags are left for you\n",
                c.verdict.name(),
                a.verdict.name()
            ),
            String::new(),
        );
    }
    let list = |ids: Vec<&str>| {
        format!(
            "[{}]",
            ids.iter().map(|i| q(i)).collect::<Vec<_>>().join(", ")
        )
    };
    let points: Vec<&str> = c
        .points
        .iter()
        .filter(|p| p.hit && card.points.iter().any(|cp| cp.id == p.id))
        .map(|p| p.id.as_str())
        .collect();
    let flags: Vec<&str> = c
        .misconceptions
        .iter()
        .filter_map(|m| m.flag.as_deref())
        .collect();
    let mut labels = format!("points = {}\n", list(points));
    if !flags.is_empty() {
        let _ = writeln!(labels, "flags = {}", list(flags));
    }
    if let Some(m) = c.misconceptions.iter().find(|m| m.flag.is_none()) {
        let _ = writeln!(
            labels,
            "other = {}",
            q(&format!("{}: {}", m.quote, m.correction))
        );
    }
    (
        format!("# points and flags: {judge} after the guards; its verdict is the learner's\n"),
        labels,
    )
}
