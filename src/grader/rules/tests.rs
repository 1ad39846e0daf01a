use super::*;

fn rule(exact: &[&str], all: &[&str]) -> Rule {
    Rule::compile(&MatchRule {
        exact: exact.iter().map(|s| s.to_string()).collect(),
        all: all.iter().map(|s| s.to_string()).collect(),
    })
}

fn hits(answer: &str, r: &Rule, mode: Mode) -> bool {
    match_rule(&Analysis::new(answer), r, mode, &[]).is_some()
}

#[test]
fn exact_respects_identifier_boundaries() {
    let t = "uses io.modelcontextprotocol/subscriptionId, and subscriptionId.";
    assert_eq!(find_exact(t, "subscriptionId").len(), 1);
    assert_eq!(
        find_exact(t, "io.modelcontextprotocol/subscriptionId").len(),
        1
    );
    assert!(
        find_exact(
            "notifications/subscriptions/acknowledgedX",
            "notifications/subscriptions/acknowledged"
        )
        .is_empty()
    );
    assert_eq!(find_exact("code -32602.", "-32602").len(), 1);
}

#[test]
fn groups_cooccur_in_one_claim_or_two_neighbours() {
    let r = rule(&[], &["ack", "must|mandatory"]);
    assert!(hits("The acknowledgement is mandatory.", &r, Mode::Point));
    // A point may take two neighbouring claims ("It comes first. It is mandatory."), never
    // parts that stand further apart; a flag must be stated in one claim.
    assert!(hits(
        "The acknowledgement comes first. It is mandatory.",
        &r,
        Mode::Point
    ));
    assert!(!hits(
        "The acknowledgement comes first. Then changes. Then more. It is mandatory.",
        &r,
        Mode::Point
    ));
    assert!(!hits(
        "The acknowledgement comes first. It is mandatory.",
        &r,
        Mode::Flag
    ));
}

#[test]
fn phrases_tolerate_fillers_and_compounds() {
    let r = rule(&[], &["before change notification"]);
    assert!(hits(
        "it comes before any change notification",
        &r,
        Mode::Point
    ));
    let r = rule(&[], &["keepalive"]);
    assert!(hits("send a keep-alive comment", &r, Mode::Point));
    let r = rule(&[], &["subscription id"]);
    assert!(hits("it carries the subscriptionId", &r, Mode::Point));
}

#[test]
fn phrases_keep_their_structure() {
    let r = rule(&[], &["is for stdio"]);
    assert!(hits("That header is for stdio only.", &r, Mode::Point));
    assert!(!hits("It runs over stdio.", &r, Mode::Point));
    let r = rule(&[], &["the stream"]);
    assert!(hits("close a stream", &r, Mode::Point));
    let r = rule(&[], &["get its own SSE"]);
    assert!(hits("each listen gets its own SSE stream", &r, Mode::Point));
    assert!(!hits("clients get SSE from the endpoint", &r, Mode::Point));
}

#[test]
fn negation_is_scoped_to_the_clause() {
    let r = rule(&[], &["handshake"]);
    assert!(!hits("It is not a handshake.", &r, Mode::Flag));
    assert!(!hits(
        "Unlike the old initialize handshake, it is per stream.",
        &r,
        Mode::Flag
    ));
    assert!(hits(
        "Unlike initialize, the ack is a handshake.",
        &r,
        Mode::Flag
    ));
    assert!(hits("It is not only a handshake.", &r, Mode::Flag));
    assert!(hits("It is not a handshake.", &r, Mode::Plain));
    // Contrast keeps a point ("a missing field, not a header mismatch")...
    assert!(hits("It is not a handshake.", &r, Mode::Point));
    // ...but a denied obligation or order is not the point, unless the card's words hold
    // the negation.
    let must = rule(&[], &["must|mandatory"]);
    assert!(!hits("The ack isn't mandatory.", &must, Mode::Point));
    assert!(hits("Not optional: it is mandatory.", &must, Mode::Point));
    let no_replay = rule(&[], &["no|nothing|never", "replay"]);
    assert!(hits("Nothing is replayed.", &no_replay, Mode::Point));
    let r = rule(&[], &["replay"]);
    assert!(!hits(
        "Nothing is replayed after a reconnect.",
        &r,
        Mode::Flag
    ));
    assert!(!hits("There is no replay.", &r, Mode::Flag));
    assert!(hits(
        "Missed notifications are replayed on reconnect.",
        &r,
        Mode::Flag
    ));
}

#[test]
fn wrong_denies_the_claim_it_judges_not_the_reason_it_precedes() {
    let r = rule(&[], &["server", "assign", "id"]);
    for affirmed in [
        "Line 2 is wrong as the server assigns the id.",
        "Line 2 is wrong for the server assigns the id.",
        "Line 2 is incorrect: the server assigns the id.",
    ] {
        assert!(hits(affirmed, &r, Mode::Flag), "{affirmed}");
    }
    for denied in [
        "It is wrong to say the server assigns the id.",
        "It's incorrect that the server assigns the id.",
        "Saying the server assigns the id is wrong.",
        "The server assigns the id, which is wrong.",
    ] {
        assert!(!hits(denied, &r, Mode::Flag), "{denied}");
    }
}

