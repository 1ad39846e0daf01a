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
    let mut o = Out {
        plain,
        width,
        dash: if plain { " -" } else { " —" },
        lines: Vec::new(),
    };
    let Some(v) = j.verdict else {
        let why = match &j.failure {
            Some(Failure::Cancelled) => "cancelled".to_string(),
            _ => format!("not used{} {}", o.dash, j.fallback.as_deref().unwrap_or("")),
        };
        let line = format!(
            "{}: {why}; the verdict is the rules' {}",
            ink::warn("judge"),
            ink::verdict(j.rules)
        );
        return vec![finish(wrap_to(&line, "", "  ", width), plain)];
    };
    o.head(j, v, dispute);
    o.points(j, rules);
    o.misconceptions(j, rules);
    o.cleared(j, rules);
    o.dropped(j);
    o.lines.into_iter().map(|l| finish(l, plain)).collect()
}

/// The judge's lines being written.
struct Out {
    plain: bool,
    width: usize,
    dash: &'static str,
    lines: Vec<String>,
}

impl Out {
    fn quote(&self, s: &str) -> String {
        if self.plain {
            format!("\"{}\"", s.trim())
        } else {
            format!("“{}”", s.trim())
        }
    }

    /// One item under a mark (`bare` is the mark without colour, for the hanging indent).
    fn item(&mut self, bare: &str, mark: String, text: String) {
        let hang = " ".repeat(2 + bare.chars().count() + 1);
        self.lines
            .push(wrap_to(&text, &format!("  {mark} "), &hang, self.width));
    }

    /// Who judged, its verdict, and whether it agrees with the rules.
    fn head(&mut self, j: &Judgement, v: crate::grader::Verdict, dispute: bool) {
        let dash = self.dash;
        let who = format!(
            "judge ({}{})",
            j.model,
            if j.cached { ", stored" } else { "" }
        );
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
        self.lines.push(wrap_to(&head, "", "  ", self.width));
    }

    /// Key points the judge heard and the rules did not, and the other way round.
    fn points(&mut self, j: &Judgement, rules: &Grade) {
        let dash = self.dash;
        for (p, r) in j.decided.iter().zip(&rules.points) {
            if p.hit && !r.hit {
                let bare = if self.plain { "judge heard:" } else { "✓" };
                let said = p.span.as_ref().map(|s| s.text.as_str()).unwrap_or("");
                let text = format!("{}{dash} the judge heard {}", p.label, self.quote(said));
                self.item(bare, ink::good(bare), text);
            } else if r.hit && !p.hit {
                let bare = if self.plain { "judge missed:" } else { "✗" };
                let text = format!("{}{dash} the judge does not hear it", p.label);
                self.item(bare, ink::bad(bare), text);
            }
        }
    }

    /// Misconceptions the judge heard that the rules did not raise, with their corrections.
    fn misconceptions(&mut self, j: &Judgement, rules: &Grade) {
        let dash = self.dash;
        for m in &j.misconceptions {
            let raised = m
                .flag
                .as_ref()
                .is_some_and(|f| rules.red_flags.iter().any(|r| &r.id == f));
            if raised {
                continue;
            }
            let bare = if self.plain { "judge's flag:" } else { "⚑" };
            let what = if m.label.is_empty() {
                format!(
                    "{} {}",
                    ink::strong("the model's own:"),
                    self.quote(&m.quote)
                )
            } else {
                format!(
                    "{}{dash} you said {}",
                    ink::strong(&m.label),
                    self.quote(&m.quote)
                )
            };
            self.item(bare, ink::bad(bare), what);
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
            self.lines.push(wrap_to(
                &format!("{whose}: {}{spec}", m.correction),
                "      ",
                "        ",
                self.width,
            ));
        }
    }

    /// The rules' red flags the judge does not hear.
    fn cleared(&mut self, j: &Judgement, rules: &Grade) {
        let dash = self.dash;
        for f in &rules.red_flags {
            if !j
                .misconceptions
                .iter()
                .any(|m| m.flag.as_ref() == Some(&f.id))
            {
                let bare = if self.plain { "judge cleared:" } else { "○" };
                let text = format!(
                    "{}{dash} the judge does not hear this misconception",
                    f.label
                );
                self.item(bare, ink::faint(bare), text);
            }
        }
    }

    /// What the judge said that its quotes did not bear out.
    fn dropped(&mut self, j: &Judgement) {
        let dash = self.dash;
        for d in &j.dropped {
            let what = match (&d.id, d.item) {
                (Some(id), "point") => format!("point `{id}`"),
                (Some(id), _) => format!("red flag `{id}`"),
                (None, _) => "a misconception".to_string(),
            };
            let quoted = if d.quote.trim().is_empty() {
                String::new()
            } else {
                format!(
                    " quoting {}",
                    self.quote(&super::client::clip(&d.quote, 80))
                )
            };
            let bare = if self.plain {
                "not believed:"
            } else {
                "∅ not believed:"
            };
            self.item(
                bare,
                ink::faint(bare),
                format!("{what}{quoted}{dash} {}", d.why),
            );
        }
    }
}

fn finish(line: String, plain: bool) -> String {
    if plain {
        crate::term::unglyph(&line)
    } else {
        line
    }
}
