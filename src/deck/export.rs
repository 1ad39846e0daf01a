//! `decks export`: the decks as JSON (for tools), a Markdown study sheet (for people), or a file
//! for Anki's text importer.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Deck, Library, facts};
use crate::card::Card;
use crate::card_kind::{self, anki_html, anki_pre};

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

/// The version of the JSON export's shape (the README's "decks export --format json" section):
/// raised when a field changes meaning or is removed, not when one is added.
pub const JSON_EXPORT_VERSION: u32 = 2;

/// One reference (`"SUB §Acknowledgment; docs/rules.md#ack-first"`) cut into its parts, each
/// with the official address it resolves to (the rule's spec address for a rule of
/// docs/rules.md), or `None` when it names no web page.
pub fn reference_links(reference: &str) -> Vec<(String, Option<String>)> {
    let doc = crate::rules_doc::doc();
    reference
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let url = doc
                .resolve(part)
                .ok()
                .and_then(|urls| urls.into_iter().find(|u| u.starts_with("http")));
            (part.to_owned(), url)
        })
        .collect()
}

fn links_json(reference: &str) -> Value {
    Value::Array(
        reference_links(reference)
            .into_iter()
            .map(|(r, url)| json!({ "ref": r, "url": url }))
            .collect(),
    )
}

/// A red flag as a tool sees it: everything but its matchers (`claims`, `guards`).
fn flag_json(f: &crate::card::RedFlag) -> Value {
    json!({
        "id": f.id,
        "label": f.label,
        "correction": f.correction,
        "spec": f.spec,
        "spec_links": links_json(&f.spec),
        "examples": f.examples,
        "non_examples": f.non_examples,
    })
}

/// One card with every field it has except the grader's matchers (`claims` of points and
/// flags, and flags' `guards`), plus what the library adds: its `DECK/CARD` key, its parent
/// (the card that lists it as a follow-up), the addresses of its spec references, and its red
/// flags with the shared ones filled in (the catalogue's are in `misconceptions`).
pub fn card_json(d: &Deck, c: &Card) -> Value {
    let mut v = serde_json::to_value(c).unwrap_or_else(|_| json!({ "id": c.id }));
    if let Value::Object(m) = &mut v {
        for p in m
            .get_mut("points")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(p) = p.as_object_mut() {
                p.remove("claims");
            }
        }
        m.insert(
            "red_flags".into(),
            Value::Array(c.own_flags().map(flag_json).collect()),
        );
        m.insert(
            "spec_links".into(),
            Value::Array(c.spec.iter().map(|r| links_json(r)).collect()),
        );
        m.insert("key".into(), json!(d.key(c)));
        m.insert("parent".into(), json!(parent(d, c).map(|p| p.id.clone())));
    }
    v
}

pub fn to_json(lib: &Library) -> Value {
    let decks: Vec<Value> = lib
        .decks
        .iter()
        .map(|d| {
            let cards: Vec<Value> = d.cards.iter().map(|c| card_json(d, c)).collect();
            json!({
                "id": d.meta.id,
                "title": d.meta.title,
                "description": d.meta.description,
                "format_version": d.meta.format(),
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
    let misconceptions: Vec<Value> = super::catalogue::misconceptions()
        .iter()
        .map(flag_json)
        .collect();
    json!({
        "export_version": JSON_EXPORT_VERSION,
        "decks": decks,
        "misconceptions": misconceptions,
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

/// A reference with each part linked to its official address, as the Anki export links them.
fn md_links(reference: &str) -> String {
    reference_links(reference)
        .into_iter()
        .map(|(r, url)| match url {
            Some(u) => format!("[{r}]({u})"),
            None => r,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The study sheet with its spec links turned back into their text: what a terminal shows,
/// where a `[ref](url)` would only be noise (`decks show`).
pub fn without_links(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let mut rest = md;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let link = after.find("](").and_then(|close| {
            let text = &after[..close];
            let url_len = after[close + 2..].find(')')?;
            let url = &after[close + 2..close + 2 + url_len];
            (url.starts_with("http") && !text.contains('['))
                .then_some((text, close + 2 + url_len + 1))
        });
        match link {
            Some((text, len)) => {
                out.push_str(&rest[..open]);
                out.push_str(text);
                rest = &after[len..];
            }
            None => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
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
        meta.push(
            c.spec
                .iter()
                .map(|r| md_links(r))
                .collect::<Vec<_>>()
                .join("; "),
        );
    }
    let _ = writeln!(out, "*{}*\n", meta.join(" · "));
    if let Some(t) = &c.tension {
        let _ = writeln!(out, "**Spec tension:** {t}\n");
    }
    card_kind::of(c.kind).markdown(c, out);
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
            let _ = writeln!(
                out,
                "- {} — {} ({})",
                f.label,
                f.correction,
                md_links(&f.spec)
            );
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
            let _ = writeln!(
                out,
                "- {} — {} ({})",
                m.label,
                m.correction,
                md_links(&m.spec)
            );
        }
        out.push('\n');
    }
    out
}

fn anki_front(card: &Card) -> String {
    let mut f = anki_html(&card.question);
    card_kind::of(card.kind).anki_front(card, &mut f);
    f
}

fn anki_back(card: &Card) -> String {
    let mut b = String::new();
    card_kind::of(card.kind).anki_back(card, &mut b);
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
    let links: Vec<String> = card
        .spec
        .iter()
        .flat_map(|r| reference_links(r))
        .map(|(r, url)| match url {
            Some(u) => format!("<a href=\"{u}\">{}</a>", anki_html(&r)),
            None => anki_html(&r),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_link_each_part_and_links_come_off_for_the_terminal() {
        let links = reference_links("SUB §Acknowledgment; docs/rules.md#ack-first; nonsense");
        assert_eq!(links.len(), 3);
        assert_eq!(
            links[0].1.as_deref(),
            Some(
                "https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions#acknowledgment"
            )
        );
        assert!(
            links[1]
                .1
                .as_deref()
                .is_some_and(|u| u.starts_with("https://"))
        );
        assert_eq!(links[2], ("nonsense".to_owned(), None));
        let md = md_links("SUB §Acknowledgment; nonsense");
        assert!(md.starts_with("[SUB §Acknowledgment](https://"), "{md}");
        assert_eq!(without_links(&md), "SUB §Acknowledgment; nonsense");
        assert_eq!(
            without_links("a [b] c [d](e) [f](http://g)"),
            "a [b] c [d](e) f"
        );
    }
}
