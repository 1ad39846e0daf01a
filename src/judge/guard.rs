//! The guardrails: what of the model's reply is believed. They only ever take away what the
//! answer does not bear out; they never put the rules' reading in the model's place:
//! - every quote must stand in the answer;
//! - spot-the-bug's line is believed when the model's own quote names the faulty line (in
//!   digits or words, counted as the quiz shows the transcript), unless the rules are sure the
//!   answer blames another one (the right rule on a wrong line is the model's call: it is told
//!   the rule);
//! - a point the card demands exactly needs the exact identifier inside the quote;
//! - the verdict is recomputed from what survives with the grader's own rule.

use serde::Serialize;

use super::line;
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
    /// The rules' points, each decided again by the model's quote.
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

/// Why an exact point whose quote lacks the identifier is not believed.
fn exact_why(names: &[&String], rules: &Grade) -> String {
    let near = rules
        .near_misses
        .iter()
        .find(|n| names.contains(&&n.expected));
    match near {
        Some(n) => format!(
            "it needs `{}` exactly, and the answer writes `{}` (a near miss, not counted)",
            n.expected, n.found
        ),
        None => match names.first() {
            Some(name) => format!("it needs `{name}` exactly, and the quoted words do not have it"),
            None => "it needs the exact identifier, and the quoted words do not have it".into(),
        },
    }
}

/// The words the rules read as another line, when the rules are sure the answer blames it
/// instead of the faulty one: they read another line, the answer never names the faulty line
/// as a line ("line 5", "the fifth line", "5:"), and the model's quote is not the very words
/// the rules read (where the rules misread a line, the model's reading of the same words
/// stands).
fn rules_sure_of_other(
    card: &Card,
    answer: &str,
    rules: &Grade,
    quoted: (usize, usize),
) -> Option<String> {
    let t = card.transcript.as_ref()?;
    let read = rules.points.iter().find(|p| p.id == LINE_POINT)?;
    if read.hit {
        return None;
    }
    let at = read.span.as_ref()?;
    // The rules are sure of another line only if what they read is a line of the transcript:
    // "-32022 is a modern code" names no line, however the rules took it.
    let shown = t.text.trim_end().lines().count() as u32;
    if !line::mentions(&at.text, &t.text)
        .iter()
        .any(|m| m.line != t.bug_line && (1..=shown).contains(&m.line))
    {
        return None;
    }
    if line::answer_names(answer, &t.text, t.bug_line) {
        return None;
    }
    if quoted.0 <= at.start && at.end <= quoted.1 {
        return None;
    }
    Some(at.text.clone())
}

/// Believe what can be believed of `reply` to `answer`, given the rules' grade.
pub fn check(card: &Card, answer: &str, rules: &Grade, reply: &Reply) -> Checked {
    let text = Comparable::new(answer);
    let mut dropped = Vec::new();
    let mut points = rules.points.clone();
    for p in &mut points {
        p.hit = false;
        p.span = None;
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
        if c.quote.trim().is_empty() {
            dropped.push(drop("it quotes nothing from the answer".into()));
            continue;
        }
        let Some(at) = text.find(&c.quote) else {
            dropped.push(drop("those words are not in the answer".into()));
            continue;
        };
        let quoted = answer.get(at.0..at.1).unwrap_or("");
        if let Some(why) = unsupported(card, answer, rules, id, quoted, at) {
            dropped.push(drop(why));
            continue;
        }
        points[i].hit = true;
        points[i].span = Some(span(answer, at));
    }
    let misconceptions = misconceptions(card, answer, &text, reply, &mut dropped);
    let verdict = grader::verdict_for(&points, misconceptions.len());
    Checked {
        points,
        misconceptions,
        dropped,
        verdict,
    }
}

