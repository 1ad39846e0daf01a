//! The validator on hand-written event sequences (docs/rules.md).

use super::*;
use crate::protocol::{self, NotificationKind as K, RequestId};
use serde_json::json;

fn sid(s: &str) -> RequestId {
    RequestId::from(s)
}

/// Feeds events; returns every finding.
fn run(events: &[Observation]) -> Vec<Finding> {
    let mut v = Validator::new();
    events.iter().flat_map(|e| v.observe(e)).collect()
}

fn failures(fs: &[Finding]) -> Vec<(CheckRule, String)> {
    fs.iter()
        .filter(|f| !f.ok)
        .map(|f| (f.rule, f.detail.clone()))
        .collect()
}

fn failed_rules(fs: &[Finding]) -> Vec<CheckRule> {
    let mut r: Vec<CheckRule> = fs.iter().filter(|f| !f.ok).map(|f| f.rule).collect();
    r.dedup();
    r
}

fn listen(id: &RequestId, filter: Value) -> Observation {
    Observation::ListenSent {
        id: id.clone(),
        filter: serde_json::from_value(filter).unwrap(),
    }
}

fn on(id: &RequestId, message: Value) -> Observation {
    Observation::Message {
        stream: Some(id.clone()),
        message: protocol::Message::classify(&message),
    }
}

fn chan(message: Value) -> Observation {
    Observation::Message {
        stream: None,
        message: protocol::Message::classify(&message),
    }
}

fn ack(id: &RequestId, honoured: Value) -> Value {
    protocol::ack(id, &serde_json::from_value(honoured).unwrap())
}

fn tools(id: &RequestId) -> Value {
    protocol::list_changed(K::ToolsListChanged, id)
}

fn ended(id: &RequestId) -> Observation {
    Observation::Ended {
        stream: Some(id.clone()),
        graceful: true,
    }
}

#[test]
fn the_http_transcript_of_section_4_10_breaks_nothing() {
    let id = sid("tutor-7");
    let fs = run(&[
        listen(
            &id,
            json!({"toolsListChanged": true, "promptsListChanged": true,
                   "resourceSubscriptions": ["mock://notes/today"]}),
        ),
        on(
            &id,
            ack(
                &id,
                json!({"toolsListChanged": true, "resourceSubscriptions": ["mock://notes/today"]}),
            ),
        ),
        Observation::KeepAlive {
            stream: Some(id.clone()),
        },
        on(&id, tools(&id)),
        on(&id, protocol::resource_updated(&id, "mock://notes/today")),
        on(&id, protocol::listen_complete(&id)),
        ended(&id),
    ]);
    assert_eq!(failures(&fs), vec![]);
    for rule in [
        CheckRule::AckFirst,
        CheckRule::TagPresent,
        CheckRule::TagMatchesId,
        CheckRule::OnlyRequestedTypes,
        CheckRule::UpdatedHasUri,
        CheckRule::CloseResultShape,
        CheckRule::GracefulClose,
    ] {
        assert!(
            fs.iter().any(|f| f.ok && f.rule == rule),
            "{rule} not seen kept"
        );
    }
    // The honoured subset differs from the request: information, not failure.
    let subset = fs
        .iter()
        .find(|f| f.rule == CheckRule::HonouredSubset)
        .unwrap();
    assert!(subset.ok);
    assert!(
        subset.detail.contains("left out promptsListChanged"),
        "{}",
        subset.detail
    );
    assert!(fs.iter().all(|f| f.subscription.as_ref() == Some(&id)));
}

#[test]
fn keep_alives_are_never_judged_and_do_not_break_ack_first() {
    let id = RequestId::Int(1);
    let mut v = Validator::new();
    v.observe(&listen(&id, json!({"toolsListChanged": true})));
    let ka = Observation::KeepAlive {
        stream: Some(id.clone()),
    };
    assert!(v.observe(&ka).is_empty());
    let fs = v.observe(&on(&id, ack(&id, json!({"toolsListChanged": true}))));
    assert!(fs.iter().any(|f| f.ok && f.rule == CheckRule::AckFirst));
    assert!(v.observe(&ka).is_empty());
}

