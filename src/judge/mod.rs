//! The optional model judge: a second opinion on a free-text answer from any
//! OpenAI-compatible endpoint the learner points at (a local Ollama, llama.cpp, LM Studio or
//! vLLM, or a hosted API), kept honest by the rules.
//!
//! One way through: the request is built from the card alone, shared prefix first (`request`),
//! sent with a deadline and a size cap (`client`), read leniently (`reply`) and believed only
//! as far as the answer bears it out (`guard`, with `quote` and `line`): quotes must stand in
//! the answer, the line must be named in the model's quote, an exact point's identifier must be
//! inside its quote, and the verdict is recomputed with the grader's rule. Around it: `setup`
//! (finding a local server), `replay` (the requests a corpus would send, for recorded replies)
//! and `import` (disputed answers into corpus entries). Every judgement is kept in the store under
//! card, answer, model and prompt version, so the same answer is never sent twice. Anything
//! that goes wrong leaves the rules' verdict in place, with one line saying why.
//!
//! The judge depends on the grader only through its public result ([`Grade`]) and its verdict
//! rule and normaliser.

mod client;
pub(crate) mod config;
mod guard;
pub(crate) mod import;
mod line;
mod quote;
pub(crate) mod render;
pub(crate) mod replay;
mod reply;
pub(crate) mod request;
pub(crate) mod setup;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::card::Card;
use crate::grader::{self, FlagHit, Grade, Verdict};
use crate::store::{JudgementKey, Store};

pub use client::Failure;
pub use config::{JudgeArgs, Scope, Settings};
pub use guard::{Dropped, Misconception};

/// The judge's opinion on one answer, after the guardrails (or why there is none).
#[derive(Debug, Clone, Serialize)]
pub struct Judgement {
    pub model: String,
    /// The verdict recomputed from what survived; none when the judge fell back.
    pub verdict: Option<Verdict>,
    pub agreed_with_rules: Option<bool>,
    /// Items of the reply not believed, and why.
    pub dropped: Vec<Dropped>,
    /// Why the rules' verdict stands alone (a timeout, an HTTP error, …).
    pub fallback: Option<String>,
    /// The points the final verdict credits, with the words that earned each.
    pub points: Vec<Credited>,
    pub misconceptions: Vec<Misconception>,
    /// The verdict the model itself wrote: shown for transparency, never used.
    pub model_said: Option<Verdict>,
    /// Read from the store: no request was sent.
    pub cached: bool,
    #[serde(skip)]
    pub rules: Verdict,
    #[serde(skip)]
    pub failure: Option<Failure>,
    /// The stored judgement's id, for the review rated on it.
    #[serde(skip)]
    pub stored: Option<i64>,
    #[serde(skip)]
    decided: Vec<grader::PointResult>,
}

/// A point the final verdict credits.
#[derive(Debug, Clone, Serialize)]
pub struct Credited {
    pub id: String,
    pub label: String,
    pub quote: String,
}

impl Judgement {
    fn fallback(model: &str, rules: Verdict, why: Failure) -> Judgement {
        Judgement {
            model: model.to_string(),
            verdict: None,
            agreed_with_rules: None,
            dropped: Vec::new(),
            fallback: Some(why.to_string()),
            points: Vec::new(),
            misconceptions: Vec::new(),
            model_said: None,
            cached: false,
            rules,
            failure: Some(why),
            stored: None,
            decided: Vec::new(),
        }
    }

    fn from_checked(model: &str, rules: Verdict, said: Option<Verdict>, c: guard::Checked) -> Self {
        Judgement {
            model: model.to_string(),
            verdict: Some(c.verdict),
            agreed_with_rules: Some(c.verdict == rules),
            dropped: c.dropped,
            fallback: None,
            points: c
                .points
                .iter()
                .filter(|p| p.hit)
                .map(|p| Credited {
                    id: p.id.clone(),
                    label: p.label.clone(),
                    quote: p.span.as_ref().map(|s| s.text.clone()).unwrap_or_default(),
                })
                .collect(),
            misconceptions: c.misconceptions,
            model_said: said,
            cached: false,
            rules,
            failure: None,
            stored: None,
            decided: c.points,
        }
    }

