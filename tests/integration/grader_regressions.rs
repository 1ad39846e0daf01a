//! The answers issue 8 found misjudged, graded against the built-in decks: each must get the
//! fair verdict, and a flag only where the answer states the misconception. Plus `decks eval`
//! end to end.

use mcp_tutor::deck::Library;
use mcp_tutor::grader::{self, Grade, Verdict};
use predicates::str::contains;

use crate::decks::tutor;

/// The built-in decks, loaded once for every test here.
fn library() -> &'static Library {
    static LIB: std::sync::OnceLock<Library> = std::sync::OnceLock::new();
    LIB.get_or_init(Library::embedded)
}

fn grade(key: &str, answer: &str) -> Grade {
    let (_, card) = library().card(key).expect("built-in card exists");
    grader::grade(card, answer)
}

fn flags(g: &Grade) -> Vec<String> {
    g.red_flags.iter().map(|f| f.id.clone()).collect()
}

#[track_caller]
fn judged(key: &str, answer: &str, verdict: Verdict, flag: Option<&str>) {
    let g = grade(key, answer);
    assert_eq!(g.verdict, verdict, "{key}: {answer}\n{g:#?}");
    match flag {
        Some(f) => assert!(
            flags(&g).iter().any(|x| x == f),
            "{key}: expected flag {f}: {answer}\n{g:#?}"
        ),
        None => assert!(
            g.red_flags.is_empty(),
            "{key}: false flag {:?}: {answer}",
            flags(&g)
        ),
    }
}

/// Whether the point `id` was credited.
fn hit(g: &Grade, id: &str) -> bool {
    g.points.iter().any(|p| p.id == id && p.hit)
}

#[test]
fn before_any_change_notification_earns_the_order_without_the_word_must() {
    let g = grade(
        "subscriptions/listen-first-message",
        "It sends notifications/subscriptions/acknowledged first, before any change notification.",
    );
    assert!(g.red_flags.is_empty());
    assert!(hit(&g, "ack-first"), "{g:#?}");
    assert_ne!(g.verdict, Verdict::Fail, "{g:#?}");
}

#[test]
fn a_tag_equal_to_the_clients_listen_id_is_not_a_server_minted_id() {
    judged(
        "subscriptions/listen-first-message",
        "The server must send notifications/subscriptions/acknowledged first. Every notification the server generates on the stream then carries io.modelcontextprotocol/subscriptionId in _meta, equal to the client's listen id.",
        Verdict::Pass,
        None,
    );
}

#[test]
fn no_fields_besides_those_is_not_an_empty_result() {
    let g = grade(
        "lifecycle/graceful-close-result",
        "The server answers the listen request with a result whose resultType is \"complete\" and whose _meta carries io.modelcontextprotocol/subscriptionId with the listen id; the result carries no fields besides those.",
    );
    assert!(g.red_flags.is_empty(), "{:?}", flags(&g));
    assert!(
        hit(&g, "result-type-complete") && hit(&g, "result-tagged"),
        "{g:#?}"
    );
}

#[test]
fn avoiding_escaping_problems_is_not_percent_encoding() {
    let g = grade(
        "wire-http/base64-sentinel",
        "The value is sent as =?base64?...?= with the UTF-8 bytes base64-encoded, which avoids escaping problems with non-ASCII header values.",
    );
    assert!(g.red_flags.is_empty(), "{:?}", flags(&g));
    assert!(hit(&g, "utf8-bytes"), "{g:#?}");
}

#[test]
fn naming_another_line_as_the_reason_is_still_the_right_line() {
    let g = grade(
        "stdio/bug-stdio-interleave",
        "Line 3 is the bug, because line 4 is where ack 2 arrives: a change notification for subscription 2 came before its acknowledgement.",
    );
    assert!(hit(&g, "line"), "the blamed line is 3: {g:#?}");
    assert_ne!(g.verdict, Verdict::Fail, "{g:#?}");
}

#[test]
fn no_replay_but_resume_with_last_event_id_fails() {
    judged(
        "subscriptions/ack-no-replay",
        "No replay on connect, but the client can send Last-Event-ID to resume where it left off.",
        Verdict::Fail,
        Some("resume-last-event-id"),
    );
}

#[test]
fn cancelled_on_both_transports_fails() {
    judged(
        "lifecycle/cancel-by-transport",
        "On both transports the client sends notifications/cancelled with the listen id as requestId, and on HTTP it also closes the stream.",
        Verdict::Fail,
        Some("cancelled-on-http"),
    );
}

#[test]
fn the_header_value_is_checked_not_just_its_name() {
    let g = grade("wire-http/x-accel-buffering", "X-Accel-Buffering: yes");
    assert_ne!(g.verdict, Verdict::Pass, "{g:#?}");
}

#[test]
fn a_session_header_identifying_the_subscription_is_flagged() {
    judged(
        "subscriptions/listen-first-message",
        "It sends notifications/subscriptions/acknowledged first, and the Mcp-Session-Id header then identifies the subscription.",
        Verdict::Fail,
        Some("session-correlation"),
    );
}

#[test]
fn the_session_header_named_in_a_contrary_claim_earns_nothing() {
    let g = grade(
        "subscriptions/why-not-connection",
        "The client keeps using the Mcp-Session-Id header to tell its subscriptions apart.",
    );
    let sessions_gone = g.points.iter().find(|p| p.label.contains("Mcp-Session-Id"));
    assert!(sessions_gone.is_some_and(|p| !p.hit), "{g:#?}");
    assert!(!g.red_flags.is_empty());
}

