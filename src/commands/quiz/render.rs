//! What the quiz prints. Meaning is always carried by words or symbols, colour only adds to it;
//! `--plain` drops box drawing and symbols for words, one line per state change.

use std::io::Write;

use crate::card::Card;
use crate::card_kind::{self, Piece};
use crate::grader::{Grade, Rating};
use crate::scheduler::rating_str;

// The quiz paints with the one palette (`term::ink`); these names keep its call sites short.
pub use crate::term::ink::{
    bad as red, faint as dim, good as green, note as cyan, strong as bold, warn as yellow,
};

/// `n s`, never split across lines.
fn secs(n: u32) -> String {
    crate::term::nobreak(&format!("{n} s"))
}

/// An order card's checklist in the learner's terms: each point names its place in the right
/// order in words and the label the item was shown with, so "you said “5”" reads against
/// "(shown as 5)" instead of against a position number (`4.`) that looked like a label.
pub fn order_checklist(card: &Card, grade: &Grade) -> Grade {
    if !card.kind.orders_items() {
        return grade.clone();
    }
    let display = crate::grader::order_display(card);
    let mut g = grade.clone();
    for (k, p) in g.points.iter_mut().enumerate() {
        let (Some(item), Some(shown)) = (card.items.get(k), display.iter().position(|&i| i == k))
        else {
            continue;
        };
        p.label = format!(
            "{} in order: {item} (shown as {})",
            ordinal(k + 1),
            shown + 1
        );
    }
    g
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
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
    /// Columns prose is wrapped to (`term::width()` for the real screen).
    pub width: usize,
    /// The next question follows up on the one just answered: its header says so (a label on
    /// a line of its own read as an orphan, cut off from the question by the blank line).
    pub followup_next: bool,
    /// `--interviewer`: the rubric says how to answer (ticks), so the candidate's free-text
    /// instructions are not shown beside it.
    pub interviewer: bool,
    /// The next question is one already answered, back after a red flag: its header says so.
    pub again_next: bool,
}

impl Screen {
    pub fn stdout(plain: bool) -> Screen {
        Screen {
            w: Box::new(std::io::stdout()),
            plain,
            width: crate::term::width(),
            followup_next: false,
            interviewer: false,
            again_next: false,
        }
    }

    /// One line filled to the screen's width, continuing two columns deeper than it starts.
    pub fn line(&mut self, s: &str) {
        // Plain words first, then the fill: a glyph read as a word may change where lines break.
        let s = &self.plain_text(s);
        let wrapped = crate::term::hang(s, self.width);
        self.verbatim(&wrapped);
    }

    /// Prose written with line breaks (the help): each paragraph filled to the width, list
    /// items hanging under their text.
    pub fn prose(&mut self, text: &str) {
        let filled = crate::term::reflow(text, self.width);
        self.verbatim(&filled);
    }

    /// Text already laid out (code, a transcript, wrapped prose): written as given, except that
    /// `--plain` reads decorative glyphs as plain text.
    pub fn verbatim(&mut self, s: &str) {
        if self.plain {
            let _ = writeln!(self.w, "{}", crate::term::unglyph(s));
        } else {
            let _ = writeln!(self.w, "{s}");
        }
    }

    /// Prose filled to the screen's width, `first` before the first line and `rest` before the
    /// others (a hanging indent).
    pub fn para(&mut self, text: &str, first: &str, rest: &str) {
        let text = &self.plain_text(text);
        let wrapped = crate::term::wrap_to(text, first, rest, self.width);
        self.verbatim(&wrapped);
    }

    fn plain_text(&self, s: &str) -> String {
        if self.plain {
            crate::term::unglyph(s)
        } else {
            s.to_owned()
        }
    }

    pub fn blank(&mut self) {
        if !self.plain {
            let _ = writeln!(self.w);
        }
    }

    pub fn flush(&mut self) {
        let _ = self.w.flush();
    }

