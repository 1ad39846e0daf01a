//! The lab's bridge to the checking client's validator: every frame the lab shows passes
//! through it, and its findings come back as verdicts to print in place.

use std::time::Duration;

use mock_server::protocol::{Message, RequestId, SubscriptionFilter};

use super::event::RuleVerdict;
use mock_server::validator::{Finding, Observation, Validator};

/// Feeds the validator what the lab client sent and what came back. `stream` is the HTTP
/// listen stream a frame arrived on; `None` means the shared stdio channel.
#[derive(Default)]
pub struct Checks {
    validator: Validator,
}

fn verdicts(findings: Vec<Finding>) -> Vec<RuleVerdict> {
    findings
        .into_iter()
        .map(|f| RuleVerdict {
            rule: f.rule.name().to_owned(),
            title: f.rule.title().to_owned(),
            spec: f.rule.spec().to_owned(),
            ok: f.ok,
            detail: f.detail,
            note: f.note,
        })
        .collect()
}

impl Checks {
    pub fn new() -> Self {
        Checks::default()
    }

    pub fn listen_sent(&mut self, id: &RequestId, filter: &SubscriptionFilter) {
        self.validator.observe(&Observation::ListenSent {
            id: id.clone(),
            filter: filter.clone(),
        });
    }

    pub fn frame(&mut self, stream: Option<&RequestId>, message: &Message) -> Vec<RuleVerdict> {
        verdicts(self.validator.observe(&Observation::Message {
            stream: stream.cloned(),
            message: message.clone(),
        }))
    }

    pub fn malformed(
        &mut self,
        stream: Option<&RequestId>,
        raw: &str,
        error: &str,
    ) -> Vec<RuleVerdict> {
        verdicts(self.validator.observe(&Observation::Malformed {
            stream: stream.cloned(),
            raw: raw.to_owned(),
            error: error.to_owned(),
        }))
    }

    pub fn keep_alive(&mut self, stream: Option<&RequestId>) {
        self.validator.observe(&Observation::KeepAlive {
            stream: stream.cloned(),
        });
    }

    /// The HTTP stream `Some(id)` or the stdio channel (`None`) ended.
    pub fn ended(&mut self, stream: Option<&RequestId>, clean: bool) -> Vec<RuleVerdict> {
        verdicts(self.validator.observe(&Observation::Ended {
            stream: stream.cloned(),
            graceful: clean,
        }))
    }

    pub fn cancelled(&mut self, id: &RequestId) {
        self.validator
            .observe(&Observation::ClientCancelled { id: id.clone() });
    }

    pub fn ack_timeout(&mut self, id: &RequestId, waited: Duration) -> Vec<RuleVerdict> {
        verdicts(self.validator.observe(&Observation::AckTimeout {
            id: id.clone(),
            waited,
        }))
    }
}
