//! A change notification serialised once for every subscription: the JSON text is cut where the
//! `subscriptionId` tag's value goes, and each stream splices its own tag in. Fanning one change
//! out to N streams then costs one serialisation and N copies, not N serialisations.

use std::sync::Arc;

use super::{NotificationKind, RequestId, change_notification};

/// A tagged change notification with the tag left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spliced {
    pub kind: NotificationKind,
    /// The updated resource, for [`NotificationKind::ResourceUpdated`].
    pub uri: Option<String>,
    /// The text before the tag's value (`{"jsonrpc":"2.0",…"subscriptionId":`) and after it.
    head: Box<str>,
    tail: Box<str>,
}

/// Stands in for the tag while the notification is serialised; JSON escapes its control
/// characters, so no URI can contain its serialised form before the tag does.
const PLACEHOLDER: &str = "\u{1}tag\u{1}";

impl Spliced {
    pub fn new(kind: NotificationKind, uri: Option<&str>) -> Arc<Spliced> {
        let text =
            change_notification(kind, &RequestId::from(PLACEHOLDER), uri.unwrap_or("")).to_string();
        let marker = serde_json::to_string(PLACEHOLDER).unwrap_or_default();
        // `_meta` is serialised before `uri`, so the first occurrence is the tag.
        let (head, tail) = match text.find(&marker) {
            Some(at) => (&text[..at], &text[at + marker.len()..]),
            None => (text.as_str(), ""),
        };
        Arc::new(Spliced {
            kind,
            uri: uri.map(str::to_owned),
            head: head.into(),
            tail: tail.into(),
        })
    }

    /// The length of the notification with a tag of `tag_len` bytes.
    pub fn len_with(&self, tag_len: usize) -> usize {
        self.head.len() + tag_len + self.tail.len()
    }

    /// Appends the notification tagged with `tag` (the listen id as JSON: `"tutor-7"` or `7`).
    pub fn write(&self, tag: &str, out: &mut Vec<u8>) {
        out.reserve(self.len_with(tag.len()));
        out.extend_from_slice(self.head.as_bytes());
        out.extend_from_slice(tag.as_bytes());
        out.extend_from_slice(self.tail.as_bytes());
    }
}

/// A request id as the JSON a tag carries.
pub fn tag_json(id: &RequestId) -> Box<str> {
    id.to_string().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spliced_notification_is_byte_for_byte_the_serialised_one() {
        let ids = [
            RequestId::from("tutor-7"),
            RequestId::Int(7),
            RequestId::Int(-1),
            RequestId::from("quote \" and \\ and \u{1}tag\u{1} and é"),
        ];
        let kinds = [
            (NotificationKind::ToolsListChanged, None),
            (NotificationKind::PromptsListChanged, None),
            (NotificationKind::ResourcesListChanged, None),
            (
                NotificationKind::ResourceUpdated,
                Some("mock://notes/today"),
            ),
            (
                NotificationKind::ResourceUpdated,
                Some("mock://x/\u{1}tag\u{1}\""),
            ),
        ];
        for (kind, uri) in kinds {
            let s = Spliced::new(kind, uri);
            for id in &ids {
                let mut out = Vec::new();
                s.write(&tag_json(id), &mut out);
                let expected = change_notification(kind, id, uri.unwrap_or("")).to_string();
                assert_eq!(String::from_utf8(out).unwrap(), expected, "{kind:?} {id}");
                assert_eq!(s.len_with(tag_json(id).len()), expected.len());
            }
        }
    }
}
