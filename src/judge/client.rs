//! One POST to the judge, bounded: a deadline for the whole exchange, a cap on the reply's
//! size, and every way it can go wrong named in one line. The key goes in the Authorization
//! header and nowhere else; anything read back is redacted before it is kept.

use std::fmt;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

use super::config::Settings;

/// The largest reply read: a judgement is a few hundred bytes; a runaway model is cut off.
pub const MAX_REPLY: usize = 256 * 1024;

/// Why the judge's verdict is not used: the rules' verdict stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Free text only: the other kinds are graded exactly by the rules.
    NotFreeText,
    /// An empty answer has nothing to judge.
    NoAnswer,
    Timeout(Duration),
    Connect(String),
    Http {
        status: u16,
        detail: String,
    },
    Oversized,
    Refused(String),
    Malformed(String),
    /// The learner pressed Ctrl-C while waiting.
    Cancelled,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::NotFreeText => f.write_str(
                "the judge reads free-text answers only; this kind is graded exactly by the rules",
            ),
            Failure::NoAnswer => f.write_str("there is no answer to judge"),
            Failure::Timeout(d) => write!(f, "no reply within {} s", fmt_secs(*d)),
            Failure::Connect(e) => write!(f, "cannot reach it ({e})"),
            Failure::Http { status, detail } if detail.is_empty() => write!(f, "HTTP {status}"),
            Failure::Http { status, detail } => write!(f, "HTTP {status}: {detail}"),
            Failure::Oversized => write!(f, "its reply is over {} KiB", MAX_REPLY / 1024),
            Failure::Refused(why) => write!(f, "the model declined ({why})"),
            Failure::Malformed(why) => {
                write!(f, "its reply is not the judgement asked for ({why})")
            }
            Failure::Cancelled => f.write_str("cancelled"),
        }
    }
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.1}")
    }
}

/// Text from the other side, made safe to show in one line: the key redacted, control
/// characters dropped, at most `max` characters.
pub fn one_line(s: &Settings, text: &str, max: usize) -> String {
    clip(&s.redact(text), max)
}

/// A client with no overall timeout of its own (the caller's deadline covers the exchange).
pub fn http_client() -> anyhow::Result<reqwest::Client> {
    use anyhow::Context;
    reqwest::Client::builder()
        .user_agent(concat!("mcp-tutor/", env!("CARGO_PKG_VERSION")))
        .build()
        .context("could not build the HTTP client for the judge")
}

/// What came back: the reply's content, and the tokens the endpoint says the exchange cost
/// (`usage`: prompt and completion), when it says.
pub struct Answered {
    pub content: String,
    pub usage: Option<(u64, u64)>,
}

/// POST `body` and return the reply's `choices[0].message.content`, redacted.
pub async fn post(client: &reqwest::Client, s: &Settings, body: &Value) -> Result<String, Failure> {
    post_counted(client, s, body).await.map(|a| a.content)
}

/// [`post`], with the endpoint's token counts.
pub async fn post_counted(
    client: &reqwest::Client,
    s: &Settings,
    body: &Value,
) -> Result<Answered, Failure> {
    let mut req = client
        .post(s.endpoint.clone())
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).unwrap_or_default());
    if let Some(key) = s.key() {
        req = req.bearer_auth(key);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| Failure::Connect(one_line(s, &connect_error(&e), 160)))?;
    let status = resp.status();
    let bytes = read_capped(resp).await?;
    let text = String::from_utf8_lossy(&bytes);
    if !status.is_success() {
        return Err(Failure::Http {
            status: status.as_u16(),
            detail: one_line(s, &error_message(&text), 160),
        });
    }
    let text = s.redact(&text);
    Ok(Answered {
        content: content(&text)?,
        usage: usage(&text),
    })
}

