//! stdio (§2): newline-delimited JSON-RPC on one channel, several subscriptions interleaved and
//! told apart by their `subscriptionId` tag, client cancel by `notifications/cancelled`.
//!
//! Memory stays bounded whatever the client does: a line holds at most the line limit, and
//! output waits in an [`Outbox`] of at most [`OUTBOX_BYTES`]. While it is full the server reads
//! no further request (a client that writes and never reads stalls on its own full pipe), and
//! listen streams skip what they miss, as a lagging stream does.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use futures_util::StreamExt;
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::fault::Fault;
use crate::hub::{Hub, Out, Transport};
use crate::methods::{self, Reply};
use crate::protocol::{self, Message, RequestId, error_code as code, method};

/// Output bytes queued for stdout at most; a longer single message goes out alone.
pub(crate) const OUTBOX_BYTES: usize = 1 << 20;

/// How much of a too-large line is kept to find its request id in.
const ID_SEARCH_BYTES: usize = 4096;

/// Lines waiting for stdout, bounded by their total size.
#[derive(Clone)]
pub(crate) struct Outbox {
    tx: mpsc::UnboundedSender<Vec<u8>>,
    /// One permit per byte of room.
    room: Arc<Semaphore>,
}

/// The writer has stopped (stdout is gone).
#[derive(Debug)]
pub(crate) struct Closed;

impl Outbox {
    pub(crate) fn new() -> (Outbox, mpsc::UnboundedReceiver<Vec<u8>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let room = Arc::new(Semaphore::new(OUTBOX_BYTES));
        (Outbox { tx, room }, rx)
    }

    /// The room a line takes: its size, but never more than the whole outbox.
    fn cost(line: &[u8]) -> u32 {
        line.len().clamp(1, OUTBOX_BYTES) as u32
    }

    /// Queues one line (with its newline), waiting while the outbox is full.
    pub(crate) async fn send(&self, line: Vec<u8>) -> Result<(), Closed> {
        let permit = self
            .room
            .acquire_many(Outbox::cost(&line))
            .await
            .map_err(|_| Closed)?;
        permit.forget();
        self.tx.send(line).map_err(|_| Closed)
    }

    /// What the writer gives room back to (not a sender: the writer ends when every sender
    /// is gone).
    fn room(&self) -> Arc<Semaphore> {
        self.room.clone()
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

/// `v` as one output line.
fn line_of(v: &Value) -> Vec<u8> {
    let mut line = Vec::with_capacity(128);
    // serde_json's compact form never contains a raw newline (STDIO: MUST NOT).
    let _ = serde_json::to_writer(&mut line, v);
    line.push(b'\n');
    line
}

/// Serves one stdio channel until input ends or the hub shuts down; then every open
/// subscription ends gracefully (result, then `notifications/cancelled`, §4.9) and output is
/// flushed. `Ok` at end of input or shutdown; `Err` (with what failed) when reading input or
/// writing output fails, so a caller never mistakes a broken channel for a clean end.
pub(crate) async fn serve<R, W>(
    hub: Arc<Hub>,
    input: R,
    output: W,
    max_line: usize,
) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outbox, rx) = Outbox::new();
    let writer = tokio::spawn(write_lines(rx, output, outbox.room()));
    let mut forwarders = JoinSet::new();
    let mut lines = LineReader::new(input, max_line);
    let mut failed: Option<anyhow::Error> = None;
    'reading: loop {
        let line = tokio::select! {
            l = lines.next() => l,
            _ = hub.shutdown.cancelled() => break,
        };
        let replies = match line {
            Ok(Line::Text(bytes)) => on_bytes(&hub, &bytes, lines.number, &outbox, &mut forwarders),
            Ok(Line::TooLarge { head }) => vec![too_large(&head, lines.number, max_line)],
            // EOF: the client closed stdin; the server SHOULD exit promptly (STDIO §Shutdown).
            Ok(Line::Eof) => break,
            Err(e) => {
                failed = Some(
                    anyhow::Error::new(e)
                        .context(format!("reading stdin failed after line {}", lines.number)),
                );
                break;
            }
        };
        // Backpressure: while the outbox is full, no further line is read.
        for v in replies {
            tokio::select! {
                sent = outbox.send(line_of(&v)) => if sent.is_err() { break 'reading },
                _ = hub.shutdown.cancelled() => break 'reading,
            }
        }
        // The writer only stops early when stdout is gone: nobody can hear us, so stop reading.
        if outbox.is_closed() {
            break;
        }
        // Reap finished forwarders so a long session does not accumulate them.
        while forwarders.try_join_next().is_some() {}
    }
    hub.shutdown.cancel();
    // Every stream now writes its result and ends; bounded so exit stays prompt.
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while forwarders.join_next().await.is_some() {}
    })
    .await;
    forwarders.abort_all();
    drop(outbox);
    let written = writer
        .await
        .map_err(anyhow::Error::from)
        .and_then(|r| r.context("writing stdout failed"));
    match (failed, written) {
        (Some(e), _) => Err(e),
        (None, w) => w,
    }
}

