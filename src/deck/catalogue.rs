//! The misconception catalogue (`decks/catalogue.toml`): misconceptions worded as claims that
//! are wrong whatever the question, checked on every free-text card's answers, and truths the
//! grader recognises an answer's statements against.
//!
//! A card adds only the red flags that are misconceptions in its own context; what is wrong
//! everywhere ("the server assigns the subscription id", "resume with `Last-Event-ID`") lives
//! here once. `decks check` runs each entry's examples and refuses an entry that fires on any
//! right answer of the graded corpus, on any card.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::card::RedFlag;

pub const CATALOGUE_FILE: &str = "catalogue.toml";

/// `decks/catalogue.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(default)]
    pub misconceptions: Vec<RedFlag>,
    #[serde(default)]
    pub truths: Vec<Truth>,
}

/// A statement true in every context, that answers make and no card's text says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Truth {
    pub text: String,
    /// Where the spec says so, in the short form of docs/rules.md.
    #[serde(default)]
    #[expect(dead_code, reason = "written for deck authors; accepted, never shown")]
    pub spec: String,
}

/// The built-in catalogue. A broken file is reported by `decks check` (with its line and
/// column); loading goes on without it, so one bad edit never stops the quiz.
pub fn catalogue() -> &'static Result<Catalogue, String> {
    static C: OnceLock<Result<Catalogue, String>> = OnceLock::new();
    C.get_or_init(|| {
        let text = super::embedded_text(CATALOGUE_FILE).unwrap_or("");
        parse(text)
    })
}

pub fn parse(text: &str) -> Result<Catalogue, String> {
    let mut c: Catalogue = toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|s| super::locate::line_col(text, s.start))
            .unwrap_or((1, 1));
        format!(
            "decks/{CATALOGUE_FILE}:{line}:{column}: {}",
            e.message().trim()
        )
    })?;
    for m in &mut c.misconceptions {
        m.catalogue = true;
    }
    Ok(c)
}

/// The catalogue's misconceptions, or none when the file is broken.
pub fn misconceptions() -> &'static [RedFlag] {
    catalogue()
        .as_ref()
        .map_or(&[], |c| c.misconceptions.as_slice())
}

/// The catalogue's truths, or none when the file is broken.
pub fn truths() -> impl Iterator<Item = &'static str> {
    catalogue()
        .as_ref()
        .map_or(&[][..], |c| c.truths.as_slice())
        .iter()
        .map(|t| t.text.as_str())
}

/// `decks check` on the catalogue: it parses, its concepts exist, and every misconception
/// fires on its examples and not on its non-examples.
pub fn self_test() -> Vec<super::DeckError> {
    use super::DeckError;
    let file = format!("decks/{CATALOGUE_FILE}");
    let text = super::embedded_text(CATALOGUE_FILE).unwrap_or("");
    let cat = match catalogue() {
        Ok(c) => c,
        Err(e) => {
            return vec![DeckError {
                file,
                line: 0,
                column: 0,
                message: e.clone(),
            }];
        }
    };
    let Ok(vocab) = super::concepts::vocabulary() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in &cat.misconceptions {
        let mut at = |message| out.push(problem_at(&file, text, m, message));
        let Ok(mut card) = toml::from_str::<crate::card::Card>(
            "id = \"catalogue\"\nkind = \"recall\"\nquestion = \"\"",
        ) else {
            continue;
        };
        let (entry, unknown) = expanded(m, vocab);
        card.red_flags = vec![entry];
        for u in unknown {
            at(format!(
                "misconception `{}` names an unknown concept `@{u}`; define it in decks/concepts.toml",
                m.id
            ));
        }
        if m.rules.is_empty() {
            at(format!("misconception `{}` has no claim", m.id));
        }
        for ex in &m.examples {
            if crate::grader::grade(&card, ex).red_flags.is_empty() {
                at(format!(
                    "self-test: misconception `{}` does not fire on its example \"{ex}\"; widen its claims",
                    m.id
                ));
            }
        }
        for ex in m.non_examples.iter().chain(&m.truths) {
            if let Some(hit) = crate::grader::grade(&card, ex).red_flags.first() {
                at(format!(
                    "self-test: misconception `{}` fires on its non-example or truth \"{ex}\" (at \"{}\"); narrow its claims",
                    m.id, hit.span.text
                ));
            }
        }
    }
    out
}

/// `decks check` on the catalogue's truths: every misconception carries at least one true
/// statement close to it, and fires on none of them, whether graded alone or as an answer to any
/// free-text card the entry reaches (every one whose own flags do not take its id). A card's own
/// red flag carries no truths: its context is one question, and its non-examples cover it.
pub fn truth_problems(decks: &[super::Deck]) -> Vec<super::DeckError> {
    let text = super::embedded_text(CATALOGUE_FILE).unwrap_or("");
    match catalogue() {
        Ok(cat) => truth_problems_in(cat, text, decks),
        Err(_) => Vec::new(), // self_test reports the broken file
    }
}

