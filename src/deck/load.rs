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
    let version = file.deck.format();
    if !(model::OLDEST_FORMAT..=model::FORMAT_VERSION).contains(&version) {
        let (line, column) =
            super::locate::find_key_line(text, "format_version", &version.to_string(), 0)
                .unwrap_or((1, 1));
        let message = if version > model::FORMAT_VERSION {
            format!(
                "this deck is written in deck format {version}, newer than this mcp-tutor reads ({}); upgrade mcp-tutor (cargo install --path . in a fresh checkout)",
                model::FORMAT_VERSION
            )
        } else {
            format!(
                "this deck is written in deck format {version}, which this mcp-tutor no longer reads; convert it to format {} as the README's \"Deck format\" section shows (stable `id`s, `claims`) and set `format_version = {}` under [deck]",
                model::FORMAT_VERSION,
                model::FORMAT_VERSION
            )
        };
        return (
            None,
            vec![DeckError {
                file: source.to_string(),
                line,
                column,
                message,
            }],
        );
    }
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
    let vocab = match super::concepts::vocabulary() {
        Ok(v) => v,
        Err(e) => {
            return vec![DeckError {
                file: deck.source.clone(),
                line: 0,
                column: 0,
                message: format!(
                    "the concepts file is broken, so `@concepts` cannot be resolved: {e}"
                ),
            }];
        }
    };
    let mut used = std::collections::BTreeSet::new();
    let misconceptions =
        super::concepts::expand_misconceptions(super::catalogue::misconceptions(), vocab);
    let unresolved: Vec<(usize, super::concepts::Unresolved)> = deck
        .cards
        .iter_mut()
        .map(|card| super::concepts::resolve(card, vocab, &misconceptions, &mut used))
        .enumerate()
        .filter(|(_, un)| !un.concepts.is_empty() || !un.flags.is_empty())
        .collect();
    deck.concepts_used = used;
    // Located through one index of the file: a search of the text per card made loading
    // quadratic in the cards of one file.
    let loc = super::locate::Locator::new(deck, text);
    let mut errors = Vec::new();
    for (i, un) in unresolved {
        let id = &deck.cards[i].id;
        for c in un.concepts {
            errors.push(loc.card(
                i,
                format!("card `{id}` names an unknown concept `@{c}`; define it in decks/concepts.toml or fix the name"),
            ));
        }
        for f in un.flags {
            errors.push(loc.card(
                i,
                format!("card `{id}` lists an unknown shared flag `{f}`; shared flags are the [[flags]] of decks/concepts.toml"),
            ));
        }
    }
    errors
}

/// toml's messages say what is wrong; add how to fix the ones deck authors hit most.
fn explain_parse_error(msg: &str) -> String {
    let msg = msg.trim();
    if msg.starts_with("unknown field") {
        format!("{msg} (check the spelling against the deck format in the README)")
    } else if msg.starts_with("missing field") {
        format!("{msg} (add it to this table)")
    } else if let Some(rest) = msg.strip_prefix("unknown variant `") {
        // "unknown variant `choise`, expected one of `recall`, …": the nearest name instead
        // of the whole list twice.
        let given = rest.split('`').next().unwrap_or_default();
        let expected: Vec<&str> = rest
            .split_once("expected")
            .map(|(_, e)| e.split('`').skip(1).step_by(2).collect())
            .unwrap_or_default();
        let what = if expected.contains(&"spot-the-bug") {
            "kind"
        } else {
            "value"
        };
        mock_server::names::unknown(
            what,
            given,
            expected.iter().copied(),
            &format!("one of {}", expected.join(", ")),
        )
    } else {
        msg.to_string()
    }
}

#[cfg(test)]
mod tests {
    use crate::deck::Library;

    #[test]
    fn an_unknown_concept_is_located_at_its_card() {
        let text = "[deck]\nid = \"d\"\ntitle = \"t\"\n\n[[cards]]\nid = \"a\"\nkind = \"name-it\"\n\
                    question = \"q\"\n\n[[cards]]\n  id = \"b\"\nkind = \"name-it\"\nquestion = \"q\"\n\
                    shared_flags = [\"no-such-flag\"]\n";
        let mut lib = Library::default();
        lib.add_text("d.toml", text);
        let e = lib
            .errors
            .iter()
            .find(|e| e.message.contains("no-such-flag"))
            .expect("the unknown flag is reported");
        assert_eq!((e.line, e.column), (11, 3), "{e}");
    }

