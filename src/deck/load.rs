//! Parsing one deck file: toml errors located and explained, then validation.

use super::locate::line_col;
use super::{Deck, DeckError, model};

/// Parse one deck file and validate it. A parse error yields no deck; semantic problems are
/// reported but the deck is still returned so the rest of it stays usable.
pub(super) fn parse_deck(source: &str, text: &str) -> (Option<Deck>, Vec<DeckError>) {
    let file: model::DeckFile = match toml::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            let (line, column) = e.span().map(|s| line_col(text, s.start)).unwrap_or((1, 1));
            let error = DeckError {
                file: source.to_string(),
                line,
                column,
                message: explain_parse_error(e.message()),
            };
            return (None, vec![error]);
        }
    };
    let deck = Deck {
        meta: file.deck,
        cards: file.cards,
        source: source.to_string(),
    };
    let errors = super::validate::validate_deck(&deck, text, super::facts::numbers());
    (Some(deck), errors)
}

/// toml's messages say what is wrong; add how to fix the ones deck authors hit most.
fn explain_parse_error(msg: &str) -> String {
    let msg = msg.trim();
    if msg.starts_with("unknown field") {
        format!("{msg} (check the spelling against the deck format in the README)")
    } else if msg.starts_with("missing field") {
        format!("{msg} (add it to this table)")
    } else if msg.starts_with("unknown variant") {
        format!("{msg} (kind is one of recall, name-it, cloze, choice, order, spot-the-bug)")
    } else {
        msg.to_string()
    }
}
