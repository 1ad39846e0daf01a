//! A 100 kB paste into a free-recall prompt, from the paste to the verdict on screen: the real
//! binary in a pseudo-terminal, as a person with a terminal would paste (aim: well under a
//! second on a release build; it used to grow with the square of the paste, 24 s for 30 kB).
//!
//! - `typed`: the paste arrives as keys, one long line (a terminal without bracketed paste,
//!   `tmux send-keys`).
//! - `bracketed`: between the terminal's paste markers, as modern terminals send it.
//! - `grade_only`: the grading alone, in process, to tell the two costs apart.

use std::io::{Read, Write};
use std::process::Command;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use rexpect::process::PtyProcess;

const PASTE: usize = 100_000;
const CARD: &str = "subscriptions/listen-first-message";

/// Prose of interview words, `n` bytes, no line breaks.
fn prose(n: usize) -> String {
    let words = [
        "the",
        "server",
        "must",
        "send",
        "notifications/subscriptions/acknowledged",
        "first",
        "before",
        "any",
        "change",
        "notification",
        "on",
        "the",
        "listen",
        "stream",
        "and",
        "every",
        "later",
        "one",
        "carries",
        "subscriptionId",
        "in",
        "_meta",
    ];
    let mut s = String::with_capacity(n + 64);
    let mut i = 0usize;
    while s.len() < n {
        s.push_str(words[i % words.len()]);
        s.push(' ');
        i = i.wrapping_mul(31).wrapping_add(7);
    }
    s.truncate(n);
    s
}

/// Seen on the screen.
enum Seen {
    Prompt,
    Verdict,
}

/// Reads everything the quiz draws (so it never blocks on a full terminal), and says when the
/// answer prompt and then the verdict appear.
fn watch(mut screen: std::fs::File, tx: mpsc::Sender<Seen>) {
    let mut tail: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut prompted = false;
    while let Ok(n) = screen.read(&mut buf) {
        if n == 0 {
            return;
        }
        tail.extend_from_slice(&buf[..n]);
        let has = |needle: &[u8]| tail.windows(needle.len()).any(|w| w == needle);
        if !prompted && has(b"] > ") {
            prompted = true;
            let _ = tx.send(Seen::Prompt);
        }
        if prompted && has(b"verdict:") {
            let _ = tx.send(Seen::Verdict);
        }
        let keep = tail.len().saturating_sub(16);
        tail.drain(..keep);
    }
}

/// One paste, from its first byte written to the verdict drawn.
fn paste_once(payload: &[u8], home: &std::path::Path) -> Duration {
    let mut cmd = Command::new(mcp_tutor_benches::tutor_bin());
    cmd.args(["quiz", "cram", "--card", CARD])
        .env("MCP_TUTOR_HOME", home)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut proc = PtyProcess::new(cmd).expect("the quiz in a pty");
    proc.set_kill_timeout(Some(2_000));
    let mut keys = proc.get_file_handle().expect("pty");
    let screen = proc.get_file_handle().expect("pty");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::Builder::new()
        .name("screen".into())
        .spawn(move || watch(screen, tx))
        .expect("a thread to read the screen");
    let wait = Duration::from_secs(120);
    assert!(
        matches!(rx.recv_timeout(wait), Ok(Seen::Prompt)),
        "no answer prompt"
    );
    let start = Instant::now();
    keys.write_all(payload).expect("paste");
    keys.flush().expect("flush");
    assert!(
        matches!(rx.recv_timeout(wait), Ok(Seen::Verdict)),
        "no verdict within {wait:?}"
    );
    let took = start.elapsed();
    drop(proc);
    let _ = reader.join();
    took
}

fn paste(c: &mut Criterion) {
    let home = tempfile::tempdir().expect("temp dir");
    let text = prose(PASTE);
    let typed = format!("{text}\r\r").into_bytes();
    let bracketed = format!("\x1b[200~{text}\x1b[201~\r\r").into_bytes();
    let mut group = c.benchmark_group("paste_100kB_to_verdict");
    group.sample_size(10);
    // One spawn per iteration: the same few iterations in every sample.
    group.sampling_mode(criterion::SamplingMode::Flat);
    group.measurement_time(Duration::from_secs(20));
    for (name, payload) in [("typed", &typed), ("bracketed", &bracketed)] {
        group.bench_function(name, |b| {
            b.iter_custom(|iters| (0..iters).map(|_| paste_once(payload, home.path())).sum());
        });
    }
    let lib = mcp_tutor::deck::Library::embedded();
    let (_, card) = lib.card(CARD).expect("the card");
    group.bench_function("grade_only", |b| {
        b.iter(|| mcp_tutor::grader::grade(card, &text));
    });
    group.finish();
}

criterion_group!(benches, paste);
criterion_main!(benches);
