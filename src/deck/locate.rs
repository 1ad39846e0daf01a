//! Where things are written in a deck file: byte offsets to line:column, and the lines of
//! `key = "value"` assignments and table headers.
//!
//! The text is split into lines once and every card's `id` line is found from one index, so
//! locating each card of a 10,000-card deck stays linear (a lookup that rescanned the file per
//! card made loading quadratic). Loading and validation both use this module; neither imports
//! the other's internals.

use std::collections::HashMap;

use super::{Deck, DeckError};

/// 1-based line and column (in characters) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The value of `key = "value"` (or `'value'`) written on `line`, and the key's column.
fn assignment<'t>(line: &'t str, key: &str) -> Option<(&'t str, usize)> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix(key)?;
    let rest = rest.trim_start().strip_prefix('=')?.trim_start();
    // Up to the closing quote, so a trailing `# comment` does not hide the value.
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = rest.get(1..)?;
    let value = inner.get(..inner.find(quote)?)?;
    Some((value, line.len() - trimmed.len() + 1))
}

/// Whether `line` assigns `key` or opens a `[key]`/`[[key]]` (or `[[x.key]]`) table.
fn names_key(line: &str, key: &str) -> bool {
    let t = line.trim_start();
    if t.starts_with('[') {
        let header = t.trim_start_matches('[').trim_end_matches(']').trim();
        let last = header.rsplit('.').next().unwrap_or(header);
        return last == key || header == key;
    }
    t.strip_prefix(key)
        .is_some_and(|rest| rest.trim_start().starts_with('='))
}

/// Where `key = "value"` is first written, at or after line `from_line` (1-based; 0 = start).
/// Returns the line and the column of the key.
pub(crate) fn find_key_line(
    text: &str,
    key: &str,
    value: &str,
    from_line: usize,
) -> Option<(usize, usize)> {
    let skip = from_line.saturating_sub(1);
    text.lines()
        .enumerate()
        .skip(skip)
        .find_map(|(i, line)| match assignment(line, key) {
            Some((v, column)) if v == value => Some((i + 1, column)),
            _ => None,
        })
}

/// Finds where things are written in one deck file.
pub(crate) struct Locator<'a> {
    file: &'a str,
    lines: Vec<&'a str>,
    /// Line of each card's `id = "..."`, in card order.
    card_lines: Vec<usize>,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(deck: &'a Deck, text: &'a str) -> Locator<'a> {
        let lines: Vec<&str> = text.lines().collect();
        let first_card = lines
            .iter()
            .position(|l| l.trim_start().starts_with("[[cards]]"))
            .map_or(0, |i| i + 1);
        // One pass: every `id = "..."` line after the first card header, by value, in order.
        let mut id_lines: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, line) in lines.iter().enumerate().skip(first_card.saturating_sub(1)) {
            if let Some((value, _)) = assignment(line, "id") {
                id_lines.entry(value).or_default().push(i + 1);
            }
        }
        // Cards are written in order: each card's line is the first line with its id after the
        // previous card's (so a duplicated id points at its second occurrence).
        let mut from = first_card;
        let mut card_lines = Vec::with_capacity(deck.cards.len());
        for c in &deck.cards {
            let found = id_lines.get(c.id.as_str()).and_then(|v| {
                let at = v.partition_point(|&l| l < from);
                v.get(at).copied()
            });
            let line = found.unwrap_or(from.max(1));
            card_lines.push(line);
            from = line + 1;
        }
        Locator {
            file: &deck.source,
            lines,
            card_lines,
        }
    }

    pub(crate) fn card_line(&self, i: usize) -> usize {
        self.card_lines.get(i).copied().unwrap_or(1)
    }

    /// The line after card `i`'s text ends (the next card's id line), or 0 for the last card.
    fn next_card_line(&self, i: usize) -> usize {
        self.card_lines.get(i + 1).copied().unwrap_or(0)
    }

    /// Lines `from..until` (1-based; `until` 0 = to the end), with their numbers.
    fn span(&self, from: usize, until: usize) -> impl Iterator<Item = (usize, &&'a str)> {
        let start = from.saturating_sub(1).min(self.lines.len());
        let end = if until == 0 {
            self.lines.len()
        } else {
            until.saturating_sub(1).clamp(start, self.lines.len())
        };
        self.lines[start..end]
            .iter()
            .enumerate()
            .map(move |(i, l)| (start + i + 1, l))
    }

    pub(crate) fn at_line(&self, line: usize, message: String) -> DeckError {
        let column = self
            .lines
            .get(line.saturating_sub(1))
            .map_or(1, |l| l.len() - l.trim_start().len() + 1);
        DeckError {
            file: self.file.to_string(),
            line,
            column,
            message,
        }
    }

    pub(crate) fn card(&self, i: usize, message: String) -> DeckError {
        self.at_line(self.card_line(i), message)
    }

    /// At a field of card `i` (e.g. `choices`), else at the card.
    pub(crate) fn field(&self, i: usize, field: &str, message: String) -> DeckError {
        let line = self
            .span(self.card_line(i), self.next_card_line(i))
            .find(|(_, l)| names_key(l, field))
            .map_or(self.card_line(i), |(n, _)| n);
        self.at_line(line, message)
    }

    /// At the `label = "..."` of a point or flag of card `i`, else at the card.
    pub(crate) fn label(&self, i: usize, label: &str, message: String) -> DeckError {
        let line = self
            .span(self.card_line(i), self.next_card_line(i))
            .find(|(_, l)| assignment(l, "label").is_some_and(|(v, _)| v == label))
            .map_or(self.card_line(i), |(n, _)| n);
        self.at_line(line, message)
    }
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
        let t = "[[cards]]\n  id = \"x\"\n[[cards]]\nid = 'y'  # comment\n";
        assert_eq!(find_key_line(t, "id", "y", 0), Some((4, 1)));
        assert_eq!(find_key_line(t, "id", "x", 0), Some((2, 3)));
        assert_eq!(find_key_line(t, "id", "z", 0), None);
    }

    #[test]
    fn locates_cards_fields_and_labels_within_their_card() {
        let text = "[deck]\nid = \"d\"\ntitle = \"t\"\n\n[[cards]]\nid = \"a\"\nkind = \"recall\"\n\
                    [[cards.points]]\nlabel = \"p\"\n\n[[cards]]\nid = \"b\"\nchoices = []\n\
                    [[cards.points]]\nlabel = \"p\"\n\n[[cards]]\nid = \"a\"\n";
        let deck: Deck = Deck {
            meta: toml::from_str("id = \"d\"\ntitle = \"t\"").unwrap(),
            cards: ["a", "b", "a"]
                .iter()
                .map(|id| {
                    toml::from_str(&format!(
                        "id = \"{id}\"\nkind = \"recall\"\nquestion = \"q\""
                    ))
                    .unwrap()
                })
                .collect(),
            source: "d.toml".into(),
            concepts_used: Default::default(),
        };
        let loc = Locator::new(&deck, text);
        assert_eq!(loc.card_lines, vec![6, 12, 18]);
        // The second `label = "p"` belongs to card b, not a.
        assert_eq!(loc.label(1, "p", String::new()).line, 15);
        assert_eq!(loc.label(0, "p", String::new()).line, 9);
        // A field is looked for inside its card only.
        assert_eq!(loc.field(1, "choices", String::new()).line, 13);
        assert_eq!(loc.field(0, "choices", String::new()).line, 6);
        let e = loc.card(2, "dup".into());
        assert_eq!((e.file.as_str(), e.line, e.column), ("d.toml", 18, 1));
    }
}