    /// Clear the terminal (not in `--plain`: no cursor tricks), so a re-asked question is
    /// answered without its answer in view.
    pub fn clear(&mut self) {
        if !self.plain {
            let _ = write!(self.w, "\x1b[H\x1b[2J");
            self.flush();
        }
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

    /// Indented multi-line text: prose wrapped, code and JSON lines as written.
    pub fn block(&mut self, text: &str) {
        let wrapped = crate::term::wrap_block_to(text, "  ", self.width);
        self.verbatim(&wrapped);
    }

    /// Indented code, never wrapped.
    pub fn code(&mut self, text: &str) {
        for l in text.trim_end().lines() {
            self.verbatim(&format!("  {l}"));
        }
    }

    pub fn question(&mut self, pos: (usize, usize), key: &str, card: &Card, note: Option<&str>) {
        let (b, s) = targets(card);
        self.blank();
        let mut followup = if std::mem::take(&mut self.followup_next) {
            " · follow-up"
        } else {
            ""
        };
        if std::mem::take(&mut self.again_next) {
            followup = " · asked again after a red flag";
        }
        // "20 s" stays on one line.
        let head = format!(
            "[{}/{}] {key}{followup} · {} · targets {} basics / {} solid",
            pos.0,
            pos.1,
            card_kind::of(card.kind).label(),
            secs(b),
            secs(s),
        );
        if self.plain {
            self.line(&format!("question {head}"));
        } else {
            self.line(&bold(&format!("━━ {head}")));
        }
        if let Some(t) = &card.tension {
            self.para(
                &format!(
                    "{} {t}",
                    yellow("spec tension (the spec is ambiguous here):")
                ),
                "",
                "  ",
            );
        }
        if let Some(n) = note {
            self.para(&yellow(n), "", "  ");
        }
        self.block(&card.question);
        let kind = card_kind::of(card.kind);
        for piece in kind.prompt(card) {
            self.piece(piece);
        }
        if !self.interviewer {
            // `deeper` is offered only where there is a ladder to climb.
            let how = kind.how_to_answer();
            let how = if card.has_ladder() {
                how.to_string()
            } else {
                how.replace("hint, deeper, skip", "hint, skip")
            };
            self.para(&dim(&how), "", "");
        }
        self.flush();
    }

    pub fn feedback(&mut self, key: &str, card: &Card, grade: &Grade, seconds: f32) {
        self.feedback_as("your answer", key, card, grade, seconds);
    }

    /// [`Screen::feedback`] under another section title (the interviewer's ticks).
    pub fn feedback_as(
        &mut self,
        title: &str,
        key: &str,
        card: &Card,
        grade: &Grade,
        seconds: f32,
    ) {
        let (b, s) = targets(card);
        self.heading(title);
        let verdict = match grade.confidence {
            crate::grader::Confidence::Sure => crate::term::ink::verdict(grade.verdict),
            crate::grader::Confidence::Unsure => {
                format!("{} (not sure)", crate::term::ink::verdict(grade.verdict))
            }
        };
        let took = crate::term::nobreak(&format!("{seconds:.0} s"));
        let timing = if seconds > s as f32 {
            red(&format!("{took} (over the {} target)", secs(s)))
        } else if seconds > b as f32 {
            yellow(&format!(
                "{took} (within {}, over the {} basics)",
                secs(s),
                secs(b)
            ))
        } else {
            green(&format!("{took} (within the {} basics)", secs(b)))
        };
        self.line(&format!(
            "verdict: {verdict} · score {:.0}% · time {timing}",
            // `+ 0.0` turns a negative zero into "0%".
            grade.score.max(0.0) * 100.0 + 0.0
        ));
        if grade.confidence == crate::grader::Confidence::Unsure {
            let why = if grade.untuned {
                "not sure: nobody has measured the rules on this card yet (it has no tuned answers), so your rating decides"
            } else {
                "not sure: the rules cannot vouch for this verdict, so your rating decides"
            };
            self.para(&dim(why), "", "");
        }
        let grade = &order_checklist(card, grade);
        for l in crate::term::checklist(grade, self.plain, self.width) {
            self.verbatim(&l);
        }
        // A correction cites sections by short name; `why` gives their addresses.
        if grade.red_flags.iter().any(|f| !f.spec.is_empty()) {
            let why = crate::term::nobreak(&format!("mcp-tutor why {key}"));
            self.para(
                &dim(&format!("the sections cited, with their addresses: {why}")),
                "      ",
                "        ",
            );
        }
        for piece in card_kind::of(card.kind).reveal(card) {
            self.piece(piece);
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
            self.code(&code.text);
        }
        self.flush();
    }

    /// One piece of what a kind shows (its options, its transcript, the right order).
    fn piece(&mut self, piece: Piece) {
        match piece {
            Piece::Item { mark, text } => self.para(&text, &format!("  {mark} "), "     "),
            Piece::Code(text) => self.code(&text),
            Piece::Aside(text) => self.line(&dim(&text)),
            Piece::Line(text) => self.line(&text),
        }
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
        let prompt = format!(
            "rate{why}{capped}: Enter = {} · 1 again · 2 hard · 3 good · 4 easy > ",
            rating_str(suggested)
        );
        if self.plain {
            crate::term::unglyph(&prompt)
        } else {
            prompt
        }
    }
}
