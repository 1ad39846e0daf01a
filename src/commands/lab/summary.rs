//! One-line summaries of plain replies, in the words of what they returned.

use mock_server::protocol::{self, Message, method};
use serde_json::Value;

use super::faults::listed_faults;

/// A one-line summary of a plain reply (`None`: no JSON-RPC body), in the words of what it
/// returned.
pub(super) fn summarise(method_name: &str, reply: Option<&Message>) -> String {
    let Some(reply) = reply else {
        return "no JSON-RPC body".to_owned();
    };
    if let Some(err) = reply.error() {
        let name = protocol::error_code::name(err.code).unwrap_or("error");
        return format!("error {} {name}: {}", err.code, err.message);
    }
    if reply.result().is_none() {
        return "no JSON-RPC body".to_owned();
    }
    let names = |list: &str, field: &str| -> String {
        let n = reply.listed(list).len();
        let noun = crate::term::count(n, list.trim_end_matches('s'));
        format!("{noun}: {}", reply.listed_names(list, field).join(", "))
    };
    match method_name {
        method::TOOLS_LIST => names("tools", "name"),
        method::PROMPTS_LIST => names("prompts", "name"),
        method::RESOURCES_LIST => names("resources", "uri"),
        method::RESOURCES_READ => {
            let text = reply.first_text("contents").unwrap_or("");
            let first: String = text.lines().next().unwrap_or("").chars().take(60).collect();
            format!("{first:?}")
        }
        method::SERVER_DISCOVER => {
            let field = |k: &str| reply.result_field(k).cloned().unwrap_or(Value::Null);
            format!(
                "versions {}, capabilities {}",
                field("supportedVersions"),
                field("capabilities")
            )
        }
        // The mock's fault list: its heading here, its rows laid out by the renderer.
        _ if listed_faults(reply.raw()).is_some() => reply
            .first_text("content")
            .and_then(|t| t.lines().next())
            .unwrap_or("faults:")
            .to_owned(),
        _ => match reply.first_text("content") {
            Some(t) => t.to_owned(),
            None => format!("resultType {}", reply.result_type().unwrap_or(&Value::Null)),
        },
    }
}
