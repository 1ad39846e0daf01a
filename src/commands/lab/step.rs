//! The lab's steps: what a user (or a script) can type, parsed into one enum, with the help text
//! that teaches what each step shows on the wire.

use std::fmt;

use serde_json::Value;

pub use super::filter::ListKind;
use mock_server::protocol::SubscriptionFilter;

/// Which subscription(s) a `close` step ends.
#[derive(Debug, Clone, PartialEq)]
pub enum CloseTarget {
    One(Value),
    All,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Discover,
    List(ListKind),
    Read(String),
    Listen {
        id: Option<Value>,
        filter: SubscriptionFilter,
    },
    Change(ListKind),
    Update(String),
    Close(CloseTarget),
    Cancel(Value),
    Drop,
    Fault {
        name: Option<String>,
        on: bool,
    },
    Wire(bool),
    /// `tools/call` of any tool with these arguments.
    Call {
        tool: String,
        arguments: Value,
    },
    /// One hand-written JSON-RPC message, sent as typed.
    Send(Value),
    Timeline,
    Explain,
    Save(String),
    Status,
    Reset,
    Help(Option<String>),
    /// Script only: the answer to the question asked before the next step.
    Predict(String),
    /// Wait for stragglers (keep-alives, late frames) for this many milliseconds.
    Wait(u64),
    Quit,
}

/// What tab completion offers for a step's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Args {
    Nothing,
    /// `tools`, `prompts`, `resources`.
    Kinds,
    /// The server's resource URIs.
    Uris,
    /// Filter words, `--id` and URIs, any number.
    Listen,
    OpenIds,
    OpenIdsOrAll,
    /// A fault name, then on/off.
    Fault,
    OnOff,
    /// Step names (for `help`).
    Steps,
    /// The server's tool names (from its tools/list).
    Tools,
}

/// One step, defined once: its name, its help, an example line that runs it, what completion
/// offers, and how its arguments parse. Adding a step means a [`Step`] variant and an entry
/// here, plus its arm in the lab's `run`.
pub struct StepDef {
    pub name: &'static str,
    /// Other words that run it.
    pub aliases: &'static [&'static str],
    /// A few words for the `help` list.
    pub brief: &'static str,
    pub usage: &'static str,
    pub what: &'static str,
    /// A line that runs this step (the table's test parses every one).
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the table's test only"))]
    pub example: &'static str,
    pub args: Args,
    /// The words after the name (and the same text unsplit, for JSON) → the step, or what is
    /// wrong with them.
    parse: fn(&[&str], &str) -> Result<Step, String>,
}

