//! What the quiz prints. Meaning is always carried by words or symbols, colour only adds to it;
//! `--plain` drops box drawing and symbols for words, one line per state change.

use std::io::Write;

use owo_colors::{OwoColorize, Stream};

use crate::deck::model::{Card, CardKind};
use crate::grader::{Grade, Rating, choice_label, order_display};
use crate::scheduler::rating_str;

pub fn green(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.green())
        .to_string()
}
pub fn red(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.red()).to_string()
}
pub fn yellow(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.yellow())
        .to_string()
}
pub fn bold(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.bold())
        .to_string()
}
pub fn dim(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.dimmed())
        .to_string()
}
pub fn cyan(s: &str) -> String {
    s.if_supports_color(Stream::Stdout, |t| t.cyan())
        .to_string()
}

pub fn kind_name(k: CardKind) -> &'static str {
    match k {
        CardKind::Recall => "free recall",
        CardKind::NameIt => "name it",
        CardKind::Cloze => "cloze",
        CardKind::Choice => "choice",
        CardKind::Order => "order",
        CardKind::SpotTheBug => "spot the bug",
    }
}

/// Kinds answered in one line: Enter finishes. The others take several lines.
pub fn single_line(k: CardKind) -> bool {
    matches!(
        k,
        CardKind::NameIt | CardKind::Choice | CardKind::Order | CardKind::Cloze
    )
}

pub fn targets(card: &Card) -> (u32, u32) {
    // A card that only sets the answer's time (a 5 s name-it card) keeps it: the basics
    // default never exceeds it.
    let answer = card.answer.as_ref().map(|a| a.seconds);
    let basics = card
        .basics
        .as_ref()
        .map_or(answer.unwrap_or(20).min(20), |b| b.seconds);
    let solid = answer.unwrap_or(40).max(basics);
    (basics, solid)
}

pub struct Screen {
    pub w: Box<dyn Write>,
    pub plain: bool,
}

impl Screen {
    pub fn stdout(plain: bool) -> Screen {
        Screen {
            w: Box::new(std::io::stdout()),
            plain,
        }
    }

    pub fn line(&mut self, s: &str) {
        let _ = writeln!(self.w, "{s}");
    }

    pub fn blank(&mut self) {
        if !self.plain {
            let _ = writeln!(self.w);
        }
    }

    pub fn flush(&mut self) {
        let _ = self.w.flush();
    }

    /// A section heading: a rule on a terminal, `title:` in plain mode.
    pub fn heading(&mut self, title: &str) {
        if self.plain {
            self.line(&format!("{title}:"));
        } else {
            let fill = 60usize.saturating_sub(title.chars().count() + 4);
            self.line(&dim(&format!("── {title} {}", "─".repeat(fill))));
        }
    }

    /// Indented multi-line text.
    pub fn block(&mut self, text: &str) {
        for l in text.trim_end().lines() {
            self.line(&format!("  {l}"));
        }
    }

    pub fn question(&mut self, pos: (usize, usize), key: &str, card: &Card, note: Option<&str>) {
        let (b, s) = targets(card);
        self.blank();
        let head = format!(
            "[{}/{}] {key} · {} · targets {b} s basics / {s} s solid",
            pos.0,
            pos.1,
            kind_name(card.kind)
        );
        if self.plain {
            self.line(&format!("question {head}"));
        } else {
            self.line(&bold(&format!("━━ {head}")));
        }
        if let Some(t) = &card.tension {
            self.line(&format!(
                "{} {t}",
                yellow("spec tension (the spec is ambiguous here):")
            ));
        }
        if let Some(n) = note {
            self.line(&yellow(n));
        }
        self.block(&card.question);
        match card.kind {
            CardKind::Choice => {
                for (i, c) in card.choices.iter().enumerate() {
                    self.line(&format!("  {}. {}", choice_label(i), c.text));
                }
            }
            CardKind::Order => {
                // The grader reads "3 1 2" against this same display order.
                for (shown, item) in order_display(card).iter().enumerate() {
                    if let Some(text) = card.items.get(*item) {
                        self.line(&format!("  {}. {text}", shown + 1));
                    }
                }
            }
            CardKind::Cloze => {
                if let Some(text) = &card.cloze {
                    self.block(&blank_cloze(text));
                }
            }
            CardKind::SpotTheBug => {
                if let Some(t) = &card.transcript {
                    self.line(&dim(&format!("  ({})", t.lang)));
                    for (i, l) in t.text.trim_end().lines().enumerate() {
                        self.line(&format!("  {:>3} | {l}", i + 1));
                    }
                }
            }
            CardKind::Recall | CardKind::NameIt => {}
        }
        self.line(&dim(how_to_answer(card.kind)));
        self.flush();
    }