/// Why the quoted words (found in the answer at `at`) do not bear out point `id`, if they don't.
fn unsupported(
    card: &Card,
    answer: &str,
    rules: &Grade,
    id: &str,
    quoted: &str,
    at: (usize, usize),
) -> Option<String> {
    if id == LINE_POINT {
        let t = card.transcript.as_ref()?;
        if !line::quote_names(quoted, &t.text, t.bug_line) {
            return Some(format!(
                "the quoted words do not name line {} (lines are counted as the quiz shows them)",
                t.bug_line
            ));
        }
        return rules_sure_of_other(card, answer, rules, at).map(|other| {
            format!(
                "the answer blames another line (\"{other}\") and never names line {} as a line",
                t.bug_line
            )
        });
    }
    let p = card.points.iter().find(|p| p.id == id)?;
    if !exact_point(p) {
        return None;
    }
    let names: Vec<&String> = p.rules.iter().flat_map(|r| &r.exact).collect();
    let norm = grader::normalise(quoted);
    (!names.iter().any(|n| norm.contains(n.as_str()))).then(|| exact_why(&names, rules))
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
                points: vec![
                    point(
                        "names-ack",
                        "notifications/subscriptions/acknowledged is sent",
                    ),
                    point("first", "it is sent first"),
                ],
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
    fn an_exact_point_the_model_does_not_claim_is_not_put_back_by_the_rules() {
        let a = "notifications/subscriptions/acknowledged comes first.";
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Partial),
                points: vec![point("first", "comes first")],
                misconceptions: vec![],
            },
        );
        assert!(!c.points[0].hit, "the model's reading stands");
        assert_eq!(c.verdict, Verdict::Partial);
        let c = run(
            a,
            Reply {
                verdict: Some(Verdict::Pass),
                points: vec![
                    point(
                        "names-ack",
                        "notifications/subscriptions/acknowledged comes",
                    ),
                    point("first", "comes first"),
                ],
                misconceptions: vec![],
            },
        );
        assert!(c.points[0].hit, "the identifier is inside the quote");
        assert_eq!(c.verdict, Verdict::Pass);
    }

    /// A spot-the-bug card whose faulty line is `bug`, with one prose point (the rule).
    fn bug_card(bug: u32) -> Card {
        let mut c = test_card(CardKind::SpotTheBug);
        c.transcript = Some(crate::card::Transcript {
            lang: "sse".into(),
            text: "data: {\"ack\":1}\n\n:\n\ndata: {\"change\":2}\n\ndata: {\"change\":3}\n".into(),
            bug_line: bug,
        });
        c.points = vec![Point {
            id: "rule".into(),
            label: "the acknowledgement comes first".into(),
            required: true,
            rules: vec![Claim {
                exact: vec![],
                all: vec!["ack|acknowledgement".into(), "first|before".into()],
                ..Claim::default()
            }],
        }];
        c
    }

    fn line_run(bug: u32, answer: &str, line_quote: &str, rule_quote: &str) -> Checked {
        let c = bug_card(bug);
        let rules = grader::grade(&c, answer);
        let reply = Reply {
            verdict: Some(Verdict::Pass),
            points: vec![point("line", line_quote), point("rule", rule_quote)],
            misconceptions: vec![],
        };
        check(&c, answer, &rules, &reply)
    }

    #[test]
    fn the_models_line_stands_when_its_quote_names_it_in_digits_or_words() {
        let cases = [
            (
                5,
                "Fifth line's the culprit: the ack has to come before it.",
                "Fifth line's the culprit",
            ),
            (
                5,
                "line 4 (5 if you count the blank line), since the ack has to come first",
                "line 4 (5 if you count the blank line)",
            ),
            (
                5,
                "The wrong line is the 5. The ack has to come first.",
                "The wrong line is the 5",
            ),
            (
                5,
                "Line 1 is the ack, line 2 is blank, line 3 a keep-alive. Line 5 is the trouble: the ack has to come first and it did, so this one repeats nothing. Really it's line 5.",
                "Line 5 is the trouble",
            ),
            (
                7,
                "The last line: the ack has to come first.",
                "The last line",
            ),
            (
                7,
                "the third data line, because the ack has to come first",
                "the third data line",
            ),
            // An error code is no line, whatever the rules read in it.
            (
                3,
                "the third one. -32022 is a modern code, and the ack has to come first.",
                "the third one",
            ),
        ];
        for (bug, answer, quote) in cases {
            let c = line_run(bug, answer, quote, "the ack has to come");
            assert!(c.points[0].hit, "{answer}: {:?}", c.dropped);
            assert!(c.dropped.is_empty(), "{answer}: {:?}", c.dropped);
        }
    }

    #[test]
    fn a_line_quote_that_names_no_line_or_another_is_dropped() {
        let a = "The change notification goes out before the ack, and the ack has to come first.";
        let c = line_run(
            5,
            a,
            "The change notification goes out",
            "the ack has to come",
        );
        assert!(!c.points[0].hit);
        assert!(
            c.dropped[0].why.contains("do not name line 5"),
            "{:?}",
            c.dropped
        );
        assert!(
            c.points[1].hit,
            "no line named: the rule alone is a partial"
        );
        assert_eq!(c.verdict, Verdict::Partial);
        let a = "Line 3 is wrong, since 5 changes came before the ack.";
        let c = line_run(5, a, "5 changes came", "before the ack");
        assert!(!c.points[0].hit, "{:?}", c.dropped);
        assert!(
            c.dropped[0].why.contains("blames another line"),
            "{:?}",
            c.dropped
        );
        assert!(
            c.points[1].hit,
            "the rule is the model's call, told the verdict rule"
        );
        assert_eq!(c.verdict, Verdict::Partial);
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
