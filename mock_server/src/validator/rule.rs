//! The rules `check` judges and the lab annotates: one enum; its list and names are derived
//! tables, and every other fact about a rule (its sentence, its spec reference, its level, its
//! transport) is one exhaustive `match` each, so a new rule cannot compile until it is
//! explained, cited, levelled and scoped.

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

/// A rule the checker judges. [`CheckRule::name`] is the stable kebab-case name printed by `check`
/// (scripts parse it); [`CheckRule::title`] says the rule in words; [`CheckRule::spec`] cites it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    strum::IntoStaticStr,
    strum::VariantArray,
)]
#[serde(into = "&'static str")]
#[strum(serialize_all = "kebab-case")]
pub enum CheckRule {
    // In the order `check` reports them: the HTTP layer, then the subscription rules.
    Discover,
    HeaderMethodMissing,
    HeaderMethodMismatch,
    HeaderVersionMissing,
    HeaderVersionMismatch,
    UnsupportedVersion,
    MissingMeta,
    UnknownMethod,
    #[strum(serialize = "get-delete-405")]
    GetDeleteNotAllowed,
    #[strum(serialize = "origin-403")]
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

impl CheckRule {
    /// Every rule, in report order (the derived table, so a new variant is listed without
    /// anyone remembering to).
    pub fn all() -> &'static [CheckRule] {
        <CheckRule as strum::VariantArray>::VARIANTS
    }

