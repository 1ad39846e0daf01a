//! MCP 2026-07-28 message types and protocol constants, shared by the mock server and the lab's
//! checking client. This is the ONE place for them: data and pure functions only, no I/O.
//!
//! References in doc comments name spec sections by short name (e.g. "SUB §Acknowledgment"; the
//! legend and every rule are in `docs/rules.md`). Bare numbers such as "§4.4" are section numbers
//! of the digest this code was first written against; they are never printed.

use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// The only protocol revision this crate speaks (§0; VER).
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// Versions the mock implements; sent as `data.supported` in `-32022` errors (§1.3, §5).
pub const SUPPORTED_VERSIONS: &[&str] = &[PROTOCOL_VERSION];

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// Method names (requests and notifications).
pub mod method {
    /// Opens a subscription stream (§4.1; SUB §Opening a Stream).
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// The acknowledgement, first message of every subscription (§4.4; SUB §Acknowledgment).
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// Carries `params.uri` (§4.5; TS `ResourceUpdatedNotificationParams`).
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// Client cancel on stdio; server teardown of a listen on stdio (§2, §4.9; CAN).
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Never on a listen stream (§1.4, §4.5).
    pub const PROGRESS: &str = "notifications/progress";
    /// Never on a listen stream (§3; LOG §Per-request log level).
    pub const MESSAGE: &str = "notifications/message";
    /// Servers MUST implement it (§5; DISC intro).
    pub const SERVER_DISCOVER: &str = "server/discover";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
}

/// Reserved `_meta` keys (§3; BASE §_meta).
pub mod meta {
    /// Tag on every listen-stream notification and on the graceful listen result (§3, §4.6).
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// Required in every request's `params._meta` (§3).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Required in every request's `params._meta`; `{}` means none (§3).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Optional, SHOULD be sent (§3).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// In every result's `_meta`, SHOULD (§3, §5).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Optional, deprecated; absent ⇒ no `notifications/message` for the request (§3; LOG).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Request `_meta` key; the progress notification carries it as `params.progressToken` (§3).
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// HTTP header names (§1.2). Names compare case-insensitively; these are the spec spellings.
pub mod header {
    pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
    /// REQUIRED on all requests; equals the body `method` (§1.2).
    pub const MCP_METHOD: &str = "Mcp-Method";
    /// REQUIRED only for `tools/call`, `prompts/get` (params.name), `resources/read` (params.uri) (§1.2).
    pub const MCP_NAME: &str = "Mcp-Name";
    /// Prefix of `Mcp-Param-{Name}` headers for `x-mcp-header` tool arguments (§1.2).
    pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
    /// SHOULD be `no` on every SSE response (§1.4).
    pub const X_ACCEL_BUFFERING: &str = "X-Accel-Buffering";
    /// Gone in 2026-07-28: servers ignore it and never mint or echo it (§1.2).
    pub const MCP_SESSION_ID: &str = "Mcp-Session-Id";
    /// No resumption in 2026-07-28: servers ignore it (§1.4).
    pub const LAST_EVENT_ID: &str = "Last-Event-ID";
    /// What a client lists in `Accept` (both are MUST, §1.2).
    pub const ACCEPT_VALUE: &str = "application/json, text/event-stream";
}

/// JSON-RPC and MCP error codes (§6; BASE §Error Codes).
pub mod error_code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method; HTTP 404 (§1.3).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Missing required `_meta`, unknown tool/prompt, resource not found (§6).
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Header missing or ≠ body; HTTP 400 (§1.3).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// `data.requiredCapabilities`; HTTP 400 (§1.3).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// `data.supported` + `data.requested`; HTTP 400 (§1.3, §5).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    /// The spec name of a code, for display ("HeaderMismatch").
    pub fn name(code: i64) -> Option<&'static str> {
        Some(match code {
            PARSE_ERROR => "ParseError",
            INVALID_REQUEST => "InvalidRequest",
            METHOD_NOT_FOUND => "MethodNotFound",
            INVALID_PARAMS => "InvalidParams",
            INTERNAL_ERROR => "InternalError",
            HEADER_MISMATCH => "HeaderMismatch",
            MISSING_REQUIRED_CLIENT_CAPABILITY => "MissingRequiredClientCapability",
            UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Request ids
// ---------------------------------------------------------------------------------------------

/// A JSON-RPC request id: a string or an integer, never null (§4.6; BASE §Requests).
///
/// The JSON type is part of the identity: `RequestId::Str("7")` ≠ `RequestId::Int(7)`, and the
/// subscription tag must echo the listen id with the same type (§4.6, §4.11 #2).
/// `Display` prints the JSON form (`"tutor-7"` with quotes, `7` without) so the type stays visible.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    Int(i64),
    Str(String),
}

impl RequestId {
    /// Reads an id from JSON: a string or an integer that fits i64; anything else is `None`.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Str(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Int),
            _ => None,
        }
    }

