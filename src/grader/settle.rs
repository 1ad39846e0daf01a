//! An unsure verdict settled with the learner's help: the one short question the quiz asks
//! before rating, and what the answer to it changes.
//!
//! - A pass (or partial) that says something the grader could not check: "is this right?" A
//!   "no" makes the statement a misconception the learner owns (fail); a "yes" makes the verdict
//!   sure; no answer leaves it as it was.
//! - A verdict short of pass that misses required points while saying things the grader could
//!   not check: "did your answer mean one of these?" The points named are credited and the
//!   verdict recomputed by the usual rule.

use super::verdict::{Confidence, FlagHit, Grade, score_for, verdict_for};

/// The question to settle an unsure verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// The indexes (into `Grade.points`) and labels of the required points the answer missed.
    MissingPoints(Vec<(usize, String)>),
    /// A statement of the answer nothing accounts for.
    Unchecked(String),
}

impl Question {
    /// The question, as the quiz asks it.
    pub fn prompt(&self) -> String {
        match self {
            Question::MissingPoints(points) => {
                let list: Vec<String> = points
                    .iter()
                    .enumerate()
                    .map(|(k, (_, label))| format!("{}) {label}", k + 1))
                    .collect();
                format!(
                    "The grader is not sure. Did your answer mean one of these? {} (numbers, or Enter for none)",
                    list.join("  ")
                )
            }
            Question::Unchecked(text) => format!(
                "The grader is not sure: the card does not cover “{text}”. Compare it with the answer above: is it right? y / n (Enter: not sure)"
            ),
        }
    }
}

/// The question to ask about `g`, if it is unsure and a question can settle it.
pub fn question(g: &Grade) -> Option<Question> {
    if g.confidence == Confidence::Sure || !g.red_flags.is_empty() {
        return None;
    }
    let missing: Vec<(usize, String)> = g
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.required && !p.hit)
        .map(|(i, p)| (i, p.label.clone()))
        .collect();
    if !missing.is_empty() && !g.unchecked.is_empty() {
        return Some(Question::MissingPoints(missing));
    }
    g.unchecked
        .first()
        .map(|u| Question::Unchecked(u.text.clone()))
}

/// Apply the learner's reply. An unreadable reply is an error saying what is expected; an
/// empty one changes nothing.
pub fn apply(g: &mut Grade, q: &Question, reply: &str) -> Result<(), String> {
    let reply = reply.trim().to_lowercase();
    if reply.is_empty() {
        return Ok(());
    }
    match q {
        Question::MissingPoints(points) => {
            let mut picked = Vec::new();
            for tok in reply.split(|c: char| c.is_whitespace() || c == ',') {
                if tok.is_empty() {
                    continue;
                }
                let k = tok
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| n.checked_sub(1))
                    .filter(|k| *k < points.len())
                    .ok_or_else(|| {
                        format!(
                            "`{tok}` is not one of the numbers 1–{}: type them, or Enter for none",
                            points.len()
                        )
                    })?;
                picked.push(points[k].0);
            }
            for i in picked {
                if let Some(p) = g.points.get_mut(i) {
                    p.hit = true;
                }
            }
        }
        Question::Unchecked(text) => match reply.as_str() {
            "y" | "yes" => g.unchecked.retain(|u| u.text != *text),
            "n" | "no" => {
                let span = g
                    .unchecked
                    .iter()
                    .find(|u| u.text == *text)
                    .map(|u| u.span.clone());
                g.unchecked.retain(|u| u.text != *text);
                if let Some(span) = span {
                    g.red_flags.push(FlagHit {
                        id: "learner".into(),
                        label: "A statement you judged wrong on comparing it with the card".into(),
                        span,
                        correction: "See the card's answer.".into(),
                        spec: String::new(),
                        catalogue: false,
                    });
                }
            }
            _ => return Err("type y (it is right), n (it is wrong) or Enter (not sure)".into()),
        },
    }
    g.verdict = verdict_for(&g.points, g.red_flags.len());
    g.score = score_for(&g.points, g.red_flags.len());
    g.suggested_rating = super::verdict::rating_for(g.verdict);
    // Settled: nothing left unchecked, or the learner has decided what was.
    if g.unchecked.is_empty() || matches!(q, Question::MissingPoints(_)) {
        g.confidence = Confidence::Sure;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::verdict::{PointResult, Rating, Span, Unchecked, Verdict};
    use super::*;

    fn unsure(required_hit: bool) -> Grade {
        let span = Span {
            start: 0,
            end: 5,
            text: "hello".into(),
        };
        Grade {
            card: "c".into(),
            verdict: if required_hit {
                Verdict::Pass
            } else {
                Verdict::Partial
            },
            confidence: Confidence::Unsure,
            score: 0.5,
            points: vec![
                PointResult {
                    id: "a".into(),
                    label: "a".into(),
                    required: true,
                    hit: required_hit,
                    span: None,
                },
                PointResult {
                    id: "b".into(),
                    label: "b".into(),
                    required: false,
                    hit: true,
                    span: None,
                },
            ],
            red_flags: vec![],
            near_misses: vec![],
            unchecked: vec![Unchecked {
                text: "it resends the tools list".into(),
                span,
                novel: vec![],
            }],
            suggested_rating: Rating::Good,
            truncated: false,
        }
    }

    #[test]
    fn a_pass_with_an_unchecked_statement_asks_whether_it_is_right() {
        let g = unsure(true);
        let q = question(&g).expect("a question");
        assert_eq!(q, Question::Unchecked("it resends the tools list".into()));
        let mut no = g.clone();
        apply(&mut no, &q, "n").unwrap();
        assert_eq!(no.verdict, Verdict::Fail);
        assert_eq!(no.suggested_rating, Rating::Again);
        let mut yes = g.clone();
        apply(&mut yes, &q, "yes").unwrap();
        assert_eq!(
            (yes.verdict, yes.confidence),
            (Verdict::Pass, Confidence::Sure)
        );
        let mut skip = g.clone();
        apply(&mut skip, &q, "").unwrap();
        assert_eq!(skip.confidence, Confidence::Unsure);
        assert!(apply(&mut g.clone(), &q, "maybe").is_err());
    }

    #[test]
    fn a_missing_required_point_can_be_claimed() {
        let g = unsure(false);
        let q = question(&g).expect("a question");
        assert_eq!(q, Question::MissingPoints(vec![(0, "a".into())]));
        let mut g2 = g.clone();
        apply(&mut g2, &q, "1").unwrap();
        assert_eq!(g2.verdict, Verdict::Pass);
        assert!(apply(&mut g.clone(), &q, "3").is_err());
    }

    #[test]
    fn a_sure_or_flagged_verdict_asks_nothing() {
        let mut g = unsure(true);
        g.confidence = Confidence::Sure;
        assert_eq!(question(&g), None);
    }
}
