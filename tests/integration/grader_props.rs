//! The grader on hostile input, as a bounded property test: whatever the answer, it never
//! panics, every span it reports (point, flag, near miss, unchecked statement) is a real slice
//! of the answer, the same answer always gets the same grade, how the answer is spaced never
//! changes it, and reporting a view as somebody else's never adds a red flag.

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
        let cards: Vec<_> = library().cards().map(|(_, c)| c).collect();
        let card = cards[pick % cards.len()];
        let g = grader::grade(card, &answer);
        for span in g.points.iter().filter_map(|p| p.span.as_ref())
            .chain(g.red_flags.iter().map(|f| &f.span))
            .chain(g.near_misses.iter().map(|n| &n.span))
        {
            prop_assert!(span.start <= span.end && span.end <= answer.len());
            prop_assert_eq!(answer.get(span.start..span.end), Some(span.text.as_str()));
        }
        for u in &g.unchecked {
            prop_assert_eq!(answer.get(u.span.start..u.span.end), Some(u.span.text.as_str()));
        }
        let again = grader::grade(card, &answer);
        prop_assert_eq!(summary(&again), summary(&g));
    }

    #[test]
    fn spacing_never_changes_a_grade(answer in answers(), pick in 0usize..1000) {
        let cards: Vec<_> = library().cards().map(|(_, c)| c).collect();
        let card = cards[pick % cards.len()];
        let spaced = format!("  {}\n", answer.replace(' ', "  "));
        prop_assert_eq!(summary(&grader::grade(card, &spaced)), summary(&grader::grade(card, &answer)));
    }

    #[test]
    fn a_view_reported_as_somebody_elses_states_no_misconception(answer in one_sentence(), pick in 0usize..1000) {
        let cards: Vec<_> = library().cards().map(|(_, c)| c).collect();
        let card = cards[pick % cards.len()];
        let reported = format!("Some people think {answer}");
        let flags = |g: &grader::Grade| g.red_flags.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        let plain = flags(&grader::grade(card, &answer));
        for f in flags(&grader::grade(card, &reported)) {
            prop_assert!(plain.contains(&f), "{f} fires only once the view is attributed");
        }
    }
}

/// The built-in decks, loaded once: every case grades against the same library, so the
/// grader's per-library caches (compiled rubrics, analysed truths) are built once too.
fn library() -> &'static Library {
    static LIB: std::sync::OnceLock<Library> = std::sync::OnceLock::new();
    LIB.get_or_init(Library::embedded)
}

/// What a grade decides, without where in the answer it found it.
fn summary(g: &grader::Grade) -> (Verdict, Vec<String>, Vec<String>, usize, grader::Confidence) {
    (
        g.verdict,
        g.points
            .iter()
            .filter(|p| p.hit)
            .map(|p| p.id.clone())
            .collect(),
        g.red_flags.iter().map(|f| f.id.clone()).collect(),
        g.unchecked.len(),
        g.confidence,
    )
}

/// One statement in domain words (no sentence breaks), for the attribution property.
fn one_sentence() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("the server"),
            Just("the client"),
            Just("assigns"),
            Just("replays"),
            Just("the subscription id"),
            Just("missed changes"),
            Just("a handshake"),
            Just("Last-Event-ID"),
            Just("resumes"),
            Just("Mcp-Session-Id"),
            Just("with"),
            Just("and"),
        ],
        1..12,
    )
    .prop_map(|w| w.join(" "))
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