#[test]
fn a_change_before_the_ack_breaks_ack_first_once() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, tools(&id)),
        on(&id, tools(&id)),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
    ]);
    let f = failures(&fs);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, CheckRule::AckFirst);
    assert!(f[0].1.contains("before its acknowledgement"));
}

#[test]
fn a_second_ack_is_flagged() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::AckFirst]);
}

#[test]
fn untagged_and_wrongly_tagged_notifications() {
    let id = sid("a");
    let untagged = protocol::notification(protocol::method::TOOLS_LIST_CHANGED, json!({}));
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, untagged),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::TagPresent]);

    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, tools(&sid("sub-8f21"))),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::TagMatchesId]);
}

#[test]
fn the_tag_must_keep_the_ids_json_type() {
    let id = RequestId::Int(7);
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&sid("7"), json!({"toolsListChanged": true}))),
    ]);
    let f = failures(&fs);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, CheckRule::TagMatchesId);
    assert!(
        f[0].1.contains("(string)") && f[0].1.contains("(integer)"),
        "{}",
        f[0].1
    );
}

#[test]
fn only_requested_and_acknowledged_types() {
    let id = sid("a");
    // Not requested at all.
    let fs = run(&[
        listen(&id, json!({"promptsListChanged": true})),
        on(&id, ack(&id, json!({"promptsListChanged": true}))),
        on(&id, tools(&id)),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::OnlyRequestedTypes]);
    // Requested but left out of the ack.
    let fs = run(&[
        listen(
            &id,
            json!({"promptsListChanged": true, "toolsListChanged": true}),
        ),
        on(&id, ack(&id, json!({"promptsListChanged": true}))),
        on(&id, tools(&id)),
    ]);
    let f = failures(&fs);
    assert_eq!(f[0].0, CheckRule::OnlyRequestedTypes);
    assert!(f[0].1.contains("left it out"), "{}", f[0].1);
    // `false` is the same as absent.
    let fs = run(&[
        listen(
            &id,
            json!({"toolsListChanged": false, "promptsListChanged": true}),
        ),
        on(&id, ack(&id, json!({"promptsListChanged": true}))),
        on(&id, tools(&id)),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::OnlyRequestedTypes]);
    // Unknown notification types are not requested either.
    let odd = protocol::notification(
        "notifications/tasks/status",
        json!({"_meta": {protocol::meta::SUBSCRIPTION_ID: "a"}}),
    );
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, odd),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::OnlyRequestedTypes]);
}

#[test]
fn resource_updates_need_a_string_uri_for_a_subscribed_resource() {
    let id = sid("r");
    let base = [
        listen(&id, json!({"resourceSubscriptions": ["mock://notes"]})),
        on(
            &id,
            ack(&id, json!({"resourceSubscriptions": ["mock://notes"]})),
        ),
    ];
    // A sub-resource is fine.
    let mut evs = base.to_vec();
    evs.push(on(
        &id,
        protocol::resource_updated(&id, "mock://notes/today"),
    ));
    assert_eq!(failures(&run(&evs)), vec![]);
    // Not a string.
    let mut evs = base.to_vec();
    evs.push(on(
        &id,
        protocol::notification(
            protocol::method::RESOURCES_UPDATED,
            json!({"_meta": {protocol::meta::SUBSCRIPTION_ID: "r"}, "uri": 5}),
        ),
    ));
    assert!(failed_rules(&run(&evs)).contains(&CheckRule::UpdatedHasUri));
    // Some other resource.
    let mut evs = base.to_vec();
    evs.push(on(&id, protocol::resource_updated(&id, "mock://other")));
    assert_eq!(
        failed_rules(&run(&evs)),
        vec![CheckRule::OnlyRequestedTypes]
    );
}