    /// Why `v` is not a request id, for a value [`RequestId::from_value`] refused: an integer
    /// beyond i64 is "out of range" (JSON allows it, this server's ids do not), anything else is
    /// the wrong type.
    pub fn why_not(v: &Value) -> String {
        // serde_json keeps integers beyond u64 as f64; 2^63 is the first one i64 cannot hold.
        let beyond_i64 = |f: f64| f.fract() == 0.0 && f.abs() >= 9_223_372_036_854_775_808.0;
        let out_of_range = match v {
            Value::Number(n) => n.is_u64() || n.as_f64().is_some_and(beyond_i64),
            _ => false,
        };
        if out_of_range {
            format!(
                "the request id {v} is out of range: integer ids must fit in a signed 64-bit integer ({} to {}); use a smaller number or a string",
                i64::MIN,
                i64::MAX
            )
        } else {
            let what = match v {
                Value::Number(_) => format!("a number with a fraction or exponent ({v})"),
                other => json_type_name(other).to_owned(),
            };
            format!("a request id must be a string or an integer (never null), not {what}")
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(*n),
            RequestId::Str(s) => Value::from(s.as_str()),
        }
    }

    /// The same id with its JSON type flipped (`7` ↔ `"7"`); used by the `id-type-changed` fault
    /// and by tests that prove a checker notices it.
    pub fn type_flipped(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(n.to_string()),
            RequestId::Str(s) => match s.parse::<i64>() {
                Ok(n) => Value::from(n),
                // A non-numeric string has no integer twin; an array is a type change too.
                Err(_) => json!([s]),
            },
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "{}", Value::from(s.as_str())),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Int(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::Str(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::Str(s)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Int(n) => s.serialize_i64(*n),
            RequestId::Str(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        RequestId::from_value(&v).ok_or_else(|| serde::de::Error::custom(RequestId::why_not(&v)))
    }
}

// ---------------------------------------------------------------------------------------------
// Message classification
// ---------------------------------------------------------------------------------------------

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
            (None, id) => match (obj.get("result"), obj.get("error")) {
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
            },
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
}

// ---------------------------------------------------------------------------------------------
// The subscription filter and notification kinds
// ---------------------------------------------------------------------------------------------

/// `params.notifications` of `subscriptions/listen` and of the ack (§4.2; SUB §Notification Filter).
///
/// Every field is optional; absent means "not subscribed", and `false` behaves like absent.
/// Reading it is strict (see [`SubscriptionFilter::from_json`]): serde's derived `Deserialize`
/// would also accept a JSON array for a struct, so `{"notifications":[true]}` would read as
/// `toolsListChanged: true`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
}

/// Why a JSON value is not a subscription filter; names the field (relative to the filter
/// object, e.g. `toolsListChanged`) so the sender can fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{problem}", field.as_ref().map(|f| format!("{f} ")).unwrap_or_default())]
pub struct FilterError {
    /// The offending field (`resourceSubscriptions[2]` for a list element), `None` when the
    /// filter itself has the wrong type.
    pub field: Option<String>,
    pub problem: String,
}

