//! The fair-rubric rules a machine can check (the README's deck format states them all):
//! a point that can only be earned by an exact identifier says "exactly" in its label, and a
//! point whose label says "exactly" names the identifier it wants. Everything else accepts the
//! idea in plain words, so its label must not promise more than its matchers ask.

use super::locate::Locator;
use super::{Deck, DeckError};

pub fn check(deck: &Deck, text: &str) -> Vec<DeckError> {
    let loc = Locator::new(deck, text);
    let mut errors = Vec::new();
    for (i, card) in deck.cards.iter().enumerate() {
        for p in &card.points {
            let exact_only = !p.rules.is_empty() && p.rules.iter().all(|r| !r.exact.is_empty());
            let says_exactly = p.label.to_lowercase().contains("exactly");
            if exact_only && !says_exactly {
                errors.push(loc.label(
                    i,
                    &p.label,
                    format!(
                        "point `{}` can only be earned by writing {} exactly: say \"exactly\" in its label, or add a rule that accepts the idea in plain words",
                        p.label,
                        p.rules
                            .iter()
                            .flat_map(|r| &r.exact)
                            .map(|e| format!("`{e}`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                ));
            }
            if says_exactly && !p.rules.iter().any(|r| !r.exact.is_empty()) {
                errors.push(loc.label(
                    i,
                    &p.label,
                    format!(
                        "point `{}` says \"exactly\" but no rule names an `exact` identifier: add it, or drop \"exactly\" from the label",
                        p.label
                    ),
                ));
            }
        }
    }
    errors
}
