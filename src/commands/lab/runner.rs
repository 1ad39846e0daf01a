//! Running steps without a person at the keyboard (`--script`, piped stdin) and guided
//! scenarios. After each step the runner waits until the frames it caused have arrived, then
//! handles them in a stable order, so a transcript is the same from run to run.

use std::time::{Duration, Instant};

use super::event::TranscriptEvent;
use super::scenario::{Question, ScenarioFile};
use super::session::Lab;
use super::state::State;
use super::step::{self, Step};
pub use crate::client::link::BoxFut;
use crate::client::link::{Incoming, Receiver};

/// Where a scenario's predictions come from.
pub trait Predictor {
    /// Ask the question (already shown) and return the chosen letter, if any.
    fn predict<'a>(&'a mut self, q: &'a Question) -> BoxFut<'a, Option<String>>;
}

/// Predictions read from a script: `predict b` lines (or a bare letter), in order.
pub struct Scripted {
    answers: std::vec::IntoIter<String>,
}

impl Scripted {
    pub fn from_lines(lines: &[String]) -> Self {
        let answers: Vec<String> = lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                l.strip_prefix("predict")
                    .unwrap_or(l)
                    .trim()
                    .to_ascii_lowercase()
            })
            .collect();
        Scripted {
            answers: answers.into_iter(),
        }
    }
}

impl Predictor for Scripted {
    fn predict<'a>(&'a mut self, _q: &'a Question) -> BoxFut<'a, Option<String>> {
        let next = self.answers.next();
        Box::pin(async move { next })
    }
}

/// Records a wrong prediction as a lapse of the linked card.
pub trait Lapses {
    fn record(&mut self, card: &str, source: &str) -> anyhow::Result<()>;
}

pub struct Runner {
    pub lab: Lab,
    pub rx: Receiver,
    /// How long the wire must stay quiet before a step counts as done.
    pub quiet: Duration,
}

impl Runner {
    /// Run one line as a step, echoing it. Returns false on `quit`.
    pub async fn line(&mut self, line: &str) -> bool {
        let step = match step::parse(line) {
            Ok(None) => return true,
            Ok(Some(s)) => s,
            Err(e) => {
                self.lab.emit(TranscriptEvent::Step {
                    line: line.trim().to_owned(),
                });
                self.lab.emit(TranscriptEvent::Error { text: e.0 });
                return true;
            }
        };
        self.lab.emit(TranscriptEvent::Step {
            line: line.trim().to_owned(),
        });
        self.step(step).await
    }

    pub async fn step(&mut self, step: Step) -> bool {
        let extra_wait = match &step {
            Step::Wait(ms) => Some(Duration::from_millis(*ms)),
            _ => None,
        };
        let is_change = matches!(step, Step::Change(_) | Step::Update(_));
        let frames_before = self.frames();
        let errors_before = self.errors();
        let go_on = self.lab.run(step).await;
        if let Some(w) = extra_wait {
            tokio::time::sleep(w).await;
        }
        self.settle().await;
        // A change the server could not make (it has no such tool, say) explains itself; that
        // no subscription heard of it would be beside the point.
        if is_change && self.frames() == frames_before && self.errors() == errors_before {
            self.lab.emit(TranscriptEvent::Info {
                text: "nothing arrived on any stream: no open subscription asked for this change"
                    .into(),
            });
        }
        go_on
    }

    fn errors(&self) -> usize {
        self.lab
            .events
            .iter()
            .filter(|e| matches!(e, TranscriptEvent::Error { .. }))
            .count()
    }

