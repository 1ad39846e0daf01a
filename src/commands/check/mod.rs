//! `mcp-tutor check`: the checking client pointed at any MCP 2026-07-28 server.
//!
//! It speaks through the client library ([`crate::client`]) and judges with the validator
//! ([`mock_server::validator`]), both shared with the lab. [`suite`]: the checks this command
//! runs; [`report`]: their PASS / FAIL / SKIP per rule.

mod endpoint;
mod report;
mod suite;

use std::io::Write as _;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use mock_server::tool;
use owo_colors::{OwoColorize, Stream};

use crate::global::Global;
use report::{Report, Status};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  \
        mcp-tutor serve --port 3000 &   mcp-tutor check http://127.0.0.1:3000/mcp\n  \
        mcp-tutor check --stdio -- mcp-tutor serve --stdio\n  \
        mcp-tutor check --json http://127.0.0.1:3000/mcp | jq '.rules[] | select(.status==\"FAIL\")'",
    after_long_help = "Talks to the server like a careful client, then prints one line per rule: PASS, FAIL \
        (with what was seen and its spec reference) or SKIP (with why), and a summary \
        `N passed, M failed, K skipped`; `mcp-tutor why RULE` explains a rule. Exits 1 when any \
        rule fails, 2 when the server cannot be reached.\n\n\
        It checks server/discover; the header and version errors (HTTP 400 with -32020 / -32022 \
        / -32602, 404 with -32601, 405 for GET and DELETE); and subscriptions/listen end to end: \
        the acknowledgement first, tagged with the listen request's own id (a string id and an \
        integer id, JSON type included), the honoured subset, filtering, several streams at once, \
        the tag on every notification, and the graceful close result's exact shape. Over stdio \
        it also cancels one subscription with notifications/cancelled and checks that nothing \
        more arrives for it.\n\n\
        Changes are caused by calling the server's own tools (by default the names the official \
        conformance suite uses); a check whose tool the server lacks is SKIPPED, never passed. \
        Every wait is bounded by --timeout, so a broken server cannot hang it.\n\n\
        Examples:\n  \
        mcp-tutor serve --port 3000 &   mcp-tutor check http://127.0.0.1:3000/mcp\n  \
        mcp-tutor check --stdio -- mcp-tutor serve --stdio --fault untagged\n  \
        mcp-tutor check --json http://127.0.0.1:3000/mcp | jq '.rules[] | select(.status==\"FAIL\")'"
)]
pub struct Args {
    /// The server's MCP endpoint, e.g. http://127.0.0.1:3000/mcp
    #[arg(value_name = "URL", required_unless_present_any = ["stdio", "list_rules"])]
    pub url: Option<String>,
    /// Check a stdio server instead: give its command line after `--`.
    #[arg(long, conflicts_with = "url", requires = "command")]
    pub stdio: bool,
    /// The stdio server's command and arguments (after `--`).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
    /// Seconds to wait for anything (a reply, an acknowledgement, a notification).
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// List every rule (name, MUST/SHOULD, what it means, where the spec says it) and exit.
    #[arg(long)]
    pub list_rules: bool,
    /// Print one JSON document (every rule with its evidence, the counts) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Give every rule its spec reference, not only the failed ones.
    #[arg(long, short)]
    pub verbose: bool,
    /// Tool that changes the server's tool list ("" to skip those checks).
    #[arg(long, default_value = tool::TRIGGER_TOOL_CHANGE, value_name = "TOOL")]
    pub change_tool: String,
    /// Tool that changes the server's prompt list ("" to skip).
    #[arg(
        long,
        default_value = tool::TRIGGER_PROMPT_CHANGE,
        value_name = "TOOL"
    )]
    pub prompt_change_tool: String,
    /// Tool that updates a resource, called with {"uri": …} ("" to skip).
    #[arg(
        long,
        default_value = tool::TRIGGER_RESOURCE_UPDATE,
        value_name = "TOOL"
    )]
    pub resource_update_tool: String,
    /// Tool that ends every open subscription gracefully ("" to skip).
    #[arg(long, default_value = tool::CLOSE_SUBSCRIPTIONS, value_name = "TOOL")]
    pub close_tool: String,
}

fn named(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.trim().to_owned())
}

impl Args {
    pub fn config(&self) -> anyhow::Result<suite::Config> {
        if !(self.timeout.is_finite() && self.timeout > 0.0 && self.timeout <= 3600.0) {
            bail!(
                "--timeout {} is not a number of seconds between 0 and 3600 (e.g. --timeout 2.5)",
                self.timeout
            );
        }
        Ok(suite::Config {
            timeout: Duration::from_secs_f64(self.timeout),
            tool_change: named(&self.change_tool),
            prompt_change: named(&self.prompt_change_tool),
            resource_update: named(&self.resource_update_tool),
            close: named(&self.close_tool),
        })
    }
}

