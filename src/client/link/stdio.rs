//! stdio: one channel for everything. Replies to plain requests are matched by id; all other
//! traffic (every subscription's frames) goes to the reader, which demultiplexes by tag.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mock_server::protocol::{Message, RequestId};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{BoxFut, FloodGuard, Incoming, Link, Opened, Pace, Reply, Transport, Tx};
use crate::client::{Alarm, StdioClient, StdioSender, WireEvent};

/// Replies awaited on the stdio channel, by request id: the raw line and the message.
type Waiters = Arc<Mutex<HashMap<RequestId, oneshot::Sender<(String, Message)>>>>;

pub struct StdioLink {
    shown: String,
    program: PathBuf,
    args: Vec<String>,
    tx: Tx,
    pace: Pace,
    timeout: Duration,
    pending: Waiters,
    channel: Mutex<Channel>,
}

/// One running child: its stdin, the task reading its stdout, its alarm and its stderr.
struct Channel {
    sender: StdioSender,
    reader: JoinHandle<()>,
    alarm: Alarm,
    stderr: Arc<Mutex<String>>,
}

impl StdioLink {
    /// Starts `program args` and reads its stdout into `tx`; `shown` names it. Replies are
    /// awaited 5 s unless [`StdioLink::with_timeout`] says otherwise.
    pub fn spawn(
        program: PathBuf,
        args: Vec<String>,
        shown: String,
        tx: Tx,
        pace: Pace,
    ) -> anyhow::Result<Self> {
        let pending: Waiters = Arc::default();
        let channel = Self::start(&program, &args, &tx, &pending, pace)?;
        Ok(StdioLink {
            shown,
            program,
            args,
            tx,
            pace,
            timeout: Duration::from_secs(5),
            pending,
            channel: Mutex::new(channel),
        })
    }

    /// How long a request waits for its reply.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    fn start(
        program: &Path,
        args: &[String],
        tx: &Tx,
        pending: &Waiters,
        pace: Pace,
    ) -> anyhow::Result<Channel> {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        let mut client = StdioClient::spawn(cmd)?;
        let sender = client.sender();
        let alarm = client.alarm().clone();
        let stderr = client.stderr_log();
        let waiting = pending.clone();
        let tx = tx.clone();
        let reader = tokio::spawn(async move {
            let mut guard = FloodGuard::new(None, pace);
            while let Some(ev) = client.next().await {
                match ev {
                    WireEvent::Frame { raw, message } => {
                        // Anything without a method that names a waiting request answers it,
                        // even a malformed response.
                        if message.claimed_method().is_none()
                            && let Some(id) = message.claimed_id()
                        {
                            let waiter = waiting.lock().ok().and_then(|mut p| p.remove(&id));
                            if let Some(w) = waiter {
                                let _ = w.send((raw, message));
                                continue;
                            }
                        }
                        let frame = Incoming::Frame {
                            stream: None,
                            raw,
                            message,
                        };
                        if !guard.offer(&tx, frame).await {
                            break;
                        }
                    }
                    WireEvent::Malformed { raw, error } => {
                        let bad = Incoming::Malformed {
                            stream: None,
                            raw,
                            error,
                        };
                        if !guard.offer(&tx, bad).await {
                            break;
                        }
                    }
                    WireEvent::KeepAlive { .. } | WireEvent::TransportError { .. } => {}
                    WireEvent::Ended { graceful } => {
                        let why = if graceful {
                            "the server closed its stdout".to_owned()
                        } else {
                            "reading the server's stdout failed".to_owned()
                        };
                        guard.finish(&tx).await;
                        let _ = tx.send(Incoming::ChannelClosed { why }).await;
                        break;
                    }
                }
            }
            // Dropping the client kills the child (kill_on_drop).
            drop(client);
        });
        Ok(Channel {
            sender,
            reader,
            alarm,
            stderr,
        })
    }

    fn sender(&self) -> anyhow::Result<StdioSender> {
        self.channel
            .lock()
            .map(|c| c.sender.clone())
            .map_err(|_| anyhow::anyhow!("the stdio channel is in a bad state"))
    }
}

