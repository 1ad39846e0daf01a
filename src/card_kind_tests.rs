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
