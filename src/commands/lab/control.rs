//! The steps that make the server do what no client request asks for (`change`, `update`,
//! `close`, `drop`, `fault`): each is a call of one of the server's tools, shown like any other
//! request: the conformance suite's trigger tools and the mock's control tools, as the mock's
//! catalogue names them.

use mock_server::protocol::{NotificationKind, RequestId, method};
use mock_server::tool;
use serde_json::{Value, json};

use super::session::Lab;
use super::state::SubState;
use super::step::CloseTarget;

impl Lab {
    pub(super) async fn change(&mut self, kind: NotificationKind, uri: Option<String>) {
        // Which open streams should hear about it: a script waits for them.
        for s in self.st.subs.iter().filter(|s| s.state == SubState::Live) {
            let wants = s
                .honoured
                .as_ref()
                .map(|h| h.wants(kind, uri.as_deref()))
                .unwrap_or(false);
            if wants && !self.st.expecting.contains(&s.id) {
                self.st.expecting.push(s.id.clone());
            }
        }
        let trigger = match kind {
            NotificationKind::ToolsListChanged => tool::TRIGGER_TOOL_CHANGE,
            NotificationKind::PromptsListChanged => tool::TRIGGER_PROMPT_CHANGE,
            NotificationKind::ResourcesListChanged => tool::TRIGGER_RESOURCE_LIST_CHANGE,
            NotificationKind::ResourceUpdated => tool::TRIGGER_RESOURCE_UPDATE,
        };
        let args = match &uri {
            Some(u) => json!({"uri": u}),
            None => json!({}),
        };
        self.call_tool(trigger, args).await;
    }

    /// Call one of the server's tools as a plain request, shown like any other. A server that
    /// does not offer the tool is told apart from one whose tool failed: its tool list (asked
    /// once, quietly) lacks it, or the call says it knows no such tool; either way the lab
    /// says so plainly, and a script fails. Returns whether the tool ran.
    pub(super) async fn call_tool(&mut self, tool: &str, args: Value) -> bool {
        if self.tool_names.is_empty() {
            self.fetch_tool_names().await;
        }
        if self.tools_complete && !self.tool_names.iter().any(|t| t == tool) {
            self.no_such_tool(tool);
            return false;
        }
        let reply = self
            .plain_request(method::TOOLS_CALL, json!({"name": tool, "arguments": args}))
            .await;
        let ok = reply
            .as_ref()
            .is_some_and(|r| r.result().is_some() && !r.is_tool_error());
        let said = |text: &str| {
            let t = text.to_ascii_lowercase();
            [
                "unknown tool",
                "control tool",
                "no such tool",
                "tool not found",
            ]
            .iter()
            .any(|w| t.contains(w))
                || (t.contains(tool) && (t.contains("not found") || t.contains("unknown")))
        };
        let missing = reply.as_ref().is_some_and(|r| {
            r.error().is_some_and(|e| said(&e.message))
                || (r.is_tool_error() && r.first_text("content").is_some_and(said))
        });
        if missing {
            self.no_such_tool(tool);
        }
        ok
    }

    fn no_such_tool(&mut self, tool: &str) {
        let step = match tool {
            t if t == tool::DROP_SUBSCRIPTIONS => "drop",
            t if t == tool::CLOSE_SUBSCRIPTIONS || t == tool::CLOSE_SUBSCRIPTION => "close",
            t if [tool::SET_FAULT, tool::LIST_FAULTS, tool::RESET_FAULTS].contains(&t) => "fault",
            t if t == tool::TRIGGER_RESOURCE_UPDATE => "update",
            _ => "change",
        };
        self.error(format!(
            "this server does not offer `{step}`: it has no tool `{tool}`. The lab's `change`, \
             `update`, `close`, `drop` and `fault` call tools that mcp-tutor's own server offers \
             (`mcp-tutor serve`, on a loopback address); with another server, cause the change \
             there by hand"
        ));
    }

    pub(super) async fn close(&mut self, target: CloseTarget) {
        match target {
            CloseTarget::All => {
                let open = self.st.open_ids();
                self.st.expecting.extend(open);
                if !self.call_tool(tool::CLOSE_SUBSCRIPTIONS, json!({})).await {
                    self.st.expecting.clear();
                }
            }
            CloseTarget::One(v) => {
                let Some(id) = RequestId::from_value(&v) else {
                    self.error("a subscription id is a string or an integer");
                    return;
                };
                self.st.expecting.push(id.clone());
                if !self
                    .call_tool(tool::CLOSE_SUBSCRIPTION, json!({"id": v}))
                    .await
                {
                    self.st.expecting.retain(|e| e != &id);
                }
            }
        }
    }

    pub(super) async fn drop_all(&mut self) {
        let open = self.st.open_ids();
        match self.link.vanish().await {
            Ok(true) => {
                self.st.dropped = true;
                self.st.expecting.extend(open);
                self.info(
                    "the server process was killed mid-stream; the careful client \
                     restarts it (STDIO §Unexpected Termination) and must listen again: \
                     no subscription survives",
                );
            }
            // Over HTTP the server is asked to cut its own streams.
            Ok(false) => {
                self.st.dropped = true;
                self.st.expecting.extend(open);
                if !self.call_tool(tool::DROP_SUBSCRIPTIONS, json!({})).await {
                    self.st.expecting.clear();
                }
            }
            Err(e) => self.error(format!("could not restart the server: {e:#}")),
        }
    }

    pub(super) async fn fault(&mut self, name: Option<String>, on: bool) {
        match name {
            None => {
                self.call_tool(tool::LIST_FAULTS, json!({})).await;
            }
            Some(n) => {
                // Named locally, with the nearest names, before any server is asked.
                if let Err(e) = n.parse::<mock_server::fault::Fault>() {
                    self.error(
                        e.to_string()
                            .replace("`--list-faults` lists them", "`fault` alone lists them"),
                    );
                    return;
                }
                self.call_tool(tool::SET_FAULT, json!({"name": n, "on": on}))
                    .await;
            }
        }
    }
}
