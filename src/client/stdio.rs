//! stdio (STDIO in docs/rules.md): a server spawned as a child process, newline-delimited JSON.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use mock_server::protocol::{self, Message, RequestId, SubscriptionFilter};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::WireEvent;
use super::bounds::{Alarm, CHANNEL_CAPACITY, FloodMeter, MAX_FRAME_BYTES};

/// The writing half of a [`StdioClient`], cloneable so a REPL can write while another task reads.
#[derive(Debug, Clone)]
pub struct StdioSender {
    stdin: Arc<tokio::sync::Mutex<Option<ChildStdin>>>,
}

impl StdioSender {
    /// Writes `msg` as one line (compact JSON has no raw newlines, §2). Returns the line sent.
    pub async fn send(&self, msg: &Value) -> Result<String> {
        let line = serde_json::to_string(msg)?;
        let mut guard = self.stdin.lock().await;
        let stdin = guard
            .as_mut()
            .ok_or_else(|| anyhow!("the server's stdin is already closed"))?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .context("could not write to the server's stdin (did it exit?)")?;
        stdin.flush().await?;
        Ok(line)
    }

    /// `subscriptions/listen` with `id` and `filter`.
    pub async fn listen(&self, id: &RequestId, filter: &SubscriptionFilter) -> Result<String> {
        self.send(&protocol::listen_request(id, filter)).await
    }

    /// The stdio client cancel: `notifications/cancelled` with `requestId` = `id` (§2; STDIO
    /// §Cancellation).
    pub async fn cancel(&self, id: &RequestId, reason: Option<&str>) -> Result<String> {
        self.send(&protocol::cancelled(id, reason)).await
    }

    /// Closes the server's stdin (the polite shutdown signal, STDIO §Shutdown).
    pub async fn close_stdin(&self) {
        self.stdin.lock().await.take();
    }
}

/// A server spawned as a child process, spoken to over newline-delimited JSON (§2).
#[derive(Debug)]
pub struct StdioClient {
    child: Child,
    sender: StdioSender,
    rx: mpsc::Receiver<WireEvent>,
    stderr: Arc<Mutex<String>>,
    alarm: Alarm,
}

impl StdioClient {
    /// Spawns `cmd` with piped standard streams. Its stderr is collected (see
    /// [`StdioClient::stderr`]) and never read as errors (STDIO intro).
    pub fn spawn(mut cmd: Command) -> Result<Self> {
        cmd.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().map_err(|e| {
            let std = cmd.as_std();
            let line: Vec<String> = std::iter::once(std.get_program())
                .chain(std.get_args())
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            let hint = if e.kind() == std::io::ErrorKind::NotFound {
                " (is the program installed and on PATH? give its path, e.g. ./target/release/NAME)"
            } else {
                ""
            };
            anyhow!("could not start the server `{}`: {e}{hint}", line.join(" "))
        })?;
        let stdin = child.stdin.take().context("no stdin pipe")?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        let stderr_pipe = child.stderr.take().context("no stderr pipe")?;
        let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);
        let alarm = Alarm::default();
        tokio::spawn(read_lines(stdout, tx, alarm.clone()));
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut pipe = stderr_pipe;
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = sink.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    // Keep the tail only: a chatty server must not grow us without bound.
                    if s.len() > 64 * 1024 {
                        let cut = s.len() - 32 * 1024;
                        let cut = (cut..s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(0);
                        s.drain(..cut);
                    }
                }
            }
        });
        Ok(StdioClient {
            child,
            sender: StdioSender {
                stdin: Arc::new(tokio::sync::Mutex::new(Some(stdin))),
            },
            rx,
            stderr,
            alarm,
        })
    }

    /// Raised when the server floods its stdout.
    pub fn alarm(&self) -> &Alarm {
        &self.alarm
    }

    pub fn sender(&self) -> StdioSender {
        self.sender.clone()
    }

    pub async fn send(&self, msg: &Value) -> Result<String> {
        self.sender.send(msg).await
    }

    pub async fn listen(&self, id: &RequestId, filter: &SubscriptionFilter) -> Result<String> {
        self.sender.listen(id, filter).await
    }

    pub async fn cancel(&self, id: &RequestId, reason: Option<&str>) -> Result<String> {
        self.sender.cancel(id, reason).await
    }

    /// The next line from the server's stdout, in arrival order; `None` after `Ended`.
    /// Cancel-safe. Use [`route`] on a `Frame`'s message to demultiplex.
    pub async fn next(&mut self) -> Option<WireEvent> {
        self.rx.recv().await
    }

    /// What the server wrote to stderr so far (its logs).
    pub fn stderr(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The stderr log itself, still filled after this client is moved into a reader task.
    pub(crate) fn stderr_log(&self) -> Arc<Mutex<String>> {
        self.stderr.clone()
    }

    /// STDIO §Shutdown: close stdin, wait up to `grace`, then kill. Returns the exit status.
    pub async fn close(mut self, grace: Duration) -> Result<ExitStatus> {
        self.sender.close_stdin().await;
        match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(status) => Ok(status?),
            Err(_) => {
                self.child.kill().await.ok();
                Ok(self.child.wait().await?)
            }
        }
    }
}

