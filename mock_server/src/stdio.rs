//! stdio (§2): newline-delimited JSON-RPC on one channel, several subscriptions interleaved and
//! told apart by their `subscriptionId` tag, client cancel by `notifications/cancelled`.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::fault::Fault;
use crate::hub::{Hub, Out, Transport};
use crate::methods::{self, Reply};
use crate::protocol::{Message, RequestId, error_code as code, method};

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
    let (tx, rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(rx, output));
    let mut forwarders = JoinSet::new();
    let mut lines = LineReader::new(input, max_line);
    let mut failed: Option<anyhow::Error> = None;
    loop {
        let line = tokio::select! {
            l = lines.next() => l,
            _ = hub.shutdown.cancelled() => break,
        };
        match line {
            Ok(Line::Text(bytes)) => on_bytes(&hub, &bytes, lines.number, &tx, &mut forwarders),
            Ok(Line::TooLong) => {
                let _ = tx.send(methods::error(
                    None,
                    code::PARSE_ERROR,
                    &format!(
                        "line {} is too long: more than {max_line} bytes without a newline; the rest of it is discarded",
                        lines.number
                    ),
                ));
            }
            // EOF: the client closed stdin; the server SHOULD exit promptly (STDIO §Shutdown).
            Ok(Line::Eof) => break,
            Err(e) => {
                failed = Some(
                    anyhow::Error::new(e)
                        .context(format!("reading stdin failed after line {}", lines.number)),
                );
                break;
            }
        }
        // The writer only stops early when stdout is gone: nobody can hear us, so stop reading.
        if tx.is_closed() {
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
    drop(tx);
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
    TooLong,
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
                self.inner.consume(take + usize::from(newline.is_some()));
                self.discarding = newline.is_none();
                self.number += 1;
                return Ok(Line::TooLong);
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
    mut rx: mpsc::UnboundedReceiver<Value>,
    mut out: W,
) -> anyhow::Result<()> {
    while let Some(v) = rx.recv().await {
        // serde_json's compact form never contains a raw newline (STDIO: MUST NOT).
        let mut line = v.to_string();
        line.push('\n');
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
    }
    out.flush().await?;
    Ok(())
}

/// Answers one line: not UTF-8 or not JSON is `-32700` with a null id (BASE §Error Responses:
/// the id could not be read), blank lines are skipped.
pub(crate) fn on_bytes(
    hub: &Arc<Hub>,
    bytes: &[u8],
    number: u64,
    tx: &mpsc::UnboundedSender<Value>,
    forwarders: &mut JoinSet<()>,
) {
    let send = |v: Value| {
        let _ = tx.send(v);
    };
    let line = match std::str::from_utf8(bytes) {
        Ok(l) => l,
        Err(e) => {
            return send(methods::error(
                None,
                code::PARSE_ERROR,
                &format!(
                    "line {number} is not UTF-8 (invalid byte at offset {}); JSON text must be UTF-8",
                    e.valid_up_to()
                ),
            ));
        }
    };
    if line.trim().is_empty() {
        return;
    }
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return send(methods::error(
                None,
                code::PARSE_ERROR,
                &format!("line {number} is not JSON: {e}"),
            ));
        }
    };
    let message = Message::classify(&value);
    // On one channel two subscriptions with one tag could not be told apart.
    if let Message::Request { id, .. } = &message
        && let Some(e) = hub.reused_id_error(id, Transport::Stdio)
    {
        return send(e);
    }
    match message {
        Message::Request {
            id, method, params, ..
        } => match methods::handle(hub, &id, &method, params.as_ref()) {
            Reply::Single(v) => send(v),
            Reply::Streamed(msgs) => msgs.into_iter().for_each(send),
            Reply::Listen { id, requested } => {
                let stream = hub.listen(id, requested, Transport::Stdio);
                let tx = tx.clone();
                forwarders.spawn(async move {
                    let mut stream = std::pin::pin!(stream);
                    while let Some(out) = stream.next().await {
                        match out {
                            Out::Msg(v) => {
                                if tx.send(v).is_err() {
                                    break;
                                }
                            }
                            Out::Abort => break,
                        }
                    }
                });
            }
        },
        Message::Notification { method, params, .. } => {
            if method == method::CANCELLED {
                let target = params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(RequestId::from_value);
                // The notify-after-cancel fault ignores the cancel and keeps delivering.
                if let Some(id) = target
                    && !hub.has(Fault::NotifyAfterCancel)
                {
                    hub.cancel(&id, Transport::Stdio);
                }
            }
            // Other notifications need no answer (a receiver MUST NOT reply to a notification).
        }
        Message::Result { .. } | Message::Error { .. } => {
            // Clients MUST NOT send responses; there is no request to answer, so only log it.
            eprintln!(
                "mock_server: ignoring a response from the client (servers send no requests)"
            );
        }
        Message::Invalid { reason, raw } => send(methods::error(
            raw.get("id").and_then(RequestId::from_value).as_ref(),
            code::INVALID_REQUEST,
            &format!("not a JSON-RPC message: {reason}"),
        )),
    }
}
