//! Asking one question: the prompt and its clock, the commands typed instead of an answer
//! (hint, deeper, skip, undo, help, quit), then the grade.

use std::time::Instant;

use super::{Answer, COMMANDS, HELP, QuestionReply, Session};
use crate::card::Card;
use crate::commands::quiz::input::{Input, Line};
use crate::commands::quiz::interviewer;
use crate::commands::quiz::render::{self, dim, yellow};
use crate::grader;

impl Session {
    /// Asks `card` as `shown` (its options in this showing's order); the change note compares
    /// the deck's own card with what was last answered.
    pub(super) fn ask(
        &mut self,
        key: &str,
        original: &Card,
        card: &Card,
        input: &mut dyn Input,
    ) -> anyhow::Result<QuestionReply> {
        let note = self.change_note(key, original);
        let pos = self.position(key);
        self.screen.question(pos, key, card, note.as_deref());
        if self.args.interviewer {
            interviewer::rubric(&mut self.screen, card);
        }
        let started = Instant::now();
        let (basics, solid) = render::targets(card);
        input.timer(Some((basics, solid)));
        let step = self.answer(card, input, started, (basics, solid));
        input.timer(None);
        step
    }

    /// Where this question stands, counting questions, not showings: a re-ask keeps its
    /// first number, and re-asks still queued add nothing to the total.
    fn position(&self, key: &str) -> (usize, usize) {
        // Answered questions in the order they were first asked.
        let mut asked: Vec<&str> = Vec::new();
        for o in &self.outcomes {
            if !asked.contains(&o.key.as_str()) {
                asked.push(&o.key);
            }
        }
        let first = asked.iter().position(|k| *k == key);
        let mut ahead: Vec<&str> = self
            .queue
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| *k != key && !asked.contains(k))
            .collect();
        ahead.sort_unstable();
        ahead.dedup();
        let total = asked.len() + usize::from(first.is_none()) + ahead.len();
        (first.map_or(asked.len() + 1, |i| i + 1), total)
    }

    fn answer(
        &mut self,
        card: &Card,
        input: &mut dyn Input,
        started: Instant,
        (basics, solid): (u32, u32),
    ) -> anyhow::Result<QuestionReply> {
        let mut lines: Vec<String> = Vec::new();
        let mut hints = 0u32;
        let mut deeper = 0u32;
        let mut shown_points: usize = 0;
        let single = self.args.interviewer || crate::card_kind::of(card.kind).single_line();
        loop {
            let secs = self.measured(started) as u64;
            let prompt = self.answer_prompt(secs, (basics, solid), lines.is_empty());
            let line = match input.answer(&prompt, lines.is_empty())? {
                Line::Text(t) => t,
                Line::Eof if !lines.is_empty() => String::new(),
                Line::Eof | Line::Interrupted => return Ok(QuestionReply::Quit),
            };
            let word = line.trim().to_ascii_lowercase();
            if COMMANDS.contains(&word.as_str()) {
                match word.as_str() {
                    "hint" => {
                        // Like `deeper`: only a hint actually shown counts.
                        if self.hint(card, &mut shown_points) {
                            hints += 1;
                        }
                    }
                    "deeper" => {
                        // Only a rung actually shown costs anything: a card without a ladder,
                        // or a ladder already climbed, leaves the rating alone.
                        if self.deeper(card, deeper + 1) {
                            deeper += 1;
                            self.screen.line(&dim(
                                "(going deeper before answering caps this card at `hard`)",
                            ));
                        }
                    }
                    "skip" => return Ok(QuestionReply::Skip),
                    "undo" => return Ok(QuestionReply::Undo),
                    "help" => self.screen.prose(HELP),
                    _ => return Ok(QuestionReply::Quit),
                }
                continue;
            }
            let trimmed = line.trim();
            if lines.is_empty() && trimmed.is_empty() {
                self.screen.line(&dim(
                    "(empty answer ignored: type your answer, `.` to give up and see it, or `skip`)",
                ));
                continue;
            }
            if trimmed == "." {
                break;
            }
            if single {
                lines.push(line);
                break;
            }
            if trimmed.is_empty() {
                break;
            }
            lines.push(line);
        }
        let seconds = self.measured(started);
        let text = lines.join("\n");
        let grade = self.grade_typed(card, &text);
        Ok(QuestionReply::Answered(Box::new(Answer {
            text,
            seconds,
            hints,
            deeper,
            grade,
        })))
    }

    /// The answer prompt: the time targets on the first line, the time so far after it.
    fn answer_prompt(&self, secs: u64, (basics, solid): (u32, u32), first: bool) -> String {
        if self.screen.plain {
            if first {
                format!("answer (targets {basics} s / {solid} s)> ")
            } else {
                format!("answer, {secs} s so far> ")
            }
        } else if first {
            // The clock starts with the question; later lines show the time so far.
            format!("[targets {basics}s·{solid}s] > ")
        } else {
            format!("[{}:{:02}]  ... ", secs / 60, secs % 60)
        }
    }

    /// The grade of what was typed: the rules', or the interviewer's ticks (a tick that makes
    /// no sense is said, and counts as nothing heard).
    fn grade_typed(&mut self, card: &Card, text: &str) -> grader::Grade {
        if !self.args.interviewer {
            return grader::grade(card, text);
        }
        match interviewer::grade_from_ticks(card, text) {
            Ok(g) => g,
            Err(msg) => {
                self.screen.line(&yellow(&msg));
                interviewer::grade_from_ticks(card, "").unwrap_or_else(|_| grader::grade(card, ""))
            }
        }
    }

    /// Shows the next hint; false when there was none left (which costs nothing).
    fn hint(&mut self, card: &Card, shown: &mut usize) -> bool {
        let hints = crate::card_kind::of(card.kind).hints(card);
        let Some(h) = hints.get(*shown) else {
            self.screen.line(&format!(
                "{} no more hints for this card (nothing was counted against your rating).",
                cyan_hint()
            ));
            return false;
        };
        *shown += 1;
        self.screen.line(&format!("{} {h}", cyan_hint()));
        self.screen
            .line(&dim("(a hint caps this card's rating at `hard`)"));
        true
    }

    /// Shows rung `rung` (1-based) of the card's ladder; false when there was nothing to show.
    pub(super) fn deeper(&mut self, card: &Card, rung: u32) -> bool {
        let Some(d) = card.deeper.as_ref().filter(|_| card.has_ladder()) else {
            self.screen.line(&format!(
                "{} this card has no go-deeper ladder (nothing was counted against your rating).",
                dim("deeper:")
            ));
            return false;
        };
        let i = rung as usize - 1;
        if let Some(step) = d.steps.get(i) {
            self.screen
                .heading(&format!("deeper {}/{}", i + 1, d.steps.len()));
            self.screen.block(step);
            true
        } else if i == d.steps.len() && !d.explanation.trim().is_empty() {
            self.screen.heading("the long explanation");
            self.screen.block(&d.explanation);
            true
        } else {
            self.screen
                .line(&format!("{} that was the last rung.", dim("deeper:")));
            false
        }
    }
}

fn cyan_hint() -> String {
    render::cyan("hint:")
}
