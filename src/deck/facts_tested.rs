//! `decks check`: a card's `facts` lists only facts the card actually tests. A machine cannot
//! read a card, but it can tell when a listed fact shares nothing with what the card asks,
//! answers and grades: the fact's key terms (identifiers in backticks, error codes, the longer
//! words) must show up in the card's own text, at least one of them. A fact a card merely mentions in its long explanation does not count as tested. Order
//! cards are exempt: their sequence is the test.

use super::locate::Locator;
use super::{DeckError, facts};
use crate::card::Card;

/// Words too common in this domain to tie a card to a fact.
const COMMON: &[&str] = &[
    "about",
    "after",
    "before",
    "every",
    "their",
    "there",
    "these",
    "those",
    "which",
    "while",
    "where",
    "other",
    "never",
    "still",
    "notification",
    "notifications",
    "server",
    "client",
    "message",
    "messages",
    "request",
    "requests",
    "subscription",
    "subscriptions",
];

/// The key terms of a fact: lower-cased identifiers, codes and words of five letters or more.
fn key_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| {
        c.is_whitespace() || matches!(c, '`' | ',' | ';' | '(' | ')' | '"' | '*' | '/' | ':')
    }) {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
            .to_lowercase();
        let code = w.starts_with('-') && w[1..].chars().all(|c| c.is_ascii_digit()) && w.len() > 3;
        let word = w.chars().count() >= 5 && !COMMON.contains(&w.as_str());
        if (code || word) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// What the card asks, answers and grades, lower-cased.
fn card_text(card: &Card) -> String {
    let mut parts: Vec<&str> = vec![&card.question];
    parts.extend(card.basics.as_ref().map(|b| b.text.as_str()));
    parts.extend(card.answer.as_ref().map(|a| a.text.as_str()));
    parts.extend(card.points.iter().map(|p| p.label.as_str()));
    parts.extend(card.red_flags.iter().map(|f| f.label.as_str()));
    parts.extend(card.red_flags.iter().map(|f| f.correction.as_str()));
    parts.extend(
        card.choices
            .iter()
            .flat_map(|c| [c.text.as_str(), c.why.as_str()]),
    );
    parts.extend(card.items.iter().map(String::as_str));
    parts.extend(card.cloze.as_deref());
    parts.extend(card.transcript.as_ref().map(|t| t.text.as_str()));
    parts.join(" ").to_lowercase()
}

pub fn check(loc: &Locator<'_>, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    // An order card tests its facts through the sequence itself, which words cannot show.
    if card.facts.is_empty() || card.kind.orders_items() {
        return;
    }
    let text = card_text(card);
    for &n in &card.facts {
        let Some(fact) = facts::get(n) else {
            continue; // an unknown number is the format check's error
        };
        let terms = key_terms(&fact.text);
        let found: Vec<&String> = terms.iter().filter(|t| text.contains(t.as_str())).collect();
        let needed = 1.min(terms.len());
        if found.len() < needed {
            errors.push(loc.card(
                i,
                format!(
                    "card `{}` lists fact {n} but tests none of it (\"{}\"): its question, answers, points and flags share {} of the fact's key terms; teach it in the card or drop {n} from `facts`",
                    card.id,
                    fact.text,
                    if found.is_empty() { "none".to_string() } else { found.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ") }
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_terms_keep_identifiers_codes_and_long_words() {
        let t = key_terms("HeaderMismatch/MissingCapability were renumbered from -32001/-32003.");
        assert!(t.contains(&"headermismatch".to_string()), "{t:?}");
        assert!(t.contains(&"-32001".to_string()), "{t:?}");
        assert!(t.contains(&"renumbered".to_string()), "{t:?}");
        assert!(!t.contains(&"were".to_string()));
    }
}
