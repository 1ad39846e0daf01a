//! Request handling shared by both transports: per-request `_meta` checks (§3), the method table
//! (§5) and the catalogue tools. HTTP-only checks (headers, Origin) live in `http.rs`.

use serde_json::{Map, Value, json};

use crate::catalog::{self, tool};
use crate::hub::Hub;
use crate::protocol::{
    self, NotificationKind, PROTOCOL_VERSION, RequestId, SUPPORTED_VERSIONS, SubscriptionFilter,
    error_code as code, meta, method,
};

/// What a request turns into.
#[derive(Debug)]
pub(crate) enum Reply {
    /// One response: a result or an error.
    Single(Value),
    /// Request-scoped notifications, then the final response (an SSE reply on HTTP).
    Streamed(Vec<Value>),
    /// A valid `subscriptions/listen`: open the stream.
    Listen {
        id: RequestId,
        requested: SubscriptionFilter,
    },
}

/// The identity the mock reports in every result's `_meta` (§3, §5).
pub fn server_info() -> Value {
    json!({"name": "mcp-tutor-mock", "version": env!("CARGO_PKG_VERSION")})
}

/// The graceful close the mock sends: the listen request's completion result (§4.9), with
/// `serverInfo` beside the tag because BASE §_meta says every result SHOULD carry it.
pub fn close_result(id: &RequestId) -> Value {
    let mut done = crate::protocol::listen_complete(id);
    if let Some(m) = done["result"]["_meta"].as_object_mut() {
        m.insert(meta::SERVER_INFO.into(), server_info());
    }
    done
}

/// Seconds-scale TTLs: lists are fixed; resource contents change, so reads are immediately stale.
const LIST_TTL_MS: u64 = 60_000;

/// The server capabilities: every subscription-delivered type is offered (§4.3).
pub fn capabilities() -> Value {
    json!({
        "tools": {"listChanged": true},
        "prompts": {"listChanged": true},
        "resources": {"subscribe": true, "listChanged": true},
    })
}

pub(crate) fn error(id: Option<&RequestId>, c: i64, msg: &str) -> Value {
    protocol::error_response(id, c, msg, None)
}

/// A complete result with `resultType`, optional cache fields, and `serverInfo` in `_meta`.
fn complete(id: &RequestId, mut result: Value, ttl_ms: Option<u64>) -> Value {
    if let Some(obj) = result.as_object_mut() {
        // resultType first: it is what a reader checks first (BASE §ResultType).
        let rt = obj
            .remove("resultType")
            .unwrap_or_else(|| "complete".into());
        let mut ordered = Map::new();
        ordered.insert("resultType".into(), rt);
        ordered.append(obj);
        *obj = ordered;
        if let Some(ttl) = ttl_ms {
            obj.insert("ttlMs".into(), ttl.into());
            obj.insert("cacheScope".into(), "public".into());
        }
        let m = obj.entry("_meta").or_insert_with(|| json!({}));
        if let Some(m) = m.as_object_mut() {
            m.insert(meta::SERVER_INFO.into(), server_info());
        }
    }
    protocol::result_response(id, result)
}

const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The per-request `_meta` fields the mock uses.
pub(crate) struct RequestMeta {
    pub capabilities: Map<String, Value>,
    pub log_level: Option<usize>,
}

