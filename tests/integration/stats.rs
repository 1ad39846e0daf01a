//! `mcp-tutor stats` agrees with the review log it is computed from.

use std::collections::BTreeMap;

use predicates::prelude::*;

use crate::support::*;

fn stats_json(home: &std::path::Path, now: &str, extra: &[&str]) -> serde_json::Value {
    let out = tutor(home, now)
        .args(["stats", "--json"])
        .args(extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).unwrap()
}

/// Day 1: learn the deck (one card graduates with `easy`, one lapses into learning, one is
/// undone). Day 10: the graduated card is due, is answered with a red flag (a lapse), and
/// comes back in the same session.
fn history(home: &std::path::Path) {
    session(
        home,
        DAY1,
        &["--deck", "qz"],
        &format!(
            "{GOOD_FIRST}\n\n\ntime out and retry\n\n3\nio.modelcontextprotocol/subscriptionid\n\n\
             undo\nio.modelcontextprotocol/subscriptionid\n1\nIt just closes the connection, I think.\n\n\nquit\n"
        ),
    );
    session(
        home,
        "2026-12-09T10:00:00Z",
        &["--card", "qz/first-message"],
        &format!(
            "It is a handshake: notifications/subscriptions/acknowledged first.\n\n\n\
             time out and retry\n\n\n{GOOD_FIRST}\n\n3\n"
        ),
    );
}