    pub fn feedback(&mut self, card: &Card, grade: &Grade, seconds: f32) {
        let (b, s) = targets(card);
        self.heading("your answer");
        let verdict = match grade.verdict {
            crate::grader::Verdict::Pass => green("PASS"),
            crate::grader::Verdict::Partial => yellow("PARTIAL"),
            crate::grader::Verdict::Fail => red("FAIL"),
        };
        let timing = if seconds > s as f32 {
            red(&format!("{seconds:.0} s (over the {s} s target)"))
        } else if seconds > b as f32 {
            yellow(&format!(
                "{seconds:.0} s (within {s} s, over the {b} s basics)"
            ))
        } else {
            green(&format!("{seconds:.0} s (within the {b} s basics)"))
        };
        self.line(&format!(
            "verdict: {verdict} · score {:.0}% · time {timing}",
            // `+ 0.0` turns a negative zero into "0%".
            grade.score.max(0.0) * 100.0 + 0.0
        ));
        for p in &grade.points {
            let req = if p.required { " (required)" } else { "" };
            if p.hit {
                let span = p
                    .span
                    .as_ref()
                    .map(|s| format!(" — you said “{}”", s.text.trim()))
                    .unwrap_or_default();
                let mark = if self.plain { "hit:" } else { "✓" };
                self.line(&format!("  {} {}{req}{}", green(mark), p.label, dim(&span)));
            } else {
                let mark = if self.plain { "missed:" } else { "✗" };
                self.line(&format!("  {} {}{req}", red(mark), p.label));
            }
        }
        for f in &grade.red_flags {
            let mark = if self.plain {
                "red flag:"
            } else {
                "⚑ RED FLAG"
            };
            self.line(&format!(
                "  {} {} — you said “{}”",
                red(mark),
                bold(&f.label),
                f.span.text.trim()
            ));
            self.line(&format!("      correction: {} ({})", f.correction, f.spec));
        }
        for n in &grade.near_misses {
            let mark = if self.plain { "near miss:" } else { "≈" };
            self.line(&format!(
                "  {} close: you wrote `{}`, the exact name is `{}` (not counted)",
                yellow(mark),
                n.found,
                n.expected
            ));
        }
        if card.kind == CardKind::Choice {
            for (i, c) in card.choices.iter().enumerate() {
                let tag = if c.correct { "right" } else { "wrong" };
                self.line(&format!("  {}. {tag}: {}", choice_label(i), c.why));
            }
        }
        if card.kind == CardKind::Order
            && let Some(order) = crate::grader::golden_answer(card)
        {
            self.line(&format!("  right order: {order}"));
        }
        if let Some(t) = &card.transcript {
            self.line(&format!("  the faulty line is {}", t.bug_line));
        }
        if let Some(basics) = &card.basics {
            self.heading(&format!("basics (~{} s)", basics.seconds));
            self.block(&basics.text);
        }
        if let Some(ans) = &card.answer {
            self.heading(&format!("solid answer (~{} s)", ans.seconds));
            self.block(&ans.text);
        }
        if let Some(code) = &card.code {
            self.heading(&format!("code ({})", code.lang));
            self.block(&code.text);
        }
        self.flush();
    }

    pub fn rating_prompt(&self, suggested: Rating, cap: Rating, reasons: &[String]) -> String {
        let why = if reasons.is_empty() {
            String::new()
        } else {
            format!(" [{}]", reasons.join("; "))
        };
        let capped = if cap != Rating::Easy {
            format!(" (at most {})", rating_str(cap))
        } else {
            String::new()
        };
        format!(
            "rate{why}{capped}: Enter = {} · 1 again · 2 hard · 3 good · 4 easy > ",
            rating_str(suggested)
        )
    }
}

/// Each blank becomes `[n]____`; pairing is the grader's, so JSON braces in the text stay text.
fn blank_cloze(text: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for (n, (start, end)) in crate::grader::cloze_scan(text)
        .spans
        .into_iter()
        .enumerate()
    {
        out.push_str(&text[at..start]);
        out.push_str(&format!("[{}]____", n + 1));
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

fn how_to_answer(kind: CardKind) -> &'static str {
    match kind {
        CardKind::Recall => {
            "Answer in as many lines as you like; finish with an empty line (or a line with just `.`). Commands: hint, deeper, skip, undo, help, quit."
        }
        CardKind::SpotTheBug => {
            "Name the faulty line number and the rule it breaks; finish with an empty line (or `.`). Commands: hint, deeper, skip, undo, help, quit."
        }
        CardKind::NameIt => {
            "Type the exact name and press Enter. Commands: hint, deeper, skip, undo, help, quit."
        }
        CardKind::Choice => {
            "Type the letter(s) of every right option (e.g. `b` or `a, c`) and press Enter. Commands: hint, deeper, skip, undo, help, quit."
        }
        CardKind::Order => {
            "Type the numbers in the right order (e.g. `3 1 2`) and press Enter. Commands: hint, deeper, skip, undo, help, quit."
        }
        CardKind::Cloze => {
            "Fill the blanks in order, separated by commas, and press Enter. Commands: hint, deeper, skip, undo, help, quit."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::blank_cloze;

    #[test]
    fn cloze_blanks_inside_json_keep_the_closing_braces() {
        assert_eq!(
            blank_cloze(r#"{"error":{"code":{{-32602}}}}"#),
            r#"{"error":{"code":[1]____}}"#
        );
        assert_eq!(
            blank_cloze("{{a}} then {{b}}, done"),
            "[1]____ then [2]____, done"
        );
    }
}
