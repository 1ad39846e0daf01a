//! Choosing and starting what the lab talks to: the bundled server (started in this process,
//! reached only over real HTTP like any other),
//! any server by URL, or a `mcp-tutor serve --stdio` child. The wire itself is the checking
//! client's (`crate::client`); this module only adapts it to the lab's [`Link`].

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use mock_server::Fault;
use mock_server::protocol::{Message, RequestId};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::Args;
use super::link::{BoxFut, FloodGuard, Incoming, Link, Opened, Reply, Tx};
use super::scenario::{ScenarioFile, Transport};
use crate::client::{HeaderEdits, HttpClient, Route, StdioClient, StdioSender, WireEvent, route};

#[derive(Debug, Clone)]
pub enum Endpoint {
    Bundled { faults: Vec<String> },
    Url(String),
    Stdio { faults: Vec<String> },
}

impl Endpoint {
    pub fn from_args(a: &Args) -> Self {
        if let Some(u) = &a.url {
            Endpoint::Url(u.clone())
        } else if a.stdio {
            Endpoint::Stdio {
                faults: a.faults.clone(),
            }
        } else {
            Endpoint::Bundled {
                faults: a.faults.clone(),
            }
        }
    }

    /// A scenario decides its transport and faults; the command line adds faults.
    pub fn for_scenario(a: &Args, sc: &ScenarioFile) -> Self {
        let mut faults = sc.scenario.faults.clone();
        faults.extend(a.faults.iter().cloned());
        match sc.scenario.transport {
            Transport::Http => Endpoint::Bundled { faults },
            Transport::Stdio => Endpoint::Stdio { faults },
        }
    }
}

pub struct Connection {
    pub link: Box<dyn Link>,
    /// Whatever must stay alive while the lab runs (the in-process server).
    pub keep: Option<Box<dyn std::any::Any + Send>>,
    pub fault_names: Vec<String>,
    pub uris: Vec<String>,
}

fn parse_faults(names: &[String]) -> anyhow::Result<Vec<Fault>> {
    names
        .iter()
        .map(|n| Fault::from_str(n).map_err(|e| anyhow::anyhow!("{e}")))
        .collect()
}

pub async fn connect(target: &Endpoint, tx: Tx) -> anyhow::Result<Connection> {
    let fault_names: Vec<String> = Fault::all().iter().map(|f| f.name().to_owned()).collect();
    let uris: Vec<String> = mock_server::resource_uris()
        .into_iter()
        .map(str::to_owned)
        .collect();
    match target {
        Endpoint::Bundled { faults } => {
            let config = mock_server::Config {
                faults: parse_faults(faults)?,
                ..mock_server::Config::default()
            };
            let server = mock_server::start_http(config)
                .await
                .context("cannot start the bundled mock server")?;
            // Only the URL is kept: the lab drives this server over HTTP like any other.
            let link = HttpLink::new(&server.url, "the bundled mock server")?;
            Ok(Connection {
                link: Box::new(link),
                keep: Some(Box::new(server)),
                fault_names,
                uris,
            })
        }
        Endpoint::Url(url) => Ok(Connection {
            link: Box::new(HttpLink::new(url, url)?),
            keep: None,
            fault_names,
            uris,
        }),
        Endpoint::Stdio { faults } => {
            parse_faults(faults)?;
            let exe = std::env::current_exe().context("cannot find the mcp-tutor binary")?;
            let mut args = vec!["serve".to_owned(), "--stdio".to_owned()];
            for f in faults {
                args.push("--fault".to_owned());
                args.push(f.clone());
            }
            let shown = if faults.is_empty() {
                "mcp-tutor serve --stdio".to_owned()
            } else {
                format!(
                    "mcp-tutor serve --stdio --fault {}",
                    faults.join(" --fault ")
                )
            };
            let link = StdioLink::spawn(exe, args, shown, tx)?;
            Ok(Connection {
                link: Box::new(link),
                keep: None,
                fault_names,
                uris,
            })
        }
    }
}

/// An open listen stream: the signal that closes it, and the task forwarding its frames.
type OpenStream = (oneshot::Sender<()>, JoinHandle<()>);

/// Replies awaited on the stdio channel, by request id: the raw line and the message.
type Waiters = Arc<Mutex<HashMap<RequestId, oneshot::Sender<(String, Message)>>>>;