#[test]
fn progress_message_and_requests_never_travel_on_the_stream() {
    let id = sid("a");
    let tagged = |m: &str| {
        protocol::notification(m, json!({"_meta": {protocol::meta::SUBSCRIPTION_ID: "a"}}))
    };
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, tagged(protocol::method::MESSAGE)),
        on(&id, tagged(protocol::method::PROGRESS)),
        on(
            &id,
            json!({"jsonrpc": "2.0", "id": 9, "method": "sampling/createMessage", "params": {}}),
        ),
    ]);
    assert_eq!(
        failed_rules(&fs),
        vec![CheckRule::NoProgressOrMessage, CheckRule::NoServerRequests]
    );
}

#[test]
fn the_close_result_has_one_exact_shape() {
    let id = sid("a");
    let with = |result: Value| {
        run(&[
            listen(&id, json!({"toolsListChanged": true})),
            on(&id, ack(&id, json!({"toolsListChanged": true}))),
            on(&id, json!({"jsonrpc": "2.0", "id": "a", "result": result})),
        ])
    };
    let good = with(json!({"resultType": "complete",
        "_meta": {protocol::meta::SUBSCRIPTION_ID: "a",
                  protocol::meta::SERVER_INFO: {"name": "x", "version": "1"}}}));
    assert_eq!(failures(&good), vec![]);
    let untagged = with(json!({"resultType": "complete"}));
    assert_eq!(failed_rules(&untagged), vec![CheckRule::CloseResultShape]);
    let empty = with(json!({}));
    let f = failures(&empty);
    assert!(f[0].1.contains("resultType is missing"), "{}", f[0].1);
    let wrong = with(json!({"resultType": "input_required",
        "_meta": {protocol::meta::SUBSCRIPTION_ID: "a"}}));
    assert_eq!(failed_rules(&wrong), vec![CheckRule::CloseResultShape]);
}

#[test]
fn nothing_after_the_result() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, protocol::listen_complete(&id)),
        on(&id, tools(&id)),
        on(&id, protocol::listen_complete(&id)),
        ended(&id),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::NothingAfterResult]);
}

#[test]
fn an_abrupt_end_is_reported_as_a_should() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        Observation::Ended {
            stream: Some(id.clone()),
            graceful: false,
        },
    ]);
    let f = failures(&fs);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, CheckRule::GracefulClose);
    assert_eq!(CheckRule::GracefulClose.level(), Level::Should);
    assert!(f[0].1.contains("SHOULD, not a MUST"), "{}", f[0].1);
}

#[test]
fn a_stream_that_ends_before_its_ack_breaks_ack_first() {
    let id = sid("a");
    let fs = run(&[listen(&id, json!({"toolsListChanged": true})), ended(&id)]);
    assert_eq!(
        failed_rules(&fs),
        vec![CheckRule::AckFirst, CheckRule::GracefulClose]
    );
}

#[test]
fn cancel_on_http_closes_the_books() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        Observation::ClientCancelled { id: id.clone() },
        ended(&id),
    ]);
    assert_eq!(failures(&fs), vec![]);
}

#[test]
fn an_ack_timeout_is_an_ack_first_failure_that_says_the_spec_is_silent() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        Observation::AckTimeout {
            id: id.clone(),
            waited: Duration::from_secs(5),
        },
    ]);
    let f = failures(&fs);
    assert_eq!(f[0].0, CheckRule::AckFirst);
    assert!(f[0].1.contains("[SILENT]"));
    // Once acked, a timeout event is moot.
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        Observation::AckTimeout {
            id: id.clone(),
            waited: Duration::from_secs(5),
        },
    ]);
    assert_eq!(failures(&fs), vec![]);
}

#[test]
fn the_ack_must_carry_a_subset() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(
            &id,
            ack(
                &id,
                json!({"toolsListChanged": true, "promptsListChanged": true}),
            ),
        ),
    ]);
    let f = failures(&fs);
    assert_eq!(f[0].0, CheckRule::HonouredSubset);
    assert!(f[0].1.contains("promptsListChanged"));
    let bare = protocol::notification(
        protocol::method::SUBSCRIPTIONS_ACKNOWLEDGED,
        json!({"_meta": {protocol::meta::SUBSCRIPTION_ID: "a"}}),
    );
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        on(&id, bare),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::HonouredSubset]);
}

