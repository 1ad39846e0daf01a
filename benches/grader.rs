//! Answers graded per second, on the fixture deck (the shipped decks change under us).
//!
//! Run with `cargo bench -p mcp-tutor-benches --bench grader`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_tutor::deck::Library;
use mcp_tutor::grader;

fn bench(c: &mut Criterion) {
    let lib = Library::from_dirs(
        &[mcp_tutor_benches::repo("tests/fixtures/decks/good")],
        false,
    );
    let answers: Vec<(&str, String)> = vec![
        ("demo/ack-first", "Before any change notification the server is required to emit notifications/subscriptions/acknowledged as its first message. Every later notification carries io.modelcontextprotocol/subscriptionId in _meta. Unlike the old initialize handshake, it's per stream; nothing is replayed, so silence is no longer ambiguous.".into()),
        ("demo/ack-first", "It is like the initialize handshake; notifications/subscription/acknowledge comes frist and the id is in a header.".into()),
        ("demo/cancel-http", "b".into()),
        ("demo/ack-cloze", "notifications/subscriptions/acknowledged; _meta; first".into()),
        ("demo/bug-early-change", "line 2: the list_changed comes before the ack, which must be first".into()),
    ];
    let cases: Vec<_> = answers
        .iter()
        .filter_map(|(key, a)| lib.card(key).map(|(_, card)| (card, a.as_str())))
        .collect();
    assert_eq!(cases.len(), answers.len(), "fixture cards exist");
    let mut group = c.benchmark_group("grade");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("mixed answers", |b| {
        b.iter(|| {
            for (card, answer) in &cases {
                std::hint::black_box(grader::grade(card, answer));
            }
        })
    });
    // The built-in decks on the blind-written corpus: concepts expanded, shared flags attached,
    // answers as candidates write them.
    let shipped = Library::embedded();
    let corpus = mcp_tutor::deck::eval::Corpus::embedded();
    let real: Vec<_> = corpus
        .entries
        .iter()
        .filter_map(|e| {
            shipped
                .card(&e.key())
                .map(|(_, c)| (c, e.answer.text.as_str()))
        })
        .collect();
    group.throughput(Throughput::Elements(real.len() as u64));
    group.bench_function("blind corpus", |b| {
        b.iter(|| {
            for (card, answer) in &real {
                std::hint::black_box(grader::grade(card, answer));
            }
        })
    });
    // Pasted garbage: one flag word repeated to the answer cap must stay fast.
    if let Some((_, seed)) = shipped.card("subscriptions/listen-first-message") {
        let flood = "handshake ".repeat(100_000);
        group.throughput(Throughput::Elements(1));
        group.bench_function("1 MB of one flag word", |b| {
            b.iter(|| std::hint::black_box(grader::grade(seed, &flood)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