/// Runs the checks described by `args` and returns the report (for tests and the lab).
pub fn execute(args: &Args) -> anyhow::Result<Report> {
    let cfg = args.config()?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    rt.block_on(async {
        if args.stdio {
            suite::run_stdio(&args.command, cfg).await
        } else {
            let url = args
                .url
                .as_deref()
                .context("give the server's URL, or --stdio -- CMD")?;
            suite::run_http(url, cfg).await
        }
    })
}

pub fn run(args: Args, _g: &Global) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    if args.list_rules {
        write!(out, "{}", render_rules(args.json)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let report = match execute(&args) {
        Ok(report) => report,
        Err(e) => match e.downcast_ref::<crate::client::Flood>() {
            // A flood is the server failing, not check failing to run: exit 1 like a broken rule.
            Some(flood) => {
                if args.json {
                    let json = serde_json::json!({"failed": "flooding", "flood": flood, "detail": flood.to_string()});
                    writeln!(out, "{}", serde_json::to_string_pretty(&json)?)?;
                } else {
                    writeln!(
                        out,
                        "FAIL  {flood}\n      check stopped reading: no MCP server needs to send this fast"
                    )?;
                }
                return Ok(ExitCode::from(1));
            }
            None => return Err(e),
        },
    };
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report.to_json())?)?;
    } else {
        // Filled to the terminal with a hanging indent; each rule still starts its own line.
        let text = crate::term::hang(&render_text(&report, args.verbose), crate::term::width());
        write!(out, "{text}")?;
    }
    let (_, failed, _) = report.counts();
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `--list-rules`: every rule with its level, meaning and spec reference.
pub fn render_rules(json: bool) -> anyhow::Result<String> {
    use mock_server::validator::{CheckRule, Level};
    if json {
        let rules: Vec<_> = CheckRule::all()
            .iter()
            .map(|r| {
                serde_json::json!({"rule": r.name(), "level": r.level(), "title": r.title(), "spec": r.spec()})
            })
            .collect();
        return Ok(format!("{}\n", serde_json::to_string_pretty(&rules)?));
    }
    let rows: Vec<(String, String)> = CheckRule::all()
        .iter()
        .map(|r| {
            let level = match r.level() {
                Level::Must => "MUST",
                Level::Should => "SHOULD",
            };
            (
                r.name().to_owned(),
                format!(
                    "{level}: {}\nspec: {}",
                    r.title(),
                    crate::rules_doc::pointer(r.spec())
                ),
            )
        })
        .collect();
    Ok(format!(
        "{}\n",
        crate::term::columns(&rows, "", crate::term::width())
    ))
}