/// `usage.prompt_tokens` and `usage.completion_tokens` of a chat completion.
fn usage(text: &str) -> Option<(u64, u64)> {
    let v: Value = serde_json::from_str(text).ok()?;
    let u = v.get("usage")?;
    Some((
        u.get("prompt_tokens")?.as_u64()?,
        u.get("completion_tokens")?.as_u64()?,
    ))
}

/// What failed, in the words of the innermost cause ("Connection refused (os error 111)"),
/// without the URL reqwest repeats (it is shown elsewhere).
fn connect_error(e: &reqwest::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        msg = inner.to_string();
        src = inner.source();
    }
    msg
}

/// The body, up to [`MAX_REPLY`]; past it the exchange is abandoned.
async fn read_capped(resp: reqwest::Response) -> Result<Vec<u8>, Failure> {
    if resp.content_length().is_some_and(|n| n > MAX_REPLY as u64) {
        return Err(Failure::Oversized);
    }
    let mut kept = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| Failure::Connect(connect_error(&e)))?;
        if kept.len() + chunk.len() > MAX_REPLY {
            return Err(Failure::Oversized);
        }
        kept.extend_from_slice(&chunk);
    }
    Ok(kept)
}

/// An error body's message (`{"error": {"message": …}}` or `{"error": "…"}`), its text when
/// it is not JSON, nothing for JSON without a message.
fn error_message(text: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return text.to_string();
    };
    let e = v.get("error");
    e.and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| e.and_then(Value::as_str))
        .unwrap_or("")
        .to_string()
}

/// `choices[0].message.content` of a chat completion, or why there is none.
pub fn content(text: &str) -> Result<String, Failure> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| Failure::Malformed(format!("the response is not JSON: {e}")))?;
    let choice = v
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| Failure::Malformed("the response has no choices".into()))?;
    let message = choice.get("message");
    if let Some(r) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
        .filter(|r| !r.trim().is_empty())
    {
        return Err(Failure::Refused(clip(r, 120)));
    }
    if choice.get("finish_reason").and_then(Value::as_str) == Some("content_filter") {
        return Err(Failure::Refused(
            "its content filter stopped the reply".into(),
        ));
    }
    match message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
    {
        Some(c) if !c.trim().is_empty() => Ok(c.to_string()),
        _ => Err(Failure::Malformed("the reply is empty".into())),
    }
}

/// `s` on one line (control characters dropped), at most `max` characters.
pub fn clip(s: &str, max: usize) -> String {
    let flat: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let flat = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_read_from_the_first_choice() {
        let ok = r#"{"choices":[{"message":{"role":"assistant","content":"{\"verdict\":\"pass\"}"},"finish_reason":"stop"}]}"#;
        assert_eq!(content(ok).unwrap(), r#"{"verdict":"pass"}"#);
    }

    #[test]
    fn refusals_empty_replies_and_non_json_are_named() {
        let refused =
            r#"{"choices":[{"message":{"content":null,"refusal":"I can't help with that."}}]}"#;
        assert!(matches!(content(refused), Err(Failure::Refused(r)) if r.contains("can't help")));
        let filtered =
            r#"{"choices":[{"message":{"content":""},"finish_reason":"content_filter"}]}"#;
        assert!(matches!(content(filtered), Err(Failure::Refused(_))));
        let empty = r#"{"choices":[{"message":{"content":"  "}}]}"#;
        assert!(matches!(content(empty), Err(Failure::Malformed(_))));
        assert!(matches!(content("<html>"), Err(Failure::Malformed(_))));
        assert!(matches!(content("{}"), Err(Failure::Malformed(m)) if m.contains("no choices")));
    }

    #[test]
    fn error_bodies_give_their_message() {
        assert_eq!(
            error_message(r#"{"error":{"message":"model 'x' not found"}}"#),
            "model 'x' not found"
        );
        assert_eq!(error_message(r#"{"error":"boom"}"#), "boom");
        assert_eq!(error_message("plain"), "plain");
        assert_eq!(error_message("{}"), "");
    }
}