/// Checks `params._meta` (§3): protocolVersion (an unsupported one is `-32022`, §1.3 order),
/// clientCapabilities required (`-32602` when missing), logLevel valid when present.
pub(crate) fn check_meta(id: &RequestId, params: Option<&Value>) -> Result<RequestMeta, Value> {
    let invalid = |msg: &str| Err(error(Some(id), code::INVALID_PARAMS, msg));
    let Some(m) = params.and_then(|p| p.get("_meta")) else {
        return invalid(
            "params._meta is required on every request: it carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
        );
    };
    let Some(m) = m.as_object() else {
        return invalid("params._meta must be an object");
    };
    match m.get(meta::PROTOCOL_VERSION) {
        Some(Value::String(v)) if SUPPORTED_VERSIONS.contains(&v.as_str()) => {}
        Some(Value::String(v)) => return Err(protocol::unsupported_version_error(Some(id), v)),
        Some(_) => {
            return invalid("_meta.io.modelcontextprotocol/protocolVersion must be a string");
        }
        None => {
            return invalid(&format!(
                "_meta.io.modelcontextprotocol/protocolVersion is required (this server speaks {PROTOCOL_VERSION})"
            ));
        }
    }
    let capabilities = match m.get(meta::CLIENT_CAPABILITIES) {
        Some(Value::Object(c)) => c.clone(),
        Some(_) => {
            return invalid("_meta.io.modelcontextprotocol/clientCapabilities must be an object");
        }
        None => {
            return invalid(
                "_meta.io.modelcontextprotocol/clientCapabilities is required ({} declares none)",
            );
        }
    };
    let log_level = match m.get(meta::LOG_LEVEL) {
        None => None,
        Some(Value::String(l)) => match LOG_LEVELS.iter().position(|x| x == l) {
            Some(i) => Some(i),
            None => {
                return invalid(&format!(
                    "unknown logLevel {l:?}; use one of {}",
                    LOG_LEVELS.join(", ")
                ));
            }
        },
        Some(_) => return invalid("_meta.io.modelcontextprotocol/logLevel must be a string"),
    };
    Ok(RequestMeta {
        capabilities,
        log_level,
    })
}

const METHODS: &[&str] = &[
    method::SERVER_DISCOVER,
    method::TOOLS_LIST,
    method::TOOLS_CALL,
    method::PROMPTS_LIST,
    method::PROMPTS_GET,
    method::RESOURCES_LIST,
    method::RESOURCES_READ,
    method::RESOURCES_TEMPLATES_LIST,
    method::SUBSCRIPTIONS_LISTEN,
];

pub(crate) fn is_known_method(m: &str) -> bool {
    METHODS.contains(&m)
}

/// Handles one request, in the §1.3 order after the transport's own checks:
/// `_meta`/version → method → params.
pub(crate) fn handle(hub: &Hub, id: &RequestId, m: &str, params: Option<&Value>) -> Reply {
    let rm = match check_meta(id, params) {
        Ok(rm) => rm,
        Err(e) => return Reply::Single(e),
    };
    if !is_known_method(m) {
        return Reply::Single(error(
            Some(id),
            code::METHOD_NOT_FOUND,
            &format!("method {m:?} is not implemented by this server"),
        ));
    }
    let empty = Map::new();
    let p = params.and_then(Value::as_object).unwrap_or(&empty);
    let invalid = |msg: &str| Reply::Single(error(Some(id), code::INVALID_PARAMS, msg));
    let single = |result: Value, ttl: Option<u64>| Reply::Single(complete(id, result, ttl));
    let list = |key: &str, items: Value| match page(hub, key, items, p.get("cursor")) {
        Ok(result) => single(result, Some(LIST_TTL_MS)),
        Err(e) => invalid(&e),
    };
    match m {
        method::SERVER_DISCOVER => single(
            json!({
                "supportedVersions": SUPPORTED_VERSIONS,
                "capabilities": capabilities(),
                "instructions": "mcp-tutor mock server. Open subscriptions/listen, then call the test_trigger_* tools to cause changes; resources have URIs like mock://notes/today.",
            }),
            Some(LIST_TTL_MS),
        ),
        method::TOOLS_LIST => list("tools", catalog::tools_offered(hub.control_tools())),
        method::PROMPTS_LIST => list("prompts", catalog::prompts()),
        method::RESOURCES_LIST => list(
            "resources",
            catalog::RESOURCES
                .iter()
                .map(catalog::resource_json)
                .collect(),
        ),
        method::RESOURCES_TEMPLATES_LIST => list("resourceTemplates", catalog::templates()),
        method::RESOURCES_READ => {
            let Some(uri) = p.get("uri").and_then(Value::as_str) else {
                return invalid("resources/read needs params.uri (a string)");
            };
            match read_resource(hub, uri) {
                Some(contents) => single(json!({"contents": contents}), Some(0)),
                // RES §Error Handling: -32602, never empty contents, never -32002.
                None => invalid(&format!(
                    "resource not found: {uri:?}; resources/list names the ones that exist"
                )),
            }
        }
        method::PROMPTS_GET => match prompt(p) {
            Ok(messages) => single(json!({"messages": messages}), None),
            Err(e) => invalid(&e),
        },
        method::TOOLS_CALL => call_tool(hub, id, p, &rm),
        method::SUBSCRIPTIONS_LISTEN => match p.get("notifications") {
            None => invalid(
                "subscriptions/listen needs params.notifications (the filter, e.g. {\"toolsListChanged\":true})",
            ),
            Some(f) => match SubscriptionFilter::from_json(f) {
                Ok(requested) => Reply::Listen {
                    id: id.clone(),
                    requested,
                },
                Err(e) => invalid(&e.at("params.notifications")),
            },
        },
        _ => Reply::Single(error(
            Some(id),
            code::INTERNAL_ERROR,
            "method table mismatch",
        )),
    }
}