/// "an array", "a string", ... for messages about a wrong JSON type.
pub fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl FilterError {
    /// The message with the filter's own path in front: `params.notifications.toolsListChanged
    /// must be true or false, not an array`.
    pub fn at(&self, path: &str) -> String {
        match &self.field {
            Some(f) => format!("{path}.{f} {}", self.problem),
            None => format!("{path} {}", self.problem),
        }
    }
}

impl SubscriptionFilter {
    /// Reads a filter strictly: an object whose known fields have exactly the schema's types
    /// (booleans; an array of strings for `resourceSubscriptions`). Unknown fields (e.g.
    /// `taskIds` from other extensions) are ignored; `null` is not a boolean.
    pub fn from_json(v: &Value) -> Result<SubscriptionFilter, FilterError> {
        let Some(obj) = v.as_object() else {
            return Err(FilterError {
                field: None,
                problem: format!(
                    "must be an object like {{\"toolsListChanged\":true}}, not {}",
                    json_type_name(v)
                ),
            });
        };
        let flag = |name: &str| -> Result<Option<bool>, FilterError> {
            match obj.get(name) {
                None => Ok(None),
                Some(Value::Bool(b)) => Ok(Some(*b)),
                Some(other) => Err(FilterError {
                    field: Some(name.to_owned()),
                    problem: format!("must be true or false, not {}", json_type_name(other)),
                }),
            }
        };
        let uris = match obj.get("resourceSubscriptions") {
            None => None,
            Some(Value::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => out.push(s.clone()),
                        other => {
                            return Err(FilterError {
                                field: Some(format!("resourceSubscriptions[{i}]")),
                                problem: format!(
                                    "must be a URI string, not {}",
                                    json_type_name(other)
                                ),
                            });
                        }
                    }
                }
                Some(out)
            }
            Some(other) => {
                return Err(FilterError {
                    field: Some("resourceSubscriptions".into()),
                    problem: format!(
                        "must be an array of URI strings, not {}",
                        json_type_name(other)
                    ),
                });
            }
        };
        Ok(SubscriptionFilter {
            tools_list_changed: flag("toolsListChanged")?,
            prompts_list_changed: flag("promptsListChanged")?,
            resources_list_changed: flag("resourcesListChanged")?,
            resource_subscriptions: uris,
        })
    }

    /// Everything the mock offers: three list changes plus the given URIs.
    pub fn all(uris: &[&str]) -> Self {
        SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resources_list_changed: Some(true),
            resource_subscriptions: Some(uris.iter().map(|u| (*u).to_owned()).collect()),
        }
    }

    pub fn wants_tools(&self) -> bool {
        self.tools_list_changed == Some(true)
    }

    pub fn wants_prompts(&self) -> bool {
        self.prompts_list_changed == Some(true)
    }

    pub fn wants_resources_list(&self) -> bool {
        self.resources_list_changed == Some(true)
    }

    /// The subscribed URIs (empty when absent).
    pub fn uris(&self) -> &[String] {
        self.resource_subscriptions.as_deref().unwrap_or(&[])
    }

    /// Whether a `resources/updated` for `uri` belongs on this subscription: the URI itself or a
    /// sub-resource of a subscribed URI (§4.5; TS `ResourceUpdatedNotificationParams`).
    pub fn wants_resource(&self, uri: &str) -> bool {
        self.uris().iter().any(|s| uri_covers(s, uri))
    }

    /// Whether a notification of `kind` (for `uri`, when it is a resource update) may be sent.
    pub fn wants(&self, kind: NotificationKind, uri: Option<&str>) -> bool {
        match kind {
            NotificationKind::ToolsListChanged => self.wants_tools(),
            NotificationKind::PromptsListChanged => self.wants_prompts(),
            NotificationKind::ResourcesListChanged => self.wants_resources_list(),
            NotificationKind::ResourceUpdated => uri.is_some_and(|u| self.wants_resource(u)),
        }
    }

    /// True when nothing is subscribed (all absent, false or an empty URI list).
    /// The parts asked for, as the lab's `listen` step writes them: `tools`, `prompts`,
    /// `resources`, then each URI.
    pub fn parts(&self) -> Vec<String> {
        let mut w: Vec<String> = Vec::new();
        for (on, word) in [
            (self.wants_tools(), "tools"),
            (self.wants_prompts(), "prompts"),
            (self.wants_resources_list(), "resources"),
        ] {
            if on {
                w.push(word.to_owned());
            }
        }
        w.extend(self.uris().iter().cloned());
        w
    }

    /// [`SubscriptionFilter::parts`] in one line, `nothing` when empty.
    pub fn words(&self) -> String {
        let w = self.parts();
        if w.is_empty() {
            "nothing".to_owned()
        } else {
            w.join(" ")
        }
    }

    /// The parts of `self` that `other` leaves out (what an acknowledgement did not honour).
    pub fn missing_from(&self, other: &SubscriptionFilter) -> Vec<String> {
        let theirs = other.parts();
        self.parts()
            .into_iter()
            .filter(|p| !theirs.contains(p))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        !self.wants_tools()
            && !self.wants_prompts()
            && !self.wants_resources_list()
            && self.uris().is_empty()
    }
}

