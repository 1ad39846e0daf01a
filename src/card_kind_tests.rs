//! The kinds' catalogue held to the README and the loader, and the kinds' own helpers.

use super::*;

const COMMANDS: &str = "Commands: hint, deeper, skip, undo, help, quit.";

#[test]
fn every_kind_has_its_own_behaviour_and_a_distinct_name() {
    let kinds = all();
    assert_eq!(kinds.len(), 6, "a kind was added: teach this test its name");
    let names: BTreeSet<&str> = kinds.iter().map(|k| k.name()).collect();
    let labels: BTreeSet<&str> = kinds.iter().map(|k| of(*k).label()).collect();
    assert_eq!(names.len(), kinds.len());
    assert_eq!(labels.len(), kinds.len());
    for &k in kinds {
        // The deck spelling is the one serde reads and clap lists.
        let spelled: CardKind = toml::from_str::<toml::Value>(&format!("k = \"{}\"", k.name()))
            .and_then(|v| v["k"].clone().try_into())
            .unwrap_or_else(|e| panic!("{} does not deserialize: {e}", k.name()));
        assert_eq!(spelled, k);
        let b = of(k);
        assert!(b.how_to_answer().ends_with(COMMANDS), "{}", k.name());
        for f in b.own_fields() {
            assert!(
                kind_fields(&crate::card::test_card(k))
                    .iter()
                    .any(|(name, _)| name == f),
                "{} owns `{f}`, which kind_fields does not list",
                k.name()
            );
        }
    }
    // Each kind-only field belongs to exactly one kind, so a stray one names its owner.
    for (field, _) in kind_fields(&crate::card::test_card(CardKind::Recall)) {
        let owners = kinds
            .iter()
            .filter(|k| of(**k).own_fields().contains(&field))
            .count();
        assert_eq!(owners, 1, "`{field}` must belong to exactly one kind");
    }
}

#[test]
fn the_deck_format_lists_every_kind() {
    // The README's deck format has a row naming the kinds and a section per kind, and the
    // loader's message for an unknown kind lists them: none may forget one.
    let readme = include_str!("../README.md");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `kind` |"))
        .unwrap_or_else(|| panic!("README has no `kind` row in the deck format"));
    let deck = "[deck]\nid = \"d\"\ntitle = \"D\"\n\n[[cards]]\nid = \"c\"\nkind = \"no-such-kind\"\nquestion = \"q\"\n";
    let mut lib = crate::deck::Library::default();
    lib.add_text("d.toml", deck);
    let err: String = lib.errors.iter().map(|e| e.to_string()).collect();
    for k in all() {
        let name = k.name();
        assert!(
            row.contains(&format!("`{name}`")),
            "README's kind row lacks {name}"
        );
        assert!(
            readme.contains(&format!("### {name}:")),
            "README has no `### {name}:` section"
        );
        assert!(
            err.contains(name),
            "the unknown-kind message lacks {name}: {err}"
        );
    }
}

#[test]
fn cloze_blanks_inside_json_keep_the_closing_braces() {
    assert_eq!(
        numbered_blanks(r#"{"error":{"code":{{-32602}}}}"#),
        r#"{"error":{"code":[1]____}}"#
    );
    assert_eq!(
        numbered_blanks("{{a}} then {{b}}, done"),
        "[1]____ then [2]____, done"
    );
}

/// Edit distance, for "near-identical" below.
fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Every stretch of `hint` as long as `name`, give or take a few characters: what a reader
/// could copy from the hint as the answer.
fn windows(hint: &str, len: usize) -> Vec<String> {
    let chars: Vec<char> = hint.chars().collect();
    let mut out = Vec::new();
    for w in len.saturating_sub(2)..=len + 2 {
        for start in 0..=chars.len().saturating_sub(w) {
            out.push(chars[start..(start + w).min(chars.len())].iter().collect());
        }
    }
    out
}

#[test]
fn no_hint_on_a_name_it_card_gives_the_name() {
    let lib = crate::deck::Library::embedded();
    let cards: Vec<_> = lib
        .cards()
        .filter(|(_, c)| c.kind == CardKind::NameIt)
        .collect();
    assert!(cards.len() >= 3, "the shipped decks have name-it cards");
    for (d, c) in cards {
        let hints = of(c.kind).hints(c);
        assert!(!hints.is_empty(), "{}/{} has no hint", d.meta.id, c.id);
        let names: Vec<String> = c
            .points
            .iter()
            .flat_map(|p| p.rules.iter().flat_map(|r| r.exact.iter()))
            .map(|n| n.to_lowercase())
            .collect();
        for h in &hints {
            let lower = h.to_lowercase();
            for n in &names {
                if n.chars().count() <= 4 {
                    // A short name (`no`) is near every scrap of text: it must not be a word.
                    let said = lower
                        .split(|ch: char| !(ch.is_alphanumeric() || ch == '-'))
                        .any(|w| w == n);
                    assert!(!said, "{}/{}: hint “{h}” says `{n}`", d.meta.id, c.id);
                    continue;
                }
                // Near-identical: within a quarter of the name's length in edits (a typo or
                // two, a missing separator), at least one edit for a short name.
                let near = (n.chars().count() / 4).max(1);
                let close = windows(&lower, n.chars().count())
                    .into_iter()
                    .find(|w| levenshtein(w, n) <= near);
                assert!(
                    close.is_none(),
                    "{}/{}: hint “{h}” holds “{}”, near the answer `{n}`",
                    d.meta.id,
                    c.id,
                    close.unwrap_or_default()
                );
            }
        }
    }
}

#[test]
fn the_near_identical_check_catches_the_old_hint_and_a_respelling() {
    // The checker above is not vacuous: the old hint, the point's label, fails it.
    let old = "cover this: `notifications/subscriptions/acknowledged`, exactly (1 of 1)";
    let n = "notifications/subscriptions/acknowledged";
    assert!(
        windows(old, n.len())
            .iter()
            .any(|w| levenshtein(w, n) <= n.len() / 4)
    );
    assert!(
        windows("notification/subscription/acknowledge", n.len())
            .iter()
            .any(|w| levenshtein(w, n) <= n.len() / 4)
    );
}
