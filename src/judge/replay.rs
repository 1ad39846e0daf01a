//! Replaying the judge without a model: the requests a corpus would send, written out so a
//! person (or another model) can write the replies card by card (`mcp-tutor judge requests`),
//! and the folder of replies they write, read back to be served by a stub endpoint.
//!
//! An answer is known by its key: the fingerprint of its text as the judge sends it (the same
//! fingerprint the store keeps judgements under), so a reply follows the answer, not its place
//! in a file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::request;
use crate::deck::Library;
use crate::deck::eval::{Corpus, Part};

/// The name of a card's file: `DECK--CARD` (a card key holds one `/`).
pub fn file_stem(key: &str) -> String {
    key.replace('/', "--")
}

/// The key of an answer: the fingerprint of the text the judge is sent.
pub fn answer_key(answer: &str) -> String {
    crate::deck::eval::fingerprint(&answer[..super::cut(answer)])
}

/// What was written.
#[derive(Debug, Default)]
pub struct Dumped {
    pub cards: usize,
    pub answers: usize,
    /// Corpus answers to cards the judge never reads (the rules grade them exactly).
    pub skipped: usize,
}

/// Write the requests the corpus's answers (those of `part`, or all) would send under `out`:
/// `prefix.txt`, `schema.json`, `cards/DECK--CARD.md` and a README saying how to reply into
/// `replies`.
pub fn dump(
    lib: &Library,
    corpus: &Corpus,
    part: Option<Part>,
    out: &Path,
    replies: &Path,
) -> anyhow::Result<Dumped> {
    let mut by_card: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut done = Dumped::default();
    for e in corpus
        .entries
        .iter()
        .filter(|e| part.is_none_or(|p| e.part == p))
    {
        let key = e.key();
        let Some((_, card)) = lib.card(&key) else {
            anyhow::bail!(
                "{}:{}: no card `{key}`: fix the answer's `card` (or load the deck that has it with --decks)",
                e.file,
                e.line
            );
        };
        if !request::judges(card.kind) {
            done.skipped += 1;
            continue;
        }
        let text = &e.answer.text[..super::cut(&e.answer.text)];
        let answers = by_card.entry(key).or_default();
        let k = answer_key(text);
        if !answers.iter().any(|(a, _)| *a == k) {
            answers.push((k, text.to_string()));
        }
    }
    let cards_dir = out.join("cards");
    std::fs::create_dir_all(&cards_dir)
        .with_context(|| format!("cannot create {}", cards_dir.display()))?;
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
    };
    write(out.join("prefix.txt"), request::shared_prefix())?;
    write(
        out.join("schema.json"),
        &serde_json::to_string_pretty(&request::reply_schema())?,
    )?;
    for (key, answers) in &by_card {
        let Some((_, card)) = lib.card(key) else {
            continue;
        };
        write(
            cards_dir.join(format!("{}.md", file_stem(key))),
            &card_file(key, card, answers),
        )?;
        done.cards += 1;
        done.answers += answers.len();
    }
    write(out.join("README.md"), &readme(&done, replies))?;
    Ok(done)
}

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

fn card_file(key: &str, card: &crate::card::Card, answers: &[(String, String)]) -> String {
    let part = format!(
        "{}<ANSWER>{}",
        request::card_text(key, card),
        request::USER_CLOSE
    );
    let mut o = format!(
        "# {key} ({})\n\n\
         The user message for each answer below is this text with `<ANSWER>` replaced by the \
         answer as a JSON string. It comes after the system message in `../prefix.txt`.\n\n\
         {f}json\n{part}\n{f}\n\n## Answers ({})\n",
        card.kind_name(),
        answers.len(),
        f = fence(&part),
    );
    for (k, text) in answers {
        let f = fence(text);
        let _ = write!(o, "\n### {k}\n\n{f}text\n{text}\n{f}\n");
    }
    o
}

fn readme(d: &Dumped, replies: &Path) -> String {
    format!(
        "# Judge requests, card by card\n\n\
         These are the exact requests `mcp-tutor` sends its model judge for {answers} answers to \
         {cards} cards. Each request is one chat completion with two messages:\n\n\
         1. **system**: `prefix.txt`, the same bytes for every card and answer (instructions, the \
         verdict rule, the misconception catalogue).\n\
         2. **user**: the card's part from `cards/DECK--CARD.md`, with `<ANSWER>` replaced by the \
         answer as a JSON string.\n\n\
         The reply must follow `schema.json`:\n\n\
         ```json\n\
         {{\"verdict\": \"pass|partial|fail\", \"points\": [{{\"id\": \"<point id>\", \"quote\": \"<words from the answer>\"}}], \"misconceptions\": [{{\"flag\": \"<flag id or null>\", \"quote\": \"<words from the answer>\", \"correction\": \"<one sentence>\"}}]}}\n\
         ```\n\n\
         ## Writing the replies\n\n\
         Read `prefix.txt` once, then for each file in `cards/` read the card's part and each \
         answer under `## Answers`; each answer is headed by its key (`### 0123456789abcdef`). \
         Write the reply a careful, strong model would give to that request: the reply object \
         exactly as the system message asks (quotes copied from the answer word for word).\n\n\
         Write one file per card to `{replies}/DECK--CARD.json` (the same name as the card's \
         `.md` file, with `.json`):\n\n\
         ```json\n\
         {{\n  \"card\": \"DECK/CARD\",\n  \"replies\": {{\n    \"<answer key>\": {{\"verdict\": \"partial\", \"points\": [{{\"id\": \"...\", \"quote\": \"...\"}}], \"misconceptions\": []}},\n    \"<next answer key>\": {{ ... }}\n  }}\n}}\n\
         ```\n\n\
         Every answer key of the card should have a reply; an answer without one counts as not \
         covered. Nothing else is read from the folder. Cards are independent: the work can be \
         split between repliers by card file, each card's file written whole by one of them.\n",
        answers = d.answers,
        cards = d.cards,
        replies = replies.display(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outgrows_the_backticks_inside() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("a ```` b"), "`````");
    }

    #[test]
    fn the_key_is_the_fingerprint_of_what_is_sent() {
        assert_eq!(answer_key(" x "), crate::deck::eval::fingerprint("x"));
        assert_eq!(file_stem("deck/card"), "deck--card");
    }
}
