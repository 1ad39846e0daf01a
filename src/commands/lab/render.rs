//! Events as a person reads them: one arrow line per message, indented notes under it,
//! violations flagged in place with rule, frame and spec reference.

use std::fmt::Write as _;

use owo_colors::Style;

use crate::term::paint;
use serde_json::Value;

use super::event::{EndKind, RuleVerdict, TranscriptEvent, show_id};
use super::faults::{fault_table, listed_faults};

/// Rendering choices that do not change what is said.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    /// Show raw wire text (`wire on`).
    pub wire: bool,
    /// Screen-reader mode: ASCII arrows and marks.
    pub plain: bool,
}

struct Marks {
    out: &'static str,
    back: &'static str,
    ok: &'static str,
    bad: &'static str,
    end: &'static str,
}

fn marks(plain: bool) -> Marks {
    if plain {
        Marks {
            out: "->",
            back: "<-",
            ok: "ok",
            bad: "VIOLATION",
            end: "<-x",
        }
    } else {
        Marks {
            out: "→",
            back: "←",
            ok: "✓",
            bad: "✗",
            end: "←✕",
        }
    }
}

fn indent(block: &str, by: &str) -> String {
    let mut s = String::new();
    for line in block.lines() {
        let _ = writeln!(s, "{by}{line}");
    }
    s
}

