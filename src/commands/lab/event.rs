//! The transcript: one event per thing the learner sees. Rendered for people by `render`,
//! written one JSON object per line by `--json` and `save`, and drawn by `timeline`.

use serde::Serialize;
use serde_json::Value;

/// A rule the checking client's validator judged on a frame.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RuleVerdict {
    pub rule: String,
    pub title: String,
    pub spec: String,
    pub ok: bool,
    pub detail: String,
    /// The validator's note for the frame, printed among the frame's notes rather than as a
    /// verdict line; kept out of the transcript's JSON, where the verdict already stands.
    #[serde(skip)]
    pub note: Option<String>,
}

/// Who ended a stream, and how.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EndKind {
    /// The server answered the listen request (the graceful result) and closed the stream.
    Graceful,
    /// The stream ended with no result: transport loss, a dropped server, a fault.
    Abrupt,
    /// The client cancelled: it closed the stream (HTTP) or sent notifications/cancelled (stdio).
    Cancelled,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TranscriptEvent {
    /// Where the lab is connected.
    Banner { server: String, transport: String },
    /// Scenario narration.
    Say { text: String },
    /// A predict-then-observe question, asked before its step runs.
    Question {
        prompt: String,
        choices: Vec<String>,
        card: String,
    },
    /// The learner's prediction and the right answer, shown after the wire answered.
    Answer {
        chosen: Option<String>,
        correct: String,
        right: bool,
        card: String,
        why: String,
        lapse_recorded: bool,
    },
    /// What to notice after a scenario beat.
    Notice { text: String },
    /// A step the learner (or script) ran.
    Step { line: String },
    /// A request (or notification) the lab client sent.
    Send {
        id: Option<Value>,
        method: String,
        detail: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<String>,
    },
    /// A plain JSON-RPC reply (not a listen stream).
    Reply {
        id: Value,
        method: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        status: Option<u16>,
        summary: String,
        message: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        wire: Option<String>,
    },
    /// One JSON-RPC message on a listen stream (or, on stdio, tagged for one).
    Frame {
        stream: Value,
        kind: String,
        message: Value,
        raw: String,
        notes: Vec<String>,
        verdicts: Vec<RuleVerdict>,
    },
    /// An SSE comment line: not a message, never a violation.
    KeepAlive { stream: Value, raw: String },
    /// A frame for a subscription the client already gave up on: shown, not acted on.
    Dropped {
        stream: Value,
        kind: String,
        message: Value,
        why: String,
        verdicts: Vec<RuleVerdict>,
    },
    /// A stream ended.
    End {
        stream: Value,
        how: EndKind,
        note: String,
        verdicts: Vec<RuleVerdict>,
    },
    /// What a careful client does, said out loud (time-outs, retries, re-lists).
    Client { text: String },
    /// Step output that is not traffic (status, fault list, help, saved file...).
    Info { text: String },
    /// A step that could not run, and why.
    Error { text: String },
}

impl TranscriptEvent {
    /// Frames and ends carry verdicts; `explain` looks at the last of them.
    pub fn verdicts(&self) -> &[RuleVerdict] {
        match self {
            TranscriptEvent::Frame { verdicts, .. }
            | TranscriptEvent::Dropped { verdicts, .. }
            | TranscriptEvent::End { verdicts, .. } => verdicts,
            _ => &[],
        }
    }
}

/// A JSON value as the learner should read it: strings quoted, numbers bare, so `"7"` and `7`
/// look different.
pub fn show_id(v: &Value) -> String {
    v.to_string()
}
