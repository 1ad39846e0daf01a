//! `mcp-tutor why RULE|DECK/CARD`: from a rule to the cards, check and lab scenario that show
//! it, or from a card to the rules and spec sections behind it. Everything comes from
//! `docs/rules.md` (embedded) and the loaded decks.

use std::process::ExitCode;

use crate::card::Card;
use crate::deck::Library;
use crate::global::Global;
use crate::rules_doc::{self, RuleEntry, RulesDoc};

#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  mcp-tutor why ack-first                              a rule: keyword, meaning, cards, check, lab, spec
  mcp-tutor why subscriptions/listen-first-message     a card: the rules and spec sections behind it
  mcp-tutor why                                        every rule, with its keyword

Rules are the ids of docs/rules.md: what `check`, the lab and `serve --list-faults` print.")]
pub struct Args {
    /// A rule id (e.g. `ack-first`, `teardown-tension`) or a card key (`DECK/CARD`); without
    /// it, every rule with its keyword.
    pub what: Option<String>,
}

/// Cards that teach `rule`: they share a fact with it or cite its entry.
fn cards_for<'a>(rule: &RuleEntry, lib: &'a Library) -> Vec<(String, &'a Card)> {
    let cite = format!("{}#{}", rules_doc::PATH, rule.id);
    lib.cards()
        .filter(|(_, c)| {
            c.facts.iter().any(|f| rule.facts.contains(f))
                || c.spec.iter().any(|s| s.contains(&cite))
        })
        .map(|(d, c)| (d.key(c), c))
        .collect()
}

/// Each part of `reference` with the addresses it resolves to, a rules.md part as the rule's
/// own spec addresses (all of them): `(label, urls)` in order, leaving out addresses in `seen`.
fn links(
    doc: &RulesDoc,
    reference: &str,
    seen: &mut std::collections::HashSet<String>,
) -> Vec<(String, Result<Vec<String>, String>)> {
    reference
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|part| {
            let urls = match part.strip_prefix(&format!("{}#", rules_doc::PATH)) {
                Some(id) => match doc.rule(id.trim()) {
                    Some(r) => doc.resolve(&r.spec),
                    None => Err(format!("{} has no rule `{}`", rules_doc::PATH, id.trim())),
                },
                None => doc.resolve(part),
            };
            let urls = urls.map(|u| u.into_iter().filter(|x| seen.insert(x.clone())).collect());
            (rules_doc::pointer(part), urls)
        })
        .collect()
}

/// Lines of prose filled to the terminal: `first` before the first, `rest` before the others.
struct Out {
    text: String,
    width: usize,
    /// Addresses already printed: each is printed once.
    seen: std::collections::HashSet<String>,
}

impl Out {
    fn new() -> Out {
        Out {
            text: String::new(),
            width: crate::term::width(),
            seen: std::collections::HashSet::new(),
        }
    }

    fn line(&mut self, first: &str, rest: &str, text: &str) {
        self.text
            .push_str(&crate::term::wrap_to(text, first, rest, self.width));
        self.text.push('\n');
    }

    /// A reference and its addresses, each address on a line of its own (an address is never
    /// broken, so a long one may overflow a narrow terminal, but stays one line to copy).
    fn reference(&mut self, indent: &str, doc: &RulesDoc, reference: &str) {
        let deeper = format!("{indent}  ");
        for (label, urls) in links(doc, reference, &mut self.seen) {
            self.line(indent, &deeper, &label);
            match urls {
                Ok(urls) => {
                    for u in urls {
                        self.line(&deeper, &deeper, &u);
                    }
                }
                Err(why) => self.line(&deeper, &deeper, &format!("(cannot be followed: {why})")),
            }
        }
    }

    fn print(self) {
        print!("{}", self.text);
    }
}

