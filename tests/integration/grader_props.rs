//! The grader on hostile input, as a bounded property test: whatever the answer, it never
//! panics, every span it reports is a real slice of the answer, the verdict follows from the
//! points and flags, and the same answer always gets the same grade.

use mcp_tutor::deck::Library;
use mcp_tutor::grader::{self, Verdict};
use proptest::prelude::*;

fn answers() -> impl Strategy<Value = String> {
    prop_oneof![
        // Anything at all, Unicode included.
        any::<String>(),
        // Domain words in random order, with negations and punctuation: the grader's hard cases.
        proptest::collection::vec(
            prop_oneof![
                Just("not"),
                Just("no"),
                Just("but"),
                Just("handshake"),
                Just("replay"),
                Just("Last-Event-ID"),
                Just("notifications/subscriptions/acknowledged"),
                Just("server"),
                Just("assigns"),
                Just("id"),
                Just(","),
                Just(";"),
                Just("."),
                Just("?"),
                Just("\n- "),
                Just("("),
                Just(")"),
                Just("line 3"),
                Just("é"),
                Just("io.modelcontextprotocol/subscriptionId"),
                Just("some people think"),
            ],
            0..60,
        )
        .prop_map(|w| w.join(" ")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn grading_any_answer_is_total_and_consistent(answer in answers(), pick in 0usize..1000) {
        let lib = Library::embedded();
        let cards: Vec<_> = lib.cards().map(|(_, c)| c).collect();
        let card = cards[pick % cards.len()];
        let g = grader::grade(card, &answer);
        for span in g.points.iter().filter_map(|p| p.span.as_ref())
            .chain(g.red_flags.iter().map(|f| &f.span))
            .chain(g.near_misses.iter().map(|n| &n.span))
        {
            prop_assert!(span.start <= span.end && span.end <= answer.len());
            prop_assert_eq!(answer.get(span.start..span.end), Some(span.text.as_str()));
        }
        if !g.red_flags.is_empty() {
            prop_assert_eq!(g.verdict, Verdict::Fail);
        }
        prop_assert!((0.0..=1.0).contains(&g.score));
        let again = grader::grade(card, &answer);
        prop_assert_eq!(again.verdict, g.verdict);
        prop_assert_eq!(again.points.iter().filter(|p| p.hit).count(), g.points.iter().filter(|p| p.hit).count());
    }
}

#[test]
fn a_megabyte_of_one_flag_word_is_graded_on_its_first_20000_bytes() {
    let lib = Library::embedded();
    let (_, card) = lib
        .card("subscriptions/listen-first-message")
        .expect("seed card");
    let flood = "handshake ".repeat(100_000);
    let g = grader::grade(card, &flood);
    assert!(g.truncated);
    assert!(g.red_flags.iter().all(|f| f.span.end <= grader::MAX_ANSWER));
}