    /// The verdict that counts: the judge's when it has one, else the rules'.
    pub fn final_verdict(&self) -> Verdict {
        self.verdict.unwrap_or(self.rules)
    }

    /// The grade the learner is rated on: the rules' grade when the judge fell back, else the
    /// rules' grade with the judge's decisions (points, misconceptions, verdict) in place.
    pub fn apply(&self, rules: &Grade) -> Grade {
        let mut g = rules.clone();
        let Some(v) = self.verdict else {
            return g;
        };
        g.points = self.decided.clone();
        g.red_flags = self
            .misconceptions
            .iter()
            .map(|m| FlagHit {
                id: m.flag.clone().unwrap_or_else(|| "model".into()),
                label: if m.label.is_empty() {
                    format!("the model's: {}", m.correction)
                } else {
                    m.label.clone()
                },
                span: m.span.clone(),
                correction: m.correction.clone(),
                spec: m.spec.clone(),
                catalogue: false,
            })
            .collect();
        g.verdict = v;
        g.score = grader::score_for(&g.points, g.red_flags.len());
        g.suggested_rating = grader::rating_for(v);
        g
    }
}

/// One request sent by `judge test`, and what came back.
pub struct Trial {
    pub elapsed: Duration,
    /// Prompt and reply tokens, as the endpoint counts them (when it says).
    pub usage: Option<(u64, u64)>,
    /// Whether the reply was exactly the schema's object; none when nothing came back.
    pub schema: Option<Result<(), String>>,
    pub judgement: Judgement,
    /// Bytes of the request body.
    pub sent: usize,
}

/// How to wait for the judge: what to do while it thinks, and whether Ctrl-C gives up on it.
pub struct Wait<'a> {
    /// Called about ten times a second with the time waited so far (a spinner).
    pub tick: &'a mut dyn FnMut(Duration),
    /// Ctrl-C cancels the judge (and only the judge) while waiting: for a learner at a terminal.
    pub ctrl_c: bool,
}

impl Wait<'_> {
    /// Wait quietly, Ctrl-C left alone.
    pub fn quiet(tick: &mut dyn FnMut(Duration)) -> Wait<'_> {
        Wait {
            tick,
            ctrl_c: false,
        }
    }
}

/// A judge, ready to be asked.
pub struct Judge {
    pub settings: Settings,
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for Judge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Judge")
            .field("settings", &self.settings)
            .finish()
    }
}

impl Judge {
    /// The judge the flags, the environment and the config file ask for, if any.
    pub fn from_args(args: &JudgeArgs, scope: Scope) -> anyhow::Result<Option<Judge>> {
        config::resolve(args, scope, crate::paths::config_file())?
            .map(Judge::new)
            .transpose()
    }

    pub fn new(settings: Settings) -> anyhow::Result<Judge> {
        use anyhow::Context;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("could not start the judge's runtime")?;
        Ok(Judge {
            settings,
            client: client::http_client()?,
            rt,
        })
    }

    /// The request `answer` would be judged with.
    pub fn request(&self, key: &str, card: &Card, answer: &str) -> request::Request {
        request::build(key, card, answer, &self.settings.model)
    }

