//! The calibration fan-out: the least a server can do to deliver a change to N open SSE streams,
//! so the mock's cost per delivery has a yardstick measured on the same machine in the same run.
//!
//! One thread (a current-thread runtime), hyper's HTTP/1.1 connection loop with its defaults, one
//! broadcast channel. A POST whose body is `subscriptions/listen` gets a stream: the ack, then one
//! tagged `notifications/tools/list_changed` per change, each event formatted for its stream when
//! it is sent. Any other POST is answered `{}`; a `tools/call` of `test_trigger_tool_change`
//! announces a change first. No checks, no keep-alive comments, no shutdown: it is a yardstick.

use std::convert::Infallible;

use futures_util::stream;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Bytes, Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::sync::broadcast;

const TAG: &str = "io.modelcontextprotocol/subscriptionId";

type Body = BoxBody<Bytes, Infallible>;

/// Serves on 127.0.0.1 (a free port, printed like `mcp-tutor serve` prints it) until killed.
pub fn serve() -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening on http://{}/mcp", listener.local_addr()?);
        let (changes, _) = broadcast::channel::<()>(1024);
        loop {
            let (tcp, _) = listener.accept().await?;
            let changes = changes.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| answer(req, changes.clone()));
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    })
}

async fn answer(
    req: Request<Incoming>,
    changes: broadcast::Sender<()>,
) -> Result<Response<Body>, Infallible> {
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let msg: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = msg["id"].to_string();
    if msg["method"] == "subscriptions/listen" {
        let ack = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{{\"_meta\":{{\"{TAG}\":{id}}},\"notifications\":{{\"toolsListChanged\":true}}}}}}\n\n"
        );
        let events = stream::unfold(
            (Some(ack), changes.subscribe(), id),
            |(first, mut rx, id)| async move {
                if let Some(ack) = first {
                    return Some((Ok(Frame::data(Bytes::from(ack))), (None, rx, id)));
                }
                loop {
                    match rx.recv().await {
                        Ok(()) => {
                            let event = format!(
                                "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{{\"_meta\":{{\"{TAG}\":{id}}}}}}}\n\n"
                            );
                            return Some((Ok(Frame::data(Bytes::from(event))), (None, rx, id)));
                        }
                        Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    }
                }
            },
        );
        let response = Response::builder()
            .header("content-type", "text/event-stream")
            .body(StreamBody::new(events).boxed());
        return Ok(response.unwrap_or_default());
    }
    if msg["params"]["name"] == "test_trigger_tool_change" {
        let _ = changes.send(());
    }
    let reply = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}");
    let response = Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(reply)).boxed());
    Ok(response.unwrap_or_default())
}
