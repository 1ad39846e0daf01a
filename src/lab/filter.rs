//! What a `listen` step asks for and what an acknowledgement grants, in the lab's words.

use mock_server::protocol::SubscriptionFilter;
use serde_json::Value;

/// A change the server can be asked to make, which listeners see as a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    pub fn word(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
        }
    }

    pub(super) fn parse(word: &str) -> Option<Self> {
        match word {
            "tools" | "tool" => Some(ListKind::Tools),
            "prompts" | "prompt" => Some(ListKind::Prompts),
            "resources" | "resource" => Some(ListKind::Resources),
            _ => None,
        }
    }
}

/// What a `listen` step asks for: the four parts of the subscription filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterAsk {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    pub uris: Vec<String>,
}

impl FilterAsk {
    /// The filter as it goes on the wire (`params.notifications`); parts not asked for are left
    /// out, which the spec defines as "not subscribed".
    pub fn to_filter(&self) -> SubscriptionFilter {
        SubscriptionFilter {
            tools_list_changed: self.tools.then_some(true),
            prompts_list_changed: self.prompts.then_some(true),
            resources_list_changed: self.resources.then_some(true),
            resource_subscriptions: (!self.uris.is_empty()).then(|| self.uris.clone()),
        }
    }

    /// Read a filter back from JSON (an acknowledgement's `params.notifications`).
    pub fn from_json(v: &Value) -> Self {
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        FilterAsk {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris: v
                .get("resourceSubscriptions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|u| u.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Short words for display: `tools prompts mock://notes/today`.
    pub fn words(&self) -> String {
        let mut w: Vec<String> = Vec::new();
        if self.tools {
            w.push("tools".into());
        }
        if self.prompts {
            w.push("prompts".into());
        }
        if self.resources {
            w.push("resources".into());
        }
        w.extend(self.uris.iter().cloned());
        if w.is_empty() {
            "nothing".into()
        } else {
            w.join(" ")
        }
    }

    /// The parts of `self` that `honoured` left out.
    pub fn missing_from(&self, honoured: &FilterAsk) -> Vec<String> {
        let mut out = Vec::new();
        if self.tools && !honoured.tools {
            out.push("tools".to_owned());
        }
        if self.prompts && !honoured.prompts {
            out.push("prompts".to_owned());
        }
        if self.resources && !honoured.resources {
            out.push("resources".to_owned());
        }
        for u in &self.uris {
            if !honoured.uris.contains(u) {
                out.push(u.clone());
            }
        }
        out
    }

    /// Parts the acknowledgement claims that were never asked for.
    pub fn extra_in(&self, honoured: &FilterAsk) -> Vec<String> {
        let asked = self;
        let mut out = Vec::new();
        if honoured.tools && !asked.tools {
            out.push("tools".to_owned());
        }
        if honoured.prompts && !asked.prompts {
            out.push("prompts".to_owned());
        }
        if honoured.resources && !asked.resources {
            out.push("resources".to_owned());
        }
        for u in &honoured.uris {
            if !asked.uris.contains(u) {
                out.push(u.clone());
            }
        }
        out
    }
}
