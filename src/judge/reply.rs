//! Reading the judge's reply leniently: a fenced block, prose around the object, extra fields,
//! a verdict in capitals, `point` for `id` are all accepted. Nothing here is believed yet: the
//! guardrails (`guard.rs`) decide what survives.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::Failure;
use crate::grader::Verdict;

/// At most this many items of each list are read; a model that lists more is rambling.
const MAX_ITEMS: usize = 64;
/// Longest quote or correction kept, in characters.
const MAX_TEXT: usize = 600;

/// The reply contract, as read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    /// What the model said the verdict is: shown, never used (the rule recomputes it).
    pub verdict: Option<Verdict>,
    pub points: Vec<ClaimedPoint>,
    pub misconceptions: Vec<ClaimedMisconception>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimedPoint {
    pub id: String,
    pub quote: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClaimedMisconception {
    /// A red flag's id, or none for a misconception the card does not list.
    pub flag: Option<String>,
    pub quote: String,
    pub correction: String,
}

/// The JSON object in `content`: the whole of it, a fenced block, or the outermost `{…}`.
fn object(content: &str) -> Result<Value, Failure> {
    let t = content.trim();
    if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(t) {
        return Ok(v);
    }
    let unfenced = t
        .split("```")
        .nth(1)
        .map(|b| b.trim_start_matches(|c: char| c.is_ascii_alphabetic()));
    if let Some(Ok(v @ Value::Object(_))) =
        unfenced.map(|b| serde_json::from_str::<Value>(b.trim()))
    {
        return Ok(v);
    }
    let (Some(a), Some(b)) = (t.find('{'), t.rfind('}')) else {
        return Err(if declines(t) {
            Failure::Refused(super::client::clip(t, 120))
        } else {
            Failure::Malformed("no JSON object in it".into())
        });
    };
    match t.get(a..=b).map(serde_json::from_str::<Value>) {
        Some(Ok(v @ Value::Object(_))) => Ok(v),
        Some(Err(e)) => Err(Failure::Malformed(format!("its JSON does not parse: {e}"))),
        _ => Err(Failure::Malformed("no JSON object in it".into())),
    }
}

/// A reply in words that declines the task ("I'm sorry, but I can't …").
fn declines(t: &str) -> bool {
    let l = t.to_lowercase();
    [
        "i'm sorry",
        "i am sorry",
        "i can't",
        "i cannot",
        "i won't",
        "as an ai",
    ]
    .iter()
    .any(|p| l.starts_with(p))
}

fn text_of(v: &Value, keys: &[&str]) -> String {
    let s = keys
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .unwrap_or("");
    s.chars().take(MAX_TEXT).collect()
}

fn list<'v>(o: &'v Value, keys: &[&str]) -> &'v [Value] {
    keys.iter()
        .find_map(|k| o.get(*k).and_then(Value::as_array))
        .map_or(&[], |a| &a[..a.len().min(MAX_ITEMS)])
}

/// Whether `content` is exactly what the request's JSON schema asks for (a bare object with
/// `verdict`, `points`, `misconceptions` and nothing else), or the first way it is not. The
/// judge reads a reply leniently either way; this says whether the endpoint honours the schema.
pub fn honours_schema(content: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(content.trim()).map_err(|_| {
        "the reply is not a bare JSON object (prose or a fence around it)".to_string()
    })?;
    let o = v.as_object().ok_or("the reply is not a JSON object")?;
    let strings = |item: &Value, keys: &[&str], nullable: &[&str]| -> Result<(), String> {
        let item = item.as_object().ok_or("a list item is not an object")?;
        if let Some(k) = item.keys().find(|k| !keys.contains(&k.as_str())) {
            return Err(format!("a list item has an extra field `{k}`"));
        }
        for k in keys {
            match item.get(*k) {
                Some(Value::String(_)) => {}
                Some(Value::Null) if nullable.contains(k) => {}
                _ => return Err(format!("a list item's `{k}` is missing or not a string")),
            }
        }
        Ok(())
    };
    if let Some(k) = o
        .keys()
        .find(|k| !["verdict", "points", "misconceptions"].contains(&k.as_str()))
    {
        return Err(format!("it has an extra field `{k}`"));
    }
    match o.get("verdict").and_then(Value::as_str) {
        Some("pass" | "partial" | "fail") => {}
        _ => return Err("its `verdict` is not one of pass, partial, fail".into()),
    }
    for (list, keys, nullable) in [
        ("points", &["id", "quote"][..], &[][..]),
        (
            "misconceptions",
            &["flag", "quote", "correction"][..],
            &["flag"][..],
        ),
    ] {
        let items = o
            .get(list)
            .and_then(Value::as_array)
            .ok_or_else(|| format!("its `{list}` is missing or not a list"))?;
        for item in items {
            strings(item, keys, nullable)?;
        }
    }
    Ok(())
}