pub const STEPS: &[StepDef] = &[
    StepDef {
        name: "discover",
        aliases: &[],
        brief: "versions and capabilities",
        usage: "discover",
        what: "server/discover: which versions and capabilities the server offers. \
               `listChanged` and `subscribe` flags are how a server says it can notify; \
               there is no separate `subscriptions` capability.",
        example: "discover",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Discover),
    },
    StepDef {
        name: "list",
        aliases: &[],
        brief: "fetch a list (what a change notification says to re-fetch)",
        usage: "list tools|prompts|resources",
        what: "tools/list, prompts/list or resources/list: the snapshot a change notification \
               tells you to fetch again (nothing is replayed on the stream).",
        example: "list tools",
        args: Args::Kinds,
        parse: |a, _| Ok(Step::List(kind(a)?)),
    },
    StepDef {
        name: "read",
        aliases: &[],
        brief: "read one resource",
        usage: "read URI",
        what: "resources/read of one resource, e.g. `read mock://notes/today`. Over HTTP the \
               URI also travels in the Mcp-Name header.",
        example: "read mock://notes/today",
        args: Args::Uris,
        parse: |a, _| Ok(Step::Read(one(a)?.to_owned())),
    },
    StepDef {
        name: "listen",
        aliases: &[],
        brief: "open a subscription with any of the filter's four parts",
        usage: "listen [--id ID] [tools] [prompts] [resources] [URI...]",
        what: "subscriptions/listen with any of the filter's four parts: `tools` = \
               toolsListChanged, `prompts` = promptsListChanged, `resources` = \
               resourcesListChanged, each URI goes in resourceSubscriptions. The stream must \
               start with notifications/subscriptions/acknowledged carrying the honoured \
               subset; every message on it is tagged with the listen request's own id, which \
               the lab chooses (lab-1, lab-2, and every third one a bare integer so you see the \
               JSON type echoed). `--id` picks the id yourself (`--id 7` is a number, \
               `--id \"7\"` a string).",
        example: "listen --id 7 tools mock://notes",
        args: Args::Listen,
        parse: |a, _| parse_listen(a),
    },
    StepDef {
        name: "change",
        aliases: &[],
        brief: "make the server change a list",
        usage: "change tools|prompts|resources",
        what: "make the server change a list; listeners that asked for that type get a \
               …/list_changed notification, others get nothing.",
        example: "change prompts",
        args: Args::Kinds,
        parse: |a, _| Ok(Step::Change(kind(a)?)),
    },
    StepDef {
        name: "update",
        aliases: &[],
        brief: "make the server change one resource",
        usage: "update URI",
        what: "make the server change one resource; listeners whose resourceSubscriptions \
               cover it get notifications/resources/updated with params.uri.",
        example: "update mock://notes/today",
        args: Args::Uris,
        parse: |a, _| Ok(Step::Update(one(a)?.to_owned())),
    },
    StepDef {
        name: "close",
        aliases: &[],
        brief: "the server ends a subscription gracefully (result, then close)",
        usage: "close ID|all",
        what: "the SERVER ends a subscription gracefully: the listen request finally gets its \
               result {\"resultType\":\"complete\",\"_meta\":{subscriptionId}} and the stream \
               closes.",
        example: "close all",
        args: Args::OpenIdsOrAll,
        parse: |a, _| {
            Ok(Step::Close(match one(a)? {
                "all" => CloseTarget::All,
                w => CloseTarget::One(parse_id(w)),
            }))
        },
    },
    StepDef {
        name: "cancel",
        aliases: &[],
        brief: "the client ends a subscription",
        usage: "cancel ID",
        what: "the CLIENT ends a subscription: over HTTP it closes the SSE stream (no \
               notifications/cancelled exists there), over stdio it sends \
               notifications/cancelled with requestId = the listen id. Nothing more may arrive \
               for it, not even a result.",
        example: "cancel lab-1",
        args: Args::OpenIds,
        parse: |a, _| Ok(Step::Cancel(parse_id(one(a)?))),
    },
    StepDef {
        name: "drop",
        aliases: &[],
        brief: "the server vanishes: streams end with no result",
        usage: "drop",
        what: "the server vanishes: every open stream ends abruptly with no result (with --stdio \
               the child is killed, then restarted). A careful client may reconnect, with a NEW \
               request id, and must listen again: nothing survives.",
        example: "drop",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Drop),
    },
    StepDef {
        name: "fault",
        aliases: &[],
        brief: "switch a mock server fault on or off (alone: list them)",
        usage: "fault [NAME on|off]",
        what: "switch one of the mock server's faults, each breaking one rule (`fault` alone \
               lists them). Only for the bundled server.",
        example: "fault no-ack on",
        args: Args::Fault,
        parse: |a, _| parse_fault(a),
    },
    StepDef {
        name: "wire",
        aliases: &[],
        brief: "show raw HTTP / SSE / stdio traffic too",
        usage: "wire on|off",
        what: "show the raw traffic too: HTTP requests with headers and SSE frames (keep-alive \
               comment lines included), or raw stdio lines.",
        example: "wire on",
        args: Args::OnOff,
        parse: |a, _| Ok(Step::Wire(on_off(one(a)?)?)),
    },
    StepDef {
        name: "call",
        aliases: &[],
        brief: "call any of the server's tools",
        usage: "call TOOL [JSON arguments]",
        what: "tools/call of any tool the server lists (tab completes their names), with the \
               arguments as one JSON object: `call echo {\"text\": \"hi\"}`. Headers are filled \
               in as for every step (Mcp-Method, Mcp-Name); the reply is shown, and whatever it \
               sets off arrives on the open streams, annotated and checked. This is how you make \
               your own server (`--url`) change something.",
        example: "call echo {\"text\": \"hi\"}",
        args: Args::Tools,
        parse: |a, raw| parse_call(a, raw),
    },
    StepDef {
        name: "send",
        aliases: &[],
        brief: "send one hand-written JSON-RPC message",
        usage: "send JSON",
        what: "send one JSON-RPC message exactly as typed (a request with an `id`, or a \
               notification without one): `send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}`. \
               The HTTP headers are derived from it as for any step, but the body is yours: \
               leave out `_meta` and the server's refusal is the lesson. Open subscriptions \
               with `listen` (a stream needs the lab to hold it).",
        example: "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
        args: Args::Nothing,
        parse: |_, raw| parse_send(raw),
    },
    StepDef {
        name: "timeline",
        aliases: &[],
        brief: "a sequence diagram of everything so far",
        usage: "timeline",
        what: "a sequence diagram of everything so far, client on the left, server on the right.",
        example: "timeline",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Timeline),
    },
    StepDef {
        name: "explain",
        aliases: &[],
        brief: "the rule and spec reference behind the last frame",
        usage: "explain",
        what: "the rule behind the last frame, with its spec reference.",
        example: "explain",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Explain),
    },
    StepDef {
        name: "save",
        aliases: &[],
        brief: "the transcript as JSON lines",
        usage: "save FILE",
        what: "write the transcript so far as JSON lines, one event per line.",
        example: "save lab.jsonl",
        args: Args::Nothing,
        parse: |a, _| Ok(Step::Save(one(a)?.to_owned())),
    },
    StepDef {
        name: "status",
        aliases: &[],
        brief: "the subscriptions this client holds",
        usage: "status",
        what: "the subscriptions the lab client holds, what each asked for and was granted.",
        example: "status",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Status),
    },
    StepDef {
        name: "reset",
        aliases: &[],
        brief: "cancel everything, faults off, start over",
        usage: "reset",
        what: "cancel every subscription, clear faults and the transcript, start over.",
        example: "reset",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Reset),
    },
    StepDef {
        name: "predict",
        aliases: &[],
        brief: "(scripts) the answer to a scenario's next question",
        usage: "predict LETTER",
        what: "in a scenario's script, the answer to the next question (`predict b`); a wrong \
               one is recorded as a lapse of the question's card, so the quiz brings it back.",
        example: "predict b",
        args: Args::Nothing,
        parse: |a, _| Ok(Step::Predict(one(a)?.to_ascii_lowercase())),
    },
    StepDef {
        name: "wait",
        aliases: &[],
        brief: "(scripts) wait for stragglers",
        usage: "wait MS",
        what: "in a script, wait this many milliseconds for stragglers before the next step.",
        example: "wait 500",
        args: Args::Nothing,
        parse: |a, _| parse_wait(a),
    },
    StepDef {
        name: "help",
        aliases: &["?"],
        brief: "this list, or one step in detail",
        usage: "help [STEP]",
        what: "this list, or one step in detail.",
        example: "help listen",
        args: Args::Steps,
        parse: |a, _| Ok(Step::Help(a.first().map(|w| (*w).to_owned()))),
    },
    StepDef {
        name: "quit",
        aliases: &["exit", "q"],
        brief: "leave the lab",
        usage: "quit",
        what: "leave the lab (Ctrl-D works too).",
        example: "quit",
        args: Args::Nothing,
        parse: |a, _| none(a, Step::Quit),
    },
];

