//! Streamable HTTP: one POST per request, one SSE response per listen.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use mock_server::protocol::RequestId;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{BoxFut, FloodGuard, Incoming, Link, Opened, Pace, Reply, Transport, Tx};
use crate::client::{Alarm, HeaderEdits, HttpClient, WireEvent};

/// An open listen stream: the signal that closes it, and the task forwarding its frames.
type OpenStream = (oneshot::Sender<()>, JoinHandle<()>);

pub struct HttpLink {
    client: HttpClient,
    shown: String,
    pace: Pace,
    /// Per open listen: the signal that closes its stream, and the task forwarding its frames.
    streams: Mutex<HashMap<RequestId, OpenStream>>,
}

impl HttpLink {
    /// A link over `client`; `shown` names the server (its URL is added when it is not the URL).
    /// Every wait on a reply is bounded by the client's timeout.
    pub fn new(client: HttpClient, shown: &str, pace: Pace) -> Self {
        let url = client.url();
        let shown = if shown == url {
            url.to_owned()
        } else {
            format!("{shown} at {url}")
        };
        HttpLink {
            client,
            shown,
            pace,
            streams: Mutex::new(HashMap::new()),
        }
    }
}

/// Hand one wire event of an HTTP listen stream to the reader. False once the stream is over.
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
            // The end is never dropped: the reader's state depends on it.
            let _ = tx
                .send(Incoming::Ended {
                    stream: stream.clone(),
                    clean: graceful,
                })
                .await;
            return false;
        }
    };
    guard.offer(tx, inc).await
}

impl Link for HttpLink {
    fn transport(&self) -> Transport {
        Transport::Http
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
                exchange: Some(ex),
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
            let response = Some(stream.response.clone());
            if !stream.response.is_sse() {
                // A plain JSON reply: the listen was refused (or the server does not stream).
                let mut refusal = None;
                while let Ok(Some(ev)) =
                    tokio::time::timeout(self.client.timeout(), stream.next()).await
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
                    response,
                    refused: Some(refusal),
                });
            }
            let (stop_tx, mut stop_rx) = oneshot::channel::<()>();
            let sid = id.clone();
            let pace = self.pace;
            let task = tokio::spawn(async move {
                let mut guard = FloodGuard::new(Some(sid.clone()), pace);
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
                response,
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

    fn alarm(&self) -> Alarm {
        self.client.alarm().clone()
    }

    fn http(&self) -> Option<&HttpClient> {
        Some(&self.client)
    }
}
