//! The subscription filter (`params.notifications`) and the notification kinds it opts into.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::method;

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

    /// Opts into a list change (`tools`, `prompts`, `resources` in the lab's `listen`); a
    /// resource update is asked for by URI ([`SubscriptionFilter::ask_uri`]).
    pub fn ask_list(&mut self, kind: NotificationKind) {
        match kind {
            NotificationKind::ToolsListChanged => self.tools_list_changed = Some(true),
            NotificationKind::PromptsListChanged => self.prompts_list_changed = Some(true),
            NotificationKind::ResourcesListChanged => self.resources_list_changed = Some(true),
            NotificationKind::ResourceUpdated => {}
        }
    }

    /// Subscribes to updates of `uri` (and, by the mock's reading, what lies below it).
    pub fn ask_uri(&mut self, uri: &str) {
        self.resource_subscriptions
            .get_or_insert_with(Vec::new)
            .push(uri.to_owned());
    }

    /// The list kinds opted into, in the order `tools`, `prompts`, `resources` (what a careful
    /// client lists again once acknowledged).
    pub fn lists(&self) -> Vec<NotificationKind> {
        [
            NotificationKind::ToolsListChanged,
            NotificationKind::PromptsListChanged,
            NotificationKind::ResourcesListChanged,
        ]
        .into_iter()
        .filter(|k| self.wants(*k, None))
        .collect()
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

    /// The list request that fetches what a `…/list_changed` of this kind says changed; `None`
    /// for a resource update (a careful client reads the resource instead).
    pub fn list_method(self) -> Option<&'static str> {
        match self {
            NotificationKind::ToolsListChanged => Some(method::TOOLS_LIST),
            NotificationKind::PromptsListChanged => Some(method::PROMPTS_LIST),
            NotificationKind::ResourcesListChanged => Some(method::RESOURCES_LIST),
            NotificationKind::ResourceUpdated => None,
        }
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

#[cfg(test)]
mod tests {
    use crate::protocol::*;
    use serde_json::json;
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
    fn a_filter_is_built_by_asking_part_by_part() {
        let mut f = SubscriptionFilter::default();
        f.ask_list(NotificationKind::PromptsListChanged);
        f.ask_list(NotificationKind::ToolsListChanged);
        f.ask_list(NotificationKind::ToolsListChanged);
        f.ask_list(NotificationKind::ResourceUpdated);
        f.ask_uri("mock://a");
        assert_eq!(
            serde_json::to_value(&f).unwrap(),
            json!({"toolsListChanged": true, "promptsListChanged": true,
                   "resourceSubscriptions": ["mock://a"]})
        );
        assert_eq!(
            f.lists(),
            [
                NotificationKind::ToolsListChanged,
                NotificationKind::PromptsListChanged
            ]
        );
        assert_eq!(f.words(), "tools prompts mock://a");
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
}
