//! DNS-rebinding protection (§1.3 Origin MUST; Host is [SILENT] in the spec): `Origin`, every
//! `Host` and an absolute-form target's authority are parsed strictly, never matched as text.
//!
//! A browser tricked into talking to a loopback server (DNS rebinding) still sends the
//! attacker's name in `Host` and the attacker's page in `Origin`; prefix or substring matching
//! lets `http://localhost:x@evil.com` or `http://[::1]evil.com` through, so both are parsed into
//! scheme, host and port, and anything that is not exactly that shape is refused.

use std::net::{Ipv4Addr, Ipv6Addr};

use axum::http::{HeaderMap, StatusCode, Uri, header};

/// A host as it appears in `Host` or an origin: a DNS name (lower-cased) or an IP literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostName {
    Name(String),
    V4(Ipv4Addr),
    V6(Ipv6Addr),
}

impl HostName {
    /// `localhost`, 127.0.0.0/8 or `[::1]`: names a rebinding attacker cannot point elsewhere.
    pub(crate) fn is_loopback(&self) -> bool {
        match self {
            HostName::Name(n) => n == "localhost",
            HostName::V4(ip) => ip.is_loopback(),
            HostName::V6(ip) => ip.is_loopback(),
        }
    }
}

/// `host[:port]`: the value of a `Host` header or the authority of a request target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Authority {
    pub host: HostName,
    pub port: Option<u16>,
}

/// A serialized origin (RFC 6454 §7): `scheme "://" host [":" port]`, nothing more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    /// `http` or `https`, lower-cased.
    pub scheme: String,
    pub authority: Authority,
}

impl Origin {
    /// The port with the scheme's default filled in, so `http://a` equals `http://a:80`.
    fn effective_port(&self) -> u16 {
        self.authority
            .port
            .unwrap_or(if self.scheme == "https" { 443 } else { 80 })
    }

    /// Same scheme, host and (effective) port.
    pub(crate) fn same_as(&self, other: &Origin) -> bool {
        self.scheme == other.scheme
            && self.authority.host == other.authority.host
            && self.effective_port() == other.effective_port()
    }
}

/// Parses `host[:port]` (RFC 9110 §7.2, RFC 3986 §3.2.2): a DNS name of letters, digits,
/// hyphens and dots, a dotted-quad IPv4 address or a bracketed IPv6 address, then an optional
/// port of 1–5 digits up to 65535. Userinfo, paths, spaces, percent-escapes and non-ASCII are
/// refused; `Err` says what is wrong.
pub(crate) fn parse_authority(s: &str) -> Result<Authority, String> {
    if s.is_empty() {
        return Err("it is empty".into());
    }
    if s.contains('@') {
        return Err("it carries userinfo (`user@`), which is never allowed here".into());
    }
    if let Some(c) = s.chars().find(|c| !c.is_ascii_graphic()) {
        return Err(format!("it contains {c:?}, which no host name has"));
    }
    let (host, port) = if let Some(rest) = s.strip_prefix('[') {
        let Some((inside, after)) = rest.split_once(']') else {
            return Err("an IPv6 address opened with `[` is never closed with `]`".into());
        };
        let ip: Ipv6Addr = inside
            .parse()
            .map_err(|_| format!("{inside:?} is not an IPv6 address"))?;
        let port = match after {
            "" => None,
            p => Some(
                p.strip_prefix(':')
                    .ok_or_else(|| format!("{p:?} follows the IPv6 address; only `:PORT` may"))?,
            ),
        };
        (HostName::V6(ip), port)
    } else {
        let (name, port) = match s.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (s, None),
        };
        (parse_name(name)?, port)
    };
    let port = match port {
        None => None,
        Some(p) => Some(parse_port(p)?),
    };
    Ok(Authority { host, port })
}

fn parse_name(name: &str) -> Result<HostName, String> {
    if name.is_empty() {
        return Err("the host name is empty".into());
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '.'))
    {
        return Err(format!("{c:?} may not appear in a host name"));
    }
    // All digits and dots: it can only be an IPv4 address, and only in dotted-quad form
    // (no `2130706433`, no `127.1`, no leading zeros), so there is one spelling per address.
    if name.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return name
            .parse::<Ipv4Addr>()
            .map(HostName::V4)
            .map_err(|_| format!("{name:?} is not a dotted-quad IPv4 address"));
    }
    if name
        .split('.')
        .any(|label| label.is_empty() || label.len() > 63)
        || name.len() > 253
    {
        return Err(format!("{name:?} has an empty or over-long label"));
    }
    Ok(HostName::Name(name.to_ascii_lowercase()))
}