#[test]
fn a_negation_in_another_claim_changes_nothing() {
    let r = rule(&[], &["Last-Event-ID", "resume"]);
    // The leading "No" denies the replay, not what comes after "but".
    assert!(hits(
        "No replay on connect, but the client can send Last-Event-ID to resume.",
        &r,
        Mode::Flag
    ));
    assert!(!hits(
        "There is no resumability: the client cannot resume with Last-Event-ID.",
        &r,
        Mode::Flag
    ));
    let r = rule(&[], &["server", "assign", "id"]);
    assert!(hits(
        "Nothing is replayed; the server assigns the id.",
        &r,
        Mode::Flag
    ));
}

#[test]
fn attributed_claims_state_nothing() {
    let r = rule(&[], &["server", "assign", "id"]);
    for attributed in [
        "Some people think the server assigns the id, but it is the request id.",
        "A colleague would answer that the server assigns the id.",
        "In older revisions the server assigned the id.",
        "It is a myth that the server assigns the id.",
        "A common mixup is that the server assigns the id.",
        "A lot of people would just let the server assign the id.",
        "Some SDKs I've seen let the server assign the id, which is wrong.",
    ] {
        assert!(!hits(attributed, &r, Mode::Flag), "{attributed}");
    }
    assert!(hits("The server assigns the id.", &r, Mode::Flag));
}

#[test]
fn questions_and_taken_back_claims_state_nothing() {
    let r = rule(&[], &["handshake"]);
    assert!(!hits("Is the ack a handshake?", &r, Mode::Flag));
    assert!(!hits("It is a handshake, but it isn't.", &r, Mode::Flag));
    let r = rule(&[], &["Last-Event-ID", "send|honour"]);
    assert!(!hits(
        "Last-Event-ID: ignored, nothing to honour.",
        &r,
        Mode::Flag
    ));
}

#[test]
fn judging_a_practice_bad_denies_it() {
    let r = rule(&[], &["unbounded", "queue"]);
    assert!(!hits(
        "Unbounded queueing for a slow client is a bad idea.",
        &r,
        Mode::Flag
    ));
    assert!(!hits("Avoid an unbounded queue.", &r, Mode::Flag));
    assert!(hits("Keep an unbounded queue per client.", &r, Mode::Flag));
}

#[test]
fn a_negated_requirement_earns_no_point() {
    let r = rule(&[], &["ack", "have to come first|comes first"]);
    assert!(!hits(
        "The ack doesn't have to come first.",
        &r,
        Mode::Point
    ));
    assert!(!hits("The ack never comes first.", &r, Mode::Point));
    assert!(hits("The ack has to come first.", &r, Mode::Point));
    // A rule that forbids keeps its negation: "can't reuse" is the point.
    let r = rule(&[], &["reuse", "id"]);
    assert!(hits(
        "You can't reuse the id of a live request.",
        &r,
        Mode::Point
    ));
}

#[test]
fn a_denied_list_denies_every_item() {
    let r = rule(&[], &["echo", "session"]);
    assert!(!hits(
        "The server never mints, echoes or checks a session id.",
        &r,
        Mode::Flag
    ));
    assert!(hits("The server echoes the session id.", &r, Mode::Flag));
}

#[test]
fn a_point_may_span_two_list_items_a_flag_may_not() {
    let r = rule(&[], &["supported", "requested"]);
    let list = "- data.requested = 2031-01-01\n- data.supported = 2026-07-28";
    assert!(hits(list, &r, Mode::Point));
    assert!(!hits(list, &r, Mode::Flag));
}

#[test]
fn near_misses() {
    let e = "notifications/subscriptions/acknowledged";
    assert!(near_miss("notifications/subscription/acknowledge", e));
    assert!(near_miss("Notifications/Subscriptions/Acknowledged", e));
    assert!(!near_miss("notifications/tools/list_changed", e));
    assert!(near_miss("32602", "-32602"));
    assert!(!near_miss("-32601", "-32602"));
    assert!(near_miss(
        "subscriptionId",
        "io.modelcontextprotocol/subscriptionId"
    ));
}

#[test]
fn a_trailing_instead_and_a_conditional_wrong_deny_nothing() {
    let r = rule(&[], &["spec", "defines", "timeout"]);
    assert!(hits(
        "The spec defines a 30 s acknowledgement timeout instead.",
        &r,
        Mode::Flag
    ));
    assert!(!hits(
        "Instead of a timeout the spec defines nothing; no timeout is defined.",
        &rule(&[], &["spec", "defines", "timeout"]),
        Mode::Flag
    ));
    let r = rule(&[], &["error", "stream"]);
    assert!(hits(
        "The ack comes first and then an error on the stream if something's wrong.",
        &r,
        Mode::Flag
    ));
}

#[test]
fn rather_than_denies_only_what_follows_and_which_nobody_wants_takes_nothing_back() {
    let r = rule(&[], &["server's own", "handle"]);
    assert!(hits(
        "The tag should be the server's own handle rather than a copy of the request id.",
        &r,
        Mode::Flag
    ));
    let r = rule(&[], &["copy", "request id"]);
    assert!(!hits(
        "The tag should be the server's own handle rather than a copy of the request id.",
        &r,
        Mode::Flag
    ));
    let r = rule(&[], &["push", "every notification"]);
    assert!(hits(
        "The server would push every notification type, which nobody wants.",
        &r,
        Mode::Flag
    ));
}
