//! Time from start to the first question with a 1,000-review history (aim: under 30 ms on a
//! release build). Two views: in-process (load decks, open the store, build the queue, render
//! the question) and the real binary, spawned with `quit` on stdin.
//!
//! `STARTUP_BENCH_DIR=/some/dir` keeps the generated store there, e.g. to measure peak memory:
//! `/usr/bin/time -v target/release/mcp-tutor --data-dir /some/dir quiz <<< quit`.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use chrono::{Duration, Utc};
use clap::Parser;
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_tutor::commands::{Cli, Command as Sub};
use mcp_tutor::deck::Library;
use mcp_tutor::grader::Rating;
use mcp_tutor::store::{NewReview, ReviewMode, Store};

const REVIEWS: usize = 1_000;

/// A store holding 1,000 reviews of the embedded cards over the last 90 days.
fn history() -> (Option<tempfile::TempDir>, PathBuf) {
    let (keep, dir) = match std::env::var_os("STARTUP_BENCH_DIR") {
        Some(d) => (None, PathBuf::from(d)),
        None => {
            let t = tempfile::tempdir().expect("temp dir");
            let p = t.path().to_path_buf();
            (Some(t), p)
        }
    };
    let store = Store::open(&dir).expect("store");
    if store.reviews().expect("log").len() >= REVIEWS {
        return (keep, dir);
    }
    let lib = Library::embedded();
    let keys: Vec<String> = lib
        .cards()
        .map(|(d, c)| format!("{}/{}", d.meta.id, c.id))
        .collect();
    assert!(!keys.is_empty(), "no embedded cards");
    let start = Utc::now() - Duration::days(90);
    let ratings = [
        Rating::Good,
        Rating::Hard,
        Rating::Good,
        Rating::Easy,
        Rating::Again,
    ];
    for i in 0..REVIEWS {
        let key = &keys[i % keys.len()];
        let at = start + Duration::minutes((i * 90 * 24 * 60 / REVIEWS) as i64);
        let mut r = NewReview::new(key, ratings[i % ratings.len()], ReviewMode::Review, at);
        r.points_missed = vec!["a key point".into()];
        r.answer_ms = Some(12_000);
        r.targets = Some((20, 40));
        r.card_hash = Some("0000000000000000".into());
        store.record(&r).expect("record");
    }
    (keep, dir)
}

fn startup(c: &mut Criterion) {
    let (_keep, dir) = history();
    let dir_s = dir.to_string_lossy().to_string();
    let mut group = c.benchmark_group("startup_to_first_question");
    group.bench_function("in_process", |b| {
        b.iter(|| {
            let cli = Cli::try_parse_from(["mcp-tutor", "--data-dir", &dir_s, "quiz", "cram"])
                .expect("args");
            let Sub::Quiz(args) = cli.command else {
                unreachable!()
            };
            mcp_tutor::commands::quiz::first_question(args, &cli.global, Box::new(std::io::sink()))
                .expect("first question");
        })
    });
    group.bench_function("binary", |b| {
        b.iter(|| {
            let mut child = Command::new(mcp_tutor_benches::tutor_bin())
                .args(["--data-dir", &dir_s, "quiz", "cram"])
                .env("NO_COLOR", "1")
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(b"quit\n")
                .expect("write");
            assert!(child.wait().expect("wait").success());
        })
    });
    group.finish();
}

criterion_group!(benches, startup);
criterion_main!(benches);
