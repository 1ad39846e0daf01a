//! A stub OpenAI-compatible endpoint on loopback for the judge's tests: real HTTP, a script of
//! replies served in order (the last one repeats), and every request recorded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One scripted reply.
#[derive(Clone)]
pub enum Reply {
    /// A chat completion whose `content` is this text.
    Content(String),
    /// A chat completion whose content is this text with `{auth}` replaced by the request's
    /// Authorization header (an endpoint that echoes what it was sent).
    EchoAuth(String),
    /// Any status and body.
    Raw { status: u16, body: String },
    /// Wait this long, then send the reply.
    Slow(Duration, Box<Reply>),
    /// Recorded replies, looked up by the request's card and the fingerprint of its answer
    /// (`mcp-tutor judge requests` names each answer by it); 404 for an answer with none.
    Recorded(Arc<Recorded>),
}

/// Replies recorded per card (`DECK--CARD.json`: `{"card": …, "replies": {KEY: reply}}`).
#[derive(Default)]
pub struct Recorded {
    replies: std::collections::HashMap<(String, String), String>,
}

impl Recorded {
    /// Every `*.json` file in `dir`.
    pub fn read(dir: &Path) -> Recorded {
        let mut r = Recorded::default();
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .expect("the replies folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        for f in files {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&f).expect("read"))
                    .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let card = v["card"].as_str().expect("card").to_string();
            for (key, reply) in v["replies"].as_object().expect("replies") {
                r.replies
                    .insert((card.clone(), key.clone()), reply.to_string());
            }
        }
        r
    }

    pub fn len(&self) -> usize {
        self.replies.len()
    }

    /// The reply to the request `body`, if one was recorded.
    fn to(&self, body: &str) -> Option<&String> {
        let body: serde_json::Value = serde_json::from_str(body).ok()?;
        let user: serde_json::Value =
            serde_json::from_str(body["messages"][1]["content"].as_str()?).ok()?;
        let key = mcp_tutor::deck::eval::fingerprint(user["answer"].as_str()?);
        self.replies.get(&(user["card"].as_str()?.to_string(), key))
    }
}

impl Reply {
    /// The content recorded in `tests/fixtures/judge/NAME`.
    pub fn fixture(name: &str) -> Reply {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/judge")
            .join(name);
        Reply::Content(std::fs::read_to_string(&path).expect("judge fixture"))
    }
}

/// One request as the stub received it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }
}

pub struct Stub {
    /// The base URL to pass as `--judge` (`http://127.0.0.1:PORT/v1`).
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    pub fn start(script: Vec<Reply>) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script = Arc::new(Mutex::new(script));
        let log = seen.clone();
        crate::support::background(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let (log, script) = (log.clone(), script.clone());
                crate::support::background(move || serve(conn, &log, &script));
            }
        });
        Stub { url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().expect("log").clone()
    }
}

fn serve(conn: TcpStream, log: &Mutex<Vec<Seen>>, script: &Mutex<Vec<Reply>>) {
    let mut reader = BufReader::new(conn.try_clone().expect("clone"));
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    let _ = reader.read_exact(&mut body);
    let seen = Seen {
        path,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let auth = seen.header("authorization").unwrap_or("").to_string();
    let body = seen.body.clone();
    log.lock().expect("log").push(seen);
    let reply = {
        let mut s = script.lock().expect("script");
        if s.len() > 1 {
            s.remove(0)
        } else {
            s[0].clone()
        }
    };
    respond(conn, reply, &auth, &body);
}

fn respond(mut conn: TcpStream, reply: Reply, auth: &str, request: &str) {
    let (status, body) = match reply {
        Reply::Slow(wait, then) => {
            std::thread::sleep(wait);
            return respond(conn, *then, auth, request);
        }
        Reply::Recorded(r) => match r.to(request) {
            Some(c) => (200, completion(c)),
            None => (
                404,
                r#"{"error":{"message":"no recorded reply"}}"#.to_string(),
            ),
        },
        Reply::Content(c) => (200, completion(&c)),
        Reply::EchoAuth(c) => (200, completion(&c.replace("{auth}", auth))),
        Reply::Raw { status, body } => (status, body),
    };
    let head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = conn.write_all(head.as_bytes());
    let _ = conn.write_all(body.as_bytes());
    let _ = conn.flush();
}

/// The envelope of a chat completion, as Ollama's OpenAI-compatible endpoint writes it.
pub fn completion(content: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-417",
        "object": "chat.completion",
        "created": 1764410400,
        "model": "llama3.1:8b",
        "system_fingerprint": "fp_ollama",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }],
        "usage": {"prompt_tokens": 1480, "completion_tokens": 96, "total_tokens": 1576}
    })
    .to_string()
}
