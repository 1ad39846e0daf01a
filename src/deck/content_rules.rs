//! The content rules `decks check` adds on top of the format: things a deck can get wrong while
//! still parsing and passing its self-tests.
//!
//! - every spec reference (a card's `spec`, a red flag's `spec`) resolves through
//!   `docs/rules.md`, so a learner can follow it;
//! - every free-text card (recall, spot-the-bug) has a go-deeper ladder of 3 or 4 rungs;
//! - right answers of choice cards do not pile up on one letter (options are shown shuffled, but
//!   `grade`, exports and printed decks show the file's order, and a learner notices a pattern);
//! - a choice card's answer text does not name letters, which mean nothing once shuffled;
//! - every fact a card lists is one it tests (`facts_tested`);
//! - every key point and card red flag has a stable name (`ack-first`, not `p1`): the graded
//!   corpus and the review log refer to them, and a position changes when a point is inserted.

use super::locate::Locator;
use super::{Deck, DeckError};
use crate::card::{Card, CardKind};
use crate::grader::choice_label;
use crate::rules_doc;

/// Most right answers one letter may hold, as a share of the deck's right answers.
pub const MAX_LETTER_SHARE: f64 = 0.40;
/// Below this many right answers a share says nothing, so the bias rule does not apply.
pub const MIN_ANSWERS_FOR_BIAS: usize = 5;
/// A go-deeper ladder has this many rungs.
pub const LADDER_RUNGS: std::ops::RangeInclusive<usize> = 3..=4;

pub fn check(deck: &Deck, text: &str) -> Vec<DeckError> {
    let loc = Locator::new(deck, text);
    let mut errors = Vec::new();
    for (i, card) in deck.cards.iter().enumerate() {
        references(&loc, i, card, &mut errors);
        ladder(&loc, i, card, &mut errors);
        letter_answer(&loc, i, card, &mut errors);
        stable_ids(&loc, i, card, &mut errors);
        super::facts_tested::check(&loc, i, card, &mut errors);
    }
    if let Some(e) = position_bias(deck, &loc) {
        errors.push(e);
    }
    errors
}

fn references(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let doc = rules_doc::doc();
    for r in &card.spec {
        if let Err(why) = doc.resolve(r) {
            errors.push(loc.card(
                i,
                format!(
                    "card `{}` cites a reference nobody can follow: {why}",
                    card.id
                ),
            ));
        }
    }
    for f in &card.red_flags {
        if let Err(why) = doc.resolve(&f.spec) {
            errors.push(loc.label(
                i,
                &f.label,
                format!(
                    "red flag \"{}\" of card `{}` cites a reference nobody can follow: {why}",
                    f.label, card.id
                ),
            ));
        }
    }
}

fn ladder(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if !matches!(card.kind, CardKind::Recall | CardKind::SpotTheBug) {
        return;
    }
    let rungs = card.deeper.as_ref().map_or(0, |d| d.steps.len());
    if !LADDER_RUNGS.contains(&rungs) {
        errors.push(loc.card(
            i,
            format!(
                "{} card `{}` has {rungs} go-deeper rung(s); free-text cards need {}–{} under [cards.deeper] steps = [...], shallowest first",
                card.kind_name(),
                card.id,
                LADDER_RUNGS.start(),
                LADDER_RUNGS.end()
            ),
        ));
    }
}

/// `p3`, `f2`: the ids the loader gives a point or flag written without one.
pub fn is_positional(id: &str) -> bool {
    let mut c = id.chars();
    matches!(c.next(), Some('p' | 'f')) && !c.as_str().is_empty() && c.all(|d| d.is_ascii_digit())
}

fn stable_ids(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let points = card.points.iter().map(|p| ("key point", &p.id, &p.label));
    let flags = card.red_flags.iter().map(|f| ("red flag", &f.id, &f.label));
    for (what, id, label) in points.chain(flags).filter(|(_, id, _)| is_positional(id)) {
        errors.push(loc.label(
            i,
            label,
            format!(
                "{what} \"{label}\" of card `{}` has no stable name (it would be `{id}` by position, which changes when a point is inserted): add `id = \"…\"`, a short name for the idea such as `ack-first`",
                card.id
            ),
        ));
    }
}

/// `(a)`, `(b) False`, `a and c`: letters that stop meaning anything once options are shuffled.
fn names_letters(text: &str) -> bool {
    let t = text.trim();
    let b = t.as_bytes();
    b.len() >= 3 && b[0] == b'(' && b[1].is_ascii_lowercase() && b[2] == b')'
}

fn letter_answer(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if card.kind != CardKind::Choice {
        return;
    }
    if let Some(a) = card.answer.as_ref().filter(|a| names_letters(&a.text)) {
        errors.push(loc.card(
            i,
            format!(
                "choice card `{}` answers with a letter ({:?}); options are shown shuffled, so write the right option(s) in words",
                card.id,
                a.text.trim()
            ),
        ));
    }
}

/// The letters of every right option in the deck, in file order.
pub fn right_letters(deck: &Deck) -> Vec<String> {
    deck.cards
        .iter()
        .filter(|c| c.kind == CardKind::Choice)
        .flat_map(|c| {
            c.choices
                .iter()
                .enumerate()
                .filter(|(_, o)| o.correct)
                .map(|(k, _)| choice_label(k))
        })
        .collect()
}

fn position_bias(deck: &Deck, loc: &Locator<'_>) -> Option<DeckError> {
    let letters = right_letters(deck);
    if letters.len() < MIN_ANSWERS_FOR_BIAS {
        return None;
    }
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for l in &letters {
        *counts.entry(l.as_str()).or_default() += 1;
    }
    let (letter, n) = counts.iter().max_by_key(|(_, n)| **n)?;
    let share = *n as f64 / letters.len() as f64;
    (share > MAX_LETTER_SHARE).then(|| {
        loc.at_line(
            1,
            format!(
                "deck `{}`: {n} of its {} right answers sit on option ({letter}) ({:.0}% > {:.0}%); move right options to other positions",
                deck.meta.id,
                letters.len(),
                share * 100.0,
                MAX_LETTER_SHARE * 100.0
            ),
        )
    })
}
