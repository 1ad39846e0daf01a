//! The lab's steps: what a user (or a script) can type, parsed into one enum, with the help text
//! that teaches what each step shows on the wire.

use std::fmt;

use mock_server::protocol::SubscriptionFilter;
use serde_json::Value;

/// A change the server can be asked to make, which listeners see as a notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Prompts,
    Resources,
}

impl ListKind {
    pub fn word(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
        }
    }

    fn parse(word: &str) -> Option<Self> {
        match word {
            "tools" | "tool" => Some(ListKind::Tools),
            "prompts" | "prompt" => Some(ListKind::Prompts),
            "resources" | "resource" => Some(ListKind::Resources),
            _ => None,
        }
    }
}

/// What a `listen` step asks for: the four parts of the subscription filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterAsk {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    pub uris: Vec<String>,
}

impl FilterAsk {
    /// The filter as it goes on the wire (`params.notifications`); parts not asked for are left
    /// out, which the spec defines as "not subscribed".
    pub fn to_filter(&self) -> SubscriptionFilter {
        SubscriptionFilter {
            tools_list_changed: self.tools.then_some(true),
            prompts_list_changed: self.prompts.then_some(true),
            resources_list_changed: self.resources.then_some(true),
            resource_subscriptions: (!self.uris.is_empty()).then(|| self.uris.clone()),
        }
    }

    /// Read a filter back from JSON (an acknowledgement's `params.notifications`).
    pub fn from_json(v: &Value) -> Self {
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        FilterAsk {
            tools: flag("toolsListChanged"),
            prompts: flag("promptsListChanged"),
            resources: flag("resourcesListChanged"),
            uris: v
                .get("resourceSubscriptions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|u| u.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// Short words for display: `tools prompts mock://notes/today`.
    pub fn words(&self) -> String {
        self.to_filter().words()
    }

    /// The parts of `self` that `honoured` left out.
    pub fn missing_from(&self, honoured: &FilterAsk) -> Vec<String> {
        self.to_filter().missing_from(&honoured.to_filter())
    }

    /// Parts the acknowledgement claims that were never asked for.
    pub fn extra_in(&self, honoured: &FilterAsk) -> Vec<String> {
        honoured.to_filter().missing_from(&self.to_filter())
    }
}

/// Which subscription(s) a `close` step ends.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
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
        filter: FilterAsk,
    },
    Change(ListKind),
    Update(String),
    Close(Target),
    Cancel(Value),
    Drop,
    Fault {
        name: Option<String>,
        on: bool,
    },
    Wire(bool),
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

/// One line of the step reference: the command, its arguments, and what it teaches.
pub struct StepHelp {
    pub name: &'static str,
    /// A few words for the `help` list.
    pub brief: &'static str,
    pub usage: &'static str,
    pub what: &'static str,
}

pub const HELP: &[StepHelp] = &[
    StepHelp {
        name: "discover",
        brief: "versions and capabilities",
        usage: "discover",
        what: "server/discover: which versions and capabilities the server offers. \
               `listChanged` and `subscribe` flags are how a server says it can notify; \
               there is no separate `subscriptions` capability.",
    },
    StepHelp {
        name: "list",
        brief: "fetch a list (what a change notification says to re-fetch)",
        usage: "list tools|prompts|resources",
        what: "tools/list, prompts/list or resources/list: the snapshot a change notification \
               tells you to fetch again (nothing is replayed on the stream).",
    },
    StepHelp {
        name: "read",
        brief: "read one resource",
        usage: "read URI",
        what: "resources/read of one resource, e.g. `read mock://notes/today`. Over HTTP the \
               URI also travels in the Mcp-Name header.",
    },
    StepHelp {
        name: "listen",
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
    },
    StepHelp {
        name: "change",
        brief: "make the server change a list",
        usage: "change tools|prompts|resources",
        what: "make the server change a list; listeners that asked for that type get a \
               …/list_changed notification, others get nothing.",
    },
    StepHelp {
        name: "update",
        brief: "make the server change one resource",
        usage: "update URI",
        what: "make the server change one resource; listeners whose resourceSubscriptions \
               cover it get notifications/resources/updated with params.uri.",
    },
    StepHelp {
        name: "close",
        brief: "the server ends a subscription gracefully (result, then close)",
        usage: "close ID|all",
        what: "the SERVER ends a subscription gracefully: the listen request finally gets its \
               result {\"resultType\":\"complete\",\"_meta\":{subscriptionId}} and the stream \
               closes.",
    },
    StepHelp {
        name: "cancel",
        brief: "the client ends a subscription",
        usage: "cancel ID",
        what: "the CLIENT ends a subscription: over HTTP it closes the SSE stream (no \
               notifications/cancelled exists there), over stdio it sends \
               notifications/cancelled with requestId = the listen id. Nothing more may arrive \
               for it, not even a result.",
    },
    StepHelp {
        name: "drop",
        brief: "the server vanishes: streams end with no result",
        usage: "drop",
        what: "the server vanishes: every open stream ends abruptly with no result (with --stdio \
               the child is killed, then restarted). A careful client may reconnect, with a NEW \
               request id, and must listen again: nothing survives.",
    },
    StepHelp {
        name: "fault",
        brief: "switch a mock server fault on or off (alone: list them)",
        usage: "fault [NAME on|off]",
        what: "switch one of the mock server's faults, each breaking one rule (`fault` alone \
               lists them). Only for the bundled server.",
    },
    StepHelp {
        name: "wire",
        brief: "show raw HTTP / SSE / stdio traffic too",
        usage: "wire on|off",
        what: "show the raw traffic too: HTTP requests with headers and SSE frames (keep-alive \
               comment lines included), or raw stdio lines.",
    },
    StepHelp {
        name: "timeline",
        brief: "a sequence diagram of everything so far",
        usage: "timeline",
        what: "a sequence diagram of everything so far, client on the left, server on the right.",
    },
    StepHelp {
        name: "explain",
        brief: "the rule and spec reference behind the last frame",
        usage: "explain",
        what: "the rule behind the last frame, with its spec reference.",
    },
    StepHelp {
        name: "save",
        brief: "the transcript as JSON lines",
        usage: "save FILE",
        what: "write the transcript so far as JSON lines, one event per line.",
    },
    StepHelp {
        name: "status",
        brief: "the subscriptions this client holds",
        usage: "status",
        what: "the subscriptions the lab client holds, what each asked for and was granted.",
    },
    StepHelp {
        name: "reset",
        brief: "cancel everything, faults off, start over",
        usage: "reset",
        what: "cancel every subscription, clear faults and the transcript, start over.",
    },
    StepHelp {
        name: "predict",
        brief: "(scripts) the answer to a scenario's next question",
        usage: "predict LETTER",
        what: "in a scenario's script, the answer to the next question (`predict b`); a wrong \
               one is recorded as a lapse of the question's card, so the quiz brings it back.",
    },
    StepHelp {
        name: "wait",
        brief: "(scripts) wait for stragglers",
        usage: "wait MS",
        what: "in a script, wait this many milliseconds for stragglers before the next step.",
    },
    StepHelp {
        name: "help",
        brief: "this list, or one step in detail",
        usage: "help [STEP]",
        what: "this list, or one step in detail.",
    },
    StepHelp {
        name: "quit",
        brief: "leave the lab",
        usage: "quit",
        what: "leave the lab (Ctrl-D works too).",
    },
];

/// Words offered by tab completion, first word of a line.
pub fn step_names() -> impl Iterator<Item = &'static str> {
    HELP.iter().map(|h| h.name)
}

#[derive(Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn usage_of(name: &str) -> &'static str {
    HELP.iter()
        .find(|h| h.name == name)
        .map(|h| h.usage)
        .unwrap_or("")
}

