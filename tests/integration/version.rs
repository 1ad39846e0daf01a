//! `mcp-tutor --version` names the MCP revision it teaches and counts the built-in cards. The
//! expected count is read here from the deck files themselves (every top-level `decks/*.toml`
//! with a `[deck]` table, its `[[cards]]`), not from the loader, so it follows the content.

use std::path::Path;

fn shipped_decks_and_cards() -> (usize, usize) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("decks");
    let (mut decks, mut cards) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let table: toml::Table = std::fs::read_to_string(&path).unwrap().parse().unwrap();
        if table.contains_key("deck") {
            decks += 1;
            cards += table["cards"].as_array().map_or(0, Vec::len);
        }
    }
    (decks, cards)
}

#[test]
fn version_names_the_revision_and_counts_the_shipped_cards() {
    let (decks, cards) = shipped_decks_and_cards();
    assert!(decks > 0 && cards > 0, "no decks found under decks/");
    let want = format!(
        "mcp-tutor {} (teaches MCP revision 2026-07-28; ships {cards} cards in {decks} decks)\n",
        env!("CARGO_PKG_VERSION")
    );
    for flag in ["--version", "-V"] {
        let out = crate::support::isolated().arg(flag).output().unwrap();
        assert!(out.status.success(), "{flag}: {out:?}");
        crate::support::assert_exact(&out.stdout, &want);
    }
}

#[test]
fn extra_decks_do_not_change_what_the_binary_ships() {
    let (decks, cards) = shipped_decks_and_cards();
    let out = crate::support::isolated()
        .args(["--decks", "tests/fixtures/decks/good", "--version"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.ends_with(&format!("ships {cards} cards in {decks} decks)\n")),
        "{text}"
    );
}
