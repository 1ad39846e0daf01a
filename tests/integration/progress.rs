//! `mcp-tutor progress export|reset`.

use predicates::prelude::*;

use crate::support::*;

fn learn(home: &std::path::Path) {
    session(
        home,
        DAY1,
        &["--deck", "qz"],
        &format!(
            "{GOOD_FIRST}\n\n\ntime out and retry\n\n\nio.modelcontextprotocol/subscriptionId\n\n\
             It sends the result of the listen request.\n\n\n"
        ),
    );
}

#[test]
fn export_jsonl_and_csv_hold_the_same_reviews() {
    let home = tempfile::tempdir().unwrap();
    learn(home.path());
    let jsonl = export(home.path());
    assert_eq!(jsonl.len(), 4);
    let csv = tutor(home.path(), DAY1)
        .args(["progress", "export", "--format", "csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let csv = String::from_utf8(csv).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("id,card,at,rating,suggested,verdict,score,points_hit"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), jsonl.len());
    for (row, j) in rows.iter().zip(&jsonl) {
        assert!(row.starts_with(&format!("{},{},", j["id"], j["card"].as_str().unwrap())));
        assert!(row.contains(&format!(",{},", j["rating"].as_str().unwrap())));
    }
    // A field with a comma is quoted.
    assert!(csv.contains(
        "\"names notifications/subscriptions/acknowledged; it comes first, before any change notification\""
    ));
    assert_eq!(jsonl[0]["at"], "2026-11-29T10:00:00Z");
}

/// Scores to two decimals, as `grade --json` writes them (the store's 32-bit float printed
/// 0.2857142984867096), in both formats.
#[test]
fn export_rounds_scores_like_grade() {
    let home = tempfile::tempdir().unwrap();
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decks/good");
    tutor(home.path(), DAY1)
        .arg("--decks")
        .arg(&good)
        .args(["quiz", "--card", "demo/ack-first"])
        .write_stdin("notifications/subscriptions/acknowledged\n\n\nquit\n")
        .assert()
        .success();
    let jsonl = export(home.path());
    assert_eq!(jsonl[0]["score"], serde_json::json!(0.29), "{}", jsonl[0]);
    let csv = tutor(home.path(), DAY1)
        .args(["progress", "export", "--format", "csv"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert!(String::from_utf8(csv).unwrap().contains(",0.29,"));
}

#[test]
fn reset_asks_first_and_then_forgets() {
    let home = tempfile::tempdir().unwrap();
    learn(home.path());
    // Declined: nothing changes, non-zero exit.
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "qz/name-key"])
        .write_stdin("n\n")
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "Reset qz/name-key: forget 1 card and delete 1 review?",
        ));
    assert_eq!(export(home.path()).len(), 4);
    // Accepted on the prompt.
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "qz/name-key"])
        .write_stdin("y\n")
        .assert()
        .success()
        .stdout(predicates::str::contains("reset 1 card: 1 review deleted."));
    assert_eq!(export(home.path()).len(), 3);
    // A whole deck, for scripts.
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "qz", "--yes"])
        .assert()
        .success();
    assert!(export(home.path()).is_empty());
    // Nothing left to reset: `--all` says so plainly and succeeds (everything is forgotten)...
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "--all", "--yes"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "nothing to reset: no reviews are recorded yet in",
        ))
        .stdout(predicates::str::contains("every card").not());
    // ...while a named card that was never reviewed is a likely typo.
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "qz/name-key", "--yes"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no progress recorded for `qz/name-key`",
        ));
    // The reset cards are new again.
    let out = session(home.path(), DAY1, &["--deck", "qz"], "quit\n");
    assert!(out.contains("3 questions"), "{out}");
}

#[test]
fn reset_all_needs_yes_or_an_answer() {
    let home = tempfile::tempdir().unwrap();
    learn(home.path());
    // End of input counts as "no".
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "--all"])
        .write_stdin("")
        .assert()
        .code(1);
    assert_eq!(export(home.path()).len(), 4);
    tutor(home.path(), DAY1)
        .args(["progress", "reset", "--all", "--yes"])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "reset 4 cards: 4 reviews deleted.",
        ));
}