    /// Judge `answer` to the card `key`, given the rules' grade. The store (when given) is asked
    /// first and keeps what the model says; no store means no cache.
    pub fn judge(
        &self,
        store: Option<&Store>,
        key: &str,
        card: &Card,
        answer: &str,
        rules: &Grade,
        wait: Wait<'_>,
    ) -> Judgement {
        let model = &self.settings.model;
        if !request::judges(card.kind) {
            return Judgement::fallback(model, rules.verdict, Failure::NotFreeText);
        }
        let answer = &answer[..cut(answer)];
        if answer.trim().is_empty() {
            return Judgement::fallback(model, rules.verdict, Failure::NoAnswer);
        }
        let req = self.request(key, card, answer);
        let cache_key = JudgementKey {
            card: key.to_string(),
            answer: crate::deck::eval::fingerprint(answer),
            model: model.clone(),
            prompt: req.prompt.clone(),
        };
        let cached = store
            .and_then(|s| s.judgement(&cache_key).ok().flatten())
            .and_then(|(id, text)| {
                serde_json::from_str::<reply::Reply>(&text)
                    .ok()
                    .map(|r| (id, r))
            });
        let (stored, reply, was_cached) = match cached {
            Some((id, r)) => (Some(id), r, true),
            None => match self.ask(&req.body, wait).and_then(|c| reply::parse(&c)) {
                Ok(r) => {
                    let kept = serde_json::to_string(&r).unwrap_or_default();
                    let id = store.and_then(|s| s.save_judgement(&cache_key, &kept).ok());
                    (id, r, false)
                }
                Err(f) => return Judgement::fallback(model, rules.verdict, f),
            },
        };
        let checked = guard::check(card, answer, rules, &reply);
        let mut j = Judgement::from_checked(model, rules.verdict, reply.verdict, checked);
        j.cached = was_cached;
        j.stored = stored;
        j
    }

    /// `judge test`: send one request for `answer` (the store neither asked nor told), timed,
    /// and say what came back.
    pub fn trial(&self, key: &str, card: &Card, answer: &str, rules: &Grade) -> Trial {
        let s = &self.settings;
        let req = self.request(key, card, answer);
        let started = Instant::now();
        let sent = self.rt.block_on(async {
            tokio::time::timeout(s.timeout, client::post_counted(&self.client, s, &req.body))
                .await
                .unwrap_or(Err(Failure::Timeout(s.timeout)))
        });
        let elapsed = started.elapsed();
        let (judgement, usage, schema) = match sent {
            Err(f) => (Judgement::fallback(&s.model, rules.verdict, f), None, None),
            Ok(a) => {
                let schema = reply::honours_schema(&a.content);
                let j = match reply::parse(&a.content) {
                    Ok(r) => {
                        let checked = guard::check(card, answer, rules, &r);
                        Judgement::from_checked(&s.model, rules.verdict, r.verdict, checked)
                    }
                    Err(f) => Judgement::fallback(&s.model, rules.verdict, f),
                };
                (j, a.usage, Some(schema))
            }
        };
        Trial {
            elapsed,
            usage,
            schema,
            judgement,
            sent: serde_json::to_vec(&req.body).map_or(0, |b| b.len()),
        }
    }

    /// Send the body and wait (within the timeout, or until Ctrl-C when asked) for the content.
    fn ask(&self, body: &serde_json::Value, wait: Wait<'_>) -> Result<String, Failure> {
        let s = &self.settings;
        let Wait { tick, ctrl_c } = wait;
        self.rt.block_on(async {
            let started = Instant::now();
            let send = client::post(&self.client, s, body);
            tokio::pin!(send);
            let deadline = tokio::time::sleep(s.timeout);
            tokio::pin!(deadline);
            let interrupted = interrupt(ctrl_c);
            tokio::pin!(interrupted);
            let mut ticks = tokio::time::interval(Duration::from_millis(100));
            loop {
                // In this order: Ctrl-C is listened for before the first tick draws anything
                // that invites the learner to press it.
                tokio::select! {
                    biased;
                    () = &mut interrupted => return Err(Failure::Cancelled),
                    r = &mut send => return r,
                    () = &mut deadline => return Err(Failure::Timeout(s.timeout)),
                    _ = ticks.tick() => tick(started.elapsed()),
                }
            }
        })
    }
}

/// Resolves on Ctrl-C when `on`, never otherwise. Listening replaces the default action of
/// Ctrl-C for the rest of the process, so only a learner at a terminal asks for it; there the
/// quiz reads its prompts in raw mode, where Ctrl-C is a key, not a signal.
async fn interrupt(on: bool) {
    if on && tokio::signal::ctrl_c().await.is_ok() {
        return;
    }
    std::future::pending::<()>().await
}

/// The part of an answer that is graded (the grader's cap), on a character boundary.
fn cut(answer: &str) -> usize {
    let mut cut = answer.len().min(grader::MAX_ANSWER);
    while !answer.is_char_boundary(cut) {
        cut -= 1;
    }
    cut
}