fn bad(name: &str, why: &str) -> ParseError {
    ParseError(format!("{why} (usage: {})", usage_of(name)))
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
    let one = |name: &str| -> Result<&str, ParseError> {
        match rest.as_slice() {
            [w] => Ok(*w),
            [] => Err(bad(name, "missing argument")),
            _ => Err(bad(name, "too many arguments")),
        }
    };
    let none = |name: &str, step: Step| -> Result<Option<Step>, ParseError> {
        if rest.is_empty() {
            Ok(Some(step))
        } else {
            Err(bad(name, "this step takes no arguments"))
        }
    };
    let kind = |name: &str| -> Result<ListKind, ParseError> {
        let w = one(name)?;
        ListKind::parse(w)
            .ok_or_else(|| bad(name, &format!("`{w}` is not tools, prompts or resources")))
    };
    let on_off = |name: &str, w: &str| -> Result<bool, ParseError> {
        match w {
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err(bad(name, &format!("`{w}`: say on or off"))),
        }
    };
    let step = match head {
        "discover" => return none("discover", Step::Discover),
        "list" => Step::List(kind("list")?),
        "read" => Step::Read(one("read")?.to_owned()),
        "listen" => {
            let mut filter = FilterAsk::default();
            let mut id = None;
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                match *w {
                    "--id" => {
                        let v = it
                            .next()
                            .ok_or_else(|| bad("listen", "--id needs a value"))?;
                        id = Some(parse_id(v));
                    }
                    w => match ListKind::parse(w) {
                        Some(ListKind::Tools) => filter.tools = true,
                        Some(ListKind::Prompts) => filter.prompts = true,
                        Some(ListKind::Resources) => filter.resources = true,
                        None if w.contains(':') => filter.uris.push(w.to_owned()),
                        None => {
                            return Err(bad(
                                "listen",
                                &format!("`{w}` is not tools, prompts, resources or a URI"),
                            ));
                        }
                    },
                }
            }
            Step::Listen { id, filter }
        }
        "change" => Step::Change(kind("change")?),
        "update" => Step::Update(one("update")?.to_owned()),
        "close" => match one("close")? {
            "all" => Step::Close(Target::All),
            w => Step::Close(Target::One(parse_id(w))),
        },
        "cancel" => Step::Cancel(parse_id(one("cancel")?)),
        "drop" => return none("drop", Step::Drop),
        "fault" => match rest.as_slice() {
            [] => Step::Fault {
                name: None,
                on: false,
            },
            [name, state] => Step::Fault {
                name: Some((*name).to_owned()),
                on: on_off("fault", state)?,
            },
            [name] => Step::Fault {
                name: Some((*name).to_owned()),
                on: true,
            },
            _ => return Err(bad("fault", "too many arguments")),
        },
        "wire" => Step::Wire(on_off("wire", one("wire")?)?),
        "timeline" => return none("timeline", Step::Timeline),
        "explain" => return none("explain", Step::Explain),
        "save" => Step::Save(one("save")?.to_owned()),
        "status" => return none("status", Step::Status),
        "reset" => return none("reset", Step::Reset),
        "help" | "?" => Step::Help(rest.first().map(|w| (*w).to_owned())),
        "predict" => Step::Predict(
            one("predict")
                .map_err(|_| ParseError("usage: predict LETTER (e.g. predict b)".into()))?
                .to_ascii_lowercase(),
        ),
        "wait" => {
            let w = one("wait").map_err(|_| ParseError("usage: wait MILLISECONDS".into()))?;
            Step::Wait(
                w.parse()
                    .map_err(|_| ParseError(format!("`{w}` is not a number of milliseconds")))?,
            )
        }
        "quit" | "exit" | "q" => return none("quit", Step::Quit),
        other => {
            let near = step_names()
                .map(|n| (strsim::levenshtein(n, other), n))
                .min()
                .filter(|(d, _)| *d <= 2)
                .map(|(_, n)| format!(" — did you mean `{n}`?"))
                .unwrap_or_default();
            return Err(ParseError(format!(
                "unknown step `{other}`{near} (type `help` for the list)"
            )));
        }
    };
    Ok(Some(step))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_takes_any_filter_parts() {
        let s = parse("listen tools prompts mock://notes/today")
            .unwrap()
            .unwrap();
        let Step::Listen { id, filter } = s else {
            panic!("not a listen: {s:?}")
        };
        assert_eq!(id, None);
        assert_eq!(
            serde_json::to_value(filter.to_filter()).unwrap(),
            serde_json::json!({"toolsListChanged":true,"promptsListChanged":true,
                               "resourceSubscriptions":["mock://notes/today"]})
        );
        let Some(Step::Listen { filter, .. }) = parse("listen resources").unwrap() else {
            panic!()
        };
        assert_eq!(
            serde_json::to_value(filter.to_filter()).unwrap(),
            serde_json::json!({"resourcesListChanged":true})
        );
    }

    #[test]
    fn ids_keep_their_json_type() {
        assert_eq!(parse_id("7"), Value::from(7));
        assert_eq!(parse_id("\"7\""), Value::from("7"));
        assert_eq!(parse_id("lab-1"), Value::from("lab-1"));
        assert_eq!(
            parse("listen --id 7 tools").unwrap(),
            Some(Step::Listen {
                id: Some(Value::from(7)),
                filter: FilterAsk {
                    tools: true,
                    ..FilterAsk::default()
                }
            })
        );
    }

    #[test]
    fn mistakes_are_explained() {
        let e = parse("lisen tools").unwrap_err();
        assert!(e.0.contains("did you mean `listen`"), "{e}");
        let e = parse("change everything").unwrap_err();
        assert!(e.0.contains("usage: change tools|prompts|resources"), "{e}");
        assert_eq!(parse("  # a comment").unwrap(), None);
    }

    #[test]
    fn honoured_subset_differences() {
        let asked = FilterAsk {
            tools: true,
            uris: vec!["mock://a".into(), "mock://nope".into()],
            ..FilterAsk::default()
        };
        let got = FilterAsk {
            tools: true,
            prompts: true,
            uris: vec!["mock://a".into()],
            ..FilterAsk::default()
        };
        assert_eq!(asked.missing_from(&got), vec!["mock://nope".to_owned()]);
        assert_eq!(asked.extra_in(&got), vec!["prompts".to_owned()]);
    }
}