/// [`truth_problems`] for a catalogue read from `text`.
pub fn truth_problems_in(
    cat: &Catalogue,
    text: &str,
    decks: &[super::Deck],
) -> Vec<super::DeckError> {
    let file = format!("decks/{CATALOGUE_FILE}");
    let Ok(vocab) = super::concepts::vocabulary() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in &cat.misconceptions {
        let mut at = |message| out.push(problem_at(&file, text, m, message));
        if m.truths.is_empty() {
            at(format!(
                "misconception `{}` carries no truth: add `truths = [\"...\"]`, a true statement close to the misconception that it must not fire on",
                m.id
            ));
        }
        // Unknown concepts are self_test's to report.
        let (entry, _) = expanded(m, vocab);
        // Each card the entry reaches, with its own flags and this entry as its only catalogue one.
        let reached: Vec<(String, crate::card::Card)> = decks
            .iter()
            .flat_map(|d| d.cards.iter().map(move |c| (d, c)))
            .filter(|(_, c)| c.kind.free_text())
            .filter(|(_, c)| !c.red_flags.iter().any(|f| !f.catalogue && f.id == m.id))
            .map(|(d, c)| {
                let mut card = c.clone();
                card.red_flags.retain(|f| !f.catalogue);
                card.red_flags.push(entry.clone());
                (d.key(c), card)
            })
            .collect();
        for t in &m.truths {
            let mut fired_on = Vec::new();
            let mut stated = String::new();
            for (key, card) in &reached {
                let hit = crate::grader::grade(card, t)
                    .red_flags
                    .into_iter()
                    .find(|f| f.catalogue && f.id == m.id);
                if let Some(hit) = hit {
                    fired_on.push(key.clone());
                    stated = hit.span.text;
                }
            }
            if !fired_on.is_empty() {
                let shown = fired_on
                    .iter()
                    .take(3)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("`, `");
                let more = match fired_on.len() {
                    n if n > 3 => format!(" and {} more", n - 3),
                    _ => String::new(),
                };
                at(format!(
                    "misconception `{}` fires on its truth \"{t}\" (at \"{stated}\") graded as an answer to `{shown}`{more}; narrow its claims so that it is false whatever the question",
                    m.id
                ));
            }
        }
    }
    out.extend(card_flags_with_truths(decks));
    out
}

/// Truths belong to catalogue entries only; a card's own red flag has non-examples instead.
fn card_flags_with_truths(decks: &[super::Deck]) -> Vec<super::DeckError> {
    let mut out = Vec::new();
    for d in decks {
        for card in &d.cards {
            for f in card
                .red_flags
                .iter()
                .filter(|f| !f.catalogue && !f.truths.is_empty())
            {
                out.push(super::DeckError {
                    file: d.source.clone(),
                    line: 0,
                    column: 0,
                    message: format!(
                        "red flag `{}` of `{}` carries `truths`: only catalogue entries do; write them as its `non_examples`",
                        f.id,
                        d.key(card)
                    ),
                });
            }
        }
    }
    out
}

/// A problem with catalogue entry `m`, placed at its `id` in the catalogue file.
fn problem_at(file: &str, text: &str, m: &RedFlag, message: String) -> super::DeckError {
    let (line, column) = super::locate::find_key_line(text, "id", &m.id, 0).unwrap_or((1, 1));
    super::DeckError {
        file: file.to_owned(),
        line,
        column,
        message,
    }
}

