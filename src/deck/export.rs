//! `decks export`: the decks as JSON (for tools), a Markdown study sheet (for people), or a file
//! for Anki's text importer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Deck, Library, facts};
use crate::card::Card;
use crate::kinds::{self, anki_html, anki_pre};

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
                        "red_flags": c.own_flags().map(|f| json!({"label": f.label, "correction": f.correction, "spec": f.spec})).collect::<Vec<_>>(),
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
    kinds::of(c.kind).markdown(c, out);
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
    if c.own_flags().next().is_some() {
        let _ = writeln!(out, "**Red flags** (saying these costs you the question)\n");
        for f in c.own_flags() {
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
    let catalogue = super::catalogue::misconceptions();
    if !lib.decks.is_empty() && !catalogue.is_empty() {
        let _ = writeln!(
            out,
            "\n## Misconceptions checked on every card\n\nSaying one of these costs the question, whatever it asks.\n"
        );
        for m in catalogue {
            let _ = writeln!(out, "- {} — {} ({})", m.label, m.correction, m.spec);
        }
        out.push('\n');
    }
    out
}

fn anki_front(card: &Card) -> String {
    let mut f = anki_html(&card.question);
    kinds::of(card.kind).anki_front(card, &mut f);
    f
}

fn anki_back(card: &Card) -> String {
    let mut b = String::new();
    kinds::of(card.kind).anki_back(card, &mut b);
    if let Some(basics) = &card.basics {
        let _ = write!(
            b,
            "<b>~{} s basics</b><br>{}<br><br>",
            basics.seconds,
            anki_html(&basics.text)
        );
    }
    if let Some(a) = &card.answer {
        let _ = write!(
            b,
            "<b>~{} s solid answer</b><br>{}<br><br>",
            a.seconds,
            anki_html(&a.text)
        );
    }
    if let Some(c) = &card.code {
        b.push_str(&anki_pre(&c.text));
    }
    let doc = crate::rules_doc::doc();
    let links: Vec<String> = card
        .spec
        .iter()
        .map(|r| match doc.url_of(r) {
            Some(u) if u.starts_with("http") => {
                format!("<a href=\"{u}\">{}</a>", anki_html(r))
            }
            _ => anki_html(r),
        })
        .collect();
    if !links.is_empty() {
        let _ = write!(b, "<b>Spec:</b> {}", links.join(" · "));
    }
    b.trim_end_matches("<br>").to_owned()
}

/// The decks as a file for Anki's own text importer (File → Import): tab-separated, with the
/// header lines that tell Anki the separator, that fields are HTML, the note type (Basic), and
/// which columns hold the GUID (the card's `DECK/CARD` key, so re-importing updates notes), the
/// deck (`mcp-tutor::DECK`) and the tags. One note per card.
pub fn to_anki(lib: &Library) -> String {
    let mut out = String::from(
        "#separator:tab\n#html:true\n#notetype:Basic\n#guid column:1\n#deck column:2\n\
         #tags column:5\n#columns:GUID\tDeck\tFront\tBack\tTags\n",
    );
    for deck in &lib.decks {
        for card in &deck.cards {
            let mut tags = vec!["mcp-tutor".to_owned(), deck.meta.id.clone()];
            tags.extend(
                card.tags
                    .iter()
                    .map(|t| t.replace(char::is_whitespace, "_")),
            );
            let _ = writeln!(
                out,
                "mcp-tutor/{}\tmcp-tutor::{}\t{}\t{}\t{}",
                deck.key(card),
                deck.meta.id,
                anki_front(card),
                anki_back(card),
                tags.join(" ")
            );
        }
    }
    out
}
