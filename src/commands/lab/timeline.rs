//! `timeline`: the transcript drawn as a sequence diagram, client on the left, server on the
//! right, one arrow per message, subscription tags in brackets, violations marked.

use std::fmt::Write as _;

use super::event::{EndKind, TranscriptEvent, show_id};

const WIDTH: usize = 64;

struct Glyphs {
    line: char,
    right: char,
    left: char,
    cut: char,
    bar: char,
}

fn glyphs(plain: bool) -> Glyphs {
    if plain {
        Glyphs {
            line: '-',
            right: '>',
            left: '<',
            cut: 'x',
            bar: '|',
        }
    } else {
        Glyphs {
            line: '─',
            right: '▶',
            left: '◀',
            cut: '✕',
            bar: '│',
        }
    }
}

enum Dir {
    ToServer,
    ToClient,
    /// The client cut its end of a stream.
    ClientCut,
    /// The stream broke with nothing said.
    Broken,
}

fn arrow(dir: Dir, label: &str, flag: &str, g: &Glyphs) -> String {
    let inner = WIDTH - 2;
    let mut label: String = format!(" {label} ");
    if label.chars().count() > inner - 4 {
        label = label.chars().take(inner - 5).collect::<String>() + "… ";
    }
    let fill = inner.saturating_sub(label.chars().count() + 3);
    let line = |n: usize| g.line.to_string().repeat(n);
    let body = match dir {
        Dir::ToServer => format!("{}{label}{}{}", line(2), line(fill), g.right),
        Dir::ToClient => format!("{}{}{label}{}", g.left, line(fill), line(2)),
        Dir::ClientCut => format!("{}{label}{}{}", line(2), g.cut, " ".repeat(fill)),
        Dir::Broken => format!("{}{}{label}{}", " ".repeat(fill), g.cut, line(2)),
    };
    format!("{}{body} {}{}{flag}", g.bar, " ".repeat(0), g.bar)
}

/// Draw every message event so far. Steps appear as headings so the learner can find their way.
pub fn draw(events: &[TranscriptEvent], plain: bool) -> String {
    let g = glyphs(plain);
    let mut out = String::new();
    let client = "lab client";
    let server = "server";
    let _ = writeln!(
        out,
        "{client}{}{server}",
        " ".repeat(WIDTH + 1 - client.len() - server.len())
    );
    let mut drew = false;
    // A step is drawn as a heading only when something went over the wire after it.
    let mut heading: Option<&str> = None;
    for ev in events {
        if let TranscriptEvent::Step { line } = ev {
            heading = Some(line);
            continue;
        }
        let Some((dir, label)) = on_the_wire(ev) else {
            continue;
        };
        drew = true;
        if let Some(h) = heading.take() {
            let _ = writeln!(out, "{}  {h}", g.bar);
        }
        let _ = writeln!(out, "{}", arrow(dir, &label, &broken_rules(ev), &g));
    }
    if !drew {
        let _ = writeln!(out, "(nothing on the wire yet: try `listen tools`)");
    }
    out
}

/// `  !! rule, rule` for the rules an event broke, or nothing.
fn broken_rules(ev: &TranscriptEvent) -> String {
    let rules: Vec<&str> = ev
        .verdicts()
        .iter()
        .filter(|v| !v.ok)
        .map(|v| v.rule.as_str())
        .collect();
    if rules.is_empty() {
        String::new()
    } else {
        format!("  !! {}", rules.join(", "))
    }
}

/// Which way an event crossed the wire and its label; `None` for what never did (narration,
/// steps, notes).
fn on_the_wire(ev: &TranscriptEvent) -> Option<(Dir, String)> {
    let short = |kind: &str| {
        kind.strip_prefix("notifications/")
            .unwrap_or(kind)
            .to_owned()
    };
    Some(match ev {
        TranscriptEvent::Send { id, method, .. } => {
            let id = id
                .as_ref()
                .map(|i| format!(" {}", show_id(i)))
                .unwrap_or_default();
            (Dir::ToServer, format!("{method}{id}"))
        }
        TranscriptEvent::Reply {
            id, method, status, ..
        } => {
            let st = status.map(|s| format!(" {s}")).unwrap_or_default();
            (Dir::ToClient, format!("{method} reply {}{st}", show_id(id)))
        }
        TranscriptEvent::Frame { stream, kind, .. } => (
            Dir::ToClient,
            format!("[{}] {}", show_id(stream), short(kind)),
        ),
        TranscriptEvent::Dropped { stream, kind, .. } => (
            Dir::ToClient,
            format!("[{}] {} (dropped)", show_id(stream), short(kind)),
        ),
        TranscriptEvent::End { stream, how, .. } => match how {
            EndKind::Graceful => (Dir::ToClient, format!("[{}] closed", show_id(stream))),
            EndKind::Abrupt => (
                Dir::Broken,
                format!("[{}] gone, no result", show_id(stream)),
            ),
            EndKind::Cancelled => (Dir::ClientCut, format!("[{}] cancel", show_id(stream))),
        },
        _ => return None,
    })
}