    fn frames(&self) -> usize {
        self.lab
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    TranscriptEvent::Frame { .. } | TranscriptEvent::Dropped { .. }
                )
            })
            .count()
    }

    /// Wait for what the last step set in motion, then handle it in a stable order: frames
    /// that arrived together are ordered by the subscription they belong to (two HTTP streams
    /// race each other; the order within one stream is kept).
    pub async fn settle(&mut self) {
        let started = Instant::now();
        let cap = self.lab.ack_timeout() * 3 + Duration::from_secs(5);
        loop {
            let mut batch: Vec<Incoming> = Vec::new();
            loop {
                // A keep-alive says nothing about progress: it never satisfies a wait.
                let waiting_for_more = self.lab.st.expecting.iter().any(|id| {
                    !batch.iter().any(|inc| {
                        !matches!(inc, Incoming::KeepAlive { .. }) && self.lab.st.concerns(inc, id)
                    })
                });
                let wait = if waiting_for_more {
                    self.lab.ack_timeout() + Duration::from_millis(500)
                } else {
                    self.quiet
                };
                if started.elapsed() > cap {
                    break;
                }
                let got = tokio::time::timeout(wait, self.rx.recv()).await;
                match got {
                    Ok(Some(inc)) => batch.push(inc),
                    Ok(None) | Err(_) => break,
                }
            }
            if batch.is_empty() {
                self.lab.st.expecting.clear();
                return;
            }
            let lab = &self.lab;
            // Frames that arrived together are ordered by the subscription they belong to, so
            // a transcript does not depend on which HTTP stream (or which of the server's
            // tasks on stdio) won a race; the order within one subscription is kept.
            batch.sort_by_key(|inc| match inc {
                // Time-outs come after whatever frames arrived with them.
                Incoming::AckTimeout { .. } => (1, usize::MAX),
                _ => (
                    0,
                    State::owner_of(inc).map_or(usize::MAX, |id| lab.st.open_order(&id)),
                ),
            });
            for inc in batch {
                self.lab.handle(inc).await;
            }
            if started.elapsed() > cap {
                self.lab.st.expecting.clear();
                return;
            }
        }
    }

    /// Run a guided scenario beat by beat.
    pub async fn scenario(
        &mut self,
        sc: &ScenarioFile,
        predictor: &mut dyn Predictor,
        lapses: &mut dyn Lapses,
    ) -> ScenarioScore {
        let mut score = ScenarioScore::default();
        self.lab.emit(TranscriptEvent::Say {
            text: format!("== {} ==\n{}", sc.scenario.title, sc.scenario.summary),
        });
        for beat in &sc.steps {
            if let Some(text) = &beat.say {
                self.lab.emit(TranscriptEvent::Say { text: text.clone() });
            }
            let mut chosen = None;
            if let Some(q) = &beat.ask {
                self.lab.emit(TranscriptEvent::Question {
                    prompt: q.prompt.clone(),
                    choices: q.choices.clone(),
                    card: q.card.clone(),
                });
                chosen = predictor.predict(q).await;
            }
            for line in &beat.run {
                if !self.line(line).await {
                    return score;
                }
            }
            if let Some(q) = &beat.ask {
                let correct = q.answer.trim().to_ascii_lowercase();
                let right = chosen.as_deref() == Some(correct.as_str());
                let mut lapse_recorded = false;
                if chosen.is_some() {
                    score.asked += 1;
                    if right {
                        score.right += 1;
                    } else {
                        let source = format!("lab:{}", sc.scenario.id);
                        match lapses.record(&q.card, &source) {
                            Ok(()) => lapse_recorded = true,
                            Err(e) => self.lab.emit(TranscriptEvent::Error {
                                text: format!("could not record the lapse for {}: {e:#}", q.card),
                            }),
                        }
                    }
                }
                self.lab.emit(TranscriptEvent::Answer {
                    chosen,
                    correct,
                    right,
                    card: q.card.clone(),
                    why: q.why.clone(),
                    lapse_recorded,
                });
            }
            if let Some(n) = &beat.notice {
                self.lab.emit(TranscriptEvent::Notice { text: n.clone() });
            }
        }
        self.lab.emit(TranscriptEvent::Say {
            text: format!(
                "== end of {}: {} of {} predictions right ==",
                sc.scenario.id, score.right, score.asked
            ),
        });
        score
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct ScenarioScore {
    pub asked: usize,
    pub right: usize,
}
