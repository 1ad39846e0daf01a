//! Exact identifiers: where they occur, and spellings close enough to be a near miss.

/// An exact identifier's byte range in `a.norm`.
#[derive(Debug, Clone, Copy)]
pub struct ExactHit {
    pub start: usize,
    pub end: usize,
}

pub(super) fn ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '/'
}

/// Occurrences of `expected` written exactly (case and spelling), not as part of a longer
/// identifier: `subscriptionId` does not match inside `io.modelcontextprotocol/subscriptionId`.
pub fn find_exact(text: &str, expected: &str) -> Vec<ExactHit> {
    let mut out = Vec::new();
    if expected.is_empty() {
        return out;
    }
    let first_ident = expected.chars().next().is_some_and(ident_char);
    let last_ident = expected.chars().last().is_some_and(ident_char);
    for (start, _) in text.match_indices(expected) {
        let end = start + expected.len();
        let mut before = text[..start].chars().rev();
        let mut after = text[end..].chars();
        let ok_before = !first_ident
            || match before.next() {
                None => true,
                Some(c) if ident_char(c) => false,
                Some('.') | Some('-') => !before.next().is_some_and(char::is_alphanumeric),
                Some(_) => true,
            };
        let ok_after = !last_ident
            || match after.next() {
                None => true,
                Some(c) if ident_char(c) => false,
                Some('.') | Some('-') => !after.next().is_some_and(char::is_alphanumeric),
                Some(_) => true,
            };
        if ok_before && ok_after {
            out.push(ExactHit { start, end });
        }
    }
    out
}

/// Identifier-like words of the answer: candidates for "close: you wrote ...".
pub fn ident_candidates(text: &str) -> Vec<(usize, usize)> {
    let sep = |c: char| c.is_whitespace() || "`'\"(),;[]{}<>=".contains(c);
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (start, sep(c)) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                let word = &text[s..i];
                let trimmed = word.trim_end_matches(['.', ':', '!', '?', ',']);
                let lead = trimmed.len() - trimmed.trim_start_matches(':').len();
                let (ws, we) = (s + lead, s + trimmed.len());
                if we > ws {
                    out.push((ws, we));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether a word is written like an identifier (a path, a dotted or dashed name, camelCase,
/// digits): plain words are never near misses.
pub fn looks_like_identifier(w: &str) -> bool {
    let inner = w.get(1..).unwrap_or("");
    w.chars()
        .any(|c| matches!(c, '/' | '_' | '.') || c.is_ascii_digit())
        // `Mcp-Session-Id` is a header; `list-change` and `keep-alive` are prose.
        || (inner.contains('-') && w.chars().any(|c| c.is_uppercase()))
        || inner.chars().any(|c| c.is_uppercase())
}

/// HTTP header names are case-insensitive: `MCP-Method` is `Mcp-Method`.
pub fn same_header(found: &str, expected: &str) -> bool {
    let header = expected.contains('-')
        && !expected.contains('/')
        && expected.starts_with(|c: char| c.is_ascii_uppercase());
    header && found.eq_ignore_ascii_case(expected)
}

/// Whether `found` is a near miss of `expected` (and not simply something else).
pub fn near_miss(found: &str, expected: &str) -> bool {
    if found == expected || expected.chars().count() < 4 {
        return false;
    }
    if found.eq_ignore_ascii_case(expected) {
        return true;
    }
    let digits = |s: &str| s.trim_start_matches(['-', '+', '\u{2212}']).to_string();
    let numeric = |s: &str| !digits(s).is_empty() && digits(s).chars().all(|c| c.is_ascii_digit());
    if numeric(expected) || numeric(found) {
        // A different error code is a different thing; only a lost sign is "close".
        return numeric(found) && digits(found) == digits(expected);
    }
    // `subscriptionId` for `io.modelcontextprotocol/subscriptionId`: right key, missing prefix.
    if let Some(last) = expected.rsplit(['/', '.']).next() {
        // Case counts here: `JSON` the format is not the `json` of `application/json`.
        if last.len() >= 4 && last != expected && found == last {
            return true;
        }
    }
    let (f, e) = (found.to_lowercase(), expected.to_lowercase());
    let n = e.chars().count();
    if f.chars().count() * 2 < n {
        return false;
    }
    let allowed = (n / 6).clamp(1, 4);
    // Lengths further apart than the edits allowed cannot be close: skip the distance.
    if f.chars().count().abs_diff(n) > allowed {
        return false;
    }
    strsim::osa_distance(&f, &e) <= allowed
}

/// A protocol identifier as an answer writes it: a method or path (`notifications/cancelled`),
/// a dotted field (`params._meta`), a snake or camel case name (`resultType`, `list_changed`), a
/// header (`Mcp-Session-Id`), a number of two digits or more (`-32602`, `304`). Hyphenated
/// words (`re-fetch`, `keep-alive`) and abbreviations (`e.g.`) are prose.
pub fn is_protocol_identifier(w: &str) -> bool {
    let w = w.trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | '*' | '.' | ',' | ':' | ';'));
    if w.len() < 2
        || matches!(
            w.to_ascii_lowercase().as_str(),
            "e.g" | "i.e" | "vs" | "etc"
        )
    {
        return false;
    }
    let digits = w.trim_start_matches(['-', '+']);
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        return digits.len() >= 2;
    }
    let inner = w.get(1..).unwrap_or("");
    let header = w.starts_with(|c: char| c.is_ascii_uppercase()) && inner.contains('-');
    w.contains(['/', '_'])
        || (w.contains('.') && w.split('.').all(|p| !p.is_empty()))
        || inner.chars().any(|c| c.is_ascii_uppercase())
            && w.chars().any(|c| c.is_ascii_lowercase())
        || header
}

/// The protocol identifiers of a text, lower-cased, each with its byte range.
pub fn protocol_identifiers(text: &str) -> Vec<(String, usize, usize)> {
    ident_candidates(text)
        .into_iter()
        .filter(|&(s, e)| is_protocol_identifier(&text[s..e]))
        .map(|(s, e)| {
            let w = text[s..e].trim_matches(|c: char| matches!(c, '\'' | '"' | '`' | '*'));
            (w.to_lowercase(), s, e)
        })
        .collect()
}

#[cfg(test)]
mod identifier_tests {
    use super::*;

    #[test]
    fn protocol_identifiers_are_told_from_prose() {
        for id in [
            "notifications/cancelled",
            "params._meta",
            "resultType",
            "list_changed",
            "Mcp-Session-Id",
            "-32602",
            "304",
            "`tools/list`",
        ] {
            assert!(is_protocol_identifier(id), "{id}");
        }
        for prose in [
            "re-fetch",
            "keep-alive",
            "e.g.",
            "7",
            "Line",
            "stdio",
            "HTTP",
            "SSE",
        ] {
            assert!(!is_protocol_identifier(prose), "{prose}");
        }
    }
}