/// Parse the content of the judge's reply.
pub fn parse(content: &str) -> Result<Reply, Failure> {
    let o = object(content)?;
    let known = ["verdict", "points", "misconceptions"];
    if !known.iter().any(|k| o.get(*k).is_some()) {
        return Err(Failure::Malformed(
            "it has none of verdict, points, misconceptions".into(),
        ));
    }
    let verdict = match o.get("verdict").and_then(Value::as_str).map(str::trim) {
        Some(v) if v.eq_ignore_ascii_case("pass") => Some(Verdict::Pass),
        Some(v) if v.eq_ignore_ascii_case("partial") => Some(Verdict::Partial),
        Some(v) if v.eq_ignore_ascii_case("fail") => Some(Verdict::Fail),
        _ => None,
    };
    let points = list(&o, &["points", "key_points"])
        .iter()
        .map(|p| match p {
            // A bare id claims the point with no evidence: the guardrails drop it.
            Value::String(id) => ClaimedPoint {
                id: id.clone(),
                quote: String::new(),
            },
            _ => ClaimedPoint {
                id: text_of(p, &["id", "point"]),
                quote: text_of(p, &["quote", "evidence"]),
            },
        })
        .collect();
    let misconceptions = list(&o, &["misconceptions", "red_flags"])
        .iter()
        .map(|m| {
            let flag = text_of(m, &["flag", "id"]);
            let flag = flag.trim();
            ClaimedMisconception {
                flag: (!flag.is_empty() && flag != "null").then(|| flag.to_string()),
                quote: text_of(m, &["quote", "evidence"]),
                correction: text_of(m, &["correction"]),
            }
        })
        .collect();
    Ok(Reply {
        verdict,
        points,
        misconceptions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_object_is_read() {
        let r = parse(r#"{"verdict":"pass","points":[{"id":"a","quote":"x y"}],"misconceptions":[{"flag":null,"quote":"q","correction":"c"}]}"#).unwrap();
        assert_eq!(r.verdict, Some(Verdict::Pass));
        assert_eq!(r.points[0].id, "a");
        assert_eq!(r.points[0].quote, "x y");
        assert_eq!(r.misconceptions[0].flag, None);
        assert_eq!(r.misconceptions[0].correction, "c");
    }

    #[test]
    fn fences_prose_capitals_and_extra_fields_are_accepted() {
        let r = parse("Here is my grading:\n```json\n{\"verdict\":\"PARTIAL\",\"reasoning\":\"…\",\"points\":[{\"point\":\"a\",\"quote\":\"x\",\"confidence\":0.9}],\"misconceptions\":[]}\n```\nHope it helps.").unwrap();
        assert_eq!(r.verdict, Some(Verdict::Partial));
        assert_eq!(r.points[0].id, "a");
        let r = parse("Sure. {\"verdict\": \"fail\", \"points\": [], \"misconceptions\": [{\"flag\": \"handshake\", \"quote\": \"a handshake\", \"correction\": \"No.\"}]} Done.").unwrap();
        assert_eq!(r.misconceptions[0].flag.as_deref(), Some("handshake"));
    }

    #[test]
    fn what_is_not_the_contract_is_malformed_or_a_refusal() {
        assert!(matches!(
            parse("I think it passes."),
            Err(Failure::Malformed(_))
        ));
        assert!(matches!(
            parse("{\"verdict\": \"pass\", "),
            Err(Failure::Malformed(_))
        ));
        assert!(matches!(
            parse("{\"score\": 3}"),
            Err(Failure::Malformed(_))
        ));
        assert!(matches!(
            parse("I'm sorry, but I can't grade this."),
            Err(Failure::Refused(_))
        ));
    }

    #[test]
    fn the_schema_is_honoured_by_a_bare_exact_object_only() {
        let ok = r#"{"verdict":"pass","points":[{"id":"a","quote":"x"}],"misconceptions":[{"flag":null,"quote":"q","correction":"c"}]}"#;
        assert_eq!(honours_schema(ok), Ok(()));
        let fenced = format!("```json\n{ok}\n```");
        assert!(
            honours_schema(&fenced)
                .unwrap_err()
                .contains("bare JSON object")
        );
        let extra = r#"{"verdict":"pass","points":[],"misconceptions":[],"reasoning":"…"}"#;
        assert!(honours_schema(extra).unwrap_err().contains("`reasoning`"));
        let caps = r#"{"verdict":"PASS","points":[],"misconceptions":[]}"#;
        assert!(honours_schema(caps).unwrap_err().contains("verdict"));
        let point =
            r#"{"verdict":"fail","points":[{"point":"a","quote":"x"}],"misconceptions":[]}"#;
        assert!(honours_schema(point).unwrap_err().contains("`point`"));
    }

    #[test]
    fn long_lists_and_texts_are_cut() {
        let many: Vec<String> = (0..200)
            .map(|i| format!("{{\"id\":\"p{i}\",\"quote\":\"{}\"}}", "w ".repeat(1000)))
            .collect();
        let r = parse(&format!("{{\"points\":[{}]}}", many.join(","))).unwrap();
        assert_eq!(r.points.len(), MAX_ITEMS);
        assert_eq!(r.points[0].quote.chars().count(), MAX_TEXT);
    }
}
