//! The mock's catalogue: a few tools, prompts and resources worth watching, with resource URIs a
//! learner can type. Lists are fixed (TOOLS §Capabilities: lists MUST NOT vary as a side effect of
//! other requests); resource *contents* change, which is what `resources/updated` announces.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::protocol::uri_covers;

/// One readable resource.
pub(crate) struct Resource {
    pub uri: &'static str,
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub mime_type: &'static str,
    pub body: &'static str,
}

pub(crate) const RESOURCES: &[Resource] = &[
    Resource {
        uri: "mock://notes",
        name: "notes",
        title: "Notes index",
        description: "Lists the notes. Subscribing to it covers every note below it (mock://notes/...).",
        mime_type: "text/markdown",
        body: "# Notes\n\n- mock://notes/today\n- mock://notes/ideas\n",
    },
    Resource {
        uri: "mock://notes/today",
        name: "today",
        title: "Today's note",
        description: "Updated by test_trigger_resource_update (its default URI).",
        mime_type: "text/markdown",
        body: "# Today\n\n- Open subscriptions/listen\n- Wait for the acknowledgement\n- Watch the tags\n",
    },
    Resource {
        uri: "mock://notes/ideas",
        name: "ideas",
        title: "Ideas",
        description: "A second note, a sub-resource of mock://notes.",
        mime_type: "text/markdown",
        body: "# Ideas\n\n- Two subscriptions, one channel: tell them apart by subscriptionId\n",
    },
    Resource {
        uri: "mock://status",
        name: "status",
        title: "Server status",
        description: "A small JSON document about the mock itself.",
        mime_type: "application/json",
        body: "{\"server\":\"mcp-tutor-mock\",\"protocolVersion\":\"2026-07-28\"}",
    },
];

/// The URIs of every resource, in `resources/list` order.
pub fn resource_uris() -> Vec<&'static str> {
    RESOURCES.iter().map(|r| r.uri).collect()
}

/// The default URI for resource updates.
pub const DEFAULT_UPDATE_URI: &str = "mock://notes/today";

pub(crate) fn resource(uri: &str) -> Option<&'static Resource> {
    RESOURCES.iter().find(|r| r.uri == uri)
}

/// [SILENT] mock rule: a subscription URI is honoured when it names a resource or covers one.
pub(crate) fn uri_is_known(uri: &str) -> bool {
    RESOURCES.iter().any(|r| uri_covers(uri, r.uri))
}

/// Contents change with every update; the revision makes that visible on `resources/read`.
#[derive(Default)]
pub(crate) struct Revisions(Mutex<HashMap<String, u64>>);

impl Revisions {
    pub fn bump(&self, uri: &str) -> u64 {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(uri.to_owned()).or_insert(0);
        *n += 1;
        *n
    }

    pub fn get(&self, uri: &str) -> u64 {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(uri).copied().unwrap_or(0)
    }
}

pub(crate) fn resource_json(r: &Resource) -> Value {
    json!({
        "uri": r.uri, "name": r.name, "title": r.title,
        "description": r.description, "mimeType": r.mime_type,
    })
}

pub(crate) fn templates() -> Value {
    json!([{
        "uriTemplate": "mock://notes/{name}",
        "name": "note",
        "title": "A note by name",
        "description": "Notes that exist: today, ideas.",
        "mimeType": "text/markdown",
    }])
}

/// Tool names, spelled once for the server, the lab and `check`; the test_* ones are what the
/// official conformance suite calls.
pub mod tool {
    pub const ECHO: &str = "echo";
    pub const READ_NOTE: &str = "read_note";
    pub const TRIGGER_TOOL_CHANGE: &str = "test_trigger_tool_change";
    pub const TRIGGER_PROMPT_CHANGE: &str = "test_trigger_prompt_change";
    pub const TRIGGER_RESOURCE_LIST_CHANGE: &str = "test_trigger_resource_list_change";
    pub const TRIGGER_RESOURCE_UPDATE: &str = "test_trigger_resource_update";
    pub const CLOSE_SUBSCRIPTIONS: &str = "test_close_subscriptions";
    pub const MISSING_CAPABILITY: &str = "test_missing_capability";
    pub const STREAMING_ELICITATION: &str = "test_streaming_elicitation";
    pub const LOGGING_TOOL: &str = "test_logging_tool";
    // Control tools (see `control.rs`): offered only where a client may drive the server.
    pub const CLOSE_SUBSCRIPTION: &str = "test_close_subscription";
    pub const DROP_SUBSCRIPTIONS: &str = "test_drop_subscriptions";
    pub const SET_FAULT: &str = "test_set_fault";
    pub const LIST_FAULTS: &str = "test_list_faults";
    pub const RESET_FAULTS: &str = "test_reset_faults";

