//! `decks check`'s lints on how claims are written: what the grader already does for every
//! card must not be spelled out again in a deck, and a guard must not silence a flag
//! everywhere.
//!
//! - an alternative that repeats another of its group in another word form (`header|headers`):
//!   words are compared by stem and synonym class already;
//! - an alternative with a negation of its own (`not first`, `never|no`): stance is judged by the
//!   grader; a claim says `negated = true` or `not = "..."` instead;
//! - a guard alternative that is a common word (`may|only|read`): it silences the flag in most
//!   sentences.
//!
//! Lints read the deck as written, before `@concepts` are expanded, so a concept named in a
//! group is never reported for its forms.

use super::locate::Locator;
use super::{Deck, DeckError, model};
use crate::card::Claim;
use crate::grader;

pub fn check(deck: &Deck, text: &str) -> Vec<DeckError> {
    let Ok(raw) = toml::from_str::<model::DeckFile>(text) else {
        return Vec::new();
    };
    let loc = Locator::new(deck, text);
    let mut out = Vec::new();
    for (i, card) in raw.cards.iter().enumerate() {
        let points = card.points.iter().map(|p| (&p.label, &p.rules, None));
        let flags = card
            .red_flags
            .iter()
            .map(|f| (&f.label, &f.rules, Some(&f.guards)));
        for (label, claims, guards) in points.chain(flags) {
            for c in claims {
                for g in groups(c) {
                    for problem in group_problems(g) {
                        out.push(loc.label(i, label, format!("\"{label}\": {problem}")));
                    }
                }
            }
            for g in guards.into_iter().flatten() {
                for alt in alternatives(g) {
                    if grader::is_common_word(alt) {
                        out.push(loc.label(
                            i,
                            label,
                            format!(
                                "\"{label}\": guard `{alt}` is a common word that silences the flag in most sentences; guard with what denies this misconception, or narrow its claims"
                            ),
                        ));
                    }
                }
            }
        }
    }
    out
}

fn groups(c: &Claim) -> impl Iterator<Item = &String> {
    c.agent
        .iter()
        .chain(&c.action)
        .chain(&c.theme)
        .chain(&c.all)
        .chain(&c.not)
        .chain(&c.except)
}

fn alternatives(g: &str) -> impl Iterator<Item = &str> {
    g.split('|')
        .map(str::trim)
        .filter(|a| !a.is_empty() && !a.starts_with('@'))
}

/// What is wrong with one group as written.
pub fn group_problems(g: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<(String, &str)> = Vec::new();
    for alt in alternatives(g) {
        if grader::alternative_denies(alt) {
            out.push(format!(
                "`{alt}` lists a negation: the grader judges negation itself; write the claim with `negated = true`, or `not = \"...\"` for what it must deny"
            ));
            continue;
        }
        let key = grader::alternative_key(alt);
        if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
            out.push(format!(
                "`{alt}` repeats `{first}` in another word form; the grader compares stems and synonyms, so drop it"
            ));
        } else {
            seen.push((key, alt));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_and_negations_are_reported() {
        let p = group_problems("header|headers|echo|echoes|not first|ack");
        assert_eq!(p.len(), 3, "{p:?}");
        assert!(p[0].contains("`headers` repeats `header`"));
        assert!(p[2].contains("`not first` lists a negation"));
        assert!(group_problems("@ack|confirmation|first message").is_empty());
    }
}

/// An alternative of a format-2 deck that nothing in the deck's own tests or the tuned corpus
/// uses: no golden answer, no flag example or non-example, no tuned corpus answer of its card.
/// A candidate to drop (or a paraphrase worth an example).
#[derive(Debug, Clone)]
pub struct Unused {
    pub card: String,
    pub label: String,
    pub alternative: String,
}

/// The alternatives of `deck` (as written, `@concepts` not counted) that nothing uses. `corpus`
/// gives the tuned corpus answers of a `DECK/CARD`.
pub fn unused(deck: &Deck, text: &str, corpus: &dyn Fn(&str) -> Vec<String>) -> Vec<Unused> {
    let Ok(raw) = toml::from_str::<model::DeckFile>(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (card, raw_card) in deck.cards.iter().zip(&raw.cards) {
        let mut texts: Vec<String> = corpus(&deck.key(card));
        texts.extend(grader::golden_answer(card));
        for f in card.own_flags() {
            texts.extend(f.examples.iter().cloned());
            texts.extend(f.non_examples.iter().cloned());
        }
        let used: std::collections::BTreeSet<String> = texts
            .iter()
            .flat_map(|t| grader::alternatives_used(card, t))
            .collect();
        let points = raw_card.points.iter().map(|p| (&p.label, &p.rules, None));
        let flags = raw_card
            .red_flags
            .iter()
            .map(|f| (&f.label, &f.rules, Some(&f.guards)));
        for (label, claims, guards) in points.chain(flags) {
            let groups = claims
                .iter()
                .flat_map(groups)
                .chain(guards.into_iter().flatten());
            for g in groups {
                for alt in alternatives(g) {
                    if !used.contains(alt) {
                        out.push(Unused {
                            card: deck.key(card),
                            label: label.clone(),
                            alternative: alt.to_string(),
                        });
                    }
                }
            }
        }
    }
    out
}