/// Entry `m` as every card carries it: `@concepts` expanded, marked as the catalogue's; with
/// the concept names the vocabulary lacks.
fn expanded(m: &RedFlag, vocab: &super::concepts::Vocabulary) -> (RedFlag, Vec<String>) {
    let mut entry = m.clone();
    entry.catalogue = true;
    let (mut unknown, mut used) = (Vec::new(), std::collections::BTreeSet::new());
    for r in &mut entry.rules {
        for g in r.groups_mut() {
            *g = vocab.expand_group(g, &mut unknown, &mut used);
        }
    }
    for g in &mut entry.guards {
        *g = vocab.expand_group(g, &mut unknown, &mut used);
    }
    (entry, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_catalogue_parses() {
        let c = catalogue().as_ref().expect("decks/catalogue.toml parses");
        assert!(
            c.misconceptions
                .iter()
                .all(|m| m.catalogue && !m.id.is_empty())
        );
    }

    /// A planted entry worded too broadly: it fires on the true statement it carries.
    const PLANTED: &str = r#"
[[misconceptions]]
id = "planted-websocket"
label = "Expecting a WebSocket transport"
claims = [{ theme = "websocket" }]
correction = "MCP defines no WebSocket binding."
spec = "TRN intro"
examples = ["Use the WebSocket transport."]
non_examples = ["MCP has no WebSocket transport."]
truths = ["Two services you control may speak MCP over a custom WebSocket transport."]

[[misconceptions]]
id = "planted-no-truth"
label = "Expecting a WebSocket transport"
claims = [{ theme = "websocket" }]
correction = "MCP defines no WebSocket binding."
spec = "TRN intro"
examples = ["Use the WebSocket transport."]
non_examples = ["MCP has no WebSocket transport."]
"#;

    #[test]
    fn check_refuses_an_entry_that_fires_on_its_truth_or_carries_none() {
        let cat = parse(PLANTED).expect("the planted catalogue parses");
        let lib = crate::deck::Library::embedded();
        let problems = truth_problems_in(&cat, PLANTED, &lib.decks);
        let text: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert!(
            text.iter().any(|p| p.starts_with("decks/catalogue.toml:3:")
                && p.contains("misconception `planted-websocket` fires on its truth \"Two services you control may speak MCP over a custom WebSocket transport.\"")
                && p.contains("graded as an answer to `subscriptions/")),
            "{text:#?}"
        );
        assert!(
            text.iter()
                .any(|p| p.starts_with("decks/catalogue.toml:13:")
                    && p.contains("misconception `planted-no-truth` carries no truth")),
            "{text:#?}"
        );
    }

    #[test]
    fn the_shipped_entries_carry_truths_they_do_not_fire_on() {
        let c = catalogue().as_ref().expect("decks/catalogue.toml parses");
        assert!(c.misconceptions.iter().all(|m| !m.truths.is_empty()));
        let lib = crate::deck::Library::embedded();
        let problems = truth_problems(&lib.decks);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// The true answers of the 2026-12-06 content audit that used to fail on a flag (W1, M1,
    /// M2, M3, M5, R2, R4): each card's own answer with the true remark added, or the remark
    /// as a whole answer, must grade with no red flag.
    #[test]
    fn the_audits_true_answers_raise_no_flag() {
        let lib = crate::deck::Library::embedded();
        let cases: [(&str, &str, bool); 7] = [
            (
                "lifecycle/graceful-close-result",
                "On stdio a server-sent notifications/cancelled naming the listen id can also end the subscription, per the cancellation page.",
                true,
            ),
            (
                "wire-http/unsupported-version",
                "Since the first request was answered, the retry can go out again with the same id.",
                true,
            ),
            (
                "production/subscribed-resource-gone",
                "Reading the missing note returns the JSON-RPC error -32602 inside an HTTP 200 response, never empty contents.",
                true,
            ),
            (
                "beyond-basics/connection-limits",
                "A custom WebSocket transport, which TRN allows as a custom transport, would also work if you control both ends.",
                true,
            ),
            (
                "beyond-basics/shutdown-open-listens",
                "On HTTP a server following the cancellation page literally would send notifications/cancelled too before closing.",
                true,
            ),
            (
                "production/listen-limits",
                "The spec is silent, so it's policy: cap concurrent listens per tenant, cap the URIs per filter, refuse a listen over the cap with a 429 and Retry-After, and validate every subscribed URI as strictly as a resources/read of it.",
                false,
            ),
            (
                "meta-and-errors/ttl-and-notifications",
                "As a client policy I also clamp huge ttlMs values to one day.",
                true,
            ),
        ];
        for (key, remark, append) in cases {
            let (deck, id) = key.split_once('/').expect("DECK/CARD");
            let card = lib
                .decks
                .iter()
                .find(|d| d.meta.id == deck)
                .and_then(|d| d.card(id))
                .unwrap_or_else(|| panic!("no card {key}"));
            let answer = match (append, &card.answer) {
                (true, Some(a)) => format!("{} {remark}", a.text.trim()),
                _ => remark.to_owned(),
            };
            let g = crate::grader::grade(card, &answer);
            let flags: Vec<&str> = g.red_flags.iter().map(|f| f.id.as_str()).collect();
            assert!(flags.is_empty(), "{key}: {flags:?} on {answer}");
            assert_eq!(g.verdict, crate::grader::Verdict::Pass, "{key}: {answer}");
        }
    }

    #[test]
    fn a_broken_catalogue_is_located() {
        let e = parse("[[misconceptions]]\nid = 3").unwrap_err();
        assert!(e.starts_with("decks/catalogue.toml:2:"), "{e}");
    }
}
