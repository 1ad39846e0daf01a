//! `decks export`: the decks as JSON (for tools) or as a Markdown study sheet (for people).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::model::{Card, CardKind};
use super::{Deck, Library, facts};
use crate::grader;

/// Which cards teach each §9 fact (`DECK/CARD` keys), for every fact in facts.toml.
pub fn coverage(lib: &Library) -> BTreeMap<u32, Vec<String>> {
    let mut map: BTreeMap<u32, Vec<String>> = facts::all()
        .iter()
        .map(|f| (f.number, Vec::new()))
        .collect();
    for (d, c) in lib.cards() {
        for n in &c.facts {
            if let Some(keys) = map.get_mut(n) {
                keys.push(d.key(c));
            }
        }
    }
    map
}

/// The §9 facts no card teaches.
pub fn uncovered(lib: &Library) -> Vec<u32> {
    coverage(lib)
        .into_iter()
        .filter(|(_, keys)| keys.is_empty())
        .map(|(n, _)| n)
        .collect()
}

/// The card that lists `card` as a follow-up, if any.
fn parent<'a>(deck: &'a Deck, card: &Card) -> Option<&'a Card> {
    deck.cards.iter().find(|c| c.followups.contains(&card.id))
}

pub fn to_json(lib: &Library) -> Value {
    let decks: Vec<Value> = lib
        .decks
        .iter()
        .map(|d| {
            let cards: Vec<Value> = d
                .cards
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "key": d.key(c),
                        "kind": c.kind,
                        "question": c.question,
                        "facts": c.facts,
                        "spec": c.spec,
                        "tags": c.tags,
                        "tension": c.tension,
                        "points": c.points.iter().map(|p| json!({"label": p.label, "required": p.required})).collect::<Vec<_>>(),
                        "red_flags": c.red_flags.iter().map(|f| json!({"label": f.label, "correction": f.correction, "spec": f.spec})).collect::<Vec<_>>(),
                        "followups": c.followups,
                        "parent": parent(d, c).map(|p| p.id.clone()),
                        "answer": c.answer.as_ref().map(|a| a.text.clone()),
                    })
                })
                .collect();
            json!({
                "id": d.meta.id,
                "title": d.meta.title,
                "description": d.meta.description,
                "source": d.source,
                "cards": cards,
            })
        })
        .collect();
    let cov = coverage(lib);
    let covered: Vec<u32> = cov
        .iter()
        .filter(|(_, k)| !k.is_empty())
        .map(|(n, _)| *n)
        .collect();
    let missing: Vec<u32> = cov
        .iter()
        .filter(|(_, k)| k.is_empty())
        .map(|(n, _)| *n)
        .collect();
    json!({
        "decks": decks,
        "facts": {
            "total": cov.len(),
            "covered": covered,
            "uncovered": missing,
            "by_fact": cov,
        },
    })
}

fn quote_block(out: &mut String, text: &str) {
    for line in text.trim().lines() {
        let _ = writeln!(out, "> {line}");
    }
    out.push('\n');
}