fn verdict_lines(out: &mut String, verdicts: &[RuleVerdict], m: &Marks, frame: Option<&str>) {
    for v in verdicts.iter().filter(|v| !v.ok) {
        let head = format!("{} {} — {}", m.bad, v.rule, v.title);
        let _ = writeln!(out, "    {}", paint(&head, Style::new().red().bold()));
        if !v.detail.is_empty() {
            let _ = writeln!(out, "      {}", v.detail);
        }
        if let Some(f) = frame {
            let _ = writeln!(out, "      frame: {}", abbreviate(f));
        }
        // The same pointer `check` prints: a command an installed binary can follow.
        let _ = writeln!(out, "      spec: {}", crate::rules_doc::pointer(&v.spec));
    }
    let passed: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.ok)
        .map(|v| v.rule.as_str())
        .collect();
    if !passed.is_empty() {
        let line = format!("{} {}", m.ok, passed.join(", "));
        let _ = writeln!(out, "    {}", paint(&line, Style::new().green()));
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// Longest frame text shown whole in a verdict; `wire on` shows every byte.
const SHOWN: usize = 400;

/// A frame as quoted under a verdict: whole when short, else its head and tail and how much
/// was left out, so one huge or garbage frame cannot bury the screen.
pub fn abbreviate(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= SHOWN {
        return text.to_owned();
    }
    let head: String = text.chars().take(SHOWN / 2).collect();
    let tail: String = text.chars().skip(chars - SHOWN / 4).collect();
    format!(
        "{head} … ({} bytes in all; `wire on` shows everything) … {tail}",
        text.len()
    )
}

/// Screen-reader mode keeps to ASCII punctuation (the `§` of spec references stays: it is read
/// out as "section").
fn ascii_punctuation(s: String) -> String {
    if s.is_ascii() {
        return s;
    }
    s.replace(" · ", ", ")
        .replace('·', " ")
        .replace('—', "-")
        .replace('…', "...")
        .replace('→', "->")
        .replace('←', "<-")
        .replace('✓', "ok")
        .replace(['✗', '✕'], "x")
        .replace('≠', "!=")
}

/// One event as text, ending in a newline (empty for events that show nothing).
pub fn render(ev: &TranscriptEvent, look: Look) -> String {
    // Filled to the terminal with hanging indents; wire text, JSON and the timeline as drawn.
    // Prose written with line breaks (narration, a prediction's why) is filled first, a
    // paragraph at a time; what is filled already passes the second fill unchanged.
    let width = crate::term::width();
    let mut text = crate::term::hang_prose(&render_styled(ev, look, width), width);
    // The mock's fault list, laid out in columns already: a second fill would undo them.
    if let TranscriptEvent::Reply { message, .. } = ev
        && let Some(rows) = listed_faults(message)
    {
        text.push_str(&fault_table(&rows, "    ", width));
        text.push('\n');
    }
    if look.plain {
        ascii_punctuation(text)
    } else {
        text
    }
}

fn render_styled(ev: &TranscriptEvent, look: Look, width: usize) -> String {
    let mut out = String::new();
    // Every event belongs to one family, so a new one must be placed here to compile.
    match ev {
        TranscriptEvent::Banner { .. }
        | TranscriptEvent::Say { .. }
        | TranscriptEvent::Question { .. }
        | TranscriptEvent::Answer { .. }
        | TranscriptEvent::Notice { .. }
        | TranscriptEvent::Step { .. }
        | TranscriptEvent::Client { .. }
        | TranscriptEvent::Info { .. }
        | TranscriptEvent::Error { .. } => narration(&mut out, ev, look, width),
        TranscriptEvent::Send { .. } | TranscriptEvent::Reply { .. } => {
            exchange(&mut out, ev, look)
        }
        TranscriptEvent::Frame { .. }
        | TranscriptEvent::KeepAlive { .. }
        | TranscriptEvent::Dropped { .. }
        | TranscriptEvent::End { .. } => stream(&mut out, ev, look),
    }
    out
}

/// What the lab and the learner say: banners, narration, predictions, steps, notes, errors.
fn narration(out: &mut String, ev: &TranscriptEvent, look: Look, width: usize) {
    use crate::term::{reflow, wrap_to};
    match ev {
        TranscriptEvent::Banner { server, transport } => {
            let _ = writeln!(
                out,
                "{} {server} ({transport})",
                paint("mcp-tutor lab:", Style::new().bold())
            );
        }
        TranscriptEvent::Say { text } => {
            out.push('\n');
            out.push_str(&reflow(text.trim_end(), width));
            out.push('\n');
        }
        TranscriptEvent::Question {
            prompt, choices, ..
        } => {
            let _ = writeln!(
                out,
                "{} {prompt}",
                paint("predict:", Style::new().yellow().bold())
            );
            for (c, choice) in (b'a'..).map(char::from).zip(choices) {
                let _ = writeln!(
                    out,
                    "{}",
                    wrap_to(choice, &format!("  {c}) "), "     ", width)
                );
            }
        }
        TranscriptEvent::Answer {
            chosen,
            correct,
            right,
            card,
            why,
            lapse_recorded,
        } => {
            let (verdict, style) = prediction_verdict(chosen.as_deref(), correct, *right, look);
            let _ = writeln!(out, "{}", paint(&verdict, style));
            out.push_str(&indent(
                &reflow(why.trim_end(), width.saturating_sub(2)),
                "  ",
            ));
            if *lapse_recorded {
                let _ = writeln!(out, "  (card {card} comes back sooner in `mcp-tutor quiz`)");
            }
        }
        TranscriptEvent::Notice { text } => {
            out.push_str(&indent(
                text.trim_end(),
                &format!("{} ", paint("notice:", Style::new().cyan())),
            ));
        }
        TranscriptEvent::Step { line } => {
            let _ = writeln!(out, "{} {line}", paint("lab>", Style::new().bold()));
        }
        TranscriptEvent::Client { text } => {
            let tag = paint("client:", Style::new().cyan().bold());
            let _ = writeln!(out, "  {tag} {text}");
        }
        TranscriptEvent::Info { text } => {
            out.push_str(&indent(text.trim_end(), "  "));
        }
        TranscriptEvent::Error { text } => {
            let _ = writeln!(out, "{} {text}", paint("error:", Style::new().red().bold()));
        }
        // The other families (`render_styled` places every event).
        _ => {}
    }
}

/// How a prediction went, and its style.
fn prediction_verdict(
    chosen: Option<&str>,
    correct: &str,
    right: bool,
    look: Look,
) -> (String, Style) {
    let m = marks(look.plain);
    let (yes, no) = if look.plain {
        ("right:", "wrong:")
    } else {
        (m.ok, m.bad)
    };
    let verdict = match (chosen, right) {
        (None, _) => format!("answer: {correct} (no prediction made)"),
        (Some(c), true) => format!("{yes} you said {c}, and the wire agrees"),
        (Some(c), false) => format!("{no} you said {c}; the answer is {correct}"),
    };
    let style = if right {
        Style::new().green().bold()
    } else if chosen.is_some() {
        Style::new().red().bold()
    } else {
        Style::new().bold()
    };
    (verdict, style)
}

/// A request the lab sent and its plain reply.
fn exchange(out: &mut String, ev: &TranscriptEvent, look: Look) {
    let m = marks(look.plain);
    match ev {
        TranscriptEvent::Send {
            id,
            method,
            detail,
            wire,
        } => {
            let id = id
                .as_ref()
                .map(|i| format!("  id {}", show_id(i)))
                .unwrap_or_default();
            let line = format!("{} {method}{id}", m.out);
            let _ = write!(out, "{}", paint(&line, Style::new().blue()));
            if detail.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, "  {detail}");
            }
            if look.wire {
                if let Some(w) = wire {
                    out.push_str(&indent(w, "    | "));
                }
            }
        }
        TranscriptEvent::Reply {
            id,
            method,
            status,
            summary,
            wire,
            ..
        } => {
            let status = status.map(|s| format!(" HTTP {s}")).unwrap_or_default();
            let line = format!("{} {method} id {}{status}: {summary}", m.back, show_id(id));
            let _ = writeln!(out, "{line}");
            if look.wire {
                if let Some(w) = wire {
                    out.push_str(&indent(w, "    | "));
                }
            }
        }
        _ => {}
    }
}

