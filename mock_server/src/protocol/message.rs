//! One JSON-RPC frame classified once: request, notification, result, error or invalid, with
//! typed access to what the rules look at (`_meta`, the subscription tag, the ack's filter).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{FilterError, JSONRPC_VERSION, RequestId, SubscriptionFilter, meta, method};

/// A JSON-RPC error object (§6; BASE §Error Responses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// One JSON-RPC message, classified. Built by [`Message::classify`]; `raw` keeps the exact JSON so
/// a checker can inspect what the typed view cannot (e.g. a tag of the wrong type).
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
        raw: Value,
    },
    Notification {
        method: String,
        params: Option<Value>,
        raw: Value,
    },
    Result {
        id: RequestId,
        result: Value,
        raw: Value,
    },
    Error {
        /// `None` when the server could not read the request id (BASE §Error Responses).
        id: Option<RequestId>,
        error: ErrorObject,
        raw: Value,
    },
    /// Not a valid JSON-RPC 2.0 message; `reason` says why, in words a learner can act on.
    Invalid { reason: String, raw: Value },
}

impl Message {
    /// Classifies a JSON value as a JSON-RPC 2.0 message.
    pub fn classify(v: &Value) -> Message {
        let invalid = |reason: &str| Message::Invalid {
            reason: reason.to_owned(),
            raw: v.clone(),
        };
        let Some(obj) = v.as_object() else {
            return invalid("a JSON-RPC message must be a JSON object (batches are not allowed)");
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some(JSONRPC_VERSION) {
            return invalid(r#"missing or wrong "jsonrpc" field (must be "2.0")"#);
        }
        let params = obj.get("params").cloned();
        if let Some(p) = &params
            && !p.is_object()
            && !p.is_array()
        {
            return invalid(r#""params" must be an object or an array"#);
        }
        match (obj.get("method"), obj.get("id")) {
            (Some(Value::String(m)), None) => {
                if obj.contains_key("result") || obj.contains_key("error") {
                    return invalid("a notification must not carry result or error");
                }
                Message::Notification {
                    method: m.clone(),
                    params,
                    raw: v.clone(),
                }
            }
            (Some(Value::String(m)), Some(id)) => {
                let Some(id) = RequestId::from_value(id) else {
                    return invalid(&RequestId::why_not(id));
                };
                if obj.contains_key("result") || obj.contains_key("error") {
                    return invalid("a request must not carry result or error");
                }
                Message::Request {
                    id,
                    method: m.clone(),
                    params,
                    raw: v.clone(),
                }
            }
            (Some(_), _) => invalid(r#""method" must be a string"#),
            (None, id) => Message::classify_response(v, obj, id),
        }
    }

    /// A message without a method: a result or an error response.
    fn classify_response(
        v: &Value,
        obj: &serde_json::Map<String, Value>,
        id: Option<&Value>,
    ) -> Message {
        let invalid = |reason: &str| Message::Invalid {
            reason: reason.to_owned(),
            raw: v.clone(),
        };
        match (obj.get("result"), obj.get("error")) {
            (Some(result), None) => {
                let Some(id) = id.and_then(RequestId::from_value) else {
                    return invalid("a result response needs a string or integer id");
                };
                Message::Result {
                    id,
                    result: result.clone(),
                    raw: v.clone(),
                }
            }
            (None, Some(err)) => {
                let Ok(error) = serde_json::from_value::<ErrorObject>(err.clone()) else {
                    return invalid(
                        r#""error" must be an object with an integer "code" and a string "message""#,
                    );
                };
                let id = match id {
                    None | Some(Value::Null) => None,
                    Some(other) => match RequestId::from_value(other) {
                        Some(id) => Some(id),
                        None => {
                            return invalid(
                                "an error response id must be a string, an integer or null",
                            );
                        }
                    },
                };
                Message::Error {
                    id,
                    error,
                    raw: v.clone(),
                }
            }
            (Some(_), Some(_)) => invalid("a response must not carry both result and error"),
            (None, None) => invalid("neither a request, a notification nor a response"),
        }
    }

    /// Parses one line / body and classifies it; a parse failure is `Invalid`.
    pub fn parse(text: &str) -> Message {
        match serde_json::from_str::<Value>(text) {
            Ok(v) => Message::classify(&v),
            Err(e) => Message::Invalid {
                reason: format!("not JSON: {e}"),
                raw: Value::String(text.to_owned()),
            },
        }
    }

    pub fn raw(&self) -> &Value {
        match self {
            Message::Request { raw, .. }
            | Message::Notification { raw, .. }
            | Message::Result { raw, .. }
            | Message::Error { raw, .. }
            | Message::Invalid { raw, .. } => raw,
        }
    }

    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request { id, .. } | Message::Result { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            _ => None,
        }
    }

    pub fn params(&self) -> Option<&Value> {
        match self {
            Message::Request { params, .. } | Message::Notification { params, .. } => {
                params.as_ref()
            }
            _ => None,
        }
    }

    pub fn result(&self) -> Option<&Value> {
        match self {
            Message::Result { result, .. } => Some(result),
            _ => None,
        }
    }

    pub fn error(&self) -> Option<&ErrorObject> {
        match self {
            Message::Error { error, .. } => Some(error),
            _ => None,
        }
    }

    /// `params._meta` of a request/notification, or `result._meta` of a result.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        let holder = match self {
            Message::Request { .. } | Message::Notification { .. } => self.params(),
            Message::Result { result, .. } => Some(result),
            _ => None,
        };
        holder?.get("_meta")?.as_object()
    }

    /// The raw `io.modelcontextprotocol/subscriptionId` value, whatever its JSON type (§4.6).
    pub fn subscription_tag(&self) -> Option<&Value> {
        self.meta()?.get(meta::SUBSCRIPTION_ID)
    }

    /// The subscription tag as a [`RequestId`], `None` if absent or not a valid id type.
    pub fn subscription_id(&self) -> Option<RequestId> {
        self.subscription_tag().and_then(RequestId::from_value)
    }

    /// True when `subscription_tag` deep-equals `id` (type included), §4.11 #2.
    pub fn is_tagged_with(&self, id: &RequestId) -> bool {
        self.subscription_tag() == Some(&id.to_value())
    }

    pub fn is_request(&self) -> bool {
        matches!(self, Message::Request { .. })
    }

    pub fn is_notification(&self) -> bool {
        matches!(self, Message::Notification { .. })
    }

    pub fn is_response(&self) -> bool {
        matches!(self, Message::Result { .. } | Message::Error { .. })
    }

    /// The id the sender gave, read even from a frame that is otherwise not valid JSON-RPC: a
    /// server answers an invalid request by that id when it can read it (BASE §Error Responses).
    pub fn claimed_id(&self) -> Option<RequestId> {
        match self {
            Message::Invalid { raw, .. } => raw
                .as_object()
                .and_then(|o| o.get("id"))
                .and_then(RequestId::from_value),
            other => other.id().cloned(),
        }
    }

    /// The method the sender gave, read even from a frame that is otherwise not valid JSON-RPC
    /// (what the frame was meant to be).
    pub fn claimed_method(&self) -> Option<&str> {
        match self {
            Message::Invalid { raw, .. } => raw.as_object()?.get("method")?.as_str(),
            other => other.method(),
        }
    }

    /// A request or notification of method `name`.
    pub fn is_method(&self, name: &str) -> bool {
        self.method() == Some(name)
    }

    /// What kind of frame this is, in a word a learner recognises: `request tools/list`, the
    /// notification's method, `result`, `error`. A frame that is not valid JSON-RPC is named by
    /// what it looks like (its method, else `unknown`), so the learner still sees what was meant.
    pub fn kind_word(&self) -> String {
        match self {
            Message::Request { method, .. } => format!("request {method}"),
            Message::Notification { method, .. } => method.clone(),
            Message::Result { .. } => "result".to_owned(),
            Message::Error { .. } => "error".to_owned(),
            Message::Invalid { raw, .. } => {
                let has = |k: &str| raw.as_object().is_some_and(|o| o.contains_key(k));
                match self.claimed_method() {
                    Some(m) if has("id") => format!("request {m}"),
                    Some(m) => m.to_owned(),
                    None if has("result") => "result".to_owned(),
                    None if has("error") => "error".to_owned(),
                    None => "unknown".to_owned(),
                }
            }
        }
    }

    /// One field of `params` (of a request or notification).
    pub fn param(&self, key: &str) -> Option<&Value> {
        self.params()?.as_object()?.get(key)
    }

    /// One field of a result.
    pub fn result_field(&self, key: &str) -> Option<&Value> {
        self.result()?.as_object()?.get(key)
    }

    /// `result.resultType`, whatever its JSON type (BASE §Results: every result carries it).
    pub fn result_type(&self) -> Option<&Value> {
        self.result_field("resultType")
    }

    /// A result of `tools/call` that reports `isError: true` (a tool failure, not a protocol
    /// error).
    pub fn is_tool_error(&self) -> bool {
        self.result_field("isError") == Some(&Value::Bool(true))
    }

    /// The honoured subset an acknowledgement carries in `params.notifications` (§4.4); `None`
    /// for any other message. An ack without the field grants nothing.
    pub fn ack_filter(&self) -> Option<Result<SubscriptionFilter, FilterError>> {
        if !self.is_method(method::SUBSCRIPTIONS_ACKNOWLEDGED) {
            return None;
        }
        Some(match self.param("notifications") {
            Some(v) => SubscriptionFilter::from_json(v),
            None => Ok(SubscriptionFilter::default()),
        })
    }

    /// The request a `notifications/cancelled` names in `params.requestId` (CAN); `None` for
    /// any other message or an id of the wrong type.
    pub fn cancelled_request(&self) -> Option<RequestId> {
        if !self.is_method(method::CANCELLED) {
            return None;
        }
        self.param("requestId").and_then(RequestId::from_value)
    }

    /// `params.uri` of a `notifications/resources/updated` (§4.5).
    pub fn updated_uri(&self) -> Option<&str> {
        if !self.is_method(method::RESOURCES_UPDATED) {
            return None;
        }
        self.param("uri").and_then(Value::as_str)
    }

    /// The items a list result holds under `list` (`tools`, `prompts`, `resources`); empty when
    /// absent.
    pub fn listed(&self, list: &str) -> &[Value] {
        self.result_field(list)
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The string `field` of each item [`Message::listed`] under `list` (`name` of each tool,
    /// `uri` of each resource); items without it are skipped.
    pub fn listed_names(&self, list: &str, field: &str) -> Vec<String> {
        self.listed(list)
            .iter()
            .filter_map(|i| i.as_object()?.get(field)?.as_str().map(str::to_owned))
            .collect()
    }

    /// `result.nextCursor` of a paginated list (BASE §Pagination).
    pub fn next_cursor(&self) -> Option<&str> {
        self.result_field("nextCursor").and_then(Value::as_str)
    }

    /// The `text` of the first item under `list` in a result: `content` of a tool result,
    /// `contents` of `resources/read`.
    pub fn first_text(&self, list: &str) -> Option<&str> {
        self.listed(list)
            .first()?
            .as_object()?
            .get("text")?
            .as_str()
    }
}

/// Whether `v` is an `Implementation` (`serverInfo`, `clientInfo`): an object with a string
/// `name` and a string `version` (BASE §_meta).
pub fn is_implementation(v: &Value) -> bool {
    let text = |k: &str| {
        v.as_object()
            .and_then(|o| o.get(k))
            .is_some_and(Value::is_string)
    };
    text("name") && text("version")
}

impl ErrorObject {
    /// One field of `error.data` (e.g. `supported` and `requested` of `-32022`).
    pub fn data_field(&self, key: &str) -> Option<&Value> {
        self.data.as_ref()?.as_object()?.get(key)
    }
}

/// A message serializes as the JSON it was read from, so a transcript shows it unchanged.
impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::*;
    use serde_json::json;
    #[test]
    fn classify_each_kind() {
        let req = Message::classify(&listen_request(
            &"tutor-7".into(),
            &SubscriptionFilter::all(&[]),
        ));
        assert!(req.is_request());
        assert_eq!(req.method(), Some(method::SUBSCRIPTIONS_LISTEN));
        assert_eq!(req.id(), Some(&RequestId::from("tutor-7")));
        assert_eq!(
            req.meta().and_then(|m| m.get(meta::PROTOCOL_VERSION)),
            Some(&json!(PROTOCOL_VERSION))
        );

        let id = RequestId::Int(3);
        let a = Message::classify(&ack(&id, &SubscriptionFilter::default()));
        assert!(a.is_notification());
        assert_eq!(a.id(), None);
        assert!(a.is_tagged_with(&id));
        assert!(!a.is_tagged_with(&RequestId::from("3")));

        let done = Message::classify(&listen_complete(&id));
        assert_eq!(done.id(), Some(&id));
        assert_eq!(done.result().unwrap()["resultType"], "complete");
        assert_eq!(done.subscription_id(), Some(id.clone()));

        let err = Message::classify(&error_response(None, -32700, "bad", None));
        assert_eq!(err.error().map(|e| e.code), Some(-32700));
        assert_eq!(err.id(), None);

        for bad in [
            json!([1]),
            json!({"jsonrpc": "1.0", "method": "x"}),
            json!({"jsonrpc": "2.0", "id": null, "method": "x"}),
            json!({"jsonrpc": "2.0", "id": 1}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": ""}}),
            json!({"jsonrpc": "2.0", "method": "x", "params": 3}),
        ] {
            assert!(
                matches!(Message::classify(&bad), Message::Invalid { .. }),
                "{bad}"
            );
        }
        assert!(matches!(Message::parse("{nope"), Message::Invalid { .. }));
    }

    #[test]
    fn a_frame_is_read_once_into_what_the_rules_look_at() {
        let id = RequestId::from("s1");
        let honoured = SubscriptionFilter {
            prompts_list_changed: Some(true),
            ..Default::default()
        };
        let ack = Message::classify(&ack(&id, &honoured));
        assert_eq!(ack.kind_word(), method::SUBSCRIPTIONS_ACKNOWLEDGED);
        assert_eq!(ack.ack_filter(), Some(Ok(honoured)));
        assert_eq!(ack.updated_uri(), None);
        let bad_ack = Message::classify(&json!({"jsonrpc": "2.0",
            "method": method::SUBSCRIPTIONS_ACKNOWLEDGED, "params": {"notifications": [true]}}));
        assert!(matches!(bad_ack.ack_filter(), Some(Err(_))));

        let updated = Message::classify(&resource_updated(&id, "mock://a"));
        assert_eq!(updated.updated_uri(), Some("mock://a"));
        assert_eq!(updated.ack_filter(), None);
        let cancel = Message::classify(&cancelled(&RequestId::Int(4), None));
        assert_eq!(cancel.cancelled_request(), Some(RequestId::Int(4)));

        let listed = Message::classify(&result_response(
            &RequestId::Int(2),
            json!({"tools": [{"name": "a"}, {"title": "no name"}, {"name": "b"}],
                   "nextCursor": "c2", "content": [{"type": "text", "text": "hi"}]}),
        ));
        assert_eq!(listed.kind_word(), "result");
        assert_eq!(listed.listed("tools").len(), 3);
        assert_eq!(listed.listed_names("tools", "name"), ["a", "b"]);
        assert_eq!(listed.next_cursor(), Some("c2"));
        assert_eq!(listed.first_text("content"), Some("hi"));
        assert!(!listed.is_tool_error());
        let failed = Message::classify(&result_response(
            &RequestId::Int(3),
            json!({"isError": true, "resultType": "complete"}),
        ));
        assert!(failed.is_tool_error());
        assert_eq!(failed.result_type(), Some(&json!("complete")));

        let refusal = Message::classify(&unsupported_version_error(None, "2031-01-01"));
        let data = refusal.error().expect("an error");
        assert_eq!(data.data_field("requested"), Some(&json!("2031-01-01")));

        // An invalid frame still says what it was meant to be, and whom it answers.
        let invalid = Message::classify(&json!({"id": 9, "method": "tools/list"}));
        assert!(matches!(invalid, Message::Invalid { .. }));
        assert_eq!(invalid.kind_word(), "request tools/list");
        assert_eq!(invalid.claimed_id(), Some(RequestId::Int(9)));
        assert_eq!(invalid.claimed_method(), Some("tools/list"));
        assert_eq!(invalid.id(), None);

        // Serialized, a message is the JSON it was read from.
        let raw = json!({"jsonrpc": "2.0", "method": "x", "params": {"k": 1}});
        assert_eq!(
            serde_json::to_value(Message::classify(&raw)).expect("serializes"),
            raw
        );
        assert!(is_implementation(&json!({"name": "s", "version": "1"})));
        assert!(!is_implementation(&json!({"name": "s"})));
    }
}