    #[test]
    fn replaces_names_gone_cards_by_their_key_and_each_once() {
        let dir = tempfile::tempdir().unwrap();
        let card = |id: &str, replaces: &str| {
            format!(
                "[[cards]]\nid = \"{id}\"\nkind = \"name-it\"\nquestion = \"q\"\nreplaces = {replaces}\n\n"
            )
        };
        let text = format!(
            "[deck]\nid = \"d\"\ntitle = \"t\"\n\n{}{}{}",
            card("a", r#"["d/b", "d/gone"]"#),
            card("b", r#"["d/gone", "no-deck"]"#),
            card("c", r#"["d/c"]"#),
        );
        std::fs::write(dir.path().join("d.toml"), text).unwrap();
        let lib = Library::from_dirs(&[dir.path().to_path_buf()], false);
        let said = |words: &str| lib.errors.iter().any(|e| e.message.contains(words));
        assert!(
            said("replaces `d/b`, which still exists"),
            "{:#?}",
            lib.errors
        );
        assert!(
            said("`d/gone` is replaced by both `d/a` and `d/b`"),
            "{:#?}",
            lib.errors
        );
        assert!(
            said("card `b` replaces `no-deck`: name the replaced card"),
            "{:#?}",
            lib.errors
        );
        assert!(
            said("card `c` lists itself in `replaces`"),
            "{:#?}",
            lib.errors
        );
        let malformed = lib
            .errors
            .iter()
            .find(|e| e.message.contains("no-deck"))
            .unwrap();
        assert_eq!(
            malformed.line, 15,
            "located at the card's `replaces`: {malformed}"
        );
        assert_eq!(
            lib.replacements(),
            [
                ("d/b".to_string(), "d/a".to_string()),
                ("d/gone".into(), "d/a".into()),
                ("d/gone".into(), "d/b".into()),
                ("no-deck".into(), "d/b".into()),
                ("d/c".into(), "d/c".into()),
            ]
        );
    }
}

#[cfg(test)]
mod fuzz {
    //! Mutated deck files: the loader never panics, and every problem it reports is located.

    use proptest::prelude::*;

    use crate::deck::Library;

    const DEMO: &str = include_str!("../../tests/fixtures/decks/good/demo.toml");
    const QUIZ: &str = include_str!("../../tests/fixtures/quiz/qz.toml");

    /// Pieces of deck syntax that, spliced in anywhere, reach the parser's and validator's
    /// odd corners.
    const TOKENS: [&str; 24] = [
        "[[cards]]\n",
        "[deck]\n",
        "[cards.answer]\n",
        "[[cards.points]]\n",
        "id = \"x\"\n",
        "id = 'demo'\n",
        "kind = \"cloze\"\n",
        "kind = \"nope\"\n",
        "followups = [\"missing\"]\n",
        "facts = [999]\n",
        "seconds = -1\n",
        "bug_line = 0\n",
        "{{",
        "}}",
        "\"",
        "'''",
        "\"\"\"",
        "=",
        "\n",
        "\u{feff}",
        "é",
        "\r\n",
        "# ",
        "\0",
    ];

    #[derive(Debug, Clone)]
    enum Edit {
        Delete(usize, usize),
        Insert(usize, usize),
        Duplicate(usize, usize),
        Truncate(usize),
    }

    fn edit() -> impl Strategy<Value = Edit> {
        prop_oneof![
            (any::<usize>(), 1..200usize).prop_map(|(a, n)| Edit::Delete(a, n)),
            (any::<usize>(), 0..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
            (any::<usize>(), 1..400usize).prop_map(|(a, n)| Edit::Duplicate(a, n)),
            any::<usize>().prop_map(Edit::Truncate),
        ]
    }

    /// The nearest char boundary at or before `i` (mod the length).
    fn at(text: &str, i: usize) -> usize {
        let mut i = i % (text.len() + 1);
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }

    fn apply(mut text: String, edits: &[Edit]) -> String {
        for e in edits {
            match *e {
                Edit::Delete(a, n) => {
                    let a = at(&text, a);
                    let b = at(&text, a.saturating_add(n).min(text.len()));
                    text.replace_range(a..b.max(a), "");
                }
                Edit::Insert(a, t) => {
                    let a = at(&text, a);
                    text.insert_str(a, TOKENS[t]);
                }
                Edit::Duplicate(a, n) => {
                    let a = at(&text, a);
                    let b = at(&text, a.saturating_add(n).min(text.len())).max(a);
                    let piece = text[a..b].to_string();
                    text.insert_str(b, &piece);
                }
                Edit::Truncate(a) => {
                    let a = at(&text, a);
                    text.truncate(a);
                }
            }
        }
        text
    }

    proptest! {
        // Bounded: CI runs these 384 cases in about a second. A failure prints its input;
        // nothing is written to the source tree.
        #![proptest_config(ProptestConfig {
            cases: 384,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn mutated_decks_never_panic_and_every_error_is_located(
            base in 0..2usize,
            edits in proptest::collection::vec(edit(), 1..6),
        ) {
            let text = apply([DEMO, QUIZ][base].to_string(), &edits);
            let mut lib = Library::default();
            lib.add_text("mutated.toml", &text);
            let lines = text.lines().count().max(1);
            for e in &lib.errors {
                prop_assert_eq!(e.file.as_str(), "mutated.toml");
                prop_assert!(e.line >= 1 && e.line <= lines + 1, "{} (of {} lines)", e, lines);
                prop_assert!(e.column >= 1, "{}", e);
                let shown = e.to_string();
                let place = format!("mutated.toml:{}:{}: ", e.line, e.column);
                prop_assert!(shown.starts_with(&place), "{}", shown);
                prop_assert!(!e.message.trim().is_empty());
            }
        }
    }
}