/// Streamable HTTP: one POST per request, one SSE response per listen.
struct HttpLink {
    client: HttpClient,
    shown: String,
    /// Per open listen: the signal that closes its stream, and the task forwarding its frames.
    streams: Mutex<HashMap<RequestId, OpenStream>>,
}

impl HttpLink {
    fn new(url: &str, shown: &str) -> anyhow::Result<Self> {
        Ok(HttpLink {
            client: HttpClient::new(url)?,
            shown: if shown == url {
                url.to_owned()
            } else {
                format!("{shown} at {url}")
            },
            streams: Mutex::new(HashMap::new()),
        })
    }
}

/// Hand one wire event of an HTTP listen stream to the lab. False once the stream is over.
async fn forward(stream: &RequestId, ev: WireEvent, tx: &Tx, guard: &mut FloodGuard) -> bool {
    let inc = match ev {
        WireEvent::Frame { raw, message } => Incoming::Frame {
            stream: Some(stream.clone()),
            raw,
            message,
        },
        WireEvent::Malformed { raw, error } => Incoming::Malformed {
            stream: Some(stream.clone()),
            raw,
            error,
        },
        WireEvent::KeepAlive { raw } => Incoming::KeepAlive {
            stream: stream.clone(),
            raw,
        },
        // An `Ended { graceful: false }` follows and says it.
        WireEvent::TransportError { .. } => return true,
        WireEvent::Ended { graceful } => {
            guard.finish(tx).await;
            // The end is never dropped: the lab's state depends on it.
            let _ = tx
                .send(Incoming::Ended {
                    stream: stream.clone(),
                    clean: graceful,
                })
                .await;
            return false;
        }
    };
    guard.offer(tx, inc)
}

impl Link for HttpLink {
    fn transport(&self) -> &'static str {
        "HTTP"
    }

    fn describe(&self) -> String {
        self.shown.clone()
    }

    fn request<'a>(&'a self, message: Value) -> BoxFut<'a, anyhow::Result<Reply>> {
        Box::pin(async move {
            let ex = self.client.send(&message).await?;
            let got = if ex.body.is_empty() {
                ex.response.render()
            } else {
                format!("{}\n{}", ex.response.render(), ex.body.trim_end())
            };
            Ok(Reply {
                status: Some(ex.response.status),
                message: ex.reply().cloned(),
                sent_wire: ex.request.render(),
                got_wire: got,
            })
        })
    }

    fn listen<'a>(
        &'a self,
        id: RequestId,
        message: Value,
        tx: Tx,
    ) -> BoxFut<'a, anyhow::Result<Opened>> {
        Box::pin(async move {
            let mut stream = self
                .client
                .listen_with(&message, &HeaderEdits::default())
                .await?;
            let sent_wire = stream.request.render();
            let got_wire = stream.response.render();
            let status = Some(stream.response.status);
            if !stream.response.is_sse() {
                // A plain JSON reply: the listen was refused (or the server does not stream).
                let mut refusal = None;
                while let Ok(Some(ev)) =
                    tokio::time::timeout(Duration::from_secs(5), stream.next()).await
                {
                    match ev {
                        WireEvent::Frame { message, .. } => refusal = Some(message),
                        WireEvent::Ended { .. } => break,
                        _ => {}
                    }
                }
                return Ok(Opened {
                    sent_wire,
                    got_wire,
                    status,
                    refused: Some(refusal),
                });
            }
            let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
            let sid = id.clone();
            let task = tokio::spawn(async move {
                let mut guard = FloodGuard::new(Some(sid.clone()));
                loop {
                    tokio::select! {
                        ev = stream.next() => match ev {
                            Some(ev) => if !forward(&sid, ev, &tx, &mut guard).await { return },
                            None => return,
                        },
                        _ = &mut stop_rx => {
                            // Closing the response IS the cancel on HTTP; what had already
                            // arrived is still handed over, in order.
                            for ev in stream.cancel() {
                                if matches!(ev, WireEvent::Ended { .. }) { break }
                                forward(&sid, ev, &tx, &mut guard).await;
                            }
                            guard.finish(&tx).await;
                            return;
                        }
                    }
                }
            });
            if let Ok(mut s) = self.streams.lock() {
                s.insert(id, (stop_tx, task));
            }
            Ok(Opened {
                sent_wire,
                got_wire,
                status,
                refused: None,
            })
        })
    }

    fn cancel<'a>(&'a self, id: &'a RequestId) -> BoxFut<'a, anyhow::Result<Option<String>>> {
        Box::pin(async move {
            let entry = self.streams.lock().ok().and_then(|mut s| s.remove(id));
            if let Some((stop, task)) = entry {
                let _ = stop.send(());
                let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
            }
            Ok(None)
        })
    }

    fn shutdown<'a>(&'a self) -> BoxFut<'a, ()> {
        Box::pin(async move {
            let all: Vec<_> = self
                .streams
                .lock()
                .map(|mut s| s.drain().collect())
                .unwrap_or_default();
            for (_, (stop, task)) in all {
                let _ = stop.send(());
                task.abort();
            }
        })
    }
}