/// One input line, read as bytes: invalid UTF-8 must not end the loop (it is answered instead).
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// The line without its newline (and without a trailing `\r`).
    Text(Vec<u8>),
    /// The line passed the limit; what follows up to the next newline is skipped unread.
    /// `head` is its first bytes, where its request id may be found.
    TooLarge {
        head: Vec<u8>,
    },
    Eof,
}

/// Splits input into lines of at most `max` bytes, holding no more than that in memory however
/// long a line is.
struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    /// Skipping the rest of a too-long line.
    discarding: bool,
    /// 1-based number of the line last returned, for messages.
    number: u64,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R, max: usize) -> Self {
        LineReader {
            inner: BufReader::new(input),
            max,
            discarding: false,
            number: 0,
        }
    }

    async fn next(&mut self) -> std::io::Result<Line> {
        let mut line = Vec::new();
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                // A last line without a newline still counts; a discarded tail does not.
                self.discarding = false;
                if line.is_empty() {
                    return Ok(Line::Eof);
                }
                self.number += 1;
                return Ok(Line::Text(line));
            }
            let newline = chunk.iter().position(|b| *b == b'\n');
            let take = newline.unwrap_or(chunk.len());
            if self.discarding {
                self.inner.consume(take + usize::from(newline.is_some()));
                if newline.is_some() {
                    self.discarding = false;
                }
                continue;
            }
            if line.len() + take > self.max {
                // Answer now, not after a 200 MB line has finally ended.
                line.truncate(ID_SEARCH_BYTES);
                let more = ID_SEARCH_BYTES.saturating_sub(line.len()).min(take);
                line.extend_from_slice(&chunk[..more]);
                self.inner.consume(take + usize::from(newline.is_some()));
                self.discarding = newline.is_none();
                self.number += 1;
                return Ok(Line::TooLarge { head: line });
            }
            // Grow by doubling as usual, but never past the limit: the limit is the memory bound.
            if line.capacity() < line.len() + take {
                let want = (line.capacity() * 2).max(line.len() + take).min(self.max);
                line.reserve_exact(want - line.len());
            }
            line.extend_from_slice(&chunk[..take]);
            self.inner.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                self.number += 1;
                return Ok(Line::Text(line));
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
    mut out: W,
    room: Arc<Semaphore>,
) -> anyhow::Result<()> {
    while let Some(line) = rx.recv().await {
        out.write_all(&line).await?;
        out.flush().await?;
        room.add_permits(Outbox::cost(&line) as usize);
    }
    out.flush().await?;
    Ok(())
}

/// The answer to a line over the limit: too large (`-32600`, as HTTP answers a body over its
/// limit), with the request's id when the start of the line names it.
fn too_large(head: &[u8], number: u64, max: usize) -> Value {
    protocol::error_response(
        id_in_prefix(head).as_ref(),
        code::INVALID_REQUEST,
        &format!(
            "line {number} is too large: more than {max} bytes without a newline (this server's limit); the rest of it is discarded"
        ),
        Some(json!({"maxLineBytes": max})),
    )
}

/// The top-level `"id"` of a JSON object of which only the start is at hand, when that start
/// holds it whole (members after a huge one are out of reach).
fn id_in_prefix(prefix: &[u8]) -> Option<RequestId> {
    struct FindId<'a>(&'a mut Option<RequestId>);
    impl<'de> DeserializeSeed<'de> for FindId<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for FindId<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    *self.0 = RequestId::from_value(&map.next_value::<Value>()?);
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut found = None;
    // The text is cut short, so this ends in an error; the id, if read by then, is kept.
    let _ = FindId(&mut found).deserialize(&mut serde_json::Deserializer::from_slice(prefix));
    found
}

