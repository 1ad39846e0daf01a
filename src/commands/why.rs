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

Rules are the ids of docs/rules.md: what `check`, the lab and `serve --list-faults` print.")]
pub struct Args {
    /// A rule id (e.g. `ack-first`, `teardown-tension`) or a card key (`DECK/CARD`).
    pub what: String,
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

fn print_rule(rule: &RuleEntry, lib: &Library) {
    println!("{}  [{}]", rule.id, rule.keyword);
    println!("  {}", rule.text);
    println!("  spec: {}", rule.spec);
    println!("        {}", rule.url);
    let cards = cards_for(rule, lib);
    if cards.is_empty() {
        println!("  cards: none teach it yet");
    } else {
        println!("  cards that teach it:");
        for (key, c) in cards {
            println!("    {key}  ({})", c.kind_name());
        }
    }
    if !rule.check.is_empty() {
        println!(
            "  check rule: {}   (mcp-tutor check URL)",
            rule.check.join(", ")
        );
    }
    if !rule.lab.is_empty() {
        println!(
            "  lab scenario: {}   (mcp-tutor lab --scenario NAME)",
            rule.lab.join(", ")
        );
    }
    if !rule.faults.is_empty() {
        println!(
            "  mock faults that break it: {}   (mcp-tutor serve --fault NAME)",
            rule.faults.join(", ")
        );
    }
    println!("  reference: {}#{}", rules_doc::PATH, rule.id);
}

fn print_card(key: &str, card: &Card, doc: &RulesDoc) {
    println!("{key}  ({})", card.kind_name());
    println!("  {}", card.question.trim().replace('\n', " "));
    if !card.spec.is_empty() {
        println!("  spec:");
        for s in &card.spec {
            match doc.resolve(s) {
                Ok(urls) => println!("    {s}  {}", urls.join(" ")),
                Err(why) => println!("    {s}  (cannot be followed: {why})"),
            }
        }
    }
    let rules = doc.rules_for(card);
    if rules.is_empty() {
        println!("  rules: none listed in {}", rules_doc::PATH);
    } else {
        println!("  rules:");
        for r in rules {
            println!("    {}  [{}]  {}", r.id, r.keyword, r.url);
            if !r.check.is_empty() {
                println!("      check rule: {}", r.check.join(", "));
            }
            if !r.lab.is_empty() {
                println!("      lab scenario: {}", r.lab.join(", "));
            }
        }
    }
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<ExitCode> {
    let doc = rules_doc::doc();
    let lib = Library::load(&g.deck_dirs);
    let what = args.what.trim();
    if let Some(rule) = doc.rule(what) {
        print_rule(rule, &lib);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some((deck, card)) = lib.card(what) {
        print_card(&deck.key(card), card, doc);
        return Ok(ExitCode::SUCCESS);
    }
    let near: Vec<&str> = doc
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.contains(what) || what.contains(*id))
        .take(5)
        .collect();
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", near.join(", "))
    };
    anyhow::bail!(
        "`{what}` is neither a rule in {} nor a loaded card.{hint} Rules: {}. Cards: `mcp-tutor decks list`.",
        rules_doc::PATH,
        doc.rules
            .iter()
            .map(|r| r.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
}
