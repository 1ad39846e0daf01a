//! The guardrails: what of the model's reply is believed. Every quote must stand in the answer;
//! points the card demands exactly (and spot-the-bug's line) stay the rules' call; the verdict
//! is recomputed from what survives with the grader's own rule, never copied from the model.

use serde::Serialize;

use super::quote::Comparable;
use super::reply::Reply;
use super::request::{LINE_POINT, exact_point};
use crate::card::Card;
use crate::grader::{self, Grade, PointResult, Span, Verdict};

/// An item of the reply that was not believed, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dropped {
    /// `point` or `misconception`.
    pub item: &'static str,
    /// The point or flag id the model gave.
    pub id: Option<String>,
    pub quote: String,
    pub why: String,
}

/// A misconception the judge found and the guardrails kept.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Misconception {
    /// The card's red flag, or none for one the card does not list (the model's own).
    pub flag: Option<String>,
    /// The red flag's label; empty for the model's own.
    pub label: String,
    /// The answer's words, as the learner wrote them.
    pub quote: String,
    pub correction: String,
    /// The red flag's spec reference; empty for the model's own.
    pub spec: String,
    #[serde(skip)]
    pub span: Span,
}

/// What survives of a reply.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The rules' points, each decided again: by the model's quote for prose points, by the
    /// rules for exact ones and the line.
    pub points: Vec<PointResult>,
    pub misconceptions: Vec<Misconception>,
    pub dropped: Vec<Dropped>,
    pub verdict: Verdict,
}

fn span(answer: &str, (s, e): (usize, usize)) -> Span {
    Span {
        start: s,
        end: e,
        text: answer.get(s..e).unwrap_or("").to_string(),
    }
}

fn rules_decide(card: &Card, id: &str) -> bool {
    id == LINE_POINT || card.points.iter().any(|p| p.id == id && exact_point(p))
}

/// Why an exact point the model credited is not believed.
fn exact_why(card: &Card, id: &str, rules: &Grade) -> String {
    if id == LINE_POINT {
        return "the rules decide which line an answer names, and they do not find the faulty one"
            .into();
    }
    let names: Vec<&String> = card
        .points
        .iter()
        .filter(|p| p.id == id)
        .flat_map(|p| p.rules.iter().flat_map(|r| &r.exact))
        .collect();
    let near = rules
        .near_misses
        .iter()
        .find(|n| names.contains(&&n.expected));
    match near {
        Some(n) => format!(
            "it needs `{}` exactly, and the answer writes `{}` (a near miss, not counted)",
            n.expected, n.found
        ),
        None => "it needs the exact identifier, and the rules do not find it in the answer".into(),
    }
}