fn print_rule(rule: &RuleEntry, lib: &Library, doc: &RulesDoc) {
    let mut o = Out::new();
    o.line("", "  ", &format!("{}  [{}]", rule.id, rule.keyword));
    o.line("  ", "  ", &rule.text);
    o.line("  ", "    ", "spec:");
    o.reference("    ", doc, &rule.spec);
    let cards = cards_for(rule, lib);
    if cards.is_empty() {
        o.line("  ", "    ", "cards: none teach it yet");
    } else {
        o.line("  ", "    ", "cards that teach it:");
        for (key, c) in cards {
            o.line("    ", "      ", &format!("{key}  ({})", c.kind_name()));
        }
    }
    if !rule.check.is_empty() {
        let text = format!(
            "check rule: {}   ({})",
            rule.check.join(", "),
            crate::term::nobreak("mcp-tutor check URL")
        );
        o.line("  ", "    ", &text);
    }
    if !rule.lab.is_empty() {
        let text = format!(
            "lab scenario: {}   ({})",
            rule.lab.join(", "),
            crate::term::nobreak("mcp-tutor lab --scenario NAME")
        );
        o.line("  ", "    ", &text);
    }
    if !rule.faults.is_empty() {
        let text = format!(
            "mock faults that break it: {}   ({})",
            rule.faults.join(", "),
            crate::term::nobreak("mcp-tutor serve --fault NAME")
        );
        o.line("  ", "    ", &text);
    }
    o.print();
}

fn print_card(key: &str, card: &Card, doc: &RulesDoc) {
    let mut o = Out::new();
    o.line("", "  ", &format!("{key}  ({})", card.kind_name()));
    o.line(
        "  ",
        "  ",
        &card
            .question
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
    );
    if !card.spec.is_empty() {
        o.line("  ", "    ", "spec:");
        for s in &card.spec {
            o.reference("    ", doc, s);
        }
    }
    let rules = doc.rules_for(card);
    if rules.is_empty() {
        o.line(
            "  ",
            "    ",
            &format!("rules: none listed in {}", rules_doc::PATH),
        );
    } else {
        o.line("  ", "    ", "rules:");
        for r in rules {
            o.line(
                "    ",
                "      ",
                &format!(
                    "{}  [{}]   ({})",
                    r.id,
                    r.keyword,
                    crate::term::nobreak(&format!("mcp-tutor why {}", r.id))
                ),
            );
            // Addresses the card's own references did not already give.
            for u in doc.resolve(&r.spec).unwrap_or_default() {
                if o.seen.insert(u.clone()) {
                    o.line("      ", "      ", &u);
                }
            }
            if !r.check.is_empty() {
                o.line(
                    "      ",
                    "        ",
                    &format!("check rule: {}", r.check.join(", ")),
                );
            }
            if !r.lab.is_empty() {
                o.line(
                    "      ",
                    "        ",
                    &format!("lab scenario: {}", r.lab.join(", ")),
                );
            }
        }
    }
    o.print();
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    let doc = rules_doc::doc();
    let lib = Library::load(&g.deck_dirs);
    let Some(what) = args.what.as_deref().map(str::trim) else {
        let rows: Vec<(String, String)> = doc
            .rules
            .iter()
            .map(|r| (r.id.clone(), format!("[{}]", r.keyword)))
            .collect();
        println!("{}", crate::term::columns(&rows, "", crate::term::width()));
        return Ok(ExitCode::SUCCESS);
    };
    if let Some(rule) = doc.rule(what) {
        print_rule(rule, &lib, doc);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some((deck, card)) = lib.card(what) {
        print_card(&deck.key(card), card, doc);
        return Ok(ExitCode::SUCCESS);
    }
    let keys: Vec<String> = lib.cards().map(|(d, c)| d.key(c)).collect();
    let names = doc
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .chain(keys.iter().map(String::as_str));
    anyhow::bail!(
        "{}",
        mock_server::names::unknown(
            "rule or card",
            what,
            names,
            "`mcp-tutor why` alone lists the rules, `mcp-tutor decks list` the cards"
        )
    )
}