/// The line that says how a stream ended, and its style.
fn end_head(how: &EndKind, stream: &Value, m: &Marks) -> (String, Style) {
    let head = match how {
        EndKind::Graceful => format!("{} [{}] stream closed", m.back, show_id(stream)),
        EndKind::Abrupt => format!("{} [{}] stream ended, no result", m.end, show_id(stream)),
        EndKind::Cancelled => format!(
            "{} [{}] stream cancelled by the client",
            m.out,
            show_id(stream)
        ),
    };
    let style = match how {
        EndKind::Abrupt => Style::new().yellow().bold(),
        _ => Style::new().magenta(),
    };
    (head, style)
}

/// What arrived on a listen stream: frames, keep-alives, dropped frames, its end.
fn stream(out: &mut String, ev: &TranscriptEvent, look: Look) {
    let m = marks(look.plain);
    match ev {
        TranscriptEvent::Frame {
            stream,
            kind,
            raw,
            notes,
            verdicts,
            ..
        } => {
            let bad = verdicts.iter().any(|v| !v.ok);
            let line = format!("{} [{}] {kind}", m.back, show_id(stream));
            let style = if bad {
                Style::new().red().bold()
            } else {
                Style::new().magenta()
            };
            let _ = writeln!(out, "{}", paint(&line, style));
            if look.wire {
                out.push_str(&indent(raw, "    | "));
            }
            for n in notes {
                let _ = writeln!(out, "    {n}");
            }
            verdict_lines(out, verdicts, &m, (!look.wire).then_some(raw.as_str()));
        }
        // Shown only with `wire on`.
        TranscriptEvent::KeepAlive { stream, raw } if look.wire => {
            let _ = writeln!(
                out,
                "{}",
                paint(
                    format!(
                        "    | [{}] {:?}  (keep-alive comment: not a message, ignored)",
                        show_id(stream),
                        raw
                    ),
                    Style::new().dimmed()
                )
            );
        }
        TranscriptEvent::Dropped {
            stream,
            kind,
            message,
            why,
            verdicts,
        } => {
            let line = format!("{} [{}] {kind} — dropped", m.back, show_id(stream));
            let _ = writeln!(out, "{}", paint(&line, Style::new().dimmed()));
            let _ = writeln!(out, "    {why}");
            verdict_lines(out, verdicts, &m, Some(&compact(message)));
        }
        TranscriptEvent::End {
            stream,
            how,
            note,
            verdicts,
        } => {
            let (head, style) = end_head(how, stream, &m);
            let _ = writeln!(out, "{}", paint(&head, style));
            if !note.is_empty() {
                out.push_str(&indent(note, "    "));
            }
            verdict_lines(out, verdicts, &m, None);
        }
        _ => {}
    }
}
