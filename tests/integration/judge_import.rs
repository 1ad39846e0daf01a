//! `decks corpus import`: disputed answers become graded-corpus entries, labelled from the
//! judge's kept judgement when its verdict is the learner's, with where each came from.

use crate::judge_stub::{Reply, Stub};
use crate::support::*;

const PARAPHRASE: &str =
    "The server has to send notifications/subscriptions/acknowledged, and nothing may precede it.";
const OTHER: &str = "The client sends a handshake first.";

#[test]
fn disputed_answers_become_entries_labelled_by_the_kept_judgement() {
    let home = tempfile::tempdir().unwrap();
    // The judge is asked about the paraphrase once; its judgement is kept in the store.
    let stub = Stub::start(vec![Reply::fixture("paraphrase-pass.json")]);
    tutor(home.path(), DAY1)
        .args([
            "grade",
            "qz/first-message",
            PARAPHRASE,
            "--judge",
            &stub.url,
        ])
        .args(["--judge-model", "llama3.1:8b"])
        .assert()
        .success();
    // Two disputes: the paraphrase (the learner says pass, as the judge did) and an answer
    // no judge saw.
    let disputes = home.path().join("disputes");
    std::fs::create_dir_all(&disputes).unwrap();
    std::fs::write(
        disputes.join("qz.toml"),
        format!(
            "[[answers]]\ncard = \"first-message\"\ntext = \"{PARAPHRASE}\"\nverdict = \"pass\"\ngraded = \"partial\"\n\n\
             [[answers]]\ncard = \"first-message\"\ntext = \"{OTHER}\"\nverdict = \"partial\"\ngraded = \"fail\"\n"
        ),
    )
    .unwrap();
    let out = home.path().join("imported");
    tutor(home.path(), DAY1)
        .args(["decks", "corpus", "import", "--from"])
        .arg(&disputes)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .stdout(format!(
            "imported 2 answers into {} (1 labelled from a kept judgement; the rest need their points and flags)\n",
            out.display()
        ));
    let written = std::fs::read_to_string(out.join("qz.toml")).unwrap();
    let from = disputes.join("qz.toml").display().to_string();
    let prompt = written
        .split("(judge-")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .expect(&written);
    assert_eq!(
        written,
        format!(
            "# Graded answers to deck `qz`, imported by `mcp-tutor decks corpus import` from {}.\n\
             # Check each entry, then move it to decks/answers/qz.toml (or held-out/ if nobody tunes on it).\n\
             \n# from {from}:1 (disputed: graded partial, the learner says pass)\n\
             # points and flags: the judge llama3.1:8b (judge-{prompt}, 2026-11-29) after the guards; its verdict is the learner's\n\
             [[answers]]\ncard = \"first-message\"\ntext = \"{PARAPHRASE}\"\nverdict = \"pass\"\n\
             points = [\"names-notifications-subscriptions\", \"comes-first-before\"]\n\
             \n# from {from}:7 (disputed: graded fail, the learner says partial)\n\
             # no judgement kept for this answer: points and flags are left for you\n\
             [[answers]]\ncard = \"first-message\"\ntext = \"{OTHER}\"\nverdict = \"partial\"\n",
            disputes.display()
        )
    );
    // The imported file is a corpus `decks eval` reads.
    tutor(home.path(), DAY1)
        .args(["decks", "eval", "--answers"])
        .arg(&out)
        .assert()
        .success();
    // Never over an existing file.
    tutor(home.path(), DAY1)
        .args(["decks", "corpus", "import", "--from"])
        .arg(&disputes)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("exists: move it away"));
}