/// stdio: one channel for everything. Replies to plain requests are matched by id; all other
/// traffic (every subscription's frames) goes to the lab, which demultiplexes by tag.
struct StdioLink {
    shown: String,
    program: std::path::PathBuf,
    args: Vec<String>,
    tx: Tx,
    pending: Waiters,
    channel: Mutex<Channel>,
}

/// One running child: its stdin, and the task reading its stdout.
struct Channel {
    sender: StdioSender,
    reader: JoinHandle<()>,
}

impl StdioLink {
    fn spawn(
        program: std::path::PathBuf,
        args: Vec<String>,
        shown: String,
        tx: Tx,
    ) -> anyhow::Result<Self> {
        let pending: Waiters = Arc::default();
        let channel = Self::start(&program, &args, &tx, &pending)?;
        Ok(StdioLink {
            shown,
            program,
            args,
            tx,
            pending,
            channel: Mutex::new(channel),
        })
    }

    fn start(
        program: &Path,
        args: &[String],
        tx: &Tx,
        pending: &Waiters,
    ) -> anyhow::Result<Channel> {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        let mut client = StdioClient::spawn(cmd)?;
        let sender = client.sender();
        let waiting = pending.clone();
        let tx = tx.clone();
        let reader = tokio::spawn(async move {
            let mut guard = FloodGuard::new(None);
            while let Some(ev) = client.next().await {
                match ev {
                    WireEvent::Frame { raw, message } => {
                        if let Route::Response(id) = route(&message) {
                            let waiter = waiting.lock().ok().and_then(|mut p| p.remove(&id));
                            if let Some(w) = waiter {
                                let _ = w.send((raw, message));
                                continue;
                            }
                        }
                        guard.offer(
                            &tx,
                            Incoming::Frame {
                                stream: None,
                                raw,
                                message,
                            },
                        );
                    }
                    WireEvent::Malformed { raw, error } => {
                        guard.offer(
                            &tx,
                            Incoming::Malformed {
                                stream: None,
                                raw,
                                error,
                            },
                        );
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
        Ok(Channel { sender, reader })
    }

    fn sender(&self) -> anyhow::Result<StdioSender> {
        self.channel
            .lock()
            .map(|c| c.sender.clone())
            .map_err(|_| anyhow::anyhow!("the stdio channel is in a bad state"))
    }
}

impl Link for StdioLink {
    fn transport(&self) -> &'static str {
        "stdio"
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
                });
            };
            let (tx, rx) = oneshot::channel();
            if let Ok(mut p) = self.pending.lock() {
                p.insert(id.clone(), tx);
            }
            let line = self.sender()?.send(&message).await?;
            let (raw, reply) = tokio::time::timeout(Duration::from_secs(5), rx)
                .await
                .map_err(|_| anyhow::anyhow!("no reply to {id} within 5 s"))?
                .map_err(|_| anyhow::anyhow!("the server went away before replying to {id}"))?;
            Ok(Reply {
                status: None,
                message: Some(reply),
                sent_wire: format!("stdin  > {line}"),
                got_wire: format!("stdout < {raw}"),
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
                refused: None,
            })
        })
    }

    fn cancel<'a>(&'a self, id: &'a RequestId) -> BoxFut<'a, anyhow::Result<Option<String>>> {
        Box::pin(async move {
            let line = self
                .sender()?
                .cancel(id, Some("cancelled in the lab"))
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
            let fresh = Self::start(&self.program, &self.args, &self.tx, &self.pending)?;
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
}

/// A wrong prediction becomes a lapse of the linked card in the quiz's store, so the quiz
/// brings that card back.
pub fn record_lapse(data_dir: &Path, card: &str, source: &str) -> anyhow::Result<()> {
    crate::store::Store::open(data_dir)?.record_lapse(card, source)
}