impl Step {
    /// The table entry's name. Exhaustive, so a new variant cannot compile without one (the
    /// table's test holds every entry to it).
    #[cfg(test)]
    pub fn name(&self) -> &'static str {
        match self {
            Step::Discover => "discover",
            Step::List(_) => "list",
            Step::Read(_) => "read",
            Step::Listen { .. } => "listen",
            Step::Change(_) => "change",
            Step::Update(_) => "update",
            Step::Close(_) => "close",
            Step::Cancel(_) => "cancel",
            Step::Drop => "drop",
            Step::Fault { .. } => "fault",
            Step::Wire(_) => "wire",
            Step::Call { .. } => "call",
            Step::Send(_) => "send",
            Step::Timeline => "timeline",
            Step::Explain => "explain",
            Step::Save(_) => "save",
            Step::Status => "status",
            Step::Reset => "reset",
            Step::Help(_) => "help",
            Step::Predict(_) => "predict",
            Step::Wait(_) => "wait",
            Step::Quit => "quit",
        }
    }
}

/// Words offered by tab completion, first word of a line.
pub fn step_names() -> impl Iterator<Item = &'static str> {
    STEPS.iter().map(|h| h.name)
}

/// The table entry for a typed word (name or alias).
pub fn find(word: &str) -> Option<&'static StepDef> {
    STEPS
        .iter()
        .find(|d| d.name == word || d.aliases.contains(&word))
}

#[derive(Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn one<'a>(a: &[&'a str]) -> Result<&'a str, String> {
    match a {
        [w] => Ok(w),
        [] => Err("missing argument".into()),
        _ => Err("too many arguments".into()),
    }
}

fn none(a: &[&str], step: Step) -> Result<Step, String> {
    if a.is_empty() {
        Ok(step)
    } else {
        Err("this step takes no arguments".into())
    }
}

fn kind(a: &[&str]) -> Result<ListKind, String> {
    let w = one(a)?;
    ListKind::parse(w).ok_or_else(|| format!("`{w}` is not tools, prompts or resources"))
}