#[test]
fn malformed_frames_and_server_cancel_on_http() {
    let id = sid("a");
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        Observation::Malformed {
            stream: Some(id.clone()),
            raw: "data: {nope".into(),
            error: "not JSON".into(),
        },
        on(&id, ack(&id, json!({"toolsListChanged": true}))),
        on(&id, protocol::cancelled(&id, None)),
    ]);
    assert_eq!(
        failed_rules(&fs),
        vec![CheckRule::WellFormed, CheckRule::OnlyRequestedTypes]
    );
}

// ----- stdio: one channel, ordering judged per subscription id (§4.10) -----

#[test]
fn the_legal_stdio_interleavings_of_section_4_10() {
    let (one, two) = (RequestId::Int(1), RequestId::Int(2));
    let f1 = json!({"toolsListChanged": true});
    let f2 = json!({"resourceSubscriptions": ["mock://notes/today"]});
    let fs = run(&[
        listen(&one, f1.clone()),
        listen(&two, f2.clone()),
        chan(ack(&one, f1.clone())),
        chan(tools(&one)),
        chan(ack(&two, f2.clone())),
        chan(protocol::resource_updated(&two, "mock://notes/today")),
        chan(tools(&one)),
    ]);
    assert_eq!(failures(&fs), vec![]);
    // ack[2] before ack[1] while listen 1 is unacknowledged: also legal.
    let fs = run(&[
        listen(&one, f1.clone()),
        listen(&two, f2.clone()),
        chan(ack(&two, f2.clone())),
        chan(ack(&one, f1.clone())),
        chan(protocol::resource_updated(&two, "mock://notes/today")),
    ]);
    assert_eq!(failures(&fs), vec![]);
    // Request-scoped traffic for other requests shares the channel untagged: not ours.
    let fs = run(&[
        listen(&one, f1.clone()),
        chan(protocol::notification(
            protocol::method::PROGRESS,
            json!({"progressToken": "p", "progress": 1}),
        )),
        chan(json!({"jsonrpc": "2.0", "id": 99, "result": {"resultType": "complete"}})),
        chan(ack(&one, f1)),
    ]);
    assert_eq!(failures(&fs), vec![]);
}

#[test]
fn the_illegal_stdio_interleaving_of_section_4_10() {
    let (one, two) = (RequestId::Int(1), RequestId::Int(2));
    let f2 = json!({"resourceSubscriptions": ["mock://notes/today"]});
    let fs = run(&[
        listen(&one, json!({"toolsListChanged": true})),
        listen(&two, f2.clone()),
        chan(ack(&one, json!({"toolsListChanged": true}))),
        chan(protocol::resource_updated(&two, "mock://notes/today")),
        chan(ack(&two, f2)),
    ]);
    let f: Vec<_> = fs.iter().filter(|f| !f.ok).collect();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, CheckRule::AckFirst);
    assert_eq!(f[0].subscription, Some(two));
}

#[test]
fn stdio_tags_are_matched_with_their_type() {
    let id = RequestId::Int(7);
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        chan(ack(&id, json!({"toolsListChanged": true}))),
        chan(tools(&sid("7"))),
    ]);
    let f = failures(&fs);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].0, CheckRule::TagMatchesId);
    assert!(f[0].1.contains("JSON type"), "{}", f[0].1);
    // A tag naming nothing at all.
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        chan(tools(&sid("sub-8f21"))),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::TagMatchesId]);
    // An untagged change notification on stdio cannot be routed.
    let fs = run(&[
        listen(&id, json!({"toolsListChanged": true})),
        chan(protocol::notification(
            protocol::method::TOOLS_LIST_CHANGED,
            json!({}),
        )),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::TagPresent]);
}