/// Believe what can be believed of `reply` to `answer`, given the rules' grade.
pub fn check(card: &Card, answer: &str, rules: &Grade, reply: &Reply) -> Checked {
    let text = Comparable::new(answer);
    let mut dropped = Vec::new();
    let mut points = rules.points.clone();
    let judged: Vec<bool> = points.iter().map(|p| !rules_decide(card, &p.id)).collect();
    for (p, by_model) in points.iter_mut().zip(&judged) {
        if *by_model {
            p.hit = false;
            p.span = None;
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for c in &reply.points {
        let id = c.id.trim();
        if seen.contains(&id) {
            continue;
        }
        seen.push(id);
        let drop = |why: String| Dropped {
            item: "point",
            id: Some(id.to_string()),
            quote: c.quote.clone(),
            why,
        };
        let Some(i) = points.iter().position(|p| p.id == id) else {
            dropped.push(drop("the card has no such point".into()));
            continue;
        };
        if !judged[i] {
            if !points[i].hit {
                dropped.push(drop(exact_why(card, id, rules)));
            }
            continue;
        }
        if c.quote.trim().is_empty() {
            dropped.push(drop("it quotes nothing from the answer".into()));
            continue;
        }
        match text.find(&c.quote) {
            Some(at) => {
                points[i].hit = true;
                points[i].span = Some(span(answer, at));
            }
            None => dropped.push(drop("those words are not in the answer".into())),
        }
    }
    wrong_line(card, answer, &judged, &mut points, &mut dropped);
    let misconceptions = misconceptions(card, answer, &text, reply, &mut dropped);
    let verdict = grader::verdict_for(&points, misconceptions.len());
    Checked {
        points,
        misconceptions,
        dropped,
        verdict,
    }
}

/// Spot-the-bug: the right rule pinned on a wrong line earns nothing (README, "Verdict").
fn wrong_line(
    card: &Card,
    answer: &str,
    judged: &[bool],
    points: &mut [PointResult],
    dropped: &mut Vec<Dropped>,
) {
    let line_missed = points.iter().any(|p| p.id == LINE_POINT && !p.hit);
    if !card.kind.names_a_line() || !line_missed || grader::named_line(answer).is_none() {
        return;
    }
    for (p, by_model) in points.iter_mut().zip(judged) {
        if *by_model && p.hit {
            p.hit = false;
            dropped.push(Dropped {
                item: "point",
                id: Some(p.id.clone()),
                quote: p.span.take().map(|s| s.text).unwrap_or_default(),
                why: "the rule counts only together with the right line, and the answer names another"
                    .into(),
            });
        }
    }
}

fn misconceptions(
    card: &Card,
    answer: &str,
    text: &Comparable,
    reply: &Reply,
    dropped: &mut Vec<Dropped>,
) -> Vec<Misconception> {
    let mut out: Vec<Misconception> = Vec::new();
    for m in &reply.misconceptions {
        let drop = |why: &str| Dropped {
            item: "misconception",
            id: m.flag.clone(),
            quote: m.quote.clone(),
            why: why.to_string(),
        };
        if m.quote.trim().is_empty() {
            dropped.push(drop("it quotes nothing from the answer"));
            continue;
        }
        let Some(at) = text.find(&m.quote) else {
            dropped.push(drop("those words are not in the answer"));
            continue;
        };
        // A flag id the card does not have is the model's own misconception, not a red flag.
        let flag = m
            .flag
            .as_deref()
            .and_then(|id| card.red_flags.iter().find(|f| f.id == id));
        let correction = m.correction.trim();
        if flag.is_none() && correction.is_empty() {
            dropped.push(drop("it gives no correction"));
            continue;
        }
        let found = Misconception {
            flag: flag.map(|f| f.id.clone()),
            label: flag.map(|f| f.label.clone()).unwrap_or_default(),
            quote: answer.get(at.0..at.1).unwrap_or("").to_string(),
            correction: flag.map_or_else(|| correction.to_string(), |f| f.correction.clone()),
            spec: flag.map(|f| f.spec.clone()).unwrap_or_default(),
            span: span(answer, at),
        };
        let repeat = out.iter().any(|o| {
            (o.flag.is_some() && o.flag == found.flag)
                || (o.span.start, o.span.end) == (found.span.start, found.span.end)
        });
        if !repeat {
            out.push(found);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{CardKind, Claim, Point, RedFlag, test_card};
    use crate::judge::reply::{ClaimedMisconception, ClaimedPoint};

    fn card() -> Card {
        let mut c = test_card(CardKind::Recall);
        c.points = vec![
            Point {
                id: "names-ack".into(),
                label: "names notifications/subscriptions/acknowledged".into(),
                required: true,
                rules: vec![Claim {
                    exact: vec!["notifications/subscriptions/acknowledged".into()],
                    all: vec![],
                    ..Claim::default()
                }],
            },
            Point {
                id: "first".into(),
                label: "it comes first".into(),
                required: true,
                rules: vec![Claim {
                    exact: vec![],
                    all: vec!["first|before".into()],
                    ..Claim::default()
                }],
            },
        ];
        c.red_flags = vec![RedFlag {
            id: "handshake".into(),
            label: "calls it a handshake".into(),
            rules: vec![Claim {
                exact: vec![],
                all: vec!["handshake".into()],
                ..Claim::default()
            }],
            guards: vec![],
            correction: "There is no handshake.".into(),
            spec: "SUB §Acknowledgment".into(),
            catalogue: false,
            examples: vec![],
            non_examples: vec![],
            truths: vec![],
        }];
        c.identifiers = vec!["notifications/subscriptions/acknowledged".into()];
        c
    }

    fn point(id: &str, quote: &str) -> ClaimedPoint {
        ClaimedPoint {
            id: id.into(),
            quote: quote.into(),
        }
    }

    fn misc(flag: Option<&str>, quote: &str, correction: &str) -> ClaimedMisconception {
        ClaimedMisconception {
            flag: flag.map(str::to_string),
            quote: quote.into(),
            correction: correction.into(),
        }
    }

    fn run(answer: &str, reply: Reply) -> Checked {
        let c = card();
        let rules = grader::grade(&c, answer);
        check(&c, answer, &rules, &reply)
    }

    #[test]
    fn a_paraphrase_the_rules_miss_is_credited_with_its_quote() {
        let a = "notifications/subscriptions/acknowledged, and nothing may precede it.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Pass),
                points: vec![
                    point("names-ack", "notifications/subscriptions/acknowledged"),
                    point("first", "nothing may precede it"),
                ],
                misconceptions: vec![],
            },
        );
        assert_eq!(c.verdict, Verdict::Pass);
        assert!(c.dropped.is_empty(), "{:?}", c.dropped);
        assert_eq!(
            c.points[1].span.as_ref().unwrap().text,
            "nothing may precede it"
        );
    }

    #[test]
    fn a_quote_not_in_the_answer_is_dropped_and_the_verdict_recomputed() {
        let a = "notifications/subscriptions/acknowledged is sent.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Pass),
                points: vec![point("first", "it is sent first")],
                misconceptions: vec![],
            },
        );
        assert_eq!(
            c.verdict,
            Verdict::Partial,
            "the model's pass is not copied"
        );
        assert_eq!(c.dropped[0].why, "those words are not in the answer");
    }

    #[test]
    fn an_exact_point_needs_the_rules_to_find_the_identifier() {
        let a = "It sends notifications/subscription/acknowledge first.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Pass),
                points: vec![
                    point("names-ack", "notifications/subscription/acknowledge"),
                    point("first", "first"),
                ],
                misconceptions: vec![],
            },
        );
        assert!(!c.points[0].hit);
        assert_eq!(c.verdict, Verdict::Partial);
        assert!(
            c.dropped[0]
                .why
                .contains("writes `notifications/subscription/acknowledge`"),
            "{:?}",
            c.dropped
        );
    }

    #[test]
    fn an_exact_point_the_rules_find_stands_without_the_model() {
        let a = "notifications/subscriptions/acknowledged comes first.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Partial),
                points: vec![point("first", "comes first")],
                misconceptions: vec![],
            },
        );
        assert!(c.points[0].hit);
        assert_eq!(c.verdict, Verdict::Pass);
    }

    #[test]
    fn a_misconception_fails_the_answer_card_flag_or_the_models_own() {
        let a =
            "notifications/subscriptions/acknowledged comes first and carries the full tools list.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Pass),
                points: vec![point("names-ack", "x"), point("first", "comes first")],
                misconceptions: vec![misc(
                    None,
                    "carries the full tools list",
                    "The acknowledgement carries no list.",
                )],
            },
        );
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(c.misconceptions[0].flag, None);
        assert_eq!(c.misconceptions[0].quote, "carries the full tools list");
        let c = run(
            "It is like a handshake.",
            Reply {
                verdict: None,
                points: vec![],
                misconceptions: vec![
                    misc(Some("handshake"), "like a handshake", ""),
                    misc(Some("handshake"), "a handshake", "again"),
                    misc(Some("nope"), "It is", ""),
                ],
            },
        );
        assert_eq!(c.misconceptions.len(), 1, "{:?}", c.misconceptions);
        assert_eq!(c.misconceptions[0].correction, "There is no handshake.");
        assert_eq!(c.dropped[0].why, "it gives no correction");
    }

    #[test]
    fn unknown_points_and_missing_quotes_are_dropped() {
        let c = run(
            "first",
            Reply {
                verdict: None,
                points: vec![point("p9", "first"), point("first", "")],
                misconceptions: vec![misc(None, "not here", "c")],
            },
        );
        let whys: Vec<&str> = c.dropped.iter().map(|d| d.why.as_str()).collect();
        assert_eq!(
            whys,
            [
                "the card has no such point",
                "it quotes nothing from the answer",
                "those words are not in the answer"
            ]
        );
        assert_eq!(c.verdict, Verdict::Fail);
    }
}
