//! Deck loading must stay linear in the number of cards, in one large file and across many small
//! ones (issue 21 §1: locating each card's `id` line by searching the text from the top made one
//! 10,000-card file take 12 s). Aim: 10,000 cards in under 0.3 s on a release build. Compare the
//! sizes: from 1,000 to 10,000 cards the time should grow ~10×, not ~100×.

use std::fmt::Write as _;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_tutor::deck::Library;

const SIZES: [usize; 5] = [1_000, 2_000, 4_000, 8_000, 10_000];
/// Cards per file in the many-small-files case.
const SMALL: usize = 50;

/// A deck of `n` recall cards numbered from `first`, each with a named required point, a named
/// red flag and the golden answer.
fn deck(id: &str, first: usize, n: usize) -> String {
    let mut t = format!("[deck]\nid = \"{id}\"\ntitle = \"Scaling\"\n");
    for i in first..first + n {
        let _ = write!(
            t,
            "\n[[cards]]\nid = \"card-{i}\"\nkind = \"recall\"\n\
             question = \"What must a server send first on listen stream {i}?\"\n\
             facts = [1]\n\n[cards.answer]\nseconds = 40\n\
             text = \"notifications/subscriptions/acknowledged, first.\"\n\n\
             [[cards.points]]\nid = \"ack\"\nlabel = \"names the ack {i}\"\nrequired = true\n\
             [[cards.points.match]]\nexact = [\"notifications/subscriptions/acknowledged\"]\n\n\
             [[cards.red_flags]]\nid = \"handshake\"\nlabel = \"handshake {i}\"\n\
             correction = \"There is no handshake.\"\nspec = \"SUB §Acknowledgment\"\n\
             examples = [\"a handshake\"]\n\
             [[cards.red_flags.match]]\nall = [\"handshake\"]\n"
        );
    }
    t
}

fn load(lib: &mut Library, files: &[(String, String)]) {
    for (name, text) in files {
        lib.add_text(name, text);
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("deck_load");
    group.sample_size(10);
    for n in SIZES {
        group.throughput(Throughput::Elements(n as u64));
        let one = vec![("big.toml".to_string(), deck("big", 0, n))];
        let many: Vec<(String, String)> = (0..n / SMALL)
            .map(|k| {
                (
                    format!("d{k}.toml"),
                    deck(&format!("d{k}"), k * SMALL, SMALL),
                )
            })
            .collect();
        for (shape, files) in [("one_file", &one), ("files_of_50", &many)] {
            group.bench_with_input(BenchmarkId::new(shape, n), files, |b, files| {
                b.iter(|| {
                    let mut lib = Library::default();
                    load(&mut lib, files);
                    assert_eq!(lib.cards().count(), n);
                    assert!(lib.errors.is_empty(), "{:?}", lib.errors.first());
                    lib
                })
            });
        }
    }
    // The share of the 10,000-card time that is toml parsing alone (the rest is ours).
    let text = deck("big", 0, 10_000);
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("toml_parse_only/10000", |b| {
        b.iter(|| toml::from_str::<mcp_tutor::deck::model::DeckFile>(&text).map(|f| f.cards.len()))
    });
    let mut lib = Library::default();
    lib.add_text("big.toml", &text);
    let facts = mcp_tutor::deck::facts::numbers();
    group.bench_function("validate_only/10000", |b| {
        b.iter(|| mcp_tutor::deck::validate::validate_deck(&lib.decks[0], &text, facts).len())
    });
    group.throughput(Throughput::Elements(0));
    group.bench_function("embedded", |b| b.iter(Library::embedded));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
