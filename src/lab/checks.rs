//! The lab's bridge to the checking client's validator: every frame the lab shows passes
//! through it, and its findings come back as verdicts to print in place.

use mock_server::protocol::{RequestId, SubscriptionFilter};
use serde_json::Value;

use super::event::Verdict;

/// Feeds the validator what the lab client sent and what came back.
#[derive(Default)]
pub struct Checks {}

impl Checks {
    pub fn new() -> Self {
        Checks {}
    }

    pub fn listen_sent(&mut self, _id: &RequestId, _filter: &SubscriptionFilter) {}

    pub fn frame(&mut self, _stream: Option<&RequestId>, _message: &Value) -> Vec<Verdict> {
        Vec::new()
    }

    pub fn ended(&mut self, _id: &RequestId, _graceful: bool) -> Vec<Verdict> {
        Vec::new()
    }

    pub fn cancelled(&mut self, _id: &RequestId) {}
}