/// `sub` covers `uri` when equal, or when `uri` lies below it (`mock://notes` covers
/// `mock://notes/today`). [SILENT] The spec does not define "sub-resource"; path nesting is the
/// mock's reading.
pub fn uri_covers(sub: &str, uri: &str) -> bool {
    if sub == uri {
        return true;
    }
    match uri.strip_prefix(sub) {
        Some(rest) => sub.ends_with('/') || rest.starts_with('/'),
        None => false,
    }
}

/// The four notification types a listen stream can carry (§4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NotificationKind {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 4] = [
        NotificationKind::ToolsListChanged,
        NotificationKind::PromptsListChanged,
        NotificationKind::ResourcesListChanged,
        NotificationKind::ResourceUpdated,
    ];

    /// The JSON-RPC method name of this notification.
    pub fn method(self) -> &'static str {
        match self {
            NotificationKind::ToolsListChanged => method::TOOLS_LIST_CHANGED,
            NotificationKind::PromptsListChanged => method::PROMPTS_LIST_CHANGED,
            NotificationKind::ResourcesListChanged => method::RESOURCES_LIST_CHANGED,
            NotificationKind::ResourceUpdated => method::RESOURCES_UPDATED,
        }
    }

    pub fn from_method(m: &str) -> Option<NotificationKind> {
        NotificationKind::ALL.into_iter().find(|k| k.method() == m)
    }

    /// The filter field that opts into this kind (§4.2).
    pub fn filter_field(self) -> &'static str {
        match self {
            NotificationKind::ToolsListChanged => "toolsListChanged",
            NotificationKind::PromptsListChanged => "promptsListChanged",
            NotificationKind::ResourcesListChanged => "resourcesListChanged",
            NotificationKind::ResourceUpdated => "resourceSubscriptions",
        }
    }
}

impl fmt::Display for NotificationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.method())
    }
}

impl<'de> Deserialize<'de> for SubscriptionFilter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        SubscriptionFilter::from_json(&v).map_err(serde::de::Error::custom)
    }
}

// ---------------------------------------------------------------------------------------------
// Builders: what clients send
// ---------------------------------------------------------------------------------------------

/// The client identity this project sends as `clientInfo` (§3).
pub fn tutor_client_info() -> Value {
    json!({"name": "mcp-tutor", "version": env!("CARGO_PKG_VERSION")})
}

/// The per-request `_meta` every request carries: version, capabilities, clientInfo (§3; BASE §_meta).
pub fn request_meta(
    client_capabilities: &Value,
    client_info: Option<&Value>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(meta::PROTOCOL_VERSION.into(), PROTOCOL_VERSION.into());
    m.insert(
        meta::CLIENT_CAPABILITIES.into(),
        client_capabilities.clone(),
    );
    if let Some(info) = client_info {
        m.insert(meta::CLIENT_INFO.into(), info.clone());
    }
    m
}

