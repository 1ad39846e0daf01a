//! The lists a `listen`, `list` or `change` step names, in the lab's words. What a `listen`
//! asks for is a `protocol::SubscriptionFilter`, built part by part.

use mock_server::protocol::{NotificationKind, method};

/// A change the server can be asked to make, which listeners see as a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    pub(super) fn parse(word: &str) -> Option<Self> {
        match word {
            "tools" | "tool" => Some(ListKind::Tools),
            "prompts" | "prompt" => Some(ListKind::Prompts),
            "resources" | "resource" => Some(ListKind::Resources),
            _ => None,
        }
    }

    /// The `…/list_changed` notification that says this list changed.
    pub(super) fn notification(self) -> NotificationKind {
        match self {
            ListKind::Tools => NotificationKind::ToolsListChanged,
            ListKind::Prompts => NotificationKind::PromptsListChanged,
            ListKind::Resources => NotificationKind::ResourcesListChanged,
        }
    }

    /// The list method that fetches this list.
    pub(super) fn list_method(self) -> &'static str {
        match self {
            ListKind::Tools => method::TOOLS_LIST,
            ListKind::Prompts => method::PROMPTS_LIST,
            ListKind::Resources => method::RESOURCES_LIST,
        }
    }
}