impl Link for StdioLink {
    fn transport(&self) -> Transport {
        Transport::Stdio
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }

    fn request<'a>(&'a self, message: Value) -> BoxFut<'a, anyhow::Result<Reply>> {
        Box::pin(async move {
            let Some(id) = Message::classify(&message).claimed_id() else {
                // A notification (or a message without a usable id): nothing comes back.
                let line = self.sender()?.send(&message).await?;
                return Ok(Reply {
                    status: None,
                    message: None,
                    sent_wire: format!("stdin  > {line}"),
                    got_wire: String::new(),
                    exchange: None,
                });
            };
            let (tx, rx) = oneshot::channel();
            if let Ok(mut p) = self.pending.lock() {
                p.insert(id.clone(), tx);
            }
            let sent = self.sender()?.send(&message).await;
            let line = match sent {
                Ok(line) => line,
                Err(e) => {
                    if let Ok(mut p) = self.pending.lock() {
                        p.remove(&id);
                    }
                    return Err(e);
                }
            };
            let t = self.timeout;
            let waited = tokio::time::timeout(t, rx).await;
            if waited.is_err()
                && let Ok(mut p) = self.pending.lock()
            {
                p.remove(&id);
            }
            let (raw, reply) = waited
                .map_err(|_| anyhow::anyhow!("no reply to {id} within {:.1} s", t.as_secs_f64()))?
                .map_err(|_| anyhow::anyhow!("the server went away before replying to {id}"))?;
            Ok(Reply {
                status: None,
                message: Some(reply),
                sent_wire: format!("stdin  > {line}"),
                got_wire: format!("stdout < {raw}"),
                exchange: None,
            })
        })
    }

    fn listen<'a>(
        &'a self,
        _id: RequestId,
        message: Value,
        _tx: Tx,
    ) -> BoxFut<'a, anyhow::Result<Opened>> {
        Box::pin(async move {
            let line = self.sender()?.send(&message).await?;
            Ok(Opened {
                sent_wire: format!("stdin  > {line}"),
                got_wire: String::new(),
                status: None,
                response: None,
                refused: None,
            })
        })
    }

    fn cancel<'a>(&'a self, id: &'a RequestId) -> BoxFut<'a, anyhow::Result<Option<String>>> {
        Box::pin(async move {
            let line = self
                .sender()?
                .cancel(id, Some("cancelled by the client"))
                .await?;
            Ok(Some(format!("stdin  > {line}")))
        })
    }

    fn shutdown<'a>(&'a self) -> BoxFut<'a, ()> {
        Box::pin(async move {
            let Ok(sender) = self.sender() else { return };
            sender.close_stdin().await;
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                while !self
                    .channel
                    .lock()
                    .map(|c| c.reader.is_finished())
                    .unwrap_or(true)
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
            .await;
            if let Ok(c) = self.channel.lock() {
                c.reader.abort();
            }
        })
    }

    /// The server vanishes: the child is killed mid-stream. Then the careful client restarts it
    /// (STDIO §Unexpected Termination), with no subscription surviving.
    fn vanish<'a>(&'a self) -> BoxFut<'a, anyhow::Result<bool>> {
        Box::pin(async move {
            let fresh = Self::start(
                &self.program,
                &self.args,
                &self.tx,
                &self.pending,
                self.pace,
            )?;
            let old = {
                let mut c = self
                    .channel
                    .lock()
                    .map_err(|_| anyhow::anyhow!("the stdio channel is in a bad state"))?;
                std::mem::replace(&mut *c, fresh)
            };
            // Dropping the reader drops the client, which kills the child (kill_on_drop).
            old.reader.abort();
            let _ = old.reader.await;
            let _ = self
                .tx
                .send(Incoming::ChannelClosed {
                    why: "the server process was killed".to_owned(),
                })
                .await;
            Ok(true)
        })
    }

    fn alarm(&self) -> Alarm {
        self.channel
            .lock()
            .map(|c| c.alarm.clone())
            .unwrap_or_default()
    }

    fn stderr(&self) -> String {
        self.channel
            .lock()
            .ok()
            .and_then(|c| c.stderr.lock().ok().map(|s| s.clone()))
            .unwrap_or_default()
    }
}
