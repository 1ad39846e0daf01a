//! HTTP header values: the base64 sentinel (§1.2; HTTP §Value Encoding), the body field
//! `Mcp-Name` mirrors, and the `Accept` a client must send.

use base64::Engine as _;

use super::method;

const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";

/// Why a header value could not be read (§1.3: answered with 400 + `-32020`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderValueError {
    #[error(
        "the value contains characters a header may not carry plainly (encode it as =?base64?…?=)"
    )]
    InvalidCharacters,
    #[error("the =?base64?…?= value is not valid padded standard base64")]
    BadBase64,
    #[error("the =?base64?…?= value does not decode to UTF-8 text")]
    NotUtf8,
}

/// Plain header-safe: visible ASCII and inner spaces only, no leading/trailing whitespace, and not
/// itself shaped like the sentinel (§1.2).
pub fn is_header_safe(value: &str) -> bool {
    value.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_like_sentinel(value)
}

fn looks_like_sentinel(value: &str) -> bool {
    value.starts_with(SENTINEL_PREFIX)
        && value.ends_with(SENTINEL_SUFFIX)
        && value.len() >= SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len()
}

/// The value as a client must send it in `Mcp-Name` / `Mcp-Param-*`: plain when header-safe,
/// otherwise `=?base64?<standard, padded base64 of the UTF-8 bytes>?=` (§1.2).
pub fn encode_header_value(value: &str) -> String {
    if is_header_safe(value) {
        value.to_owned()
    } else {
        let b64 = base64::engine::general_purpose::STANDARD.encode(value.as_bytes());
        format!("{SENTINEL_PREFIX}{b64}{SENTINEL_SUFFIX}")
    }
}

/// What a server compares with the body: the sentinel decoded, or the plain value checked for
/// invalid characters (§1.2 "Servers MUST decode before comparing"; §1.3 invalid characters).
/// The markers are case-sensitive, so `=?BASE64?…?=` is read as a plain value.
pub fn decode_header_value(value: &str) -> Result<String, HeaderValueError> {
    if looks_like_sentinel(value) {
        let inner = &value[SENTINEL_PREFIX.len()..value.len() - SENTINEL_SUFFIX.len()];
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(inner)
            .map_err(|_| HeaderValueError::BadBase64)?;
        return String::from_utf8(bytes).map_err(|_| HeaderValueError::NotUtf8);
    }
    // A plain value: visible ASCII with inner spaces/tabs. Leading/trailing whitespace is trimmed
    // by HTTP parsers before we see it, so it is not judged here.
    if value
        .bytes()
        .all(|b| (0x20..=0x7e).contains(&b) || b == b'\t')
    {
        Ok(value.to_owned())
    } else {
        Err(HeaderValueError::InvalidCharacters)
    }
}

/// The body field `Mcp-Name` mirrors, for the methods that REQUIRE the header: `params.name` for
/// `tools/call` and `prompts/get`, `params.uri` for `resources/read`; `None` for every other
/// method, which sends no `Mcp-Name` (§1.2; HTTP §Standard Request Headers).
pub fn mcp_name_field(m: &str) -> Option<&'static str> {
    match m {
        method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
        method::RESOURCES_READ => Some("uri"),
        _ => None,
    }
}

/// Whether an `Accept` header lists both media types a client MUST accept (§1.2). Parameters
/// (`;q=…`) are ignored; media types compare case-insensitively.
pub fn accept_lists_both(accept: &str) -> bool {
    let types: Vec<String> = accept
        .split(',')
        .map(|part| {
            part.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .collect();
    types.iter().any(|t| t == "application/json") && types.iter().any(|t| t == "text/event-stream")
}

#[cfg(test)]
mod tests {
    use crate::protocol::*;

    #[test]
    fn base64_sentinel_round_trips() {
        let cafe = "file:///notes/café.md";
        let enc = encode_header_value(cafe);
        assert_eq!(enc, "=?base64?ZmlsZTovLy9ub3Rlcy9jYWbDqS5tZA==?=");
        assert_eq!(decode_header_value(&enc).unwrap(), cafe);
        assert_eq!(
            encode_header_value("mock://notes/today"),
            "mock://notes/today"
        );
        // A plain value that looks like the sentinel must itself be encoded.
        let tricky = "=?base64?abc?=";
        let enc = encode_header_value(tricky);
        assert_ne!(enc, tricky);
        assert_eq!(decode_header_value(&enc).unwrap(), tricky);
        assert_eq!(encode_header_value(" padded"), "=?base64?IHBhZGRlZA==?=");
        assert_eq!(
            decode_header_value("=?base64?!!!?="),
            Err(HeaderValueError::BadBase64)
        );
        assert_eq!(
            decode_header_value("=?base64?/w==?="),
            Err(HeaderValueError::NotUtf8)
        );
        assert_eq!(
            decode_header_value("a\u{1}b"),
            Err(HeaderValueError::InvalidCharacters)
        );
        // Upper-case markers are not the sentinel: read as plain text.
        assert_eq!(
            decode_header_value("=?BASE64?YQ==?=").unwrap(),
            "=?BASE64?YQ==?="
        );
    }

    #[test]
    fn accept_needs_both_types() {
        assert!(accept_lists_both("application/json, text/event-stream"));
        assert!(accept_lists_both(
            "text/event-stream;q=0.9,Application/JSON"
        ));
        assert!(!accept_lists_both("application/json"));
        assert!(!accept_lists_both("*/*"));
    }
}