/// prompts/get: the messages of the prompt `params.name` with `params.arguments`.
fn prompt(p: &Map<String, Value>) -> Result<Value, String> {
    let Some(name) = p.get("name").and_then(Value::as_str) else {
        return Err("prompts/get needs params.name (a string)".into());
    };
    let empty = Map::new();
    let args = p
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    catalog::prompt_messages(name, args)
}

/// Where a cursor this server issued starts its page. Cursors are opaque to clients (PAGE).
const CURSOR_PREFIX: &str = "mock-page-";

/// One page of the list `items` as the result `{key: [...], nextCursor?}`: the page `cursor`
/// names, or the first. Without a page size every list is one page, so no cursor is valid.
fn page(hub: &Hub, key: &str, items: Value, cursor: Option<&Value>) -> Result<Value, String> {
    let mut items = match items {
        Value::Array(a) => a,
        other => vec![other],
    };
    let Some(size) = hub.page_size() else {
        return match cursor {
            None => Ok(json!({ key: items })),
            Some(_) => {
                Err("unknown cursor: every list here fits on one page, so omit `cursor`".into())
            }
        };
    };
    let start = match cursor {
        None => 0,
        Some(c) => c
            .as_str()
            .and_then(|c| c.strip_prefix(CURSOR_PREFIX))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0 && *n < items.len())
            .ok_or_else(|| {
                format!("unknown cursor {c}: send the nextCursor of the previous page as it came")
            })?,
    };
    let end = (start + size).min(items.len());
    let rest = items.len() - end;
    let mut result = json!({ key: items.drain(start..end).collect::<Vec<_>>() });
    if rest > 0 {
        result["nextCursor"] = json!(format!("{CURSOR_PREFIX}{end}"));
    }
    Ok(result)
}

fn read_resource(hub: &Hub, uri: &str) -> Option<Value> {
    let r = catalog::resource(uri)?;
    let rev = hub.revisions.get(uri);
    let text = if rev == 0 || r.mime_type != "text/markdown" {
        r.body.to_owned()
    } else {
        format!(
            "{}\n_updated {rev} time(s) by test_trigger_resource_update_\n",
            r.body
        )
    };
    Some(json!([{"uri": r.uri, "mimeType": r.mime_type, "text": text}]))
}

fn text_result(text: impl Into<String>) -> Value {
    json!({"content": [{"type": "text", "text": text.into()}], "isError": false})
}

