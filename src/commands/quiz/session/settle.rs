//! An unsure verdict settled fairly, before the card's answer is shown: the grader could not
//! check a statement nothing credited, so the quiz asks whether the learner keeps it or takes
//! it back (see `grader::settle`). No reply credits a point or lifts a verdict, so a script
//! (never asked: its next line is its rating) and a person who keeps the statement are graded
//! the same.

use super::Session;
use crate::commands::quiz::input::{Input, Line};
use crate::commands::quiz::render::{dim, yellow};
use crate::grader::{Grade, settle};

impl Session {
    pub(super) fn settle(&mut self, grade: Grade, input: &mut dyn Input) -> anyhow::Result<Grade> {
        if self.args.interviewer || !input.interactive() {
            return Ok(grade);
        }
        let Some(q) = settle::question(&grade) else {
            return Ok(grade);
        };
        let mut g = grade;
        let before_unchecked = g.unchecked.len();
        self.screen.prose(&q.prompt());
        for _ in 0..3 {
            let reply = match input.read("> ", false)? {
                Line::Text(t) => t,
                Line::Eof | Line::Interrupted => break,
            };
            match settle::apply(&mut g, &q, &reply) {
                Ok(()) => {
                    if g.unchecked.len() < before_unchecked {
                        self.screen
                            .line(&dim("taken back: graded without that statement"));
                    }
                    return Ok(g);
                }
                Err(why) => self.screen.line(&yellow(&why)),
            }
        }
        Ok(g)
    }
}
