//! The content rules `decks check` adds on top of the format: things a deck can get wrong while
//! still parsing and passing its self-tests.
//!
//! - every spec reference (a card's `spec`, a red flag's `spec`) resolves through
//!   `docs/rules.md`, so a learner can follow it;
//! - every free-text card (recall, spot-the-bug) has a go-deeper ladder of 3 or 4 rungs;
//! - right answers of choice cards do not pile up on one letter (options are shown shuffled, but
//!   `grade`, exports and printed decks show the file's order, and a learner notices a pattern);
//! - a choice card's answer text does not name letters, which mean nothing once shuffled.

use super::model::{Card, CardKind};
use super::validate::Locator;
use super::{Deck, DeckError};
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