/// The text report: `check <target>`, one `STATUS  rule` line per rule (` — detail` on FAIL and
/// SKIP), then the summary line. A FAIL is followed by its spec reference and the command that
/// explains the rule; `verbose` gives every rule its reference.
pub fn render_text(report: &Report, verbose: bool) -> String {
    let mut s = format!("check {}\n", report.target);
    for o in report.outcomes() {
        let label = o.status.label();
        let label = match o.status {
            Status::Pass => format!("{}", label.if_supports_color(Stream::Stdout, |t| t.green())),
            Status::Fail => format!("{}", label.if_supports_color(Stream::Stdout, |t| t.red())),
            Status::Skip => format!(
                "{}",
                label.if_supports_color(Stream::Stdout, |t| t.yellow())
            ),
        };
        s.push_str(&format!("{label}  {}", o.rule.name()));
        match o.status {
            Status::Pass => {}
            Status::Fail => {
                let more = o.failures.len().saturating_sub(1);
                s.push_str(&format!(" — {}", o.detail));
                if o.level == mock_server::validator::Level::Should && !o.detail.contains("SHOULD")
                {
                    s.push_str(" [a SHOULD, not a MUST]");
                }
                if more > 0 {
                    s.push_str(&format!(" (+{more} more; --json lists all)"));
                }
            }
            Status::Skip => s.push_str(&format!(" — {}", o.detail)),
        }
        s.push('\n');
        if verbose || o.status == Status::Fail {
            s.push_str(&format!(
                "      spec: {}\n",
                crate::rules_doc::pointer(o.spec)
            ));
        }
    }
    // Skip reasons for rules that still got a verdict from other evidence: say what was not run.
    let outcomes = report.outcomes();
    for (rule, why) in &report.skips {
        if outcomes
            .iter()
            .any(|o| o.rule == *rule && o.status != Status::Skip)
        {
            s.push_str(&format!(
                "note  {}  partly exercised — {why}\n",
                rule.name()
            ));
        }
    }
    s.push_str(&report.summary_line());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use mock_server::validator::{CheckRule, Finding};

    /// The text layout scripts parse (peers' CI reads rule lines and the summary line).
    #[test]
    fn text_report_layout() {
        owo_colors::set_override(false);
        let mut r = Report::new("http://127.0.0.1:3000/mcp");
        r.add(Finding::pass(CheckRule::Discover, "resultType complete"));
        r.add(Finding::pass(CheckRule::AckFirst, "ack first for \"a\""));
        r.add(Finding::fail(
            CheckRule::TagMatchesId,
            "notifications/tools/list_changed is tagged \"7301\" (string) but the listen id is 7301 (integer)",
        ));
        r.add(Finding::fail(CheckRule::TagMatchesId, "another"));
        r.add(Finding::pass(
            CheckRule::AckedTypesDelivered,
            "tools delivered",
        ));
        r.add(Finding::fail(
            CheckRule::GetDeleteNotAllowed,
            "GET on the endpoint: expected HTTP 405, got HTTP 400",
        ));
        r.skip(
            CheckRule::AckedTypesDelivered,
            "the server has no tool \"test_trigger_prompt_change\"",
        );
        r.skip(CheckRule::GracefulClose, "no tool given (--close-tool)");
        // As `run` prints it: filled (here wide enough to keep every line whole).
        let text = crate::term::hang(&render_text(&r, false), 200);
        insta::assert_snapshot!(text);
        let verbose = crate::term::hang(&render_text(&r, true), 200);
        assert!(verbose.contains(
            "PASS  discover\n      spec: DISC; BASE §ResultType, §_meta; mcp-tutor why discover\n"
        ));
        let (p, f, s) = r.counts();
        assert_eq!((p, f), (3, 2));
        assert_eq!(p + f + s, CheckRule::all().len());
        assert!(text.ends_with(&format!("3 passed, 2 failed, {s} skipped\n")));
        assert!(text.contains("got HTTP 400 [a SHOULD, not a MUST]\n"));
    }

    #[test]
    fn json_report_keeps_verdicts_apart_from_evidence() {
        let mut r = Report::new("t");
        r.add(Finding::fail(CheckRule::AckFirst, "late"));
        r.add(Finding::pass(CheckRule::AckFirst, "fine once"));
        let doc = r.to_json();
        let rules = doc["rules"].as_array().unwrap();
        assert_eq!(rules.len(), CheckRule::all().len());
        let ack = rules.iter().find(|x| x["rule"] == "ack-first").unwrap();
        assert_eq!(ack["status"], "FAIL");
        assert_eq!(ack["failures"][0], "late");
        assert_eq!(doc["failed"], 1);
        // Evidence never carries `ok`/`status`, so scanners for verdicts read only `rules`.
        for e in doc["evidence"].as_array().unwrap() {
            assert!(e.get("ok").is_none() && e.get("status").is_none());
        }
    }

    #[test]
    fn timeout_must_be_sane() {
        use clap::Parser;
        #[derive(Parser)]
        struct T {
            #[command(flatten)]
            a: Args,
        }
        for bad in ["0", "-1", "nan", "inf", "99999"] {
            let t = T::try_parse_from(["t", "http://x/mcp", "--timeout", bad]);
            if let Ok(t) = t {
                assert!(t.a.config().is_err(), "{bad}");
            }
        }
        let t = T::try_parse_from(["t", "http://x/mcp", "--timeout", "2.5", "--close-tool", ""])
            .unwrap();
        let c = t.a.config().unwrap();
        assert_eq!(c.timeout, Duration::from_millis(2500));
        assert_eq!(c.close, None);
        assert_eq!(c.tool_change.as_deref(), Some(tool::TRIGGER_TOOL_CHANGE));
        assert!(
            T::try_parse_from(["t"]).is_err(),
            "a URL or --stdio is required"
        );
        assert!(
            T::try_parse_from(["t", "--stdio"]).is_err(),
            "--stdio needs a command"
        );
        let t = T::try_parse_from(["t", "--stdio", "--", "srv", "--flag"]).unwrap();
        assert_eq!(t.a.command, vec!["srv", "--flag"]);
    }
}
