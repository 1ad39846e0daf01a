//! One-line summaries of plain replies, in the words of what they returned, and the mapping
//! from the lab's list words to methods and notification kinds.

use mock_server::protocol::{self, NotificationKind, method};
use serde_json::Value;

use super::step::ListKind;

pub(super) fn word_kind(k: ListKind) -> NotificationKind {
    match k {
        ListKind::Tools => NotificationKind::ToolsListChanged,
        ListKind::Prompts => NotificationKind::PromptsListChanged,
        ListKind::Resources => NotificationKind::ResourcesListChanged,
    }
}

pub(super) fn list_method(k: ListKind) -> &'static str {
    match k {
        ListKind::Tools => method::TOOLS_LIST,
        ListKind::Prompts => method::PROMPTS_LIST,
        ListKind::Resources => method::RESOURCES_LIST,
    }
}

/// A one-line summary of a plain reply, in the words of what it returned.
pub(super) fn summarise(method_name: &str, message: &Value) -> String {
    if let Some(err) = message.get("error") {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let name = protocol::error_code::name(code).unwrap_or("error");
        let msg = err.get("message").and_then(Value::as_str).unwrap_or("");
        return format!("error {code} {name}: {msg}");
    }
    let Some(result) = message.get("result") else {
        return "no JSON-RPC body".to_owned();
    };
    let names = |key: &str, field: &str| -> String {
        let items = result.get(key).and_then(Value::as_array);
        let n = items.map_or(0, Vec::len);
        let list: Vec<&str> = items
            .into_iter()
            .flatten()
            .filter_map(|i| i.get(field).and_then(Value::as_str))
            .collect();
        format!("{n} {key}: {}", list.join(", "))
    };
    match method_name {
        method::TOOLS_LIST => names("tools", "name"),
        method::PROMPTS_LIST => names("prompts", "name"),
        method::RESOURCES_LIST => names("resources", "uri"),
        method::RESOURCES_READ => {
            let text = result
                .get("contents")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("text"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let first: String = text.lines().next().unwrap_or("").chars().take(60).collect();
            format!("{first:?}")
        }
        method::SERVER_DISCOVER => {
            let versions = result
                .get("supportedVersions")
                .cloned()
                .unwrap_or(Value::Null);
            let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
            format!("versions {versions}, capabilities {caps}")
        }
        _ => {
            let text = result
                .get("content")
                .and_then(|c| c.get(0))
                .and_then(|c| c.get("text"))
                .and_then(Value::as_str);
            match text {
                Some(t) => t.to_owned(),
                None => format!(
                    "resultType {}",
                    result.get("resultType").unwrap_or(&Value::Null)
                ),
            }
        }
    }
}
