//! How fast the grader reads the graded corpus, caches warm: answers per second of CPU.
//!
//! Run with `cargo run --release --example grade_speed` (the benchmark with statistics is
//! `cargo bench --bench grader`).

use mcp_tutor::deck::Library;
use mcp_tutor::deck::eval::Corpus;
use mcp_tutor::grader;

fn main() {
    let lib = Library::embedded();
    let corpus = Corpus::embedded();
    let cases: Vec<_> = corpus
        .entries
        .iter()
        .filter_map(|e| lib.card(&e.key()).map(|(_, c)| (c, e.answer.text.as_str())))
        .collect();
    let warm = std::time::Instant::now();
    for (card, answer) in &cases {
        std::hint::black_box(grader::grade(card, answer));
    }
    let first = warm.elapsed();
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let t = std::time::Instant::now();
    for _ in 0..rounds {
        for (card, answer) in &cases {
            std::hint::black_box(grader::grade(card, answer));
        }
    }
    let per = t.elapsed().as_secs_f64() / (rounds.max(1) * cases.len()) as f64;
    println!(
        "{} answers; first pass (caches cold) {:.0} ms; then {:.0} answers/s ({:.0} µs each)",
        cases.len(),
        first.as_secs_f64() * 1e3,
        1.0 / per,
        per * 1e6
    );
}