/// A request with `params._meta` filled in (keys already present in `params._meta` win).
/// `params` must be an object or null.
pub fn request_with(
    id: &RequestId,
    method: &str,
    params: Value,
    client_capabilities: &Value,
) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut m = request_meta(client_capabilities, Some(&tutor_client_info()));
    if let Some(Value::Object(existing)) = params.remove("_meta") {
        m.extend(existing);
    }
    params.insert("_meta".into(), Value::Object(m));
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "method": method, "params": params})
}

/// A request declaring no client capabilities (`{}`).
pub fn request(id: &RequestId, method: &str, params: Value) -> Value {
    request_with(id, method, params, &json!({}))
}

/// `subscriptions/listen` with the given filter (§4.1).
pub fn listen_request(id: &RequestId, filter: &SubscriptionFilter) -> Value {
    request(
        id,
        method::SUBSCRIPTIONS_LISTEN,
        json!({"notifications": filter}),
    )
}

/// `tools/call` of `name` with `arguments` (§5).
pub fn tool_call(id: &RequestId, name: &str, arguments: Value) -> Value {
    request(
        id,
        method::TOOLS_CALL,
        json!({"name": name, "arguments": arguments}),
    )
}

/// `notifications/cancelled` naming `request_id` (§2; CAN). Sent by a stdio client to cancel a
/// listen, and by the mock when it tears a stdio subscription down (§4.9, where it also adds the
/// subscription tag).
pub fn cancelled(request_id: &RequestId, reason: Option<&str>) -> Value {
    let mut params = json!({"requestId": request_id});
    if let Some(r) = reason {
        params["reason"] = r.into();
    }
    notification(method::CANCELLED, params)
}

/// A notification with the given params (no `id`, §9 #58).
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": JSONRPC_VERSION, "method": method, "params": params})
}

// ---------------------------------------------------------------------------------------------
// Builders: what the server sends
// ---------------------------------------------------------------------------------------------

fn tag(id: &RequestId) -> Value {
    json!({ meta::SUBSCRIPTION_ID: id })
}

/// The acknowledgement: tagged, carrying the honoured subset (§4.4; SUB §Acknowledgment).
pub fn ack(id: &RequestId, honoured: &SubscriptionFilter) -> Value {
    notification(
        method::SUBSCRIPTIONS_ACKNOWLEDGED,
        json!({"_meta": tag(id), "notifications": honoured}),
    )
}

/// A tagged `…/list_changed`: `params` holds only `_meta` (§4.5). For
/// [`NotificationKind::ResourceUpdated`] use [`resource_updated`].
pub fn list_changed(kind: NotificationKind, id: &RequestId) -> Value {
    notification(kind.method(), json!({"_meta": tag(id)}))
}

/// A tagged `notifications/resources/updated` for `uri` (§4.5).
pub fn resource_updated(id: &RequestId, uri: &str) -> Value {
    notification(
        method::RESOURCES_UPDATED,
        json!({"_meta": tag(id), "uri": uri}),
    )
}

/// A tagged change notification of any kind; `uri` is used only for resource updates.
pub fn change_notification(kind: NotificationKind, id: &RequestId, uri: &str) -> Value {
    match kind {
        NotificationKind::ResourceUpdated => resource_updated(id, uri),
        other => list_changed(other, id),
    }
}

/// The graceful close of a listen: result with `resultType:"complete"` and the tag (§4.9).
pub fn listen_complete(id: &RequestId) -> Value {
    result_response(id, json!({"resultType": "complete", "_meta": tag(id)}))
}

/// A result response (`result` is sent as given).
pub fn result_response(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "result": result})
}

/// An error response; `id` is `None` (sent as `null`) only when the request id could not be read
/// (§6; BASE §Error Responses).
pub fn error_response(
    id: Option<&RequestId>,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "error": error})
}