#[test]
fn decks_eval_reports_agreement_and_the_held_out_part_apart() {
    let t = tempfile::tempdir().expect("tmp");
    // One card: the whole corpus is graded once, by `decks check` in
    // `the_built_in_decks_and_the_corpus_pass_every_check`.
    tutor(&t)
        .args([
            "decks",
            "eval",
            "--card",
            "subscriptions/listen-first-message",
        ])
        .assert()
        .success()
        .stdout(contains("tuned"))
        .stdout(contains("held out"))
        .stdout(contains("subscriptions/listen-first-message"));
}

#[test]
fn decks_eval_json_has_both_parts() {
    let t = tempfile::tempdir().expect("tmp");
    let out = tutor(&t)
        .args([
            "decks",
            "eval",
            "--json",
            "--card",
            "subscriptions/ack-no-replay",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
    assert!(v["tuned"]["answers"].as_u64().unwrap_or(0) >= 10, "{v}");
    assert!(v["held_out"]["answers"].as_u64().unwrap_or(0) >= 5, "{v}");
}

#[test]
fn decks_eval_names_a_corpus_answer_for_an_unknown_card() {
    let t = tempfile::tempdir().expect("tmp");
    let dir = t.path().join("answers");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("subscriptions.toml"),
        "[[answers]]\ncard = \"no-such-card\"\ntext = \"x\"\nverdict = \"fail\"\n",
    )
    .expect("write");
    tutor(&t)
        .args(["decks", "eval", "--answers"])
        .arg(&dir)
        .assert()
        .code(1)
        .stderr(contains("subscriptions.toml:1:1"))
        .stderr(contains("no card `subscriptions/no-such-card`"));
}

#[test]
fn a_flag_quotes_the_clause_that_stated_it_and_a_leading_no_protects_nothing() {
    let g = grade(
        "subscriptions/subscription-id-origin",
        "No, it is not a handshake, but the server assigns the subscription id, which it invents per stream.",
    );
    let hit = g
        .red_flags
        .iter()
        .find(|f| f.id == "server-minted-id")
        .unwrap_or_else(|| panic!("server-minted-id expected: {g:#?}"));
    assert_eq!(hit.span.text, "the server assigns the subscription id");
    assert_eq!(g.verdict, Verdict::Fail);
}

#[test]
fn a_negated_requirement_earns_no_point() {
    let g = grade(
        "subscriptions/listen-first-message",
        "The server sends notifications/subscriptions/acknowledged, but it is not mandatory and it doesn't have to come first.",
    );
    let order = g
        .points
        .iter()
        .find(|p| p.label.contains("comes before"))
        .unwrap_or_else(|| panic!("the order point: {g:#?}"));
    assert!(!order.hit, "{g:#?}");
}

/// The answers issue 16 typed as a learner would, each with a wrong claim no card lists: the
/// grader must not pass them as sure. Either a red flag fails them or the grader is unsure and
/// quotes the statement it could not check.
#[track_caller]
fn not_passed_as_sure(key: &str, answer: &str, claim: &str) {
    let g = grade(key, answer);
    let failed = g.verdict == Verdict::Fail && !g.red_flags.is_empty();
    let quoted = g.confidence == grader::Confidence::Unsure
        && g.unchecked.iter().any(|u| u.text.contains(claim));
    assert!(failed || quoted, "{key}: {answer}\n{g:#?}");
}

#[test]
fn an_invented_tools_list_in_the_ack_is_not_passed() {
    not_passed_as_sure(
        "subscriptions/listen-first-message",
        "The server must send notifications/subscriptions/acknowledged first, before any change notification, tagged with io.modelcontextprotocol/subscriptionId in _meta. It must also resend the full tools list in that acknowledgement so the client can skip tools/list.",
        "resend the full tools list",
    );
}

#[test]
fn an_invented_sequence_number_is_not_passed() {
    not_passed_as_sure(
        "subscriptions/ack-no-replay",
        "No. Nothing from before the stream opened is replayed, and Last-Event-ID resumption is gone; the client re-fetches its lists. The ack does however carry a sequence number the client must store.",
        "sequence number",
    );
}

#[test]
fn an_incremented_subscription_id_is_not_passed() {
    not_passed_as_sure(
        "subscriptions/subscription-id-origin",
        "The client picks it: it is the JSON-RPC id of its own subscriptions/listen request. The server echoes it back in the ack and then increments it by one for every later notification so the client can detect gaps.",
        "increments it by one",
    );
}

#[test]
fn an_invented_keep_alive_interval_is_not_passed() {
    not_passed_as_sure(
        "wire-http/keepalive",
        "An SSE comment line starting with a colon; clients ignore it, and since it is no JSON-RPC message it does not break ack-first. Servers must send one every 15 seconds or the client has to reconnect.",
        "every 15 seconds",
    );
}

#[test]
fn a_catalogue_misconception_fails_a_card_that_does_not_list_it() {
    let (_, card) = library()
        .card("wire-http/keepalive")
        .expect("built-in card");
    assert!(
        !card.own_flags().any(|f| f.id == "server-minted-id"),
        "the card must not list it for this test to mean anything"
    );
    judged(
        "wire-http/keepalive",
        "An SSE comment line starting with a colon, which clients ignore. And the server assigns its own subscription id to the stream.",
        Verdict::Fail,
        Some("server-minted-id"),
    );
}

#[test]
fn a_right_answer_in_other_words_is_passed_and_sure() {
    let g = grade(
        "subscriptions/listen-first-message",
        "The server has to send notifications/subscriptions/acknowledged first, before any change notification; every notification on the stream carries io.modelcontextprotocol/subscriptionId in _meta.",
    );
    assert_eq!(g.verdict, Verdict::Pass, "{g:#?}");
    assert_eq!(g.confidence, grader::Confidence::Sure, "{g:#?}");
}