fn parse_port(p: &str) -> Result<u16, String> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("the port {p:?} is not 1 to 5 digits"));
    }
    p.parse()
        .map_err(|_| format!("the port {p} is beyond 65535"))
}

/// Parses an `Origin` value as a serialized origin. `null`, other schemes, userinfo, a path
/// (even `/`), a query or anything after the port is refused.
pub(crate) fn parse_origin(s: &str) -> Result<Origin, String> {
    let Some((scheme, rest)) = s.split_once("://") else {
        return Err(
            "it is not `scheme://host[:port]` (an opaque origin like `null` is never trusted)"
                .into(),
        );
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Err(format!("the scheme {scheme:?} is not http or https"));
    }
    if let Some(i) = rest.find(['/', '?', '#']) {
        return Err(format!(
            "an origin has no path, query or fragment, but {:?} follows the host",
            &rest[i..]
        ));
    }
    let authority = parse_authority(rest)?;
    Ok(Origin { scheme, authority })
}

/// A refusal: the status (400 for a malformed request, 403 for a foreign name) and why.
pub(crate) type Refusal = (StatusCode, String);

/// The request-level checks, configured once per server.
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    /// `--allow-origin` values, parsed.
    allowed: Vec<Origin>,
    /// Host names are judged only when bound to loopback (DNS rebinding targets loopback); their
    /// syntax and count are checked always.
    check_host: bool,
}