    /// Stable short name, e.g. `ack-first`: the variant in kebab-case unless it says otherwise
    /// (the derived table; serde writes the same).
    pub fn name(self) -> &'static str {
        self.into()
    }

    /// The rule by its [`CheckRule::name`].
    pub fn from_name(name: &str) -> Option<CheckRule> {
        CheckRule::all().iter().copied().find(|r| r.name() == name)
    }

    /// The rule in one sentence.
    pub fn title(self) -> &'static str {
        match self {
            CheckRule::WellFormed => "every frame or stdio line is one JSON-RPC 2.0 message",
            CheckRule::AckFirst => {
                "notifications/subscriptions/acknowledged is the first message of each subscription"
            }
            CheckRule::HonouredSubset => {
                "the acknowledgement's params.notifications is the subset of the request the server honours"
            }
            CheckRule::TagPresent => {
                "every message on a listen stream carries _meta io.modelcontextprotocol/subscriptionId"
            }
            CheckRule::TagMatchesId => {
                "the subscriptionId tag equals the listen request's own id, JSON type included"
            }
            CheckRule::OnlyRequestedTypes => {
                "only notification types the client asked for and the server acknowledged arrive"
            }
            CheckRule::NoProgressOrMessage => {
                "notifications/progress and notifications/message never travel on a listen stream"
            }
            CheckRule::NoServerRequests => "the server never sends a JSON-RPC request",
            CheckRule::UpdatedHasUri => {
                "notifications/resources/updated carries a string params.uri"
            }
            CheckRule::CloseResultShape => {
                "the closing result has id = listen id, resultType \"complete\" and the subscriptionId tag"
            }
            CheckRule::NothingAfterResult => {
                "nothing follows the closing result for that subscription (stdio: bar a server notifications/cancelled)"
            }
            CheckRule::NothingAfterCancel => {
                "after the client cancels, nothing more arrives for that subscription, not even a result"
            }
            CheckRule::GracefulClose => {
                "a server that ends a subscription answers the listen request with its result (SHOULD), rather than dropping the stream"
            }
            CheckRule::SseNoBuffering => {
                "a listen stream is a text/event-stream response with X-Accel-Buffering: no (SHOULD), so proxies do not hold back the ack"
            }
            CheckRule::ConcurrentStreams => {
                "concurrent subscriptions each get their own ack and tag, keyed by their own request id"
            }
            CheckRule::AckedTypesDelivered => {
                "a change of an acknowledged type is delivered to the subscription (SHOULD)"
            }
            CheckRule::Discover => {
                "server/discover answers with resultType, supportedVersions incl. 2026-07-28, and serverInfo in _meta"
            }
            CheckRule::HeaderMethodMissing => {
                "a request without Mcp-Method is refused with HTTP 400 and -32020"
            }
            CheckRule::HeaderMethodMismatch => {
                "Mcp-Method differing from the body method is refused with HTTP 400 and -32020"
            }
            CheckRule::HeaderVersionMissing => {
                "a request without MCP-Protocol-Version is refused with HTTP 400 and -32020"
            }
            CheckRule::HeaderVersionMismatch => {
                "MCP-Protocol-Version differing from the body's _meta version is refused with HTTP 400 and -32020"
            }
            CheckRule::UnsupportedVersion => {
                "an unsupported version is refused with HTTP 400 and -32022 carrying data.supported and data.requested"
            }
            CheckRule::MissingMeta => {
                "a request missing a required _meta field is refused with -32602 (over HTTP, status 400)"
            }
            CheckRule::UnknownMethod => {
                "an unknown method is answered with -32601 (over HTTP, status 404)"
            }
            CheckRule::OriginRejected => {
                "a request with a foreign Origin is refused with HTTP 403 (DNS-rebinding protection)"
            }
            CheckRule::GetDeleteNotAllowed => {
                "GET and DELETE on the MCP endpoint are answered with HTTP 405 (SHOULD)"
            }
        }
    }

    /// Where the rule is written: spec short names (legend in docs/rules.md), then its entry there.
    pub fn spec(self) -> &'static str {
        match self {
            CheckRule::WellFormed => "TRN §Messages; STDIO intro; docs/rules.md#well-formed",
            CheckRule::AckFirst => "SUB §Acknowledgment; docs/rules.md#ack-first",
            CheckRule::HonouredSubset => "SUB §Acknowledgment; docs/rules.md#honoured-subset",
            CheckRule::TagPresent => {
                "BASE §_meta; SUB §Receiving Notifications; docs/rules.md#tag-present"
            }
            CheckRule::TagMatchesId => {
                "SUB §Receiving Notifications; TS NotificationMetaObject; docs/rules.md#tag-matches-id"
            }
            CheckRule::OnlyRequestedTypes => {
                "SUB §Opening a Stream; docs/rules.md#only-requested-types"
            }
            CheckRule::NoProgressOrMessage => {
                "HTTP §Receiving Messages; LOG §Per-request log level; docs/rules.md#no-progress-or-message"
            }
            CheckRule::NoServerRequests => {
                "PAT intro; HTTP §Receiving Messages; STDIO §Sending Messages; docs/rules.md#no-server-requests"
            }
            CheckRule::UpdatedHasUri => {
                "TS ResourceUpdatedNotificationParams; docs/rules.md#updated-has-uri"
            }
            CheckRule::CloseResultShape => {
                "SUB §Graceful Closure; TS SubscriptionsListenResult; docs/rules.md#close-result-shape"
            }
            CheckRule::NothingAfterResult => {
                "SUB §Graceful Closure; HTTP §Receiving Messages; docs/rules.md#nothing-after-result"
            }
            CheckRule::NothingAfterCancel => {
                "HTTP §Cancellation; STDIO §Cancellation; docs/rules.md#nothing-after-cancel"
            }
            CheckRule::GracefulClose => {
                "SUB §Graceful Closure, §Cancellation; docs/rules.md#graceful-close"
            }
            CheckRule::SseNoBuffering => "HTTP §Receiving Messages; docs/rules.md#sse-no-buffering",
            CheckRule::ConcurrentStreams => {
                "SUB §Multiple Concurrent Subscriptions; docs/rules.md#concurrent-streams"
            }
            CheckRule::AckedTypesDelivered => {
                "SUB §Acknowledgment; TOOLS/PROMPTS §List Changed Notification; RES §Subscriptions; docs/rules.md#acked-types-delivered"
            }
            CheckRule::Discover => "DISC; BASE §ResultType, §_meta; docs/rules.md#discover",
            CheckRule::HeaderMethodMissing => {
                "HTTP §Server Validation; docs/rules.md#header-method-missing"
            }
            CheckRule::HeaderMethodMismatch => {
                "HTTP §Server Validation; docs/rules.md#header-method-mismatch"
            }
            CheckRule::HeaderVersionMissing => {
                "HTTP §Protocol Version Header, §Server Validation; docs/rules.md#header-version-missing"
            }
            CheckRule::HeaderVersionMismatch => {
                "HTTP §Protocol Version Header, §Server Validation; docs/rules.md#header-version-mismatch"
            }
            CheckRule::UnsupportedVersion => {
                "HTTP §Protocol Version Header; TS UnsupportedProtocolVersionError; docs/rules.md#unsupported-version"
            }
            CheckRule::MissingMeta => "BASE §_meta; docs/rules.md#missing-meta",
            CheckRule::UnknownMethod => {
                "HTTP §Protocol Version Header; docs/rules.md#unknown-method"
            }
            CheckRule::OriginRejected => "HTTP §Security & Endpoint; docs/rules.md#origin-403",
            CheckRule::GetDeleteNotAllowed => {
                "HTTP §Earlier Streamable HTTP Revisions; docs/rules.md#get-delete-405"
            }
        }
    }

    pub fn level(self) -> Level {
        match self {
            CheckRule::GracefulClose
            | CheckRule::AckedTypesDelivered
            | CheckRule::GetDeleteNotAllowed
            | CheckRule::SseNoBuffering => Level::Should,
            CheckRule::Discover
            | CheckRule::HeaderMethodMissing
            | CheckRule::HeaderMethodMismatch
            | CheckRule::HeaderVersionMissing
            | CheckRule::HeaderVersionMismatch
            | CheckRule::UnsupportedVersion
            | CheckRule::MissingMeta
            | CheckRule::UnknownMethod
            | CheckRule::OriginRejected
            | CheckRule::WellFormed
            | CheckRule::AckFirst
            | CheckRule::HonouredSubset
            | CheckRule::TagPresent
            | CheckRule::TagMatchesId
            | CheckRule::ConcurrentStreams
            | CheckRule::OnlyRequestedTypes
            | CheckRule::NoProgressOrMessage
            | CheckRule::NoServerRequests
            | CheckRule::UpdatedHasUri
            | CheckRule::CloseResultShape
            | CheckRule::NothingAfterResult
            | CheckRule::NothingAfterCancel => Level::Must,
        }
    }

    /// Rules about the Streamable HTTP layer (headers, status codes, SSE response headers):
    /// stdio has no header layer to test them on (STDIO §Request Metadata).
    pub fn http_only(self) -> bool {
        match self {
            CheckRule::HeaderMethodMissing
            | CheckRule::HeaderMethodMismatch
            | CheckRule::HeaderVersionMissing
            | CheckRule::HeaderVersionMismatch
            | CheckRule::UnsupportedVersion
            | CheckRule::GetDeleteNotAllowed
            | CheckRule::OriginRejected
            | CheckRule::SseNoBuffering => true,
            // Their refusals are JSON-RPC errors in the body: stdio carries them as well.
            CheckRule::MissingMeta
            | CheckRule::UnknownMethod
            | CheckRule::Discover
            | CheckRule::WellFormed
            | CheckRule::AckFirst
            | CheckRule::HonouredSubset
            | CheckRule::TagPresent
            | CheckRule::TagMatchesId
            | CheckRule::ConcurrentStreams
            | CheckRule::OnlyRequestedTypes
            | CheckRule::AckedTypesDelivered
            | CheckRule::NoProgressOrMessage
            | CheckRule::NoServerRequests
            | CheckRule::UpdatedHasUri
            | CheckRule::CloseResultShape
            | CheckRule::NothingAfterResult
            | CheckRule::NothingAfterCancel
            | CheckRule::GracefulClose => false,
        }
    }
}

impl std::fmt::Display for CheckRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_is_listed_named_explained_and_cited() {
        assert_eq!(CheckRule::all().len(), 26);
        for r in CheckRule::all().iter().copied() {
            assert_eq!(serde_json::to_value(r).ok(), Some(r.name().into()), "{r:?}");
            assert_eq!(CheckRule::from_name(r.name()), Some(r));
            assert!(!r.title().is_empty() && !r.spec().is_empty(), "{r:?}");
        }
        assert_eq!(CheckRule::GetDeleteNotAllowed.name(), "get-delete-405");
        assert_eq!(
            CheckRule::AckedTypesDelivered.name(),
            "acked-types-delivered"
        );
    }
}