/// Answers one line: not UTF-8 or not JSON is `-32700` with a null id (BASE §Error Responses:
/// the id could not be read), blank lines are skipped. Returns the replies to send now; a listen
/// gets a forwarder that writes its stream through `outbox`.
pub(crate) fn on_bytes(
    hub: &Arc<Hub>,
    bytes: &[u8],
    number: u64,
    outbox: &Outbox,
    forwarders: &mut JoinSet<()>,
) -> Vec<Value> {
    let line = match std::str::from_utf8(bytes) {
        Ok(l) => l,
        Err(e) => {
            return vec![methods::error(
                None,
                code::PARSE_ERROR,
                &format!(
                    "line {number} is not UTF-8 (invalid byte at offset {}); JSON text must be UTF-8",
                    e.valid_up_to()
                ),
            )];
        }
    };
    if line.trim().is_empty() {
        return Vec::new();
    }
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return vec![methods::error(
                None,
                code::PARSE_ERROR,
                &format!("line {number} is not JSON: {e}"),
            )];
        }
    };
    let message = Message::classify(&value);
    // On one channel two subscriptions with one tag could not be told apart.
    if let Message::Request { id, .. } = &message
        && let Some(e) = hub.reused_id_error(id, Transport::Stdio)
    {
        return vec![e];
    }
    match message {
        Message::Request {
            id, method, params, ..
        } => match methods::handle(hub, &id, &method, params.as_ref()) {
            Reply::Single(v) => vec![v],
            Reply::Streamed(msgs) => msgs,
            Reply::Listen { id, requested } => {
                let stream = hub.listen(id, requested, Transport::Stdio);
                forwarders.spawn(forward(stream, outbox.clone()));
                Vec::new()
            }
        },
        Message::Notification { method, params, .. } => {
            if method == method::CANCELLED {
                on_cancelled(hub, params.as_ref());
            }
            // Other notifications need no answer (a receiver MUST NOT reply to a notification).
            Vec::new()
        }
        Message::Result { .. } | Message::Error { .. } => {
            // Clients MUST NOT send responses; there is no request to answer, so only log it.
            eprintln!(
                "mock_server: ignoring a response from the client (servers send no requests)"
            );
            Vec::new()
        }
        Message::Invalid { reason, raw } => vec![methods::error(
            raw.get("id").and_then(RequestId::from_value).as_ref(),
            code::INVALID_REQUEST,
            &format!("not a JSON-RPC message: {reason}"),
        )],
    }
}

/// Writes a listen's stream to the channel, one message a line, until it ends or the channel
/// is gone; keep-alives have no line on stdio.
async fn forward(stream: impl futures_util::Stream<Item = Out>, outbox: Outbox) {
    let mut stream = std::pin::pin!(stream);
    while let Some(out) = stream.next().await {
        let mut line = Vec::new();
        match out {
            Out::Abort => break,
            Out::KeepAlive => continue,
            msg => msg.write_messages(b"", b"\n", &mut line),
        }
        if outbox.send(line).await.is_err() {
            break;
        }
    }
}

/// The client cancels the request `params.requestId`: on stdio, how a listen ends. The
/// notify-after-cancel fault ignores it and keeps delivering.
fn on_cancelled(hub: &Hub, params: Option<&Value>) {
    let target = params
        .and_then(|p| p.get("requestId"))
        .and_then(RequestId::from_value);
    if let Some(id) = target
        && !hub.has(Fault::NotifyAfterCancel)
    {
        hub.cancel(&id, Transport::Stdio);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_the_start_of_a_cut_line() {
        let cases: [(&[u8], Option<RequestId>); 7] = [
            (
                br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"aaaa"#,
                Some(7.into()),
            ),
            (br#"{"id":"tutor-7","params":{"#, Some("tutor-7".into())),
            (br#"{"params":{"text":"aaaa"},"id":3,"#, Some(3.into())),
            (br#"{"params":{"text":"aaaa"#, None),
            (br#"{"jsonrpc":"2.0","id":"#, None),
            (br#"{"id":null,"x":"#, None),
            (br#"   "#, None),
        ];
        for (prefix, id) in cases {
            assert_eq!(
                id_in_prefix(prefix),
                id,
                "{}",
                String::from_utf8_lossy(prefix)
            );
        }
    }
}
