//! The rules `check` judges and the lab annotates: one enum, and every fact about a rule (its
//! name, its sentence, its spec reference, its level) in one exhaustive `match` each, so a new
//! rule cannot compile until it is named, explained and cited.

use clap::ValueEnum;
use serde::Serialize;

/// How strongly the spec words a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// MUST / MUST NOT / REQUIRED.
    Must,
    /// SHOULD: breaking it is reported, but it is not a violation of a requirement.
    Should,
}

/// A rule the checker judges. [`Rule::name`] is the stable kebab-case name printed by `check`
/// (scripts parse it); [`Rule::title`] says the rule in words; [`Rule::spec`] cites it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, ValueEnum)]
#[serde(into = "&'static str")]
pub enum Rule {
    // In the order `check` reports them: the HTTP layer, then the subscription rules.
    Discover,
    HeaderMethodMissing,
    HeaderMethodMismatch,
    HeaderVersionMissing,
    HeaderVersionMismatch,
    UnsupportedVersion,
    MissingMeta,
    UnknownMethod,
    #[value(name = "get-delete-405")]
    GetDeleteNotAllowed,
    #[value(name = "origin-403")]
    OriginRejected,
    SseNoBuffering,
    WellFormed,
    AckFirst,
    HonouredSubset,
    TagPresent,
    TagMatchesId,
    ConcurrentStreams,
    OnlyRequestedTypes,
    AckedTypesDelivered,
    NoProgressOrMessage,
    NoServerRequests,
    UpdatedHasUri,
    CloseResultShape,
    NothingAfterResult,
    NothingAfterCancel,
    GracefulClose,
}

impl From<Rule> for &'static str {
    fn from(r: Rule) -> Self {
        r.name()
    }
}

