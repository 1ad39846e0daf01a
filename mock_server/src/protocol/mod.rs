//! MCP 2026-07-28 message types and protocol constants, shared by the mock server and the lab's
//! checking client. This is the ONE place for them: data and pure functions only, no I/O.
//!
//! References in doc comments name spec sections by short name (e.g. "SUB §Acknowledgment"; the
//! legend and every rule are in `docs/rules.md`). Bare numbers such as "§4.4" are section numbers
//! of the digest this code was first written against; they are never printed.
//!
//! One module per family: `id` (request ids), `message` (a frame classified once into a typed
//! view), `filter` (the subscription filter and notification kinds), `build` (the messages
//! clients and servers send), `splice` (a change notification serialised once, each stream's tag
//! spliced in) and `header_value` (HTTP header values). Everything is re-exported
//! here, so callers write `protocol::RequestId`, `protocol::Message`, ...

mod build;
mod filter;
mod header_value;
mod id;
mod message;
mod splice;

pub use build::*;
pub use filter::*;
pub use header_value::*;
pub use id::*;
pub use message::*;
pub use splice::*;

/// The only protocol revision this crate speaks (§0; VER).
pub const PROTOCOL_VERSION: &str = "2026-07-28";

/// Versions the mock implements; sent as `data.supported` in `-32022` errors (§1.3, §5).
pub const SUPPORTED_VERSIONS: &[&str] = &[PROTOCOL_VERSION];

/// The JSON-RPC version string every message carries.
pub const JSONRPC_VERSION: &str = "2.0";

/// Method names (requests and notifications).
pub mod method {
    /// Opens a subscription stream (§4.1; SUB §Opening a Stream).
    pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
    /// The acknowledgement, first message of every subscription (§4.4; SUB §Acknowledgment).
    pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
    pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
    pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
    pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
    /// Carries `params.uri` (§4.5; TS `ResourceUpdatedNotificationParams`).
    pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
    /// Client cancel on stdio; server teardown of a listen on stdio (§2, §4.9; CAN).
    pub const CANCELLED: &str = "notifications/cancelled";
    /// Never on a listen stream (§1.4, §4.5).
    pub const PROGRESS: &str = "notifications/progress";
    /// Never on a listen stream (§3; LOG §Per-request log level).
    pub const MESSAGE: &str = "notifications/message";
    /// Servers MUST implement it (§5; DISC intro).
    pub const SERVER_DISCOVER: &str = "server/discover";
    pub const TOOLS_LIST: &str = "tools/list";
    pub const TOOLS_CALL: &str = "tools/call";
    pub const PROMPTS_LIST: &str = "prompts/list";
    pub const PROMPTS_GET: &str = "prompts/get";
    pub const RESOURCES_LIST: &str = "resources/list";
    pub const RESOURCES_READ: &str = "resources/read";
    pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
}

/// Reserved `_meta` keys (§3; BASE §_meta).
pub mod meta {
    /// Tag on every listen-stream notification and on the graceful listen result (§3, §4.6).
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// Required in every request's `params._meta` (§3).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// Required in every request's `params._meta`; `{}` means none (§3).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// Optional, SHOULD be sent (§3).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// In every result's `_meta`, SHOULD (§3, §5).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Optional, deprecated; absent ⇒ no `notifications/message` for the request (§3; LOG).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// Request `_meta` key; the progress notification carries it as `params.progressToken` (§3).
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// HTTP header names (§1.2). Names compare case-insensitively; these are the spec spellings.
pub mod header {
    pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
    /// REQUIRED on all requests; equals the body `method` (§1.2).
    pub const MCP_METHOD: &str = "Mcp-Method";
    /// REQUIRED only for `tools/call`, `prompts/get` (params.name), `resources/read` (params.uri) (§1.2).
    pub const MCP_NAME: &str = "Mcp-Name";
    /// Prefix of `Mcp-Param-{Name}` headers for `x-mcp-header` tool arguments (§1.2).
    pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
    /// SHOULD be `no` on every SSE response (§1.4).
    pub const X_ACCEL_BUFFERING: &str = "X-Accel-Buffering";
    /// Gone in 2026-07-28: servers ignore it and never mint or echo it (§1.2).
    pub const MCP_SESSION_ID: &str = "Mcp-Session-Id";
    /// No resumption in 2026-07-28: servers ignore it (§1.4).
    pub const LAST_EVENT_ID: &str = "Last-Event-ID";
    /// What a client lists in `Accept` (both are MUST, §1.2).
    pub const ACCEPT_VALUE: &str = "application/json, text/event-stream";
}

/// JSON-RPC and MCP error codes (§6; BASE §Error Codes).
pub mod error_code {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method; HTTP 404 (§1.3).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Missing required `_meta`, unknown tool/prompt, resource not found (§6).
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Header missing or ≠ body; HTTP 400 (§1.3).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// `data.requiredCapabilities`; HTTP 400 (§1.3).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// `data.supported` + `data.requested`; HTTP 400 (§1.3, §5).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    /// The spec name of a code, for display ("HeaderMismatch").
    pub fn name(code: i64) -> Option<&'static str> {
        Some(match code {
            PARSE_ERROR => "ParseError",
            INVALID_REQUEST => "InvalidRequest",
            METHOD_NOT_FOUND => "MethodNotFound",
            INVALID_PARAMS => "InvalidParams",
            INTERNAL_ERROR => "InternalError",
            HEADER_MISMATCH => "HeaderMismatch",
            MISSING_REQUIRED_CLIENT_CAPABILITY => "MissingRequiredClientCapability",
            UNSUPPORTED_PROTOCOL_VERSION => "UnsupportedProtocolVersion",
            _ => return None,
        })
    }
}