/// `-32022` with both required `data` fields (§5; TS `UnsupportedProtocolVersionError`).
pub fn unsupported_version_error(id: Option<&RequestId>, requested: &str) -> Value {
    error_response(
        id,
        error_code::UNSUPPORTED_PROTOCOL_VERSION,
        &format!(
            "Unsupported protocol version {requested:?}; this server speaks {PROTOCOL_VERSION}"
        ),
        Some(json!({"supported": SUPPORTED_VERSIONS, "requested": requested})),
    )
}

/// `-32021` naming the capabilities the request needs (§1.3; BASE §_meta).
pub fn missing_capability_error(id: Option<&RequestId>, required: Value, why: &str) -> Value {
    error_response(
        id,
        error_code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        why,
        Some(json!({"requiredCapabilities": required})),
    )
}

// ---------------------------------------------------------------------------------------------
// Header values: the base64 sentinel (§1.2; HTTP §Value Encoding)
// ---------------------------------------------------------------------------------------------

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Why a header value could not be read (§1.3: answered with 400 + `-32020`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderValueError {
    #[error(
        "the value contains characters a header may not carry plainly (encode it as =?base64?…?=)"
    )]
    InvalidCharacters,
    #[error("the =?base64?…?= value is not valid padded standard base64")]
    BadBase64,
    #[error("the =?base64?…?= value does not decode to UTF-8 text")]
    NotUtf8,
}

/// Plain header-safe: visible ASCII and inner spaces only, no leading/trailing whitespace, and not
/// itself shaped like the sentinel (§1.2).
pub fn is_header_safe(value: &str) -> bool {
    value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_like_sentinel(value)
}

fn looks_like_sentinel(value: &str) -> bool {
    value.starts_with(SENTINEL_PREFIX)
        && value.ends_with(SENTINEL_SUFFIX)
        && value.len() >= SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len()
}

/// The value as a client must send it in `Mcp-Name` / `Mcp-Param-*`: plain when header-safe,
/// otherwise `=?base64?<standard, padded base64 of the UTF-8 bytes>?=` (§1.2).
pub fn encode_header_value(value: &str) -> String {
    if is_header_safe(value) {
        value.to_owned()
    } else {
        let b64 = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        format!("{SENTINEL_PREFIX}{b64}{SENTINEL_SUFFIX}")
    }
}

/// What a server compares with the body: the sentinel decoded, or the plain value checked for
/// invalid characters (§1.2 "Servers MUST decode before comparing"; §1.3 invalid characters).
/// The markers are case-sensitive, so `=?BASE64?…?=` is read as a plain value.
pub fn decode_header_value(value: &str) -> Result<String, HeaderValueError> {
    if looks_like_sentinel(value) {
        let inner = &value[SENTINEL_PREFIX.len()..value.len() - SENTINEL_SUFFIX.len()];
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .map_err(|_| HeaderValueError::BadBase64)?;
        return String::from_utf8(bytes).map_err(|_| HeaderValueError::NotUtf8);
    }
    // A plain value: visible ASCII with inner spaces/tabs. Leading/trailing whitespace is trimmed
    // by HTTP parsers before we see it, so it is not judged here.
    if value
        .bytes()
        .all(|b| (0x20..=0x7e).contains(&b) || b == b'\t')
    {
        Ok(value.to_owned())
    } else {
        Err(HeaderValueError::InvalidCharacters)
    }
}

/// The body field `Mcp-Name` mirrors, for the methods that REQUIRE the header: `params.name` for
/// `tools/call` and `prompts/get`, `params.uri` for `resources/read`; `None` for every other
/// method, which sends no `Mcp-Name` (§1.2; HTTP §Standard Request Headers).
pub fn mcp_name_field(m: &str) -> Option<&'static str> {
    match m {
        method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
        method::RESOURCES_READ => Some("uri"),
        _ => None,
    }
}