#[test]
fn stdio_cancel_means_nothing_more_not_even_a_result() {
    let id = sid("s");
    let f = json!({"toolsListChanged": true});
    let fs = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f.clone())),
        Observation::ClientCancelled { id: id.clone() },
        chan(tools(&id)),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::NothingAfterCancel]);
    let fs = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f)),
        Observation::ClientCancelled { id: id.clone() },
        chan(protocol::listen_complete(&id)),
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::NothingAfterCancel]);
}

#[test]
fn stdio_teardown_result_then_cancelled_is_accepted() {
    let id = sid("s");
    let f = json!({"toolsListChanged": true});
    let mut teardown = protocol::cancelled(&id, Some("server closing"));
    teardown["params"]["_meta"] = json!({protocol::meta::SUBSCRIPTION_ID: "s"});
    let fs = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f.clone())),
        chan(protocol::listen_complete(&id)),
        chan(teardown),
        Observation::Ended {
            stream: None,
            graceful: true,
        },
    ]);
    assert_eq!(failures(&fs), vec![]);
    // cancelled alone (no result): CAN's MUST met, the SHOULD of a result not.
    let fs = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f)),
        chan(protocol::cancelled(&id, None)),
        Observation::Ended {
            stream: None,
            graceful: true,
        },
    ]);
    assert_eq!(failed_rules(&fs), vec![CheckRule::GracefulClose]);
}

#[test]
fn stdio_channel_end_is_abrupt_for_every_open_subscription() {
    let (one, two) = (RequestId::Int(1), RequestId::Int(2));
    let f = json!({"toolsListChanged": true});
    let fs = run(&[
        listen(&one, f.clone()),
        listen(&two, f.clone()),
        chan(ack(&one, f.clone())),
        chan(ack(&two, f)),
        chan(protocol::listen_complete(&one)),
        Observation::Ended {
            stream: None,
            graceful: false,
        },
    ]);
    let f: Vec<_> = fs.iter().filter(|f| !f.ok).collect();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, CheckRule::GracefulClose);
    assert_eq!(f[0].subscription, Some(two));
}

#[test]
fn rule_names_are_unique_and_round_trip() {
    let mut names: Vec<&str> = CheckRule::all().iter().map(|r| r.name()).collect();
    for &r in CheckRule::all() {
        assert_eq!(CheckRule::from_name(r.name()), Some(r));
        assert!(!r.title().is_empty() && !r.spec().is_empty());
    }
    names.sort();
    names.dedup();
    assert_eq!(names.len(), CheckRule::all().len());
}

#[test]
fn should_rules_are_exactly_the_spec_shoulds() {
    let should: Vec<&str> = CheckRule::all()
        .iter()
        .filter(|r| r.level() == Level::Should)
        .map(|r| r.name())
        .collect();
    assert_eq!(
        should,
        vec![
            "get-delete-405",
            "sse-no-buffering",
            "acked-types-delivered",
            "graceful-close"
        ]
    );
    for &r in CheckRule::all() {
        if r.title().contains("(SHOULD)") {
            assert_eq!(r.level(), Level::Should, "{r}");
        }
    }
}