fn on_off(w: &str) -> Result<bool, String> {
    match w {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{w}`: say on or off")),
    }
}

fn parse_listen(a: &[&str]) -> Result<Step, String> {
    let mut filter = SubscriptionFilter::default();
    let mut id = None;
    let mut it = a.iter();
    while let Some(w) = it.next() {
        match *w {
            "--id" => {
                let v = it.next().ok_or("--id needs a value")?;
                id = Some(parse_id(v));
            }
            w => match ListKind::parse(w) {
                Some(k) => filter.ask_list(k.notification()),
                None if w.contains(':') => filter.ask_uri(w),
                None => return Err(format!("`{w}` is not tools, prompts, resources or a URI")),
            },
        }
    }
    Ok(Step::Listen { id, filter })
}

fn parse_fault(a: &[&str]) -> Result<Step, String> {
    match a {
        [] => Ok(Step::Fault {
            name: None,
            on: false,
        }),
        [name, state] => Ok(Step::Fault {
            name: Some((*name).to_owned()),
            on: on_off(state)?,
        }),
        [name] => Ok(Step::Fault {
            name: Some((*name).to_owned()),
            on: true,
        }),
        _ => Err("too many arguments".into()),
    }
}

fn parse_call(a: &[&str], raw: &str) -> Result<Step, String> {
    let Some(tool) = a.first() else {
        return Err("which tool? (`tools/list` names them; tab completes)".into());
    };
    let json = raw[tool.len()..].trim();
    let arguments = if json.is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        serde_json::from_str::<Value>(json)
            .map_err(|e| format!("the arguments are not JSON: {e}"))?
    };
    if !arguments.is_object() {
        return Err(format!(
            "the arguments must be one JSON object, not {arguments}"
        ));
    }
    Ok(Step::Call {
        tool: (*tool).to_owned(),
        arguments,
    })
}

fn parse_send(raw: &str) -> Result<Step, String> {
    if raw.is_empty() {
        return Err("missing the JSON message".into());
    }
    let message: Value =
        serde_json::from_str(raw).map_err(|e| format!("the message is not JSON: {e}"))?;
    if !message.is_object() {
        return Err(format!("a JSON-RPC message is one object, not {message}"));
    }
    Ok(Step::Send(message))
}

fn parse_wait(a: &[&str]) -> Result<Step, String> {
    let w = one(a)?;
    w.parse()
        .map(Step::Wait)
        .map_err(|_| format!("`{w}` is not a number of milliseconds"))
}

/// A subscription id as typed: digits are a JSON number, `"…"` or anything else a string.
pub fn parse_id(word: &str) -> Value {
    if let Some(inner) = word
        .strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .or_else(|| word.strip_prefix('\'').and_then(|w| w.strip_suffix('\'')))
    {
        return Value::String(inner.to_owned());
    }
    match word.parse::<i64>() {
        Ok(n) => Value::from(n),
        Err(_) => Value::String(word.to_owned()),
    }
}

/// Parse one line. `Ok(None)` for blank lines and `#` comments.
pub fn parse(line: &str) -> Result<Option<Step>, ParseError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let Some(head) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let Some(def) = find(head) else {
        return Err(ParseError(mock_server::names::unknown(
            "step",
            head,
            step_names(),
            "type `help` for the list",
        )));
    };
    let raw = line[head.len()..].trim();
    (def.parse)(&rest, raw)
        .map(Some)
        .map_err(|why| ParseError(format!("{why} (usage: {})", def.usage)))
}

/// `help` alone: every step with a few words; `help STEP`: that step in detail. Filled to
/// `width` columns.
pub fn help_text(topic: Option<&str>, width: usize) -> String {
    match topic {
        Some(t) => match find(t) {
            Some(h) => format!("{}\n\n{}\n", h.usage, crate::term::reflow(h.what, width)),
            None => format!(
                "{}\n",
                mock_server::names::unknown("step", t, step_names(), "`help` lists them all")
            ),
        },
        None => {
            let rows: Vec<(String, String)> = STEPS
                .iter()
                .map(|h| (h.usage.to_owned(), h.brief.to_owned()))
                .collect();
            format!(
                "steps (help STEP for more):\n{}\n\n{}\n",
                crate::term::columns(&rows, "  ", width),
                crate::term::reflow(
                    &format!(
                        "guided scenarios (predict, then watch the wire): {}, then {}",
                        crate::term::nobreak("`mcp-tutor lab --list`"),
                        crate::term::nobreak("`mcp-tutor lab --scenario NAME`")
                    ),
                    width
                )
            )
        }
    }
}

#[cfg(test)]
#[path = "step_tests.rs"]
mod tests;
