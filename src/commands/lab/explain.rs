//! `explain`: the rule behind the last frame, in words, with its spec reference.

use mock_server::protocol::method;
use serde_json::Value;

use super::event::{EndKind, TranscriptEvent};

/// What each kind of frame is for and which rule governs it.
fn about(kind: &str) -> &'static str {
    match kind {
        method::SUBSCRIPTIONS_ACKNOWLEDGED => {
            "The acknowledgement MUST be the first message that carries the subscription's id; \
             nothing for that subscription may precede it (SUB §Acknowledgment). Its \
             params.notifications is the subset the server agreed to honour: types it cannot \
             deliver are left out, which is not an error, and the client SHOULD compare it with \
             what it asked for (SUB §Acknowledgment). It is a notification: no id, never answered \
             (BASE §Notifications). It replays nothing, so a careful client re-fetches afterwards."
        }
        method::TOOLS_LIST_CHANGED
        | method::PROMPTS_LIST_CHANGED
        | method::RESOURCES_LIST_CHANGED => {
            "A list-change notification: params holds only _meta, whose \
             io.modelcontextprotocol/subscriptionId MUST equal the listen request's id, JSON type \
             included (BASE §_meta; SUB §Receiving Notifications). It is only sent to a \
             subscription that asked for that type (SUB §Opening a Stream) and carries no data: \
             the client fetches the list again (CACHE §Interaction with Notifications)."
        }
        method::RESOURCES_UPDATED => {
            "A resource update: params.uri names the resource, which may be a sub-resource of \
             the URI subscribed to (TS ResourceUpdatedNotificationParams). Only sent for URIs in \
             resourceSubscriptions (SUB §Opening a Stream), tagged like every stream message \
             (BASE §_meta)."
        }
        method::CANCELLED => {
            "A server that tears a listen down on stdio names it in notifications/cancelled \
             (CAN intro: MUST, and for nothing else); SUB §Graceful Closure asks for the graceful \
             result too. The two texts pull in different directions (mcp-tutor why teardown-tension)."
        }
        method::MESSAGE | method::PROGRESS => {
            "notifications/message and notifications/progress never travel on a listen stream \
             (HTTP §Receiving Messages; LOG §Per-request log level): the stream carries only the \
             change notifications the client opted into."
        }
        "result" => {
            "The graceful close: when the SERVER ends a subscription it SHOULD answer the listen \
             request with {\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":<id>}} \
             and then close the stream (SUB §Graceful Closure; TS SubscriptionsListenResult). \
             Nothing may follow it for that id."
        }
        "error" => {
            "An error response to subscriptions/listen: the listen was refused, no stream, no \
             acknowledgement (mcp-tutor why listen-errors)."
        }
        _ => {
            "Only the acknowledgement, the change notifications the client asked for, and finally \
             the listen request's result may appear on a listen stream (SUB §Opening a Stream; \
             HTTP §Receiving Messages)."
        }
    }
}

fn about_end(how: EndKind, stream: &Value) -> String {
    match how {
        EndKind::Graceful => "The stream closed after the listen request's result: a graceful \
             end (SUB §Graceful Closure)."
            .to_owned(),
        EndKind::Abrupt => "The stream ended with no result: an abrupt end. The spec's graceful \
             result is a SHOULD for server-initiated ends; a transport loss carries no response \
             and the client MAY reconnect (SUB §Graceful Closure) — with a NEW request id, \
             because a broken response stream's request MUST be re-issued with a new id (CHG \
             §Major changes 9). Nothing is replayed."
            .to_owned(),
        EndKind::Cancelled => format!(
            "The client cancelled {stream}. Over HTTP, closing the SSE stream is the cancel \
             (HTTP §Cancellation); over stdio the client MUST send notifications/cancelled with \
             requestId = the listen id (STDIO §Cancellation). Either way the server MUST NOT \
             send anything more for it, not even a result."
        ),
    }
}

/// Explain the last frame (or stream end) in the transcript.
pub fn last(events: &[TranscriptEvent]) -> String {
    // A graceful end only follows the result: the result is the frame worth explaining.
    let Some(ev) = events.iter().rev().find(|e| match e {
        TranscriptEvent::Frame { .. } | TranscriptEvent::Dropped { .. } => true,
        TranscriptEvent::End { how, .. } => *how != EndKind::Graceful,
        _ => false,
    }) else {
        return "no frame yet: `listen tools` opens a stream, then `explain` tells you about \
                what arrived"
            .to_owned();
    };
    let mut s = String::new();
    match ev {
        TranscriptEvent::Frame { stream, kind, .. } => {
            s.push_str(&format!("last frame: {kind} on [{stream}]\n"));
            s.push_str(about(kind));
            s.push('\n');
        }
        TranscriptEvent::Dropped { stream, kind, .. } => {
            s.push_str(&format!("last frame: {kind} for [{stream}], dropped\n"));
            s.push_str(
                "After a cancel the server MUST NOT send anything further for that request \
                 (HTTP §Cancellation; STDIO §Cancellation); a client SHOULD ignore what still \
                 arrives for a cancelled request (CAN §Behavior Requirements 5). Re-issued \
                 requests get new ids (CHG §Major changes 9), which is what lets the client tell \
                 stale frames from current ones.\n",
            );
        }
        TranscriptEvent::End { stream, how, .. } => {
            s.push_str(&format!("last event: [{stream}] ended\n"));
            s.push_str(&about_end(*how, stream));
            s.push('\n');
        }
        _ => {}
    }
    let broken: Vec<_> = ev.verdicts().iter().filter(|v| !v.ok).collect();
    if broken.is_empty() {
        s.push_str("The validator found no broken rule on it.\n");
    }
    for v in broken {
        s.push_str(&format!(
            "broken: {} — {}\n  {}\n  spec: {}\n",
            v.rule,
            v.title,
            v.detail,
            crate::rules_doc::pointer(&v.spec)
        ));
    }
    s
}
