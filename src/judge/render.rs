//! The judge's opinion as text, for `grade` and the quiz: one line when it agrees or falls
//! back; otherwise both verdicts, then only what differs from the rules' checklist (points
//! heard or not, misconceptions, with the model's own marked as such) and what was not believed.

use super::{Failure, Judgement};
use crate::grader::Grade;
use crate::term::{ink, wrap_to};

/// Lines to print after the rules' checklist. `dispute` adds how to dispute (the quiz).
pub fn lines(
    j: &Judgement,
    rules: &Grade,
    plain: bool,
    width: usize,
    dispute: bool,
) -> Vec<String> {
    let q = |s: &str| {
        if plain {
            format!("\"{}\"", s.trim())
        } else {
            format!("“{}”", s.trim())
        }
    };
    let dash = if plain { " -" } else { " —" };
    let item = |bare: &str, mark: String, text: String| {
        let hang = " ".repeat(2 + bare.chars().count() + 1);
        wrap_to(&text, &format!("  {mark} "), &hang, width)
    };
    let who = format!(
        "judge ({}{})",
        j.model,
        if j.cached { ", stored" } else { "" }
    );
    let Some(v) = j.verdict else {
        let why = match &j.failure {
            Some(Failure::Cancelled) => "cancelled".to_string(),
            _ => format!("not used{dash} {}", j.fallback.as_deref().unwrap_or("")),
        };
        let line = format!(
            "{}: {why}; the verdict is the rules' {}",
            ink::warn("judge"),
            ink::verdict(j.rules)
        );
        return vec![finish(wrap_to(&line, "", "  ", width), plain)];
    };
    let mut out = Vec::new();
    let head = if v == j.rules {
        format!(
            "{}: {}{dash} agrees with the rules",
            ink::strong(&who),
            ink::verdict(v)
        )
    } else {
        format!(
            "{}: {}{dash} the rules said {}; the judge's verdict counts{}",
            ink::strong(&who),
            ink::verdict(v),
            ink::verdict(j.rules),
            if dispute {
                " unless you dispute it (`!` at the rating prompt)"
            } else {
                ""
            }
        )
    };
    out.push(wrap_to(&head, "", "  ", width));
    for (p, r) in j.decided.iter().zip(&rules.points) {
        if p.hit && !r.hit {
            let bare = if plain { "judge heard:" } else { "✓" };
            let said = p.span.as_ref().map(|s| s.text.as_str()).unwrap_or("");
            out.push(item(
                bare,
                ink::good(bare),
                format!("{}{dash} the judge heard {}", p.label, q(said)),
            ));
        } else if r.hit && !p.hit {
            let bare = if plain { "judge missed:" } else { "✗" };
            out.push(item(
                bare,
                ink::bad(bare),
                format!("{}{dash} the judge does not hear it", p.label),
            ));
        }
    }
    for m in &j.misconceptions {
        let raised = m
            .flag
            .as_ref()
            .is_some_and(|f| rules.red_flags.iter().any(|r| &r.id == f));
        if raised {
            continue;
        }
        let bare = if plain { "judge's flag:" } else { "⚑" };
        let what = if m.label.is_empty() {
            format!("{} {}", ink::strong("the model's own:"), q(&m.quote))
        } else {
            format!("{}{dash} you said {}", ink::strong(&m.label), q(&m.quote))
        };
        out.push(item(bare, ink::bad(bare), what));
        let whose = if m.label.is_empty() {
            "correction (the model's, not the card's)"
        } else {
            "correction"
        };
        let spec = if m.spec.is_empty() {
            String::new()
        } else {
            format!(" ({})", m.spec)
        };
        out.push(wrap_to(
            &format!("{whose}: {}{spec}", m.correction),
            "      ",
            "        ",
            width,
        ));
    }
    for f in &rules.red_flags {
        if !j
            .misconceptions
            .iter()
            .any(|m| m.flag.as_ref() == Some(&f.id))
        {
            let bare = if plain { "judge cleared:" } else { "○" };
            out.push(item(
                bare,
                ink::faint(bare),
                format!(
                    "{}{dash} the judge does not hear this misconception",
                    f.label
                ),
            ));
        }
    }
    for d in &j.dropped {
        let what = match (&d.id, d.item) {
            (Some(id), "point") => format!("point `{id}`"),
            (Some(id), _) => format!("red flag `{id}`"),
            (None, _) => "a misconception".to_string(),
        };
        let quoted = if d.quote.trim().is_empty() {
            String::new()
        } else {
            format!(" quoting {}", q(&super::client::clip(&d.quote, 80)))
        };
        let bare = if plain {
            "not believed:"
        } else {
            "∅ not believed:"
        };
        out.push(item(
            bare,
            ink::faint(bare),
            format!("{what}{quoted}{dash} {}", d.why),
        ));
    }
    out.into_iter().map(|l| finish(l, plain)).collect()
}

fn finish(line: String, plain: bool) -> String {
    if plain {
        crate::term::unglyph(&line)
    } else {
        line
    }
}
