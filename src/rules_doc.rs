//! `docs/rules.md`, embedded and parsed: the project's own reference for every rule a card,
//! `check`, the lab or a fault cites, the legend of spec short names (`SUB`, `BASE`, ...) and
//! the address of every cited section.
//!
//! The document is written for people; this module reads three shapes out of it, so that
//! `mcp-tutor why` can print a rule and `decks check` can refuse a reference nobody can follow:
//! the legend table (``| `SUB` | what | <url> |``), the sections table (`| SUB §Name | <url> |`)
//! and the rules (`### id`, a `**Keyword:** ... · **Spec:** ...` line, then prose).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The document, as shipped.
pub const TEXT: &str = include_str!("../docs/rules.md");

/// Where a reader finds the document in the repository.
pub const PATH: &str = "docs/rules.md";

/// `reference` with every `docs/rules.md#id` part written as the command that prints it,
/// `mcp-tutor why id`: the embedded document is what an installed binary can follow.
pub fn pointer(reference: &str) -> String {
    reference
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.strip_prefix(&format!("{}#", PATH)) {
            Some(id) => crate::term::nobreak(&format!("mcp-tutor why {id}")),
            None => p.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One `### id` entry.
#[derive(Debug, Clone, Default)]
pub struct RuleEntry {
    pub id: String,
    /// MUST, MUST NOT, SHOULD, SHOULD NOT, MAY, prose, silent or tension.
    pub keyword: String,
    /// Spec references in short form, `;`-separated as written.
    pub spec: String,
    /// The official address of the first spec section.
    pub url: String,
    pub facts: Vec<u32>,
    pub check: Vec<String>,
    pub lab: Vec<String>,
    pub faults: Vec<String>,
    /// The explanation, one paragraph.
    pub text: String,
}

#[derive(Debug, Default)]
pub struct RulesDoc {
    /// Short name → address of its page.
    pub legend: BTreeMap<String, String>,
    /// `TAG §Section` → address.
    pub sections: BTreeMap<String, String>,
    pub rules: Vec<RuleEntry>,
}

/// The parsed document (parsed once).
pub fn doc() -> &'static RulesDoc {
    static DOC: OnceLock<RulesDoc> = OnceLock::new();
    DOC.get_or_init(|| parse(TEXT))
}

fn url_in(cell: &str) -> String {
    cell.trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned()
}

fn list(v: &str) -> Vec<String> {
    v.split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty() && s != "none")
        .collect()
}

pub fn parse(text: &str) -> RulesDoc {
    let mut d = RulesDoc::default();
    let mut current: Option<RuleEntry> = None;
    for line in text.lines() {
        if let Some(id) = line.strip_prefix("### ") {
            if let Some(r) = current.take() {
                d.rules.push(r);
            }
            current = Some(RuleEntry {
                id: id.trim().to_owned(),
                ..RuleEntry::default()
            });
            continue;
        }
        if line.starts_with("## ") {
            if let Some(r) = current.take() {
                d.rules.push(r);
            }
            continue;
        }
        if let Some(r) = current.as_mut() {
            if line.starts_with("**Keyword:**") {
                for field in line.split(" · ") {
                    let Some((name, value)) = field.split_once(":**") else {
                        continue;
                    };
                    let value = value.trim();
                    match name.trim_start_matches("**") {
                        "Keyword" => r.keyword = value.to_owned(),
                        "Spec" => r.spec = value.to_owned(),
                        "Facts" => {
                            r.facts = list(value).iter().filter_map(|n| n.parse().ok()).collect()
                        }
                        "Check" => r.check = list(value),
                        "Lab" => r.lab = list(value),
                        "Faults" => r.faults = list(value),
                        _ => {}
                    }
                }
            } else if let Some(u) = line.strip_prefix("Spec: ") {
                r.url = url_in(u);
            } else if !line.trim().is_empty() {
                if !r.text.is_empty() {
                    r.text.push(' ');
                }
                r.text.push_str(line.trim());
            }
            continue;
        }
        // Table rows outside the rules: the legend and the sections.
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if line.starts_with('|') && cells.len() >= 4 && cells[cells.len() - 2].starts_with("<http")
        {
            let key = cells[1];
            let url = url_in(cells[cells.len() - 2]);
            if let Some(tag) = key.strip_prefix('`').and_then(|k| k.strip_suffix('`')) {
                d.legend.insert(tag.to_owned(), url);
            } else if key.contains(" §") {
                d.sections.insert(key.to_owned(), url);
            }
        }
    }
    if let Some(r) = current.take() {
        d.rules.push(r);
    }
    d
}

impl RulesDoc {
    pub fn rule(&self, id: &str) -> Option<&RuleEntry> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The rules behind `card` (what `mcp-tutor why DECK/CARD` prints): they share a fact with
    /// it, or the card cites them.
    pub fn rules_for(&self, card: &crate::card::Card) -> Vec<&RuleEntry> {
        self.rules
            .iter()
            .filter(|r| {
                let cite = format!("{PATH}#{}", r.id);
                r.facts.iter().any(|f| card.facts.contains(f))
                    || card.spec.iter().any(|s| s.contains(&cite))
            })
            .collect()
    }

