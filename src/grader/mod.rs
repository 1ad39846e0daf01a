//! The answer grader: deterministic, offline, explainable.
//!
//! [`grade`] judges a typed answer against one card the way an interviewer would, as a one-way
//! pipeline, one module per stage, data flowing down only:
//!
//! 1. [`normalise`]: Unicode form, quotes and dashes, with a map back to the answer;
//! 2. [`segment`]: words (stem, synonym class), sentences, claims and clauses;
//! 3. [`stance`]: per clause, once: denied, taken back, a condition; per claim: asked,
//!    attributed to somebody else;
//! 4. [`mentions`]: every place the rubric's groups occur, in one pass over an index;
//! 5. [`claims`]: the rubric's claims (who does what to what) read in any order or voice;
//! 6. [`rubric`]: the card's points and red flags (the catalogue's among them), judged;
//!    the structured kinds ([`kinds`]) read the same segmented text;
//! 7. [`account`]: every statement credited, flagged, recognised as true, or unchecked;
//! 8. [`verdict`]: score, verdict, confidence, suggested rating.
//!
//! The English it reasons with is data (`decks/lexicon.toml`, read by [`lexicon`]); the
//! protocol's vocabulary is in `decks/concepts.toml`. Nothing is learned or fetched: the same
//! card and answer always give the same [`Grade`].

mod account;
mod claims;
pub mod confidence;
mod idents;
mod kinds;
pub(crate) mod lexicon;
mod mentions;
mod normalise;
mod phrase;
mod rubric;
mod segment;
pub(crate) mod settle;
mod stance;
mod verdict;
mod words;

use crate::card::{Card, CardKind};
use segment::Segments;
use stance::Stance;

pub use account::card_texts;
pub use idents::near_miss;
pub use kinds::{
    ClozeScan, choice_label, cloze_blanks, cloze_scan, golden_answer, named_line, order_display,
};
pub(crate) use kinds::{number_word, ordinal_word};
pub use verdict::{
    Confidence, FlagHit, Grade, NearMiss, PointResult, Rating, Span, Unchecked, Verdict,
    rating_for, score_for, verdict_for,
};

/// The grader's normalisation of a text (Unicode NFKC, typographic quotes and dashes folded,
/// case kept): what a quote from an answer is compared in.
pub fn normalise(text: &str) -> String {
    normalise::Text::new(text).norm
}
pub use words::word_key;

/// The longest answer graded, in bytes; the rest is ignored (an interview answer is a few
/// hundred words, and the cap keeps grading fast on pasted garbage).
pub const MAX_ANSWER: usize = 20_000;

/// Grade `answer` against `card`. `Grade.card` is the bare card id.
pub fn grade(card: &Card, answer: &str) -> Grade {
    let mut cut = answer.len().min(MAX_ANSWER);
    while !answer.is_char_boundary(cut) {
        cut -= 1;
    }
    let truncated = cut < answer.len();
    let mut g = grade_whole(card, &answer[..cut]);
    g.truncated = truncated;
    g
}

/// Grade with `key` (the `DECK/CARD` key progress is stored under) in `Grade.card`.
pub fn grade_in(key: String, card: &Card, answer: &str) -> Grade {
    let mut g = grade(card, answer);
    g.card = key;
    g
}

fn grade_whole(card: &Card, answer: &str) -> Grade {
    let seg = Segments::new(answer);
    let stance = Stance::of(&seg);
    let truths = account::truths_for(card);
    // A name the protocol has as written, its short form (`tools/list_changed`, `logLevel`),
    // or a quote of the transcript the card shows: never a near miss of another name.
    let known_ident = |id: &str| {
        card.identifiers
            .iter()
            .any(|k| k == id || k.strip_suffix(id).is_some_and(|p| p.ends_with(['/', '.'])))
            || card
                .transcript
                .as_ref()
                .is_some_and(|t| writes_word(&t.text, id))
            || card.code.as_ref().is_some_and(|c| writes_word(&c.text, id))
    };
    let mut prose = rubric::judge(
        card,
        answer,
        &seg,
        &stance,
        &|t| truths.has_word(&t.canon),
        &known_ident,
    );
    let mut parts = match card.kind {
        CardKind::Recall | CardKind::NameIt => verdict::Parts::default(),
        CardKind::Choice => kinds::choice(card, answer, &seg, &stance),
        CardKind::Order => kinds::order(card, answer, &seg),
        CardKind::Cloze => kinds::cloze(card, answer, &seg),
        CardKind::SpotTheBug => kinds::spot_the_bug(card, answer, &seg, &mut prose.points),
    };
    if card.kind.free_text() {
        parts.unchecked = account::unchecked(
            answer,
            &seg,
            &stance,
            &truths,
            &prose.accounted,
            &card.identifiers,
        );
    }
    parts.points.append(&mut prose.points);
    parts.red_flags.append(&mut prose.red_flags);
    for n in prose.near_misses {
        if !parts.near_misses.iter().any(|m| m.span == n.span) {
            parts.near_misses.push(n);
        }
    }
    let mut g = verdict::finish(card.id.clone(), parts);
    if card.kind.free_text() {
        g.signals = signals(&seg, &prose.accounted, &g, card.kind);
        judge_confidence(&mut g);
    }
    g
}

