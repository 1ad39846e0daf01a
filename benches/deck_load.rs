//! Deck loading must stay linear in the number of cards (issue 12 §7: each card's line lookup
//! once rescanned the file, so 10,000 cards took 7.6 s). Aim: 10,000 cards in under 0.3 s on a
//! release build; compare the 1,000 / 5,000 / 10,000 cases — the times should grow ~10×, not
//! ~100×.

use std::fmt::Write as _;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use mcp_tutor::deck::Library;

/// A deck of `n` recall cards, each with a required point, a red flag and the golden answer.
fn deck(n: usize) -> String {
    let mut t = String::from("[deck]\nid = \"big\"\ntitle = \"Scaling\"\n");
    for i in 0..n {
        let _ = write!(
            t,
            "\n[[cards]]\nid = \"card-{i}\"\nkind = \"recall\"\n\
             question = \"What must a server send first on listen stream {i}?\"\n\
             facts = [1]\n\n[cards.answer]\nseconds = 40\n\
             text = \"notifications/subscriptions/acknowledged, first.\"\n\n\
             [[cards.points]]\nlabel = \"names the ack {i}\"\nrequired = true\n\
             [[cards.points.match]]\nexact = [\"notifications/subscriptions/acknowledged\"]\n\n\
             [[cards.red_flags]]\nlabel = \"handshake {i}\"\n\
             correction = \"There is no handshake.\"\nspec = \"SUB §Acknowledgment\"\n\
             examples = [\"a handshake\"]\n\
             [[cards.red_flags.match]]\nall = [\"handshake\"]\n"
        );
    }
    t
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("deck_load");
    group.sample_size(10);
    for n in [1_000, 5_000, 10_000] {
        let text = deck(n);
        group.bench_with_input(BenchmarkId::from_parameter(n), &text, |b, text| {
            b.iter(|| {
                let mut lib = Library::default();
                lib.add_text("big.toml", text);
                assert_eq!(lib.decks[0].cards.len(), n);
                assert!(lib.errors.is_empty(), "{:?}", lib.errors.first());
                lib
            })
        });
    }
    // The share of the 10,000-card time that is toml parsing alone (the rest is ours).
    let text = deck(10_000);
    group.bench_function("toml_parse_only/10000", |b| {
        b.iter(|| toml::from_str::<mcp_tutor::deck::model::DeckFile>(&text).map(|f| f.cards.len()))
    });
    let mut lib = Library::default();
    lib.add_text("big.toml", &text);
    let facts = mcp_tutor::deck::facts::numbers();
    group.bench_function("validate_only/10000", |b| {
        b.iter(|| mcp_tutor::deck::validate::validate_deck(&lib.decks[0], &text, facts).len())
    });
    group.bench_function("embedded", |b| b.iter(Library::embedded));
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