    /// Resolves a printed reference such as `"SUB §Graceful Closure, §Cancellation; CHG §Major
    /// changes 9; docs/rules.md#ack-first"` to addresses, or says which part nobody can follow.
    pub fn resolve(&self, reference: &str) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for part in reference
            .split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            out.extend(self.resolve_part(part)?);
        }
        if out.is_empty() {
            return Err("the reference is empty".to_owned());
        }
        Ok(out)
    }

    fn resolve_part(&self, part: &str) -> Result<Vec<String>, String> {
        if let Some(id) = part
            .strip_prefix("docs/rules.md#")
            .or_else(|| part.strip_prefix("rule "))
        {
            return match self.rule(id.trim()) {
                Some(r) => Ok(vec![format!("{PATH}#{}", r.id), r.url.clone()]),
                None => Err(format!("`{part}`: {PATH} has no rule `{}`", id.trim())),
            };
        }
        let (tags, rest) = match part.split_once(' ') {
            Some((t, r)) => (t, r.trim()),
            None => (part, ""),
        };
        let mut out = Vec::new();
        for tag in tags.split('/') {
            let Some(page) = self.legend.get(tag) else {
                return Err(format!(
                    "`{part}`: `{tag}` is not a short name in {PATH} (known: {})",
                    self.legend.keys().cloned().collect::<Vec<_>>().join(", ")
                ));
            };
            // Type names (TS, JSON, EX) and SEP sections are followed on the page itself.
            let free_form = matches!(tag, "TS" | "JSON" | "EX") || tag.starts_with("SEP");
            if tag == "TS" && !rest.is_empty() {
                // The schema page has an anchor per type: `#cancellednotification`.
                let ty: String = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .filter(char::is_ascii_alphanumeric)
                    .collect();
                if !ty.is_empty() {
                    out.push(format!("{page}#{}", ty.to_ascii_lowercase()));
                    continue;
                }
            }
            if rest.is_empty() || rest == "intro" || free_form {
                out.push(page.clone());
                continue;
            }
            if !rest.starts_with('§') {
                return Err(format!(
                    "`{part}`: after `{tag}` write `§Section`, `intro` or nothing"
                ));
            }
            for sec in rest.split(", §") {
                let found = section_names(sec)
                    .iter()
                    .find_map(|name| self.sections.get(&format!("{tag} §{name}")));
                match found {
                    Some(u) => out.push(u.clone()),
                    None => {
                        return Err(format!(
                            "`{part}`: {PATH} lists no section `{tag} §{}`; add it to its Sections table with the spec's address, or cite a listed one",
                            sec.trim().trim_start_matches('§')
                        ));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The names `sec` may be listed under: as written, then without a trailing `(Note)`, then
/// without a trailing item number (`§Major changes 9` → `Major changes`).
fn section_names(sec: &str) -> Vec<String> {
    let full = sec.trim().trim_start_matches('§').trim().to_owned();
    let mut names = vec![full.clone()];
    let mut s = full;
    if s.ends_with(')') {
        if let Some(i) = s.rfind(" (") {
            s.truncate(i);
            names.push(s.clone());
        }
    }
    let mut words: Vec<&str> = s.split_whitespace().collect();
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| w.trim_end_matches(',').chars().all(|c| c.is_ascii_digit()))
    {
        words.pop();
    }
    names.push(words.join(" "));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_document_parses() {
        let d = doc();
        assert!(d.legend.contains_key("SUB") && d.legend.contains_key("TS"));
        assert!(d.sections.contains_key("SUB §Acknowledgment"));
        let r = d.rule("ack-first").expect("ack-first");
        assert_eq!(r.keyword, "MUST");
        assert!(
            r.url
                .starts_with("https://modelcontextprotocol.io/specification/2026-07-28/")
        );
        assert!(r.facts.contains(&1) && r.faults.contains(&"no-ack".to_owned()));
        assert!(!r.text.is_empty());
    }

    #[test]
    fn references_resolve_or_say_why_not() {
        let d = doc();
        for ok in [
            "SUB §Graceful Closure, §Cancellation",
            "CHG §Major changes 2, 5",
            "HTTP §Receiving Messages (Note)",
            "TOOLS/PROMPTS §List Changed Notification",
            "TS `NotificationMetaObject`",
            "DISC",
            "CAN intro",
            "docs/rules.md#ack-first",
        ] {
            assert!(d.resolve(ok).is_ok(), "{ok}: {:?}", d.resolve(ok));
        }
        for bad in [
            "notes/digest.md §4.4",
            "SUB §No Such Heading",
            "docs/rules.md#nope",
            "",
        ] {
            assert!(d.resolve(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_rule_has_a_keyword_an_address_and_words() {
        for r in &doc().rules {
            assert!(
                [
                    "MUST",
                    "MUST NOT",
                    "SHOULD",
                    "SHOULD NOT",
                    "MAY",
                    "prose",
                    "silent",
                    "tension"
                ]
                .contains(&r.keyword.as_str()),
                "{}: keyword {:?}",
                r.id,
                r.keyword
            );
            assert!(r.url.starts_with("https://"), "{}", r.id);
            assert!(r.text.len() > 80, "{}", r.id);
            assert!(doc().resolve(&r.spec).is_ok(), "{}: {}", r.id, r.spec);
        }
    }

    #[test]
    fn every_check_rule_and_fault_points_into_the_document() {
        for rule in mock_server::validator::CheckRule::all() {
            assert!(
                doc().rule(rule.name()).is_some(),
                "check rule {} has no entry in docs/rules.md",
                rule.name()
            );
            assert!(
                doc().resolve(rule.spec()).is_ok(),
                "{}: {:?}",
                rule.name(),
                doc().resolve(rule.spec())
            );
        }
        for f in mock_server::fault::Fault::all() {
            assert!(
                doc().resolve(f.spec()).is_ok(),
                "{}: {:?}",
                f.name(),
                doc().resolve(f.spec())
            );
        }
    }
}