fn call_tool(hub: &Hub, id: &RequestId, p: &Map<String, Value>, rm: &RequestMeta) -> Reply {
    let invalid = |msg: &str| Reply::Single(error(Some(id), code::INVALID_PARAMS, msg));
    let Some(name) = p.get("name").and_then(Value::as_str) else {
        return invalid("tools/call needs params.name (a string)");
    };
    let empty = Map::new();
    let args = match p.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(a)) => a,
        Some(_) => return invalid("tools/call params.arguments must be an object"),
    };
    let done = |text: String| Reply::Single(complete(id, text_result(text), None));
    if let Some(outcome) = crate::control::call(hub, name, args) {
        return match outcome {
            Ok((text, structured)) => {
                let mut result = text_result(text);
                result["structuredContent"] = structured;
                Reply::Single(complete(id, result, None))
            }
            Err(msg) => invalid(&msg),
        };
    }
    let trigger = |kind: NotificationKind| {
        hub.trigger(kind, None);
        done(format!(
            "sent {} to every listen stream that asked for it",
            kind.method()
        ))
    };
    match name {
        tool::ECHO => done(
            args.get("text")
                .and_then(Value::as_str)
                .unwrap_or("hello")
                .to_owned(),
        ),
        tool::READ_NOTE => match read_note(hub, args) {
            Ok(text) => done(text),
            Err(e) => invalid(&e),
        },
        tool::TRIGGER_TOOL_CHANGE => trigger(NotificationKind::ToolsListChanged),
        tool::TRIGGER_PROMPT_CHANGE => trigger(NotificationKind::PromptsListChanged),
        tool::TRIGGER_RESOURCE_LIST_CHANGE => trigger(NotificationKind::ResourcesListChanged),
        tool::TRIGGER_RESOURCE_UPDATE => match update_resource(hub, args) {
            Ok(text) => done(text),
            Err(e) => invalid(&e),
        },
        tool::CLOSE_SUBSCRIPTIONS => {
            let n = hub.close_all();
            done(format!("closing {n} subscription(s) gracefully"))
        }
        tool::MISSING_CAPABILITY => {
            if rm.capabilities.contains_key("sampling") {
                done("the request declared `sampling`, so this tool may rely on it".into())
            } else {
                Reply::Single(protocol::missing_capability_error(
                    Some(id),
                    json!({"sampling": {}}),
                    "test_missing_capability needs the client capability `sampling`; declare it in _meta.io.modelcontextprotocol/clientCapabilities",
                ))
            }
        }
        tool::STREAMING_ELICITATION => Reply::Single(streaming_elicitation(id, p, rm)),
        tool::LOGGING_TOOL => logging_tool(id, rm),
        other => invalid(&format!(
            "unknown tool {other:?}; tools/list names the ones that exist"
        )),
    }
}

/// read_note: the text of the note `name` (`mock://notes/{name}`).
fn read_note(hub: &Hub, args: &Map<String, Value>) -> Result<String, String> {
    let Some(note) = args.get("name").and_then(Value::as_str) else {
        return Err("read_note needs the string argument `name` (e.g. \"today\")".into());
    };
    match read_resource(hub, &format!("mock://notes/{note}")) {
        Some(c) => Ok(c[0]["text"].as_str().unwrap_or_default().to_owned()),
        None => Err(format!(
            "no note named {note:?}; try \"today\" or \"ideas\""
        )),
    }
}

/// The resource-update trigger: `uri` (or the default one) updated, its subscribers told.
fn update_resource(hub: &Hub, args: &Map<String, Value>) -> Result<String, String> {
    let uri = match args.get("uri") {
        None | Some(Value::Null) => catalog::DEFAULT_UPDATE_URI,
        Some(Value::String(u)) => u.as_str(),
        Some(_) => return Err("`uri` must be a string".into()),
    };
    if catalog::resource(uri).is_none() {
        return Err(format!(
            "resource not found: {uri:?}; resources/list names the ones that exist"
        ));
    }
    hub.trigger(NotificationKind::ResourceUpdated, Some(uri));
    Ok(format!(
        "updated {uri}; sent notifications/resources/updated to streams subscribed to it"
    ))
}

/// A tool that needs input: asked for with an input_required result (servers never send
/// requests), answered once the retry carries `inputResponses`.
fn streaming_elicitation(id: &RequestId, p: &Map<String, Value>, rm: &RequestMeta) -> Value {
    if !rm.capabilities.contains_key("elicitation") {
        return protocol::missing_capability_error(
            Some(id),
            json!({"elicitation": {}}),
            "test_streaming_elicitation needs the client capability `elicitation`",
        );
    }
    if p.contains_key("inputResponses") {
        return complete(id, text_result("thanks for the input"), None);
    }
    complete(
        id,
        json!({
            "resultType": "input_required",
            "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
                "message": "Continue?",
                "requestedSchema": {"type": "object", "properties": {"confirmed": {"type": "boolean"}}}
            }}}
        }),
        None,
    )
}

/// A tool that logs: a notifications/message before the result when the request asked for
/// that level (LOG §Per-request log level: no logLevel, no notifications/message).
fn logging_tool(id: &RequestId, rm: &RequestMeta) -> Reply {
    let result = complete(
        id,
        text_result("logged (if you asked for a logLevel)"),
        None,
    );
    match rm.log_level {
        Some(threshold) if threshold <= 1 => Reply::Streamed(vec![
            protocol::notification(
                method::MESSAGE,
                json!({"level": "info", "logger": "mock_server", "data": "test_logging_tool ran"}),
            ),
            result,
        ]),
        _ => Reply::Single(result),
    }
}
