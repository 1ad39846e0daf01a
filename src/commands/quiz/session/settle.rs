//! An unsure verdict settled before rating: the grader could not check a statement of the
//! answer (or missed a required point while saying things it could not check), so the quiz
//! asks the learner one short question with the card's answer on screen, and the reply can
//! change the verdict (see `grader::settle`). Only a person at a terminal is asked: a script's
//! next line is its rating, not a reply.

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
        self.screen.prose(&q.prompt());
        for _ in 0..3 {
            let reply = match input.read("> ", false)? {
                Line::Text(t) => t,
                Line::Eof | Line::Interrupted => break,
            };
            let before = g.verdict;
            match settle::apply(&mut g, &q, &reply) {
                Ok(()) => {
                    if g.verdict != before {
                        self.screen.line(&format!(
                            "{} {} → {}",
                            dim("verdict:"),
                            before.name(),
                            g.verdict.name()
                        ));
                    }
                    if let Some(p) = self.pending.as_mut() {
                        p.settle(&g);
                    }
                    return Ok(g);
                }
                Err(why) => self.screen.line(&yellow(&why)),
            }
        }
        Ok(g)
    }
}