#[test]
fn findings_carry_the_notes_the_lab_prints() {
    let id = RequestId::from("lab-1");
    let mut v = Validator::new();
    v.observe(&listen(
        &id,
        json!({"toolsListChanged": true, "promptsListChanged": true}),
    ));
    let fs = v.observe(&on(&id, ack(&id, json!({"toolsListChanged": true}))));
    let note = |fs: &[Finding], rule: CheckRule| {
        fs.iter()
            .find(|f| f.rule == rule)
            .and_then(|f| f.note.clone())
    };
    assert_eq!(
        note(&fs, CheckRule::AckFirst).as_deref(),
        Some("acknowledgement, the first message for this subscription")
    );
    assert_eq!(
        note(&fs, CheckRule::TagMatchesId).as_deref(),
        Some(r#"tag "lab-1" = the listen request's own id"#)
    );
    assert_eq!(
        note(&fs, CheckRule::HonouredSubset).as_deref(),
        Some(
            "honoured: tools (asked: tools prompts); left out: prompts — the server will not \
             deliver it, and that is not an error"
        )
    );
    let fs = v.observe(&on(&id, tools(&RequestId::Int(9))));
    assert_eq!(
        note(&fs, CheckRule::TagMatchesId).as_deref(),
        Some(r#"tag 9, but this stream's listen id is "lab-1""#)
    );
    let second = v.observe(&on(&id, ack(&id, json!({"toolsListChanged": true}))));
    assert_eq!(
        note(&second, CheckRule::AckFirst).as_deref(),
        Some(ACK_NOT_FIRST)
    );
    let done = v.observe(&on(&id, protocol::listen_complete(&id)));
    assert_eq!(
        note(&done, CheckRule::CloseResultShape).as_deref(),
        Some(r#"tag "lab-1" = the listen request's own id"#)
    );
}

/// graceful-close is the validator's to judge on both transports: on stdio the result is the
/// end of the subscription; over HTTP the stream's end after it is.
#[test]
fn graceful_close_is_judged_at_the_result_on_stdio_and_at_the_stream_end_over_http() {
    let id = RequestId::Int(7);
    let f = json!({"toolsListChanged": true});
    let graceful = |fs: &[Finding]| {
        fs.iter()
            .filter(|x| x.rule == CheckRule::GracefulClose)
            .map(|x| (x.ok, x.subscription.clone()))
            .collect::<Vec<_>>()
    };
    let stdio = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f.clone())),
        chan(protocol::listen_complete(&id)),
    ]);
    assert_eq!(graceful(&stdio), vec![(true, Some(id.clone()))]);
    let http = run(&[
        listen(&id, f.clone()),
        on(&id, ack(&id, f.clone())),
        on(&id, protocol::listen_complete(&id)),
    ]);
    assert_eq!(graceful(&http), vec![], "not before the stream ends");
    let http = run(&[
        listen(&id, f.clone()),
        on(&id, ack(&id, f.clone())),
        on(&id, protocol::listen_complete(&id)),
        ended(&id),
    ]);
    assert_eq!(graceful(&http), vec![(true, Some(id.clone()))]);
}

#[test]
fn a_close_waited_for_in_vain_breaks_graceful_close_once() {
    let id = RequestId::from("c");
    let f = json!({"toolsListChanged": true});
    let waited = Duration::from_secs(2);
    let timeout = |http: bool| Observation::CloseTimeout {
        stream: http.then(|| id.clone()),
        id: id.clone(),
        waited,
    };
    for http in [true, false] {
        let at = |m: Value| if http { on(&id, m) } else { chan(m) };
        // No result at all; the later end of the channel or stream is not judged again.
        let fs = run(&[
            listen(&id, f.clone()),
            at(ack(&id, f.clone())),
            timeout(http),
            ended(&id),
            Observation::Ended {
                stream: None,
                graceful: true,
            },
        ]);
        let broken = failures(&fs);
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].0, CheckRule::GracefulClose);
        assert!(
            broken[0]
                .1
                .contains("no result for listen \"c\" within 2.0 s")
        );
        // The result came: nothing more to judge on stdio; over HTTP the stream must end.
        let fs = run(&[
            listen(&id, f.clone()),
            at(ack(&id, f.clone())),
            at(protocol::listen_complete(&id)),
            timeout(http),
        ]);
        let broken = failures(&fs);
        if http {
            assert_eq!(broken.len(), 1, "{broken:?}");
            assert!(broken[0].1.contains("stream stayed open for 2.0 s"));
        } else {
            assert_eq!(broken, vec![]);
        }
    }
    // Torn down on stdio with notifications/cancelled alone.
    let fs = run(&[
        listen(&id, f.clone()),
        chan(ack(&id, f)),
        chan(protocol::cancelled(&id, None)),
        timeout(false),
    ]);
    assert!(
        failures(&fs)[0]
            .1
            .contains("torn down with notifications/cancelled")
    );
}
