//! JSON-RPC request ids: a string or an integer, with the JSON type kept (§4.6).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use super::json_type_name;

/// A JSON-RPC request id: a string or an integer, never null (§4.6; BASE §Requests).
///
/// The JSON type is part of the identity: `RequestId::Str("7")` ≠ `RequestId::Int(7)`, and the
/// subscription tag must echo the listen id with the same type (§4.6, §4.11 #2).
/// `Display` prints the JSON form (`"tutor-7"` with quotes, `7` without) so the type stays visible.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    Int(i64),
    Str(String),
}

impl RequestId {
    /// Reads an id from JSON: a string or an integer that fits i64; anything else is `None`.
    pub fn from_value(v: &Value) -> Option<RequestId> {
        match v {
            Value::String(s) => Some(RequestId::Str(s.clone())),
            Value::Number(n) => n.as_i64().map(RequestId::Int),
            _ => None,
        }
    }

    /// Why `v` is not a request id, for a value [`RequestId::from_value`] refused: an integer
    /// beyond i64 is "out of range" (JSON allows it, this server's ids do not), anything else is
    /// the wrong type.
    pub fn why_not(v: &Value) -> String {
        // serde_json keeps integers beyond u64 as f64; 2^63 is the first one i64 cannot hold.
        let beyond_i64 = |f: f64| f.fract() == 0.0 && f.abs() >= 9_223_372_036_854_775_808.0;
        let out_of_range = match v {
            Value::Number(n) => n.is_u64() || n.as_f64().is_some_and(beyond_i64),
            _ => false,
        };
        if out_of_range {
            format!(
                "the request id {v} is out of range: integer ids must fit in a signed 64-bit integer ({} to {}); use a smaller number or a string",
                i64::MIN,
                i64::MAX
            )
        } else {
            let what = match v {
                Value::Number(_) => format!("a number with a fraction or exponent ({v})"),
                other => json_type_name(other).to_owned(),
            };
            format!("a request id must be a string or an integer (never null), not {what}")
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(*n),
            RequestId::Str(s) => Value::from(s.as_str()),
        }
    }

    /// The same id with its JSON type flipped (`7` ↔ `"7"`); used by the `id-type-changed` fault
    /// and by tests that prove a checker notices it.
    pub fn type_flipped(&self) -> Value {
        match self {
            RequestId::Int(n) => Value::from(n.to_string()),
            RequestId::Str(s) => match s.parse::<i64>() {
                Ok(n) => Value::from(n),
                // A non-numeric string has no integer twin; an array is a type change too.
                Err(_) => json!([s]),
            },
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Int(n) => write!(f, "{n}"),
            RequestId::Str(s) => write!(f, "{}", Value::from(s.as_str())),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Int(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::Str(s.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::Str(s)
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Int(n) => s.serialize_i64(*n),
            RequestId::Str(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        RequestId::from_value(&v).ok_or_else(|| serde::de::Error::custom(RequestId::why_not(&v)))
    }
}

#[cfg(test)]
mod tests {
    use crate::protocol::*;
    use serde_json::{Value, json};
    #[test]
    fn request_id_keeps_its_json_type() {
        let s: RequestId = serde_json::from_str(r#""7""#).unwrap();
        let n: RequestId = serde_json::from_str("7").unwrap();
        assert_eq!(s, RequestId::Str("7".into()));
        assert_eq!(n, RequestId::Int(7));
        assert_ne!(s, n);
        assert_eq!(serde_json::to_string(&s).unwrap(), r#""7""#);
        assert_eq!(serde_json::to_string(&n).unwrap(), "7");
        assert_eq!(s.to_string(), r#""7""#);
        assert_eq!(n.to_string(), "7");
        assert!(serde_json::from_str::<RequestId>("null").is_err());
        assert!(serde_json::from_str::<RequestId>("1.5").is_err());
        assert_eq!(n.type_flipped(), json!("7"));
        assert_eq!(s.type_flipped(), json!(7));
        assert_eq!(RequestId::from("abc").type_flipped(), json!(["abc"]));
    }

    #[test]
    fn ids_beyond_i64_are_out_of_range_and_fractions_the_wrong_type() {
        for big in ["9223372036854775808", "1e19", "-9223372036854775809"] {
            let v: Value = serde_json::from_str(big).expect("JSON");
            assert_eq!(RequestId::from_value(&v), None);
            assert!(RequestId::why_not(&v).contains("out of range"), "{big}");
        }
        for other in ["1.5", "1e3", "null", "true", "[1]"] {
            let v: Value = serde_json::from_str(other).expect("JSON");
            assert!(!RequestId::why_not(&v).contains("out of range"), "{other}");
        }
        let m = Message::parse(r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"x"}"#);
        assert!(
            matches!(&m, Message::Invalid { reason, .. } if reason.contains("out of range")),
            "{m:?}"
        );
    }
}
