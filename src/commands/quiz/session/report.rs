//! The end of a session: the counts line, what is left in the queue, and for a mock interview
//! the report of what would pass and what cost each question.

use super::{Outcome, Session};
use crate::commands::quiz::render::{bold, green, red};
use crate::grader::Verdict;
use crate::scheduler;
use crate::store::ReviewMode;

impl Session {
    pub(super) fn finish(&mut self) {
        if self.mode == ReviewMode::Interview {
            self.report();
        }
        let n = self.outcomes.len();
        let mut counts = [0usize; 4];
        for o in &self.outcomes {
            counts[scheduler::rating_number(o.rating) as usize - 1] += 1;
        }
        self.screen.blank();
        self.screen.line(&format!(
            "{} {n} rated (again {}, hard {}, good {}, easy {}); every rating is saved in {}.",
            bold("session:"),
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            self.store.path().display()
        ));
        // What is left: in an interview or a cram, a re-ask still queued was asked once
        // already; in review it is due again, so it is waiting like any other.
        let scheduled = self.mode.schedules() && self.mode != ReviewMode::Interview;
        let mut left: Vec<&str> = self
            .queue
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| scheduled || !self.outcomes.iter().any(|o| o.key == *k))
            .collect();
        left.sort_unstable();
        left.dedup();
        if !left.is_empty() {
            let n = left.len();
            let line = match self.mode {
                // Only review keeps a schedule to come back to; cram and interview start afresh.
                ReviewMode::Cram => format!(
                    "{n} more not practised; cram keeps no queue, so the next cram starts afresh."
                ),
                ReviewMode::Interview => format!("{n} more questions not asked in this interview."),
                // An exam session resumes with its date, in its own order.
                _ => match self.args.exam {
                    Some(d) => format!(
                        "{n} more waiting: run `mcp-tutor quiz --exam {d}` again to resume."
                    ),
                    None => format!("{n} more waiting: run `mcp-tutor quiz` again to resume."),
                },
            };
            self.screen.line(&line);
        }
        self.screen.flush();
    }

    fn report(&mut self) {
        self.screen.heading("interview report");
        let main: Vec<&Outcome> = self.outcomes.iter().filter(|o| !o.reask).collect();
        let passed = main
            .iter()
            .filter(|o| o.verdict == Verdict::Pass && o.seconds <= o.solid_target as f32)
            .count();
        let lines: Vec<String> = main
            .iter()
            .map(|o| {
                let ok = o.verdict == Verdict::Pass && o.seconds <= o.solid_target as f32;
                let mark = if ok {
                    green("would pass")
                } else {
                    red("would not pass")
                };
                let fu = if o.followup { "  follow-up " } else { "" };
                let mut s = format!(
                    "{fu}{mark}: {} — {} ({:.0} s of {} s)",
                    o.key, o.question, o.seconds, o.solid_target
                );
                for (label, said) in &o.red_flags {
                    s.push_str(&format!(
                        "\n      cost the question: “{}” ({label})",
                        said.trim()
                    ));
                }
                for m in &o.missed_required {
                    s.push_str(&format!("\n      missing: {m}"));
                }
                if o.seconds > o.solid_target as f32 {
                    s.push_str("\n      too slow for an interview answer");
                }
                for again in self.outcomes.iter().filter(|a| a.reask && a.key == o.key) {
                    let ok = again.verdict == Verdict::Pass
                        && again.seconds <= again.solid_target as f32;
                    s.push_str(&format!(
                        "\n      asked again after the red flag: {}",
                        if ok {
                            "right this time"
                        } else {
                            "still not right"
                        }
                    ));
                }
                s
            })
            .collect();
        for l in lines {
            self.screen.line(&l);
        }
        self.screen.line(&format!(
            "{} {passed} of {} answers would pass an interviewer.",
            bold("result:"),
            main.len()
        ));
    }
}