/// One line of at most [`MAX_FRAME_BYTES`] (without its newline); `Err(n)` for a longer line of
/// `n` bytes, read to its end and dropped; `Ok(None)` at EOF.
async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<Option<Result<(), usize>>> {
    line.clear();
    let mut total = 0usize;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok((total > 0).then_some(if total > MAX_FRAME_BYTES {
                Err(total)
            } else {
                Ok(())
            }));
        }
        let (part, used, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], i + 1, true),
            None => (buf, buf.len(), false),
        };
        total += part.len();
        if total <= MAX_FRAME_BYTES {
            line.extend_from_slice(part);
        } else {
            line.clear();
        }
        reader.consume(used);
        if done {
            return Ok(Some(if total > MAX_FRAME_BYTES {
                Err(total)
            } else {
                Ok(())
            }));
        }
    }
}

/// Reads the server's stdout line by line into a bounded channel (a consumer that falls behind
/// makes the server wait on its pipe); stops at a flood.
async fn read_lines(
    stdout: tokio::process::ChildStdout,
    tx: mpsc::Sender<WireEvent>,
    alarm: Alarm,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let mut meter = FloodMeter::new();
    loop {
        let ev = match read_bounded_line(&mut reader, &mut line).await {
            Ok(None) => {
                let _ = tx.send(WireEvent::Ended { graceful: true }).await;
                return;
            }
            Ok(Some(Ok(()))) => {
                let raw = String::from_utf8_lossy(&line)
                    .trim_end_matches('\r')
                    .to_owned();
                match serde_json::from_str::<Value>(&raw) {
                    Ok(message) => WireEvent::Frame {
                        raw,
                        message: Message::classify(&message),
                    },
                    Err(e) => WireEvent::Malformed {
                        error: format!(
                            "stdout must carry only MCP messages; this line is not JSON: {e}"
                        ),
                        raw,
                    },
                }
            }
            Ok(Some(Err(n))) => WireEvent::Malformed {
                raw: String::new(),
                error: format!(
                    "a line of {n} bytes, over the {MAX_FRAME_BYTES}-byte bound: dropped"
                ),
            },
            Err(e) => {
                let _ = tx
                    .send(WireEvent::TransportError {
                        detail: e.to_string(),
                    })
                    .await;
                let _ = tx.send(WireEvent::Ended { graceful: false }).await;
                return;
            }
        };
        if meter.tick() {
            let flood = meter.flood(0);
            alarm.raise(flood.clone());
            let _ = tx
                .send(WireEvent::TransportError {
                    detail: format!("{flood}; stopped reading the server's stdout"),
                })
                .await;
            let _ = tx.send(WireEvent::Ended { graceful: false }).await;
            return;
        }
        if tx.send(ev).await.is_err() {
            return;
        }
    }
}