impl Rule {
    /// Every rule, in report order: the derived `ValueEnum` table, so a new variant is listed
    /// without anyone remembering to.
    pub fn all() -> &'static [Rule] {
        <Rule as ValueEnum>::value_variants()
    }

    /// Stable short name, e.g. `ack-first`.
    pub fn name(self) -> &'static str {
        match self {
            Rule::WellFormed => "well-formed",
            Rule::AckFirst => "ack-first",
            Rule::HonouredSubset => "honoured-subset",
            Rule::TagPresent => "tag-present",
            Rule::TagMatchesId => "tag-matches-id",
            Rule::OnlyRequestedTypes => "only-requested-types",
            Rule::NoProgressOrMessage => "no-progress-or-message",
            Rule::NoServerRequests => "no-server-requests",
            Rule::UpdatedHasUri => "updated-has-uri",
            Rule::CloseResultShape => "close-result-shape",
            Rule::NothingAfterResult => "nothing-after-result",
            Rule::NothingAfterCancel => "nothing-after-cancel",
            Rule::GracefulClose => "graceful-close",
            Rule::SseNoBuffering => "sse-no-buffering",
            Rule::ConcurrentStreams => "concurrent-streams",
            Rule::AckedTypesDelivered => "acked-types-delivered",
            Rule::Discover => "discover",
            Rule::HeaderMethodMissing => "header-method-missing",
            Rule::HeaderMethodMismatch => "header-method-mismatch",
            Rule::HeaderVersionMissing => "header-version-missing",
            Rule::HeaderVersionMismatch => "header-version-mismatch",
            Rule::UnsupportedVersion => "unsupported-version",
            Rule::MissingMeta => "missing-meta",
            Rule::UnknownMethod => "unknown-method",
            Rule::GetDeleteNotAllowed => "get-delete-405",
            Rule::OriginRejected => "origin-403",
        }
    }

    /// The rule by its [`Rule::name`].
    pub fn from_name(name: &str) -> Option<Rule> {
        Rule::all().iter().copied().find(|r| r.name() == name)
    }

    /// The rule in one sentence.
    pub fn title(self) -> &'static str {
        match self {
            Rule::WellFormed => "every frame or stdio line is one JSON-RPC 2.0 message",
            Rule::AckFirst => {
                "notifications/subscriptions/acknowledged is the first message of each subscription"
            }
            Rule::HonouredSubset => {
                "the acknowledgement's params.notifications is the subset of the request the server honours"
            }
            Rule::TagPresent => {
                "every message on a listen stream carries _meta io.modelcontextprotocol/subscriptionId"
            }
            Rule::TagMatchesId => {
                "the subscriptionId tag equals the listen request's own id, JSON type included"
            }
            Rule::OnlyRequestedTypes => {
                "only notification types the client asked for and the server acknowledged arrive"
            }
            Rule::NoProgressOrMessage => {
                "notifications/progress and notifications/message never travel on a listen stream"
            }
            Rule::NoServerRequests => "the server never sends a JSON-RPC request",
            Rule::UpdatedHasUri => "notifications/resources/updated carries a string params.uri",
            Rule::CloseResultShape => {
                "the closing result has id = listen id, resultType \"complete\" and the subscriptionId tag"
            }
            Rule::NothingAfterResult => {
                "nothing follows the closing result for that subscription (stdio: bar a server notifications/cancelled)"
            }
            Rule::NothingAfterCancel => {
                "after the client cancels, nothing more arrives for that subscription, not even a result"
            }
            Rule::GracefulClose => {
                "a server that ends a subscription answers the listen request with its result (SHOULD), rather than dropping the stream"
            }
            Rule::SseNoBuffering => {
                "a listen stream is a text/event-stream response with X-Accel-Buffering: no (SHOULD), so proxies do not hold back the ack"
            }
            Rule::ConcurrentStreams => {
                "concurrent subscriptions each get their own ack and tag, keyed by their own request id"
            }
            Rule::AckedTypesDelivered => {
                "a change of an acknowledged type is delivered to the subscription (SHOULD)"
            }
            Rule::Discover => {
                "server/discover answers with resultType, supportedVersions incl. 2026-07-28, and serverInfo in _meta"
            }
            Rule::HeaderMethodMissing => {
                "a request without Mcp-Method is refused with HTTP 400 and -32020"
            }
            Rule::HeaderMethodMismatch => {
                "Mcp-Method differing from the body method is refused with HTTP 400 and -32020"
            }
            Rule::HeaderVersionMissing => {
                "a request without MCP-Protocol-Version is refused with HTTP 400 and -32020"
            }
            Rule::HeaderVersionMismatch => {
                "MCP-Protocol-Version differing from the body's _meta version is refused with HTTP 400 and -32020"
            }
            Rule::UnsupportedVersion => {
                "an unsupported version is refused with HTTP 400 and -32022 carrying data.supported and data.requested"
            }
            Rule::MissingMeta => {
                "a request missing a required _meta field is refused with HTTP 400 and -32602"
            }
            Rule::UnknownMethod => "an unknown method is answered with HTTP 404 and -32601",
            Rule::OriginRejected => {
                "a request with a foreign Origin is refused with HTTP 403 (DNS-rebinding protection)"
            }
            Rule::GetDeleteNotAllowed => {
                "GET and DELETE on the MCP endpoint are answered with HTTP 405 (SHOULD)"
            }
        }
    }

    /// Where the rule is written: spec short names (legend in docs/rules.md), then its entry there.
    pub fn spec(self) -> &'static str {
        match self {
            Rule::WellFormed => "TRN §Messages; STDIO intro; docs/rules.md#well-formed",
            Rule::AckFirst => "SUB §Acknowledgment; docs/rules.md#ack-first",
            Rule::HonouredSubset => "SUB §Acknowledgment; docs/rules.md#honoured-subset",
            Rule::TagPresent => {
                "BASE §_meta; SUB §Receiving Notifications; docs/rules.md#tag-present"
            }
            Rule::TagMatchesId => {
                "SUB §Receiving Notifications; TS NotificationMetaObject; docs/rules.md#tag-matches-id"
            }
            Rule::OnlyRequestedTypes => "SUB §Opening a Stream; docs/rules.md#only-requested-types",
            Rule::NoProgressOrMessage => {
                "HTTP §Receiving Messages; LOG §Per-request log level; docs/rules.md#no-progress-or-message"
            }
            Rule::NoServerRequests => {
                "PAT intro; HTTP §Receiving Messages; STDIO §Sending Messages; docs/rules.md#no-server-requests"
            }
            Rule::UpdatedHasUri => {
                "TS ResourceUpdatedNotificationParams; docs/rules.md#updated-has-uri"
            }
            Rule::CloseResultShape => {
                "SUB §Graceful Closure; TS SubscriptionsListenResult; docs/rules.md#close-result-shape"
            }
            Rule::NothingAfterResult => {
                "SUB §Graceful Closure; HTTP §Receiving Messages; docs/rules.md#nothing-after-result"
            }
            Rule::NothingAfterCancel => {
                "HTTP §Cancellation; STDIO §Cancellation; docs/rules.md#nothing-after-cancel"
            }
            Rule::GracefulClose => {
                "SUB §Graceful Closure, §Cancellation; docs/rules.md#graceful-close"
            }
            Rule::SseNoBuffering => "HTTP §Receiving Messages; docs/rules.md#sse-no-buffering",
            Rule::ConcurrentStreams => {
                "SUB §Multiple Concurrent Subscriptions; docs/rules.md#concurrent-streams"
            }
            Rule::AckedTypesDelivered => {
                "SUB §Acknowledgment; TOOLS/PROMPTS §List Changed Notification; RES §Subscriptions; docs/rules.md#acked-types-delivered"
            }
            Rule::Discover => "DISC; BASE §ResultType, §_meta; docs/rules.md#discover",
            Rule::HeaderMethodMissing => {
                "HTTP §Server Validation; docs/rules.md#header-method-missing"
            }
            Rule::HeaderMethodMismatch => {
                "HTTP §Server Validation; docs/rules.md#header-method-mismatch"
            }
            Rule::HeaderVersionMissing => {
                "HTTP §Protocol Version Header, §Server Validation; docs/rules.md#header-version-missing"
            }
            Rule::HeaderVersionMismatch => {
                "HTTP §Protocol Version Header, §Server Validation; docs/rules.md#header-version-mismatch"
            }
            Rule::UnsupportedVersion => {
                "HTTP §Protocol Version Header; TS UnsupportedProtocolVersionError; docs/rules.md#unsupported-version"
            }
            Rule::MissingMeta => "BASE §_meta; docs/rules.md#missing-meta",
            Rule::UnknownMethod => "HTTP §Protocol Version Header; docs/rules.md#unknown-method",
            Rule::OriginRejected => "HTTP §Security & Endpoint; docs/rules.md#origin-403",
            Rule::GetDeleteNotAllowed => {
                "HTTP §Earlier Streamable HTTP Revisions; docs/rules.md#get-delete-405"
            }
        }
    }

    pub fn level(self) -> Level {
        match self {
            Rule::GracefulClose
            | Rule::AckedTypesDelivered
            | Rule::GetDeleteNotAllowed
            | Rule::SseNoBuffering => Level::Should,
            _ => Level::Must,
        }
    }

    /// Rules about the Streamable HTTP layer (headers, status codes, SSE response headers):
    /// stdio has no header layer to test them on (STDIO §Request Metadata).
    pub fn http_only(self) -> bool {
        matches!(
            self,
            Rule::HeaderMethodMissing
                | Rule::HeaderMethodMismatch
                | Rule::HeaderVersionMissing
                | Rule::HeaderVersionMismatch
                | Rule::UnsupportedVersion
                | Rule::MissingMeta
                | Rule::UnknownMethod
                | Rule::GetDeleteNotAllowed
                | Rule::OriginRejected
                | Rule::SseNoBuffering
        )
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_listed_named_explained_and_cited() {
        assert_eq!(Rule::all().len(), 26);
        for r in Rule::all().iter().copied() {
            let derived = r.to_possible_value().map(|v| v.get_name().to_owned());
            assert_eq!(derived.as_deref(), Some(r.name()), "{r:?}");
            assert_eq!(Rule::from_name(r.name()), Some(r));
            assert!(!r.title().is_empty() && !r.spec().is_empty(), "{r:?}");
        }
    }
}