/// Whether `text` writes `word` whole (not as the start of `notifications/cancelled`).
fn writes_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '-');
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(part)
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '/')
    })
}

/// The signals the confidence model reads, from the stages' findings.
fn signals(seg: &Segments, accounted: &[usize], g: &Grade, kind: CardKind) -> confidence::Signals {
    let accounted: std::collections::HashSet<usize> = accounted.iter().copied().collect();
    let claims: Vec<std::ops::Range<usize>> = (1..=seg.claim_count())
        .map(|c| seg.claim_range(c))
        .filter(|r| !r.is_empty())
        .collect();
    let words = |s: &Span| s.text.split_whitespace().count();
    let ticks: Vec<&Span> = g
        .points
        .iter()
        .filter(|p| p.hit)
        .filter_map(|p| p.span.as_ref())
        .collect();
    let overlaps = |a: &Span, b: &Span| a.start < b.end && b.start < a.end;
    confidence::Signals {
        claims: claims.len(),
        words: seg.tokens.len(),
        claims_unaccounted: claims
            .iter()
            .filter(|r| !(r.start..r.end).any(|t| accounted.contains(&t)))
            .count(),
        weakest_tick: ticks.iter().map(|s| words(s)).min().unwrap_or(0),
        thin_ticks: ticks.iter().filter(|s| words(s) <= 2).count(),
        thin_flags: g.red_flags.iter().filter(|f| words(&f.span) <= 3).count(),
        flag_tick_overlap: g
            .red_flags
            .iter()
            .filter(|f| ticks.iter().any(|t| overlaps(t, &f.span)))
            .count(),
        novel_words: g.unchecked.iter().map(|u| u.novel.len()).sum(),
        spot: kind == CardKind::SpotTheBug,
    }
}

/// Sure only when the model says the verdict is right often enough, on a card with tuned
/// answers.
pub fn judge_confidence(g: &mut Grade) {
    let m = confidence::model();
    let x = g.signals.features(g);
    g.certainty = Some(m.p_right(&x) as f32);
    g.untuned = !confidence::tuned(&g.card);
    g.confidence = if !g.untuned && m.sure(&x) {
        Confidence::Sure
    } else {
        Confidence::Unsure
    };
}

pub use rubric::alternatives_used;

/// Whether the built-in lexicon reads, for `decks check`.
pub fn lexicon_problem() -> Option<String> {
    lexicon::problem()
}

/// How the grader reads one alternative of a group: its words' synonym classes, joined. Two
/// alternatives with the same key match the same answers (`decks check` reports the second).
pub fn alternative_key(alt: &str) -> String {
    let p = phrase::Phrase::parse(alt);
    p.words
        .iter()
        .map(|w| w.canon.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether an alternative holds a negation of its own ("not first", "never"): the grader
/// judges negation itself, so a rubric never lists it.
pub fn alternative_denies(alt: &str) -> bool {
    phrase::Phrase::parse(alt).denies()
}

/// Whether a word says nothing on its own (a function word or a generic one: "may", "only",
/// "read"): a guard made of it silences a flag in most sentences.
pub fn is_common_word(w: &str) -> bool {
    let w = w.trim().to_lowercase();
    words::is_stopword(&w)
        || lexicon::lexicon().generic.contains(&w)
        || lexicon::lexicon().polar.contains(&w)
}

/// Whether `card` takes a free-text answer (recall, spot-the-bug): the kinds whose verdicts
/// the confidence model judges.
pub fn is_free_text(card: &Card) -> bool {
    card.kind.free_text()
}

/// A free-text card's own basics and solid answer, as a learner would type them (a
/// spot-the-bug answer names the line first).
pub fn own_answers(card: &Card) -> Vec<(&'static str, String)> {
    if !is_free_text(card) {
        return Vec::new();
    }
    let line = card.transcript.as_ref().map(|t| t.bug_line);
    let typed = |t: &str| match (card.kind, line) {
        (CardKind::SpotTheBug, Some(n)) if !t.to_lowercase().contains(&format!("line {n}")) => {
            format!("Line {n}: {t}")
        }
        _ => t.to_string(),
    };
    let mut out = Vec::new();
    if let Some(b) = &card.basics {
        out.push(("basics", typed(&b.text)));
    }
    if let Some(a) = &card.answer {
        out.push(("solid answer", typed(&a.text)));
    }
    out
}
