//! A small incremental Server-Sent Events parser that keeps the raw text of every frame.
//!
//! Why our own and not a crate: the lab shows the wire exactly as it arrived, including the
//! `:` keep-alive comment lines (HTTP §Receiving Messages, Note), and the well-kept SSE crates
//! (e.g. `eventsource-stream`) drop comments and the raw bytes by design. The format itself is
//! tiny (WHATWG HTML §9.2.6 "Interpreting an event stream"), so ~100 lines do it.
//!
//! Feed bytes as they arrive with [`SseParser::push`]; it returns every item completed so far.
//! Chunk boundaries may fall anywhere, even inside a UTF-8 sequence or between `\r` and `\n`.

/// One thing completed on the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A dispatched event: `data` is the `data:` lines joined with `\n`; `raw` is the frame's
    /// lines as received (without the blank line that ended it), joined with `\n`.
    Event {
        raw: String,
        data: String,
        event: Option<String>,
        id: Option<String>,
    },
    /// A comment line (starts with `:`): a keep-alive. `raw` is the whole line.
    Comment { raw: String },
    /// An event longer than the parser's bound, dropped: `head` is its first bytes, `bytes` its
    /// length.
    Oversized { head: String, bytes: usize },
}

/// How much of a dropped event is kept to show.
const HEAD_BYTES: usize = 200;

/// An event being dropped because it outgrew the bound.
#[derive(Debug)]
struct Skip {
    head: String,
    bytes: usize,
    /// Bytes of the current line; a line end with none means the blank line ending the event.
    line: usize,
}