impl Guard {
    /// Validates the configured origins; `Err` names the one that is not an origin.
    pub(crate) fn new(allowed: &[String], check_host: bool) -> Result<Guard, String> {
        let allowed = allowed
            .iter()
            .map(|o| {
                parse_origin(o).map_err(|why| {
                    format!(
                        "--allow-origin {o:?} is not an origin ({why}); write it like https://tutor.example or http://localhost:5173"
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Guard {
            allowed,
            check_host,
        })
    }

    fn host_allowed(&self, a: &Authority) -> bool {
        !self.check_host
            || a.host.is_loopback()
            || self.allowed.iter().any(|o| o.authority.host == a.host)
    }

    /// Exactly one readable `Host` (RFC 9112 §3.2: missing, repeated or invalid → 400), a loopback
    /// or configured name (→ 403), the same for an absolute-form target's authority, then
    /// `Origin` when present: a loopback or configured origin, sent once (→ 403).
    pub(crate) fn check(&self, headers: &HeaderMap, uri: &Uri) -> Result<(), Refusal> {
        let bad = |why: String| (StatusCode::BAD_REQUEST, why);
        let foreign = |why: String| (StatusCode::FORBIDDEN, why);
        let hosts: Vec<_> = headers.get_all(header::HOST).iter().collect();
        let host = match hosts.as_slice() {
            [] => {
                return Err(bad(
                    "the request has no Host header; HTTP/1.1 requires exactly one (RFC 9112 §3.2)"
                        .into(),
                ));
            }
            [one] => one,
            more => {
                return Err(bad(format!(
                    "the Host header is sent {} times; HTTP/1.1 requires exactly one (RFC 9112 §3.2)",
                    more.len()
                )));
            }
        };
        let Ok(host) = host.to_str() else {
            return Err(bad("the Host header is not visible ASCII".into()));
        };
        let authority = parse_authority(host)
            .map_err(|why| bad(format!("Host {host:?} is not host[:port]: {why}")))?;
        if !self.host_allowed(&authority) {
            return Err(foreign(format!(
                "Host {host:?} is not a loopback name (DNS-rebinding protection; --allow-origin adds names)"
            )));
        }
        // An absolute-form target (`POST http://evil.example/mcp`) names the host too, and
        // RFC 9112 §3.2.2 makes it win over Host: judge it the same way.
        if let Some(target) = uri.authority() {
            let t = target.as_str();
            let authority = parse_authority(t).map_err(|why| {
                bad(format!(
                    "the request target's authority {t:?} is not host[:port]: {why}"
                ))
            })?;
            if !self.host_allowed(&authority) {
                return Err(foreign(format!(
                    "the request target names {t:?}, not a loopback host (DNS-rebinding protection)"
                )));
            }
        }
        let origins: Vec<_> = headers.get_all(header::ORIGIN).iter().collect();
        let origin = match origins.as_slice() {
            [] => return Ok(()),
            [one] => one,
            _ => return Err(foreign("the Origin header is sent more than once".into())),
        };
        let Ok(origin) = origin.to_str() else {
            return Err(foreign("the Origin header is not visible ASCII".into()));
        };
        let origin = origin.trim_matches([' ', '\t']);
        let parsed = parse_origin(origin)
            .map_err(|why| foreign(format!("Origin {origin:?} is refused: {why}")))?;
        if parsed.authority.host.is_loopback() || self.allowed.iter().any(|a| a.same_as(&parsed)) {
            Ok(())
        } else {
            Err(foreign(format!(
                "Origin {origin:?} is not allowed (only loopback origins and --allow-origin ones)"
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tricky value, and whether a loopback server must accept it.
    const ORIGINS: &[(&str, bool)] = &[
        ("http://localhost", true),
        ("http://localhost:8080", true),
        ("https://LOCALHOST:1", true),
        ("HTTP://127.0.0.1:5173", true),
        ("http://127.0.0.2", true),
        ("http://[::1]:3000", true),
        ("http://[0:0:0:0:0:0:0:1]", true),
        ("http://localhost:x@evil.com", false),
        ("http://localhost@evil.com", false),
        ("http://user:pass@localhost", false),
        ("http://[::1]evil.com", false),
        ("http://[::1].evil.com", false),
        ("http://[::1", false),
        ("http://localhost.evil.com", false),
        ("http://evil.com#localhost", false),
        ("http://evil.com?localhost", false),
        ("http://localhost/", false),
        ("http://localhost/evil", false),
        ("http://localhost:", false),
        ("http://localhost:99999", false),
        ("http://localhost:8o", false),
        ("http://localhost:+80", false),
        ("http://localhost:80:80", false),
        ("http://localhost.", false),
        ("http://local host", false),
        ("http://localhost%2eevil.com", false),
        ("http://lоcalhost", false), // Cyrillic o
        ("http://2130706433", false),
        ("http://127.1", false),
        ("http://0177.0.0.1", false),
        ("http://0x7f.0.0.1", false),
        ("http://[::ffff:127.0.0.1]", false),
        ("http://[::2]", false),
        ("ftp://localhost", false),
        ("file://", false),
        ("null", false),
        ("localhost", false),
        ("//localhost", false),
        ("http:/localhost", false),
        ("http://", false),
        ("", false),
        ("http://evil.example", false),
        ("http://[fe80::1%25eth0]", false),
        ("http://localhost\\@evil.com", false),
        ("http://.localhost", false),
        ("http://a..b", false),
    ];

    #[test]
    fn origin_table() {
        assert!(ORIGINS.len() >= 30);
        for (value, want) in ORIGINS {
            let got = parse_origin(value).is_ok_and(|o| o.authority.host.is_loopback());
            assert_eq!(got, *want, "Origin {value:?}: {:?}", parse_origin(value));
        }
    }

    #[test]
    fn host_table() {
        let hosts: &[(&str, bool)] = &[
            ("localhost", true),
            ("localhost:1234", true),
            ("LocalHost", true),
            ("127.0.0.1:80", true),
            ("[::1]:8000", true),
            ("[::1]", true),
            ("::1", false), // unbracketed IPv6 is not a Host value
            ("evil.example", false),
            ("localhost.evil.example", false),
            ("evil@localhost", false),
            ("localhost:80@evil", false),
            ("localhost/", false),
            ("local\u{e9}host", false),
            ("", false),
            (":80", false),
            ("localhost:", false),
            ("localhost:65536", false),
            ("[::1]:80x", false),
            ("127.0.0.1.evil", false),
            ("127.000.0.1", false),
        ];
        for (value, want) in hosts {
            let got = parse_authority(value).is_ok_and(|a| a.host.is_loopback());
            assert_eq!(got, *want, "Host {value:?}: {:?}", parse_authority(value));
        }
    }

    #[test]
    fn refusals_say_why() {
        let why = |s| parse_origin(s).err().unwrap_or_default();
        assert!(why("http://localhost:x@evil.com").contains("userinfo"));
        assert!(why("http://[::1]evil.com").contains("only `:PORT`"));
        assert!(why("null").contains("null"));
        assert!(why("http://localhost/").contains("path"));
        assert!(why("http://localhost:99999").contains("65535"));
    }

    #[test]
    fn configured_origins_compare_by_parts() {
        let a = parse_origin("https://tutor.example").unwrap();
        assert!(a.same_as(&parse_origin("HTTPS://Tutor.Example:443").unwrap()));
        assert!(!a.same_as(&parse_origin("http://tutor.example").unwrap()));
        assert!(!a.same_as(&parse_origin("https://tutor.example:8443").unwrap()));
        assert!(!a.same_as(&parse_origin("https://tutor.example.evil").unwrap()));
    }
}