fn card_md(out: &mut String, d: &Deck, c: &Card, depth: usize) {
    let hashes = "#".repeat(depth);
    let _ = writeln!(out, "{hashes} {}\n", c.question.trim());
    let mut meta = vec![format!("`{}`", d.key(c)), c.kind_name().to_string()];
    if !c.facts.is_empty() {
        meta.push(format!(
            "facts {}",
            c.facts
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !c.spec.is_empty() {
        meta.push(c.spec.join("; "));
    }
    let _ = writeln!(out, "*{}*\n", meta.join(" · "));
    if let Some(t) = &c.tension {
        let _ = writeln!(out, "**Spec tension:** {t}\n");
    }
    match c.kind {
        CardKind::Choice => {
            for (i, ch) in c.choices.iter().enumerate() {
                let mark = if ch.correct { "**✓**" } else { "✗" };
                let why = if ch.why.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", ch.why)
                };
                let _ = writeln!(
                    out,
                    "- ({}) {} {mark}{why}",
                    grader::choice_label(i),
                    ch.text
                );
            }
            out.push('\n');
        }
        CardKind::Order => {
            let _ = writeln!(out, "Correct order:\n");
            for (i, it) in c.items.iter().enumerate() {
                let _ = writeln!(out, "{}. {it}", i + 1);
            }
            out.push('\n');
        }
        CardKind::Cloze => {
            if let Some(t) = &c.cloze {
                // The answers shown in bold where the blanks are, paired as the grader pairs them.
                let mut shown = String::new();
                let mut at = 0;
                for (start, end) in crate::grader::cloze_scan(t).spans {
                    shown.push_str(&t[at..start]);
                    shown.push_str(&format!("**{}**", &t[start + 2..end - 2]));
                    at = end;
                }
                shown.push_str(&t[at..]);
                let _ = writeln!(out, "{shown}\n");
            }
        }
        CardKind::SpotTheBug => {
            if let Some(t) = &c.transcript {
                let _ = writeln!(out, "```{}", t.lang);
                for (n, line) in t.text.lines().enumerate() {
                    let mark = if n as u32 + 1 == t.bug_line {
                        "  ← the bug"
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "{:>2} {line}{mark}", n + 1);
                }
                let _ = writeln!(out, "```\n");
            }
        }
        CardKind::Recall | CardKind::NameIt => {}
    }
    if !c.points.is_empty() {
        let _ = writeln!(out, "Key points:\n");
        for p in &c.points {
            let req = if p.required { " (required)" } else { "" };
            let _ = writeln!(out, "- {}{req}", p.label);
        }
        out.push('\n');
    }
    if let Some(b) = &c.basics {
        let _ = writeln!(out, "**Basics (~{} s)**\n", b.seconds);
        quote_block(out, &b.text);
    }
    if let Some(a) = &c.answer {
        let _ = writeln!(out, "**Solid answer (~{} s)**\n", a.seconds);
        quote_block(out, &a.text);
    }
    if let Some(code) = &c.code {
        let _ = writeln!(out, "```{}\n{}\n```\n", code.lang, code.text.trim_end());
    }
    if let Some(deeper) = &c.deeper {
        if !deeper.steps.is_empty() {
            let _ = writeln!(out, "**Go deeper**\n");
            for (i, s) in deeper.steps.iter().enumerate() {
                let _ = writeln!(out, "{}. {s}", i + 1);
            }
            out.push('\n');
        }
        if !deeper.explanation.trim().is_empty() {
            let _ = writeln!(out, "{}\n", deeper.explanation.trim());
        }
    }
    if !c.red_flags.is_empty() {
        let _ = writeln!(out, "**Red flags** (saying these costs you the question)\n");
        for f in &c.red_flags {
            let _ = writeln!(out, "- {} — {} ({})", f.label, f.correction, f.spec);
        }
        out.push('\n');
    }
    for f in &c.followups {
        if let Some(fc) = d.card(f) {
            card_md(out, d, fc, (depth + 1).min(6));
        }
    }
}

pub fn to_markdown(lib: &Library) -> String {
    let mut out = String::from("# mcp-tutor study sheet — MCP 2026-07-28 subscriptions\n\n");
    for d in &lib.decks {
        let _ = writeln!(out, "## {}\n", d.meta.title);
        if !d.meta.description.trim().is_empty() {
            let _ = writeln!(out, "{}\n", d.meta.description.trim());
        }
        for c in &d.cards {
            // Follow-ups are printed under their parent.
            if parent(d, c).is_none() {
                card_md(&mut out, d, c, 3);
            }
        }
    }
    let missing = uncovered(lib);
    if !lib.decks.is_empty() {
        let total = facts::all().len();
        let _ = writeln!(
            out,
            "---\n\nFacts covered: {} of {total} (decks/facts.toml){}",
            total - missing.len(),
            if missing.is_empty() {
                String::new()
            } else {
                format!(
                    "; not yet: {}",
                    missing
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        );
    }
    out
}
