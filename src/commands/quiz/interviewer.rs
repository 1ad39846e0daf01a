//! `--interviewer`: two people practise together. The interviewer reads the rubric while the
//! candidate answers aloud, then types what they heard; those ticks grade the card.

use super::render::{Screen, dim, red};
use crate::card::Card;
use crate::grader::{Confidence, FlagHit, Grade, PointResult, Rating, Span, Verdict};

pub fn rubric(screen: &mut Screen, card: &Card) {
    screen.heading("rubric — interviewer only (candidate: answer aloud)");
    if card.points.is_empty() {
        if let Some(b) = &card.basics {
            screen.line("  expected answer:");
            screen.block(&b.text);
        }
        screen.line(&dim(
            "  Type `y` if the candidate got it right, `n` if not, then Enter (the timer stops).",
        ));
    } else {
        screen.line("  key points:");
        for (i, p) in card.points.iter().enumerate() {
            let req = if p.required { " [required]" } else { "" };
            screen.line(&format!("    {}. {}{req}", i + 1, p.label));
        }
        if card.own_flags().next().is_some() {
            screen.line("  red flags (cost the question):");
            for (i, f) in card.own_flags().enumerate() {
                screen.line(&format!("    r{}. {}", i + 1, red(&f.label)));
            }
        }
        screen.line(&dim(
            "  Type the numbers of the points you heard and r-numbers of red flags said \
             (e.g. `1 3 r2`), then Enter (the timer stops). Nothing heard: `-`.",
        ));
    }
    if !card.followups.is_empty() {
        screen.line(&format!(
            "  follow-ups asked next: {}",
            card.followups.join(", ")
        ));
    }
    screen.flush();
}

fn verdict(points: &[PointResult], flags: usize) -> Verdict {
    let req = points.iter().filter(|p| p.required).count();
    let hit = points.iter().filter(|p| p.required && p.hit).count();
    if flags > 0 || hit * 2 < req {
        Verdict::Fail
    } else if hit == req {
        Verdict::Pass
    } else {
        Verdict::Partial
    }
}

fn rating_for(v: Verdict) -> Rating {
    match v {
        Verdict::Pass => Rating::Good,
        Verdict::Partial => Rating::Hard,
        Verdict::Fail => Rating::Again,
    }
}

/// Turn the interviewer's ticks into a grade. An error names the tick that made no sense.
pub fn grade_from_ticks(card: &Card, ticks: &str) -> Result<Grade, String> {
    if card.points.is_empty() {
        return Ok(right_or_wrong(card, ticks));
    }
    let (hit, flags) = parse_ticks(card, ticks)?;
    let heard = Span {
        start: 0,
        end: 0,
        text: "(heard by the interviewer)".into(),
    };
    let points: Vec<PointResult> = card
        .points
        .iter()
        .zip(&hit)
        .map(|(p, h)| PointResult {
            id: p.id.clone(),
            label: p.label.clone(),
            required: p.required,
            hit: *h,
            span: None,
        })
        .collect();
    let red_flags: Vec<FlagHit> = flags
        .iter()
        .filter_map(|i| card.own_flags().nth(*i))
        .map(|f| FlagHit {
            id: f.id.clone(),
            label: f.label.clone(),
            span: heard.clone(),
            correction: f.correction.clone(),
            spec: f.spec.clone(),
            catalogue: f.catalogue,
        })
        .collect();
    let v = verdict(&points, red_flags.len());
    let weight = |p: &PointResult| if p.required { 2.0 } else { 1.0 };
    let total: f32 = points.iter().map(weight).sum();
    let got: f32 = points.iter().filter(|p| p.hit).map(weight).sum();
    let score = if total > 0.0 {
        (got / total - 0.25 * red_flags.len() as f32).max(0.0)
    } else {
        0.0
    };
    Ok(Grade {
        card: card.id.clone(),
        verdict: v,
        score,
        points,
        red_flags,
        near_misses: vec![],
        confidence: Confidence::Sure,
        unchecked: vec![],
        suggested_rating: rating_for(v),
        truncated: false,
        certainty: None,
        untuned: false,
        signals: Default::default(),
    })
}

/// A card without key points (a name, a choice): the interviewer says right (`y`) or wrong.
fn right_or_wrong(card: &Card, ticks: &str) -> Grade {
    let right = matches!(ticks.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    let v = if right { Verdict::Pass } else { Verdict::Fail };
    Grade {
        card: card.id.clone(),
        verdict: v,
        score: if right { 1.0 } else { 0.0 },
        points: vec![PointResult {
            id: String::new(),
            label: "the right answer".into(),
            required: true,
            hit: right,
            span: None,
        }],
        red_flags: vec![],
        near_misses: vec![],
        confidence: Confidence::Sure,
        unchecked: vec![],
        suggested_rating: rating_for(v),
        truncated: false,
        certainty: None,
        untuned: false,
        signals: Default::default(),
    }
}

/// `1 3 r2`: the key points heard, by number, and the red flags (`rN`), each in range.
fn parse_ticks(card: &Card, ticks: &str) -> Result<(Vec<bool>, Vec<usize>), String> {
    let mut hit = vec![false; card.points.len()];
    let mut flags = Vec::new();
    for tok in ticks.split(|c: char| c.is_whitespace() || c == ',') {
        let tok = tok.trim().to_ascii_lowercase();
        if tok.is_empty() || tok == "-" {
            continue;
        }
        if let Some(n) = tok.strip_prefix('r') {
            let i = n
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .filter(|i| *i < card.own_flags().count())
                .ok_or_else(|| {
                    format!("no red flag `{tok}`: use r1..r{}", card.own_flags().count())
                })?;
            if !flags.contains(&i) {
                flags.push(i);
            }
        } else {
            let i = tok
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .filter(|i| *i < card.points.len())
                .ok_or_else(|| format!("no key point `{tok}`: use 1..{}", card.points.len()))?;
            hit[i] = true;
        }
    }
    Ok((hit, flags))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::{CardKind, Point, RedFlag};

    fn card() -> Card {
        let mut c = crate::card::test_card(CardKind::Recall);
        for (label, required) in [("a", true), ("b", true), ("c", false)] {
            c.points.push(Point {
                id: label.into(),
                label: label.into(),
                required,
                rules: vec![],
            });
        }
        c.red_flags.push(RedFlag {
            id: "wrong".into(),
            label: "wrong".into(),
            rules: vec![],
            guards: vec![],
            correction: "right".into(),
            spec: "SUB".into(),
            catalogue: false,
            examples: vec![],
            non_examples: vec![],
            truths: vec![],
        });
        c
    }

    #[test]
    fn ticks_grade_the_card() {
        let c = card();
        assert_eq!(grade_from_ticks(&c, "1 2").unwrap().verdict, Verdict::Pass);
        assert_eq!(
            grade_from_ticks(&c, "1 3").unwrap().verdict,
            Verdict::Partial
        );
        assert_eq!(grade_from_ticks(&c, "-").unwrap().verdict, Verdict::Fail);
        let g = grade_from_ticks(&c, "1,2 r1").unwrap();
        assert_eq!(g.verdict, Verdict::Fail);
        assert_eq!(g.red_flags[0].correction, "right");
        assert!(grade_from_ticks(&c, "7").unwrap_err().contains("1..3"));
        assert!(grade_from_ticks(&c, "r9").is_err());
    }
}