/// Whether an `Accept` header lists both media types a client MUST accept (§1.2). Parameters
/// (`;q=…`) are ignored; media types compare case-insensitively.
pub fn accept_lists_both(accept: &str) -> bool {
    let types: Vec<String> = accept
        .split(',')
        .map(|part| {
            part.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    types.iter().any(|t| t == "application/json") && types.iter().any(|t| t == "text/event-stream")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_in_words_and_what_another_leaves_out() {
        let asked = SubscriptionFilter::all(&["mock://a", "mock://b"]);
        assert_eq!(asked.words(), "tools prompts resources mock://a mock://b");
        assert_eq!(SubscriptionFilter::default().words(), "nothing");
        let honoured = SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["mock://a".into(), "mock://x".into()]),
            ..Default::default()
        };
        assert_eq!(
            asked.missing_from(&honoured),
            ["prompts", "resources", "mock://b"]
        );
        assert_eq!(honoured.missing_from(&asked), ["mock://x"]);
    }

    #[test]
    fn request_id_keeps_its_json_type() {
        let s: RequestId = serde_json::from_str(r#""7""#).unwrap();
        let n: RequestId = serde_json::from_str("7").unwrap();
        assert_eq!(s, RequestId::Str("7".into()));
        assert_eq!(n, RequestId::Int(7));
        assert_ne!(s, n);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#""7""#);
        assert_eq!(serde_json::to_string(&n).unwrap(), "7");
        assert_eq!(s.to_string(), r#""7""#);
        assert_eq!(n.to_string(), "7");
        assert!(serde_json::from_str::<RequestId>("null").is_err());
        assert!(serde_json::from_str::<RequestId>("1.5").is_err());
        assert_eq!(n.type_flipped(), json!("7"));
        assert_eq!(s.type_flipped(), json!(7));
        assert_eq!(RequestId::from("abc").type_flipped(), json!(["abc"]));
    }

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
    fn listen_complete_has_the_exact_shape() {
        assert_eq!(
            serde_json::to_string(&listen_complete(&"tutor-7".into())).unwrap(),
            r#"{"jsonrpc":"2.0","id":"tutor-7","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"}}}"#
        );
    }

    #[test]
    fn ack_and_notifications_match_the_reference_json() {
        let id = RequestId::from("tutor-7");
        let honoured = SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["mock://notes/today".into()]),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&ack(&id, &honoured)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["mock://notes/today"]}}}"#
        );
        assert_eq!(
            serde_json::to_string(&list_changed(NotificationKind::ToolsListChanged, &id)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"}}}"#
        );
        assert_eq!(
            serde_json::to_string(&resource_updated(&id, "mock://notes/today")).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"},"uri":"mock://notes/today"}}"#
        );
        assert_eq!(
            cancelled(&RequestId::Int(4), Some("bye")),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"bye"}})
        );
    }

    #[test]
    fn filter_false_is_absent_and_uris_cover_subresources() {
        let f: SubscriptionFilter = serde_json::from_value(json!({
            "toolsListChanged": false, "promptsListChanged": true,
            "resourceSubscriptions": ["mock://notes"], "taskIds": ["x"]
        }))
        .unwrap();
        assert!(!f.wants_tools());
        assert!(f.wants_prompts());
        assert!(!f.wants_resources_list());
        assert!(f.wants_resource("mock://notes"));
        assert!(f.wants_resource("mock://notes/today"));
        assert!(!f.wants_resource("mock://notesy"));
        assert!(!f.wants(NotificationKind::ResourceUpdated, None));
        assert!(SubscriptionFilter::default().is_empty());
        assert!(
            serde_json::from_value::<SubscriptionFilter>(json!({"toolsListChanged": "yes"}))
                .is_err()
        );
        for k in NotificationKind::ALL {
            assert_eq!(NotificationKind::from_method(k.method()), Some(k));
        }
    }

    #[test]
    fn a_filter_is_an_object_of_booleans_and_uri_strings_only() {
        // serde's derived Deserialize would read [true] as {"toolsListChanged": true}.
        for (bad, field) in [
            (json!([true]), None),
            (
                json!({"toolsListChanged": [true]}),
                Some("toolsListChanged"),
            ),
            (json!({"toolsListChanged": null}), Some("toolsListChanged")),
            (
                json!({"resourceSubscriptions": [1]}),
                Some("resourceSubscriptions[0]"),
            ),
        ] {
            let e = SubscriptionFilter::from_json(&bad).expect_err("refused");
            assert_eq!(e.field.as_deref(), field, "{bad}");
            assert!(serde_json::from_value::<SubscriptionFilter>(bad).is_err());
        }
        let e = SubscriptionFilter::from_json(&json!({"promptsListChanged": "yes"}))
            .expect_err("refused");
        assert_eq!(
            e.at("params.notifications"),
            "params.notifications.promptsListChanged must be true or false, not a string"
        );
    }

    #[test]
    fn ids_beyond_i64_are_out_of_range_and_fractions_the_wrong_type() {
        for big in ["9223372036854775808", "1e19", "-9223372036854775809"] {
            let v: Value = serde_json::from_str(big).expect("JSON");
            assert_eq!(RequestId::from_value(&v), None);
            assert!(RequestId::why_not(&v).contains("out of range"), "{big}");
        }
        for other in ["1.5", "1e3", "null", "true", "[1]"] {
            let v: Value = serde_json::from_str(other).expect("JSON");
            assert!(!RequestId::why_not(&v).contains("out of range"), "{other}");
        }
        let m = Message::parse(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"x"}"#);
        assert!(
            matches!(&m, Message::Invalid { reason, .. } if reason.contains("out of range")),
            "{m:?}"
        );
    }

    #[test]
    fn base64_sentinel_round_trips() {
        let cafe = "file:///notes/café.md";
        let enc = encode_header_value(cafe);
        assert_eq!(enc, "=?base64?ZmlsZTovLy9ub3Rlcy9jYWbDqS5tZA==?=");
        assert_eq!(decode_header_value(&enc).unwrap(), cafe);
        assert_eq!(
            encode_header_value("mock://notes/today"),
            "mock://notes/today"
        );
        // A plain value that looks like the sentinel must itself be encoded.
        let tricky = "=?base64?abc?=";
        let enc = encode_header_value(tricky);
        assert_ne!(enc, tricky);
        assert_eq!(decode_header_value(&enc).unwrap(), tricky);
        assert_eq!(encode_header_value(" padded"), "=?base64?IHBhZGRlZA==?=");
        assert_eq!(
            decode_header_value("=?base64?!!!?="),
            Err(HeaderValueError::BadBase64)
        );
        assert_eq!(
            decode_header_value("=?base64?/w==?="),
            Err(HeaderValueError::NotUtf8)
        );
        assert_eq!(
            decode_header_value("a\u{1}b"),
            Err(HeaderValueError::InvalidCharacters)
        );
        // Upper-case markers are not the sentinel: read as plain text.
        assert_eq!(
            decode_header_value("=?BASE64?YQ==?=").unwrap(),
            "=?BASE64?YQ==?="
        );
    }

    #[test]
    fn accept_needs_both_types() {
        assert!(accept_lists_both("application/json, text/event-stream"));
        assert!(accept_lists_both(
            "text/event-stream;q=0.9,Application/JSON"
        ));
        assert!(!accept_lists_both("application/json"));
        assert!(!accept_lists_both("*/*"));
    }

    #[test]
    fn requests_carry_required_meta() {
        let r = request(&RequestId::Int(1), method::TOOLS_LIST, json!({}));
        let m = &r["params"]["_meta"];
        assert_eq!(m[meta::PROTOCOL_VERSION], PROTOCOL_VERSION);
        assert_eq!(m[meta::CLIENT_CAPABILITIES], json!({}));
        assert_eq!(m[meta::CLIENT_INFO]["name"], "mcp-tutor");
        let r = request(
            &RequestId::Int(1),
            method::TOOLS_LIST,
            json!({"_meta": {meta::PROTOCOL_VERSION: "x"}}),
        );
        assert_eq!(r["params"]["_meta"][meta::PROTOCOL_VERSION], "x");
    }
}
