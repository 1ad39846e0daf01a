//! stdio (§2): newline-delimited JSON-RPC on one channel, several subscriptions interleaved and
//! told apart by their `subscriptionId` tag, client cancel by `notifications/cancelled`.

use std::sync::Arc;
use std::time::Duration;

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
/// flushed.
pub(crate) async fn serve<R, W>(hub: Arc<Hub>, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(write_lines(rx, output));
    let mut forwarders = JoinSet::new();
    let mut lines = BufReader::new(input).lines();
    loop {
        let line = tokio::select! {
            l = lines.next_line() => l,
            _ = hub.shutdown.cancelled() => break,
        };
        let line = match line {
            Ok(Some(l)) => l,
            // EOF: the client closed stdin; the server SHOULD exit promptly (STDIO §Shutdown).
            Ok(None) => break,
            Err(e) => {
                eprintln!("mock_server: reading stdin failed: {e}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        on_line(&hub, &line, &tx, &mut forwarders);
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
    writer.await??;
    Ok(())
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

fn on_line(
    hub: &Arc<Hub>,
    line: &str,
    tx: &mpsc::UnboundedSender<Value>,
    forwarders: &mut JoinSet<()>,
) {
    let send = |v: Value| {
        let _ = tx.send(v);
    };
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return send(methods::error(
                None,
                code::PARSE_ERROR,
                &format!("this line is not JSON: {e}"),
            ));
        }
    };
    match Message::classify(&value) {
        Message::Request { id, .. } if hub.is_live(&id, Transport::Stdio) => {
            // BASE §Requests: an id MUST NOT repeat a still-unanswered request's, and a live
            // listen is unanswered; on one channel two subscriptions with one tag could not be
            // told apart.
            send(methods::error(
                Some(&id),
                code::INVALID_REQUEST,
                &format!("id {id} belongs to a live subscriptions/listen; use a fresh id"),
            ))
        }
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