#[test]
fn stats_match_the_log() {
    let home = tempfile::tempdir().unwrap();
    history(home.path());
    let log = export(home.path());
    let live: Vec<&serde_json::Value> = log.iter().filter(|r| r["undone"] == false).collect();
    let s = stats_json(
        home.path(),
        "2026-12-09T10:30:00Z",
        &["--exam", "2026-12-20"],
    );

    assert_eq!(s["reviews"]["total"], live.len());
    assert_eq!(s["reviews"]["undone"], log.len() - live.len());
    let mut by_rating: BTreeMap<String, usize> = BTreeMap::new();
    for r in &live {
        *by_rating
            .entry(r["rating"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    assert_eq!(
        s["reviews"]["by_rating"],
        serde_json::to_value(&by_rating).unwrap()
    );

    // Red flags: every flagged review is counted, under its label, with its correction.
    let flagged = live
        .iter()
        .filter(|r| {
            r["red_flags"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f == "calling it a handshake")
        })
        .count();
    assert!(flagged >= 1);
    let top = &s["recurring_red_flags"][0];
    assert_eq!(top["label"], "calling it a handshake");
    assert_eq!(top["count"], flagged);
    assert_eq!(
        top["correction"],
        "It is scoped to one stream; there is no initialize handshake."
    );

    // Verdicts and answer times come from the same rows.
    let verdicts = live.iter().filter(|r| !r["verdict"].is_null()).count();
    assert_eq!(s["verdicts"]["answers"], verdicts);
    let fails = live.iter().filter(|r| r["verdict"] == "fail").count();
    assert_eq!(s["verdicts"]["fail"], fails);
    assert_eq!(s["answer_times"]["answers"], verdicts);
    assert_eq!(s["answer_times"]["median_s"], 5.0);

    // True retention: exactly one review of a graduated card happened (day 10's first
    // answer to qz/first-message, graduated on day 1 with `easy`), and it was a lapse.
    assert_eq!(s["true_retention"]["reviews"], 1);
    assert_eq!(s["true_retention"]["recalled"], 0);
    assert_eq!(s["true_retention"]["rate"], 0.0);

    // The weakest key point is the exact name missed (near miss) on qz/name-key.
    let points = s["weakest_points"].as_array().unwrap();
    assert!(points.iter().any(|p| p["card"] == "qz/name-key"
        && p["point"] == "io.modelcontextprotocol/subscriptionId, exactly"));

    // The forecast covers 14 days; readiness covers every card.
    assert_eq!(s["forecast"].as_array().unwrap().len(), 14);
    assert_eq!(s["exam"]["date"], "2026-12-20");
    assert_eq!(s["exam"]["cards"], s["cards_known"]);
    // At risk means studied and fading: never-studied cards are counted apart, not ranked.
    let studied: std::collections::BTreeSet<&str> =
        live.iter().map(|r| r["card"].as_str().unwrap()).collect();
    for c in s["exam"]["at_risk"].as_array().unwrap() {
        assert!(
            studied.contains(c.as_str().unwrap()),
            "{c} was never studied"
        );
    }
    assert_eq!(
        s["exam"]["never_studied"].as_u64().unwrap() as usize,
        s["cards_known"].as_u64().unwrap() as usize - studied.len()
    );
}

#[test]
fn stats_report_reads_without_colour_or_box_drawing_in_plain_mode() {
    let home = tempfile::tempdir().unwrap();
    history(home.path());
    let out = tutor(home.path(), "2026-12-09T10:30:00Z")
        .args(["--plain", "stats", "--exam", "2026-12-20"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("Due today:"));
    assert!(out.contains("Forecast, next 14 days:"));
    assert!(
        out.contains("True retention: 0% (0 of 1 review of graduated cards recalled)"),
        "{out}"
    );
    assert!(out.contains("Your recurring misconceptions:"));
    assert!(out.contains("calling it a handshake"));
    assert!(out.contains("Readiness for 2026-12-20:"));
    assert!(!out.contains('█') && !out.contains('\u{1b}'));
    // A screen reader reads `·` as "middle dot".
    assert!(!out.contains('·'), "{out}");
    assert!(
        !out.contains(" 1 reviews") && !out.contains(" 1 lapses"),
        "{out}"
    );
}

#[test]
fn stats_on_an_empty_store() {
    let home = tempfile::tempdir().unwrap();
    let s = stats_json(home.path(), DAY1, &[]);
    assert_eq!(s["reviews"]["total"], 0);
    assert_eq!(s["due_today"], 0);
    assert!(s["true_retention"]["rate"].is_null());
    assert!(s["exam"].is_null());
    let text = tutor(home.path(), DAY1)
        .arg("stats")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(text).unwrap();
    // One remark, not two parentheses in a row.
    assert!(
        text.contains("True retention: n/a, no graduated card reviewed yet\n"),
        "{text}"
    );
    assert!(!text.contains(") ("), "{text}");
}

/// Choices are shown shuffled, so a deck-order letter names an option the learner never saw
/// under it: stats names a wrong pick by its text, with the option's own correction.
#[test]
fn stats_name_a_wrong_pick_by_its_text_not_by_a_letter() {
    let good = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decks/good");
    let home = tempfile::tempdir().unwrap();
    let run = |script: &str| {
        let out = tutor(home.path(), DAY1)
            .env("MCP_TUTOR_SHUFFLE_SEED", "5")
            .arg("--decks")
            .arg(&good)
            .args(["quiz", "--card", "demo/two-right"])
            .write_stdin(script.to_string())
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).unwrap()
    };
    let shown = run("skip\n");
    let letter = shown
        .lines()
        .find_map(|l| l.strip_prefix("  ")?.strip_suffix(". subscriptionFilters"))
        .unwrap_or_else(|| panic!("the wrong option is shown: {shown}"))
        .to_owned();
    run(&format!("{letter}\n\n"));
    let out = tutor(home.path(), DAY1)
        .arg("--decks")
        .arg(&good)
        .arg("stats")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("1× picked “subscriptionFilters”"), "{out}");
    assert!(!out.contains("picked ("), "{out}");
    assert!(out.contains("picks “toolsListChanged”"), "{out}");
}

/// The report filled to 60, 80 and 120 columns: no line over the width unless one word is,
/// and a wrapped line continues deeper than it started (a hanging indent).
#[test]
fn stats_report_fits_the_width_with_hanging_indents() {
    let home = tempfile::tempdir().unwrap();
    history(home.path());
    for w in [60usize, 80, 120] {
        let out = tutor(home.path(), "2026-12-09T10:30:00Z")
            .args(["--width", &w.to_string(), "stats", "--exam", "2026-12-20"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let out = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        for l in &lines {
            assert!(
                l.chars().count() <= w || l.split(' ').any(|word| word.chars().count() > w / 2),
                "over {w}: {l}\n{out}"
            );
        }
        let indent = |l: &str| l.len() - l.trim_start().len();
        let wrapped = lines
            .windows(2)
            .filter(|p| indent(p[1]) == indent(p[0]) + 2)
            .count();
        if w == 60 {
            assert!(wrapped > 0, "at 60 columns something wraps:\n{out}");
        }
        assert!(out.contains("Your recurring misconceptions"));
    }
}

#[test]
fn a_card_failed_minutes_ago_is_weak_and_due_today() {
    let home = tempfile::tempdir().unwrap();
    // Graduated with `easy` on day 1, failed on day 9 at 09:00: relearning, back at 09:10.
    session(
        home.path(),
        DAY1,
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n4\n",
    );
    session(
        home.path(),
        "2026-12-07T09:00:00Z",
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionid\n1\n",
    );
    let now = "2026-12-07T09:03:00Z";
    let s = stats_json(home.path(), now, &[]);
    let weak = &s["weakest_cards"][0];
    assert_eq!(weak["card"], "qz/name-key");
    assert_eq!(weak["phase"], "relearning");
    assert!(weak["recall_now"].is_null(), "{weak}");
    // Due again at 09:10 today: counted in "due today" and in the forecast's first row.
    assert_eq!(s["due_today"], 1);
    assert_eq!(s["forecast"][0]["due"], 1);
    assert_eq!(s["forecast"].as_array().unwrap().len(), 14);
    let out = tutor(home.path(), now)
        .args(["--plain", "stats"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(!out.contains("100% recall now"), "{out}");
    assert!(out.contains("relearning       qz/name-key"), "{out}");
    assert!(out.contains("Due today: 1, "), "{out}");
}

#[test]
fn an_exam_date_in_the_past_is_refused() {
    let home = tempfile::tempdir().unwrap();
    for cmd in [&["stats"][..], &["quiz"][..]] {
        tutor(home.path(), DAY1)
            .args(cmd)
            .args(["--exam", "2020-01-01"])
            .write_stdin("quit\n")
            .assert()
            .failure()
            .stderr(predicates::str::contains(
                "--exam 2020-01-01 is in the past (today is 2026-11-29)",
            ));
    }
}

/// A way to run `mcp-tutor` as a user for whom permissions bind. As root they do not, so the
/// command runs as `nobody` through setpriv (from a copy of the binary inside `home` when
/// nobody cannot reach the build folder). None when no such user can reach `home`.
fn reader(home: &std::path::Path) -> Option<Vec<std::ffi::OsString>> {
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    if !root {
        return Some(vec![bin().into()]);
    }
    let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"];
    let runs = |args: &[&std::ffi::OsStr]| {
        std::process::Command::new("setpriv")
            .args(nobody)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let mut exe = std::path::PathBuf::from(bin());
    if !runs(&[exe.as_os_str(), "--version".as_ref()]) {
        let copy = home.join("mcp-tutor-copy");
        std::fs::copy(&exe, &copy).ok()?;
        exe = copy;
    }
    let db = home.join("progress.sqlite3");
    if !runs(&["test".as_ref(), "-r".as_ref(), db.as_os_str()]) {
        return None;
    }
    let mut cmd: Vec<std::ffi::OsString> = vec!["setpriv".into()];
    cmd.extend(nobody.iter().map(|a| a.into()));
    cmd.push(exe.into());
    Some(cmd)
}

fn as_reader(cmd: &[std::ffi::OsString], home: &std::path::Path, now: &str) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::new(&cmd[0]);
    c.args(&cmd[1..]);
    env(c.env_clear(), home, now);
    c.timeout(crate::support::HANG);
    c
}

#[test]
fn read_only_commands_work_on_a_read_only_store() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    session(
        home.path(),
        DAY1,
        &["--tag", "meta"],
        "io.modelcontextprotocol/subscriptionId\n\n",
    );
    let set = |p: &std::path::Path, mode| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    let db = home.path().join("progress.sqlite3");
    let Some(cmd) = reader(home.path()) else {
        eprintln!(
            "skipped: no unprivileged user can reach {}",
            home.path().display()
        );
        return;
    };
    set(&db, 0o444);
    set(home.path(), 0o555);
    // The folder really is read-only for the reader.
    let probe = as_reader(&cmd, home.path(), DAY1)
        .args(["progress", "reset", "--all", "--yes"])
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let probe = String::from_utf8(probe).unwrap();
    assert!(probe.contains(&db.display().to_string()), "{probe}");
    assert!(
        probe.contains("read-only") || probe.contains("cannot open"),
        "{probe}"
    );
    let out = as_reader(&cmd, home.path(), DAY1)
        .args(["stats", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let s: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(s["reviews"]["total"], 1);
    as_reader(&cmd, home.path(), DAY1)
        .args(["progress", "export"])
        .assert()
        .success()
        .stdout(predicates::str::contains("qz/name-key"));
    set(home.path(), 0o755);
}

#[test]
fn a_data_dir_that_is_a_file_is_named_plainly() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("notes.txt");
    std::fs::write(&file, "x").unwrap();
    for cmd in [&["stats"][..], &["quiz"][..], &["progress", "export"][..]] {
        tutor(home.path(), DAY1)
            .arg("--data-dir")
            .arg(&file)
            .args(cmd)
            .write_stdin("quit\n")
            .assert()
            .failure()
            .stderr(predicates::str::contains(format!(
                "the data directory {} is a file, not a folder",
                file.display()
            )))
            .stderr(predicates::str::contains("os error").not());
    }
}