    /// The control tools, in `tools/list` order.
    pub const CONTROL: [&str; 5] = [
        CLOSE_SUBSCRIPTION,
        DROP_SUBSCRIPTIONS,
        SET_FAULT,
        LIST_FAULTS,
        RESET_FAULTS,
    ];
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

/// `tools/list` entries, in a fixed order (TOOLS §Capabilities: SHOULD be deterministic).
/// `echo` comes first and succeeds with no arguments: header-validation probes call the first tool.
pub(crate) fn tools() -> Value {
    json!([
        {"name": tool::ECHO, "title": "Echo",
         "description": "Returns `text` (default \"hello\"). Harmless; use it to see a plain request/response.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        {"name": tool::READ_NOTE, "title": "Read a note",
         "description": "Returns the text of mock://notes/{name}. `name` is mirrored in the Mcp-Param-Note header on HTTP (x-mcp-header).",
         "inputSchema": {"type": "object",
                         "properties": {"name": {"type": "string", "x-mcp-header": "Note"}},
                         "required": ["name"]}},
        {"name": tool::TRIGGER_TOOL_CHANGE, "title": "Announce a tools list change",
         "description": "Sends notifications/tools/list_changed to every listen stream that asked for toolsListChanged.",
         "inputSchema": no_args()},
        {"name": tool::TRIGGER_PROMPT_CHANGE, "title": "Announce a prompts list change",
         "description": "Sends notifications/prompts/list_changed to every listen stream that asked for promptsListChanged.",
         "inputSchema": no_args()},
        {"name": tool::TRIGGER_RESOURCE_LIST_CHANGE, "title": "Announce a resources list change",
         "description": "Sends notifications/resources/list_changed to every listen stream that asked for resourcesListChanged.",
         "inputSchema": no_args()},
        {"name": tool::TRIGGER_RESOURCE_UPDATE, "title": "Update a resource",
         "description": "Changes the content of `uri` (default mock://notes/today) and sends notifications/resources/updated to streams subscribed to it or to a parent URI.",
         "inputSchema": {"type": "object", "properties": {"uri": {"type": "string"}}}},
        {"name": tool::CLOSE_SUBSCRIPTIONS, "title": "Close every subscription",
         "description": "Ends every open listen stream gracefully: the completion result, then the stream closes.",
         "inputSchema": no_args()},
        {"name": tool::MISSING_CAPABILITY, "title": "Needs the sampling capability",
         "description": "Fails with -32021 (MissingRequiredClientCapability) unless the request declares `sampling` in clientCapabilities.",
         "inputSchema": no_args()},
        {"name": tool::STREAMING_ELICITATION, "title": "Asks the client for input",
         "description": "Needs the `elicitation` capability; answers with an input_required result (never a server-sent request).",
         "inputSchema": no_args()},
        {"name": tool::LOGGING_TOOL, "title": "Logs, if asked to",
         "description": "Sends notifications/message on this request's own response only when the request sets _meta.io.modelcontextprotocol/logLevel.",
         "inputSchema": no_args()},
        {"name": tool::CLOSE_SUBSCRIPTION, "title": "Close one subscription",
         "description": "Ends the subscription whose listen id is `id` gracefully: the completion result, then the stream closes. The id keeps its JSON type (7 is not \"7\"). Control tool: loopback and stdio only.",
         "inputSchema": {"type": "object",
                         "properties": {"id": {"type": ["string", "integer"]}},
                         "required": ["id"]}},
        {"name": tool::DROP_SUBSCRIPTIONS, "title": "Drop every subscription",
         "description": "Ends every open listen stream abruptly, with no result, as if the server vanished. Control tool: loopback and stdio only.",
         "inputSchema": no_args()},
        {"name": tool::SET_FAULT, "title": "Switch a fault",
         "description": "Switches the fault `name` on or off (`on`, default true); each fault breaks one subscription rule. Control tool: loopback and stdio only.",
         "inputSchema": {"type": "object",
                         "properties": {"name": {"type": "string"}, "on": {"type": "boolean"}},
                         "required": ["name"]}},
        {"name": tool::LIST_FAULTS, "title": "List the faults",
         "description": "Every fault, whether it is on, and the rule it breaks. Control tool: loopback and stdio only.",
         "inputSchema": no_args()},
        {"name": tool::RESET_FAULTS, "title": "Switch every fault off",
         "description": "Switches every fault off. Control tool: loopback and stdio only.",
         "inputSchema": no_args()},
    ])
}

/// `tools/list` entries for this server: the control tools only where they are offered.
pub(crate) fn tools_offered(control: bool) -> Value {
    let mut all = tools();
    if !control && let Some(list) = all.as_array_mut() {
        list.retain(|t| !tool::CONTROL.iter().any(|c| t["name"] == *c));
    }
    all
}

pub(crate) fn prompts() -> Value {
    json!([
        {"name": "explain_rule", "title": "Explain a subscription rule",
         "description": "Asks the model to explain one rule of subscriptions/listen.",
         "arguments": [{"name": "rule", "description": "e.g. \"ack first\" or \"subscriptionId\"", "required": true}]},
        {"name": "interview_question", "title": "An interview question",
         "description": "A question about MCP subscriptions, optionally on a topic.",
         "arguments": [{"name": "topic", "description": "e.g. \"graceful close\"", "required": false}]},
    ])
}

/// `prompts/get` messages, or an error message naming what is wrong.
pub(crate) fn prompt_messages(
    name: &str,
    args: &serde_json::Map<String, Value>,
) -> Result<Value, String> {
    let arg = |k: &str| args.get(k).and_then(Value::as_str);
    match name {
        "explain_rule" => {
            let Some(rule) = arg("rule") else {
                return Err("prompt explain_rule needs the string argument `rule`".into());
            };
            Ok(json!([{"role": "user", "content": {"type": "text",
                "text": format!("Explain the MCP 2026-07-28 subscription rule \"{rule}\" and cite the spec section.")}}]))
        }
        "interview_question" => {
            let topic = arg("topic").unwrap_or("subscriptions/listen");
            Ok(json!([{"role": "user", "content": {"type": "text",
                "text": format!("Ask me one interview question about {topic} in MCP 2026-07-28.")}}]))
        }
        other => Err(format!(
            "unknown prompt {other:?}; prompts/list names the ones that exist"
        )),
    }
}
