//! A renamed or merged card keeps its history (`replaces`), and history no deck knows is
//! reported by `stats` rather than silently left out.

use chrono::{DateTime, Utc};
use mcp_tutor::grader::Rating;
use mcp_tutor::store::{NewReview, ReviewMode, Store};

use crate::support::*;

const DECK: &str = r#"[deck]
id = "rn"
title = "Renamed"

[[cards]]
id = "new-name"
kind = "name-it"
question = "Which notification comes first on a listen stream?"
replaces = ["rn/old-name"]

[cards.answer]
seconds = 20
text = "notifications/subscriptions/acknowledged"

[[cards.points]]
id = "ack"
label = "names the acknowledgement"
required = true
[[cards.points.match]]
exact = ["notifications/subscriptions/acknowledged"]
"#;

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// `mcp-tutor` on the store in `home` with the built-in decks and the `rn` deck.
fn tutor_rn(home: &std::path::Path, decks: &std::path::Path) -> assert_cmd::Command {
    let mut c = clean(home);
    env(&mut c, home, "2026-11-30T10:00:00Z");
    c.arg("--decks").arg(decks);
    c
}

#[test]
fn a_replaced_card_s_history_counts_for_its_replacement_and_unknown_history_is_reported() {
    let home = tempfile::tempdir().unwrap();
    let decks = tempfile::tempdir().unwrap();
    std::fs::write(decks.path().join("rn.toml"), DECK).unwrap();
    {
        let store = Store::open(home.path()).unwrap();
        for (card, when) in [
            ("rn/old-name", "2026-11-28T10:00:00Z"),
            ("rn/old-name", "2026-11-29T10:00:00Z"),
            ("gone/card", "2026-11-29T11:00:00Z"),
        ] {
            store
                .record(&NewReview::new(
                    card,
                    Rating::Good,
                    ReviewMode::Review,
                    at(when),
                ))
                .unwrap();
        }
    }

    // stats reads the log as carried over, and names what no deck has.
    let out = tutor_rn(home.path(), decks.path())
        .args(["stats", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let unknown = s["unknown_history"].as_array().unwrap();
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!(unknown[0]["card"], "gone/card");
    assert_eq!(unknown[0]["reviews"], 1);
    let weakest: Vec<&str> = s["weakest_cards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["card"].as_str().unwrap())
        .collect();
    assert!(weakest.contains(&"rn/new-name"), "{weakest:?}");
    assert!(!weakest.contains(&"rn/old-name"), "{weakest:?}");
    let text = tutor_rn(home.path(), decks.path())
        .arg("stats")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("gone/card (1 reviews)"), "{text}");
    assert!(!text.contains("rn/old-name"), "{text}");

    // A quiz (a writable store) files the reviews under the new card for good.
    tutor_rn(home.path(), decks.path())
        .args(["quiz", "--card", "rn/new-name"])
        .write_stdin("quit\n")
        .assert()
        .success();
    let cards: Vec<String> = export(home.path())
        .iter()
        .map(|r| r["card"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(cards, ["rn/new-name", "rn/new-name", "gone/card"]);
}
