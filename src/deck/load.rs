//! Parsing one deck file and turning byte offsets into line:column.

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
    let mut deck = Deck {
        meta: file.deck,
        cards: file.cards,
        source: source.to_string(),
        concepts_used: Default::default(),
    };
    let mut errors = resolve_vocabulary(&mut deck, text);
    errors.extend(super::validate::validate_deck(
        &deck,
        text,
        super::facts::numbers(),
    ));
    (Some(deck), errors)
}

/// Expand `@concepts` and attach shared flags; an unknown name is an error at its card.
fn resolve_vocabulary(deck: &mut Deck, text: &str) -> Vec<DeckError> {
    let source = deck.source.clone();
    let vocab = match super::concepts::vocabulary() {
        Ok(v) => v,
        Err(e) => {
            return vec![DeckError {
                file: source.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "the concepts file is broken, so `@concepts` cannot be resolved: {e}"
                ),
            }];
        }
    };
    let mut errors = Vec::new();
    let mut used = std::collections::BTreeSet::new();
    for card in &mut deck.cards {
        let un = super::concepts::resolve(card, vocab, &mut used);
        let (line, column) = find_key_line(text, "id", &card.id, 0).unwrap_or((1, 1));
        for c in un.concepts {
            errors.push(DeckError {
                file: source.clone(),
                line,
                column,
                message: format!("card `{}` names an unknown concept `@{c}`; define it in decks/concepts.toml or fix the name", card.id),
            });
        }
        for f in un.flags {
            errors.push(DeckError {
                file: source.clone(),
                line,
                column,
                message: format!("card `{}` lists an unknown shared flag `{f}`; shared flags are the [[flags]] of decks/concepts.toml", card.id),
            });
        }
    }
    deck.concepts_used = used;
    errors
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

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// Where `key = "value"` is written, searching from line `from_line` (1-based; 0 = start).
/// Returns the line and the column of the key.
pub(crate) fn find_key_line(
    text: &str,
    key: &str,
    value: &str,
    from_line: usize,
) -> Option<(usize, usize)> {
    for (i, line) in text.lines().enumerate().skip(from_line.saturating_sub(1)) {
        let trimmed = line.trim_start();
        let Some(rest) = trimmed.strip_prefix(key) else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim();
        let unquoted = rest
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .or_else(|| rest.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')));
        if unquoted == Some(value) {
            let column = line.len() - trimmed.len() + 1;
            return Some((i + 1, column));
        }
    }
    None
}

/// The line of the first `key` assignment or `[key]`/`[[key]]` header at or after `from_line`.
pub(crate) fn find_key(text: &str, key: &str, from_line: usize, until: usize) -> Option<usize> {
    for (i, line) in text.lines().enumerate().skip(from_line.saturating_sub(1)) {
        if until != 0 && i + 1 >= until {
            break;
        }
        let t = line.trim_start();
        let header = t.trim_start_matches('[').trim_end_matches(']').trim();
        let last = header.rsplit('.').next().unwrap_or(header);
        if t.starts_with('[') && (last == key || header == key) {
            return Some(i + 1);
        }
        if let Some(rest) = t.strip_prefix(key) {
            if rest.trim_start().starts_with('=') {
                return Some(i + 1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let t = "a = 1\nbé = 2\n";
        assert_eq!(line_col(t, 0), (1, 1));
        assert_eq!(line_col(t, 6), (2, 1));
        assert_eq!(line_col(t, 10), (2, 4));
    }

    #[test]
    fn finds_an_id_line() {
        let t = "[[cards]]\n  id = \"x\"\n[[cards]]\nid = 'y'\n";
        assert_eq!(find_key_line(t, "id", "y", 0), Some((4, 1)));
        assert_eq!(find_key_line(t, "id", "x", 0), Some((2, 3)));
        assert_eq!(find_key_line(t, "id", "z", 0), None);
    }
}
