//! Semantic checks of a parsed deck and the golden self-tests of its cards. Every problem is
//! located at the card (or the point, flag or field) it concerns.

use std::collections::{BTreeSet, HashMap};

use super::locate::{Locator, find_key_line};
use super::{Deck, DeckError};
use crate::card::{Card, CardKind};
use crate::grader::{self, Verdict};

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Everything that can be checked without grading.
pub fn validate_deck(deck: &Deck, text: &str, facts: &BTreeSet<u32>) -> Vec<DeckError> {
    let loc = Locator::new(deck, text);
    let mut errors = Vec::new();
    if !valid_id(&deck.meta.id) {
        let line = find_key_line(text, "id", &deck.meta.id, 0).map_or(1, |(l, _)| l);
        errors.push(loc.at_line(
            line,
            format!(
                "deck id `{}` must be lower-case letters, digits and `-` (it is part of every card's DECK/CARD key)",
                deck.meta.id
            ),
        ));
    }
    if deck.meta.title.trim().is_empty() {
        errors.push(loc.at_line(
            1,
            "the deck has an empty `title`; give it a human title".into(),
        ));
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let ids: BTreeSet<&str> = deck.cards.iter().map(|c| c.id.as_str()).collect();
    for (i, card) in deck.cards.iter().enumerate() {
        if !valid_id(&card.id) {
            errors.push(loc.card(
                i,
                format!(
                    "card id `{}` must be lower-case letters, digits and `-`; progress is keyed by it, so choose it once",
                    card.id
                ),
            ));
        }
        if let Some(&first) = seen.get(card.id.as_str()) {
            errors.push(loc.card(
                i,
                format!(
                    "duplicate card id `{}` (first used on line {}); every card in a deck needs its own id",
                    card.id,
                    loc.card_line(first)
                ),
            ));
        } else {
            seen.insert(&card.id, i);
        }
        check_card(&loc, i, card, &ids, facts, &mut errors);
        check_replaces(&loc, i, &deck.key(card), card, &mut errors);
    }
    errors
}

/// Each `replaces` entry names a card's progress key, `DECK/CARD`, and not this card's own.
fn check_replaces(loc: &Locator, i: usize, key: &str, card: &Card, errors: &mut Vec<DeckError>) {
    for r in &card.replaces {
        let well_formed = r
            .split_once('/')
            .is_some_and(|(d, c)| valid_id(d) && valid_id(c));
        let problem = if !well_formed {
            format!(
                "card `{}` replaces `{r}`: name the replaced card by its progress key, DECK/CARD (e.g. `stdio/stdio-restart`)",
                card.id
            )
        } else if r == key {
            format!(
                "card `{}` lists itself in `replaces`; list the cards it took the place of",
                card.id
            )
        } else {
            continue;
        };
        errors.push(loc.field(i, "replaces", problem));
    }
}

fn check_card(
    loc: &Locator,
    i: usize,
    card: &Card,
    ids: &BTreeSet<&str>,
    facts: &BTreeSet<u32>,
    errors: &mut Vec<DeckError>,
) {
    if card.question.trim().is_empty() {
        let id = &card.id;
        errors.push(loc.card(i, format!("card `{id}` has an empty `question`")));
    }
    check_references(loc, i, card, ids, facts, errors);
    check_rules(loc, i, card, errors);
    check_kind(loc, i, card, errors);
}

/// Follow-ups name other cards of the deck; facts are numbers decks/facts.toml has.
fn check_references(
    loc: &Locator,
    i: usize,
    card: &Card,
    ids: &BTreeSet<&str>,
    facts: &BTreeSet<u32>,
    errors: &mut Vec<DeckError>,
) {
    let id = &card.id;
    for f in &card.followups {
        if f == id {
            errors.push(loc.field(
                i,
                "followups",
                format!("card `{id}` lists itself as a follow-up; name another card"),
            ));
        } else if !ids.contains(f.as_str()) {
            errors.push(loc.field(
                i,
                "followups",
                format!("card `{id}` has follow-up `{f}`, but this deck has no card with that id; add the card or fix the id"),
            ));
        }
    }
    for n in &card.facts {
        if !facts.contains(n) {
            errors.push(loc.field(
                i,
                "facts",
                format!(
                    "card `{id}` cites fact {n}, but decks/facts.toml has facts 1–{}; use a number from it",
                    facts.iter().next_back().copied().unwrap_or(0)
                ),
            ));
        }
    }
}

/// Every point and red flag has a claim to match; a red flag says what is true instead, where
/// the spec says so, and what must fire it.
fn check_rules(loc: &Locator, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let id = &card.id;
    for p in &card.points {
        let usable = p.rules.iter().any(usable);
        if !usable {
            let what = if p.required {
                "required point"
            } else {
                "point"
            };
            errors.push(loc.label(
                i,
                &p.label,
                format!(
                    "{what} \"{}\" of card `{id}` has no claim; add `claims = [{{ ... }}]` with `exact`, `agent`/`action`/`theme` or `all` (see the deck format in the README)",
                    p.label
                ),
            ));
        }
    }
    for f in &card.red_flags {
        if !f.rules.iter().any(usable) {
            errors.push(loc.label(
                i,
                &f.label,
                format!("red flag \"{}\" of card `{id}` has no claim; add `claims = [{{ ... }}]` with `agent`/`action`/`theme` or `all` (see the deck format in the README)", f.label),
            ));
        }
        if f.correction.trim().is_empty() {
            errors.push(loc.label(i, &f.label, format!("red flag \"{}\" of card `{id}` has an empty `correction`; say what is true instead", f.label)));
        }
        if f.spec.trim().is_empty() {
            errors.push(loc.label(i, &f.label, format!("red flag \"{}\" of card `{id}` has an empty `spec`; cite the section as docs/rules.md writes it, e.g. \"SUB §Acknowledgment\"", f.label)));
        }
        if f.examples.is_empty() {
            errors.push(loc.label(i, &f.label, format!("red flag \"{}\" of card `{id}` has no `examples`; add at least one answer that must fire it", f.label)));
        }
    }
}

/// What the card's kind asks of it, and fields only another kind uses.
fn check_kind(loc: &Locator, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    let id = &card.id;
    let kind = crate::card_kind::of(card.kind);
    if kind.needs_answer_text()
        && card
            .answer
            .as_ref()
            .is_none_or(|a| a.text.trim().is_empty())
    {
        errors.push(loc.card(i, format!("card `{id}` has no `answer` text; add `[cards.answer]` with `seconds` and `text` (it is the golden self-test)")));
    }
    // Fields another kind would use are ignored by this one: say so rather than drop them.
    for (field, present) in crate::card_kind::kind_fields(card) {
        if !present || kind.own_fields().contains(&field) {
            continue;
        }
        let owner = crate::card_kind::all()
            .iter()
            .find(|k| crate::card_kind::of(**k).own_fields().contains(&field))
            .map_or("other", |k| k.name());
        errors.push(loc.field(
            i,
            field,
            format!(
                "card `{id}` is a {} card but has `{field}`, which only {owner} cards use; change `kind` or remove the field",
                card.kind.name(),
            ),
        ));
    }
    for problem in kind.check(card) {
        errors.push(match problem.field {
            Some(field) => loc.field(i, field, problem.message),
            None => loc.card(i, problem.message),
        });
    }
}

/// The golden self-tests: the card's right answer passes with every required point and no red
/// flag; each red-flag example fires that flag; each non-example does not.
pub fn self_test(deck: &Deck, text: &str) -> Vec<DeckError> {
    let loc = Locator::new(deck, text);
    let mut errors = Vec::new();
    for (i, card) in deck.cards.iter().enumerate() {
        golden_self_test(&loc, i, card, &mut errors);
        flag_self_test(&loc, i, card, &mut errors);
    }
    errors
}

/// The card's right answer passes with every required point and no red flag.
fn golden_self_test(loc: &Locator, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    if let Some(golden) = grader::golden_answer(card) {
        let g = grader::grade(card, &golden);
        // Points without a usable rule are already reported by validation.
        let ruleless = |label: &str| {
            card.points
                .iter()
                .any(|p| p.label == label && !p.rules.iter().any(usable))
        };
        let missed: Vec<&str> = g
            .points
            .iter()
            .filter(|p| p.required && !p.hit && !ruleless(&p.label))
            .map(|p| p.label.as_str())
            .collect();
        if !missed.is_empty() {
            errors.push(loc.card(
                i,
                format!(
                    "self-test: the card's own answer misses required point(s) {}; reword the answer or widen the point's match rules",
                    quote_list(&missed)
                ),
            ));
        }
        for f in &g.red_flags {
            errors.push(loc.label(
                i,
                &f.label,
                format!(
                    "self-test: the card's own answer fires red flag \"{}\" at \"{}\"; add a guard or reword the answer",
                    f.label, f.span.text
                ),
            ));
        }
        let any_ruleless = card.points.iter().any(|p| ruleless(&p.label));
        if missed.is_empty()
            && g.red_flags.is_empty()
            && g.verdict != Verdict::Pass
            && !any_ruleless
        {
            errors.push(loc.card(
                i,
                format!("self-test: the card's own answer grades {:?}", g.verdict),
            ));
        }
        if !any_ruleless {
            errors.extend(
                grader::own_answers(card)
                    .into_iter()
                    .filter_map(|(which, text)| {
                        own_answer_problem(card, which, &text).map(|m| loc.card(i, m))
                    }),
            );
        }
    }
}

/// Each red-flag example fires that flag, each non-example does not. The catalogue's
/// misconceptions are checked once, by `decks check`, not on every card.
fn flag_self_test(loc: &Locator, i: usize, card: &Card, errors: &mut Vec<DeckError>) {
    for f in card.red_flags.iter().filter(|f| !f.catalogue) {
        if !f.rules.iter().any(usable) {
            continue;
        }
        let flag_only = Card {
            points: Vec::new(),
            red_flags: vec![f.clone()],
            ..card.clone()
        };
        let prose_only = Card {
            kind: CardKind::Recall,
            ..flag_only
        };
        for ex in &f.examples {
            if grader::grade(&prose_only, ex).red_flags.is_empty() {
                errors.push(loc.label(
                    i,
                    &f.label,
                    format!(
                        "self-test: red flag \"{}\" does not fire on its example \"{ex}\"; widen its match rules",
                        f.label
                    ),
                ));
            }
        }
        for ex in &f.non_examples {
            if let Some(hit) = grader::grade(&prose_only, ex).red_flags.first() {
                errors.push(loc.label(
                    i,
                    &f.label,
                    format!(
                        "self-test: red flag \"{}\" fires on its non-example \"{ex}\" (at \"{}\"); add a guard or narrow its rules",
                        f.label, hit.span.text
                    ),
                ));
            }
        }
    }
}

/// What keeps a card's own answer from grading the way it must: a sure pass, no red flag and
/// no near miss (a near miss on the card's own words would teach that a right name is wrong).
fn own_answer_problem(card: &Card, which: &str, text: &str) -> Option<String> {
    let g = grader::grade(card, text);
    let mut wrong = Vec::new();
    if g.verdict != Verdict::Pass {
        let missed: Vec<&str> = g
            .points
            .iter()
            .filter(|p| p.required && !p.hit)
            .map(|p| p.label.as_str())
            .collect();
        wrong.push(format!(
            "grades {} (required point(s) not credited: {})",
            g.verdict.name(),
            quote_list(&missed)
        ));
    }
    for f in &g.red_flags {
        wrong.push(format!(
            "fires red flag \"{}\" at \"{}\"",
            f.label, f.span.text
        ));
    }
    for n in &g.near_misses {
        wrong.push(format!(
            "reports a near miss: \"{}\" for `{}`",
            n.found, n.expected
        ));
    }
    // A card with no tuned corpus answers is never sure (nobody has measured the rules on it
    // yet), so only a measured card is held to a sure verdict.
    if g.confidence != grader::Confidence::Sure && wrong.is_empty() && !g.untuned {
        let unchecked: Vec<&str> = g.unchecked.iter().map(|u| u.text.as_str()).collect();
        wrong.push(format!(
            "is not sure (the confidence model gives {:.2}; unchecked: {}); refit the model (`cargo run --release --example fit_confidence`) or make the grader read it",
            g.certainty.unwrap_or(0.0),
            quote_list(&unchecked)
        ));
    }
    (!wrong.is_empty()).then(|| {
        format!(
            "self-test: the card's own {which} {}; fix the grader's reading, or the card where its text is at fault",
            wrong.join("; ")
        )
    })
}

fn quote_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("\"{s}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a claim names anything to look for: an identifier or a non-empty group.
fn usable(c: &crate::card::Claim) -> bool {
    let group = |g: &String| g.split('|').any(|a| !a.trim().is_empty());
    c.exact.iter().any(|e| !e.is_empty())
        || c.agent
            .iter()
            .chain(&c.action)
            .chain(&c.theme)
            .chain(&c.all)
            .any(group)
}