#[derive(Debug)]
pub struct SseParser {
    /// The longest event kept, in bytes; see [`SseItem::Oversized`].
    max_event: usize,
    /// Bytes of the event being read.
    event_bytes: usize,
    skip: Option<Skip>,
    /// Bytes not yet forming a complete line.
    pending: Vec<u8>,
    /// A `\r` ended the last line; a `\n` right after it belongs to the same line ending.
    after_cr: bool,
    lines: Vec<String>,
    data: Option<String>,
    event: Option<String>,
    id: Option<String>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl SseParser {
    pub fn new() -> Self {
        Self::with_max_event(super::bounds::MAX_FRAME_BYTES)
    }

    /// A parser that drops events longer than `max_event` bytes.
    pub fn with_max_event(max_event: usize) -> Self {
        SseParser {
            max_event,
            event_bytes: 0,
            skip: None,
            pending: Vec::new(),
            after_cr: false,
            lines: Vec::new(),
            data: None,
            event: None,
            id: None,
        }
    }

    /// Feeds a chunk; returns the items it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseItem> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            if let Some(skip) = &mut self.skip {
                if b == b'\n' || b == b'\r' {
                    self.after_cr = b == b'\r';
                    if skip.line == 0 {
                        out.push(SseItem::Oversized {
                            head: std::mem::take(&mut skip.head),
                            bytes: skip.bytes,
                        });
                        self.skip = None;
                    } else {
                        skip.line = 0;
                    }
                } else {
                    skip.bytes += 1;
                    skip.line += 1;
                }
                continue;
            }
            match b {
                b'\n' => self.end_line(&mut out),
                b'\r' => {
                    self.after_cr = true;
                    self.end_line(&mut out);
                }
                _ => {
                    self.pending.push(b);
                    self.event_bytes += 1;
                    if self.event_bytes > self.max_event {
                        self.start_skip();
                    }
                }
            }
        }
        out
    }

    /// The event outgrew the bound: keep its first bytes to show, forget the rest as it comes.
    fn start_skip(&mut self) {
        let mut head = self.lines.join("\n");
        if !head.is_empty() {
            head.push('\n');
        }
        head.push_str(&String::from_utf8_lossy(&self.pending));
        let mut cut = head.len().min(HEAD_BYTES);
        while !head.is_char_boundary(cut) {
            cut -= 1;
        }
        head.truncate(cut);
        self.skip = Some(Skip {
            head,
            bytes: self.event_bytes,
            line: self.pending.len(),
        });
        self.event_bytes = 0;
        self.pending.clear();
        self.lines.clear();
        self.data = None;
        self.event = None;
        self.id = None;
    }

    /// The stream ended: an unterminated event is discarded, as the SSE spec says.
    /// Returns the raw text that was dropped, if any, so a caller can show it.
    pub fn finish(&mut self) -> Option<String> {
        if let Some(skip) = self.skip.take() {
            return Some(format!("{}… ({} bytes)", skip.head, skip.bytes));
        }
        self.event_bytes = 0;
        let mut rest = std::mem::take(&mut self.lines);
        if !self.pending.is_empty() {
            rest.push(String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned());
        }
        self.data = None;
        self.event = None;
        self.id = None;
        (!rest.is_empty()).then(|| rest.join("\n"))
    }

    fn end_line(&mut self, out: &mut Vec<SseItem>) {
        let received = self.pending.len();
        let line = String::from_utf8_lossy(&std::mem::take(&mut self.pending)).into_owned();
        if line.is_empty() {
            self.event_bytes = 0;
        } else if line.starts_with(':') {
            // A keep-alive between an event's fields is no part of the event, but the fields
            // before it still are: forgetting them would let an event interleaved with
            // comments outgrow the bound.
            self.event_bytes = self.event_bytes.saturating_sub(received);
        }
        if line.is_empty() {
            if let Some(data) = self.data.take() {
                out.push(SseItem::Event {
                    raw: std::mem::take(&mut self.lines).join("\n"),
                    data,
                    event: self.event.take(),
                    id: self.id.take(),
                });
            } else {
                // A frame with no data is not dispatched (SSE spec); forget its fields.
                self.lines.clear();
                self.event = None;
            }
            return;
        }
        if line.starts_with(':') {
            out.push(SseItem::Comment { raw: line });
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f.to_owned(), v.strip_prefix(' ').unwrap_or(v).to_owned()),
            None => (line.clone(), String::new()),
        };
        self.lines.push(line);
        match field.as_str() {
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(&value);
                }
                None => self.data = Some(value),
            },
            "event" => self.event = Some(value),
            "id" => self.id = Some(value),
            // `retry` and unknown fields do not matter to MCP (no reconnection, §1.4).
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_over_the_bound_is_dropped_and_the_next_one_kept() {
        let mut p = SseParser::with_max_event(64);
        let big = format!("data: {}\n", "x".repeat(100));
        let mut items = p.push(big.as_bytes());
        items.extend(p.push(b"data: more\n\ndata: {\"ok\":1}\n\n"));
        match &items[0] {
            SseItem::Oversized { head, bytes } => {
                assert!(head.starts_with("data: xxx"));
                assert!(*bytes > 64);
            }
            other => panic!("expected Oversized, got {other:?}"),
        }
        assert_eq!(data_of(&items[1..]), ["{\"ok\":1}"]);
    }

    #[test]
    fn keep_alives_between_fields_do_not_reset_the_bound() {
        let mut p = SseParser::with_max_event(40);
        let mut items = Vec::new();
        for _ in 0..6 {
            items.extend(p.push(b"data: 0123456789\n: ping\n"));
        }
        items.extend(p.push(b"\n"));
        assert!(
            items.iter().any(|i| matches!(i, SseItem::Oversized { .. })),
            "{items:?}"
        );
        assert!(data_of(&items).is_empty(), "{items:?}");
    }

    fn data_of(items: &[SseItem]) -> Vec<&str> {
        items
            .iter()
            .filter_map(|i| match i {
                SseItem::Event { data, .. } => Some(data.as_str()),
                SseItem::Comment { .. } | SseItem::Oversized { .. } => None,
            })
            .collect()
    }

    #[test]
    fn events_and_comments_in_one_chunk() {
        let mut p = SseParser::new();
        let items = p.push(b"data: {\"a\":1}\n\n:\n\ndata: {\"b\":2}\n\n");
        assert_eq!(data_of(&items), vec!["{\"a\":1}", "{\"b\":2}"]);
        assert_eq!(
            items[1],
            SseItem::Comment {
                raw: ":".to_owned()
            }
        );
        assert_eq!(items.len(), 3);
    }

    #[test]
    fn byte_by_byte_with_crlf_and_multiline_data() {
        let text = "event: message\r\nid: 4\r\ndata: one\r\ndata:two\r\n\r\n: ping\r\n";
        let mut p = SseParser::new();
        let mut items = Vec::new();
        for b in text.as_bytes() {
            items.extend(p.push(std::slice::from_ref(b)));
        }
        assert_eq!(
            items[0],
            SseItem::Event {
                raw: "event: message\nid: 4\ndata: one\ndata:two".to_owned(),
                data: "one\ntwo".to_owned(),
                event: Some("message".to_owned()),
                id: Some("4".to_owned()),
            }
        );
        assert_eq!(
            items[1],
            SseItem::Comment {
                raw: ": ping".to_owned()
            }
        );
    }

    #[test]
    fn lone_cr_line_endings_and_split_utf8() {
        let mut p = SseParser::new();
        let bytes = "data: café\r\r".as_bytes();
        let (a, b) = bytes.split_at(10); // inside the two-byte é
        let mut items = p.push(a);
        items.extend(p.push(b));
        assert_eq!(data_of(&items), vec!["café"]);
    }

    #[test]
    fn unterminated_event_is_reported_not_dispatched() {
        let mut p = SseParser::new();
        assert!(p.push(b"data: {\"half\":").is_empty());
        assert_eq!(p.finish().as_deref(), Some("data: {\"half\":"));
        assert_eq!(p.finish(), None);
    }

    #[test]
    fn frame_without_data_is_not_dispatched() {
        let mut p = SseParser::new();
        assert!(p.push(b"event: x\nretry: 10\n\n").is_empty());
    }
}
