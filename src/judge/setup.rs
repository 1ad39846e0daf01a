//! `judge setup`: find a model server on this machine and write the `[judge]` table. Only the
//! usual local ports on loopback are probed (or the URLs the learner names): a hosted API is
//! never contacted unless its URL is configured.

use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;

/// The local servers probed by default: name and root URL.
pub const LOCAL: [(&str, &str); 4] = [
    ("Ollama", "http://127.0.0.1:11434"),
    ("llama.cpp", "http://127.0.0.1:8080"),
    ("LM Studio", "http://127.0.0.1:1234"),
    ("vLLM", "http://127.0.0.1:8000"),
];

/// How long one probe may take: a server on loopback answers its model list at once.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// What a probe found at one root URL.
#[derive(Debug, Clone)]
pub struct Probed {
    pub name: String,
    /// The OpenAI-compatible base URL (`ROOT/v1`), for `url` in the config file.
    pub base: String,
    /// The models it serves, or why none were listed.
    pub models: Result<Vec<String>, String>,
}

/// The root of a URL the learner gave (`http://host:port/v1` → `http://host:port`).
pub fn root_of(url: &str) -> String {
    let t = url.trim().trim_end_matches('/');
    t.strip_suffix("/v1").unwrap_or(t).to_string()
}

/// Probe every `(name, root)` at once, each within [`PROBE_TIMEOUT`].
pub fn probe(targets: &[(String, String)]) -> anyhow::Result<Vec<Probed>> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the probe's runtime")?;
    let client = reqwest::Client::builder()
        .user_agent(concat!("mcp-tutor/", env!("CARGO_PKG_VERSION")))
        .timeout(PROBE_TIMEOUT)
        .build()
        .context("could not build the HTTP client for the probe")?;
    Ok(
        rt.block_on(futures_util::future::join_all(targets.iter().map(
            |(name, root)| {
                let client = client.clone();
                async move {
                    Probed {
                        name: name.clone(),
                        base: format!("{root}/v1"),
                        models: models(&client, root).await,
                    }
                }
            },
        ))),
    )
}

/// The models served at `root`: the OpenAI-compatible `/v1/models`, else Ollama's `/api/tags`.
async fn models(client: &reqwest::Client, root: &str) -> Result<Vec<String>, String> {
    let openai = get(client, &format!("{root}/v1/models")).await;
    if let Ok(v) = &openai {
        let ids = names(v, "data", "id");
        if !ids.is_empty() {
            return Ok(ids);
        }
    }
    match get(client, &format!("{root}/api/tags")).await {
        Ok(v) => Ok(names(&v, "models", "name")),
        Err(e) => Err(openai.err().unwrap_or(e)),
    }
}

fn names(v: &Value, list: &str, field: &str) -> Vec<String> {
    v.get(list)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|m| m.get(field).and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

async fn get(client: &reqwest::Client, url: &str) -> Result<Value, String> {
    let resp = client.get(url).send().await.map_err(|e| {
        if e.is_timeout() {
            "no answer in time".to_string()
        } else if e.is_connect() {
            "nothing listening".to_string()
        } else {
            super::client::clip(&e.to_string(), 80)
        }
    })?;
    if !resp.status().is_success() {
        return Err(format!("HTTP {}", resp.status().as_u16()));
    }
    let text = resp.text().await.map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|_| "not a model list".to_string())
}

/// `text` (a config file, maybe empty) with `[judge]`'s `url` and `model` set; every other
/// line, comments included, is kept.
pub fn with_judge(text: &str, url: &str, model: &str) -> String {
    let q = |s: &str| toml::Value::String(s.to_string()).to_string();
    let set = [("url", q(url)), ("model", q(model))];
    let mut out: Vec<String> = Vec::new();
    let mut in_judge = false;
    let mut found = false;
    let mut written: Vec<&str> = Vec::new();
    let flush = |out: &mut Vec<String>, written: &mut Vec<&str>| {
        for (k, v) in &set {
            if !written.contains(k) {
                out.push(format!("{k} = {v}"));
                written.push(k);
            }
        }
    };
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            if in_judge {
                // Keep the table's blank lines and comments at its end after the new keys.
                let tail = out.iter().rev().take_while(|l| l.trim().is_empty()).count();
                let kept: Vec<String> = out.split_off(out.len() - tail);
                flush(&mut out, &mut written);
                out.extend(kept);
            }
            in_judge = t.trim_start_matches('[').trim_end_matches(']').trim() == "judge";
            found |= in_judge;
            out.push(line.to_string());
            continue;
        }
        if in_judge {
            let key = t.split('=').next().unwrap_or("").trim();
            if let Some((k, v)) = set.iter().find(|(k, _)| *k == key) {
                if !written.contains(k) {
                    out.push(format!("{k} = {v}"));
                    written.push(k);
                }
                continue;
            }
        }
        out.push(line.to_string());
    }
    if in_judge {
        flush(&mut out, &mut written);
    }
    if !found {
        if out.last().is_some_and(|l| !l.trim().is_empty()) {
            out.push(String::new());
        }
        out.push("[judge]".into());
        flush(&mut out, &mut written);
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// Write `[judge]` with `url` and `model` into the config file at `path`.
pub fn write_config(path: &Path, url: &str, model: &str) -> anyhow::Result<()> {
    let old = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => anyhow::bail!("cannot read the config file {}: {e}", path.display()),
    };
    let new = with_judge(&old, url, model);
    // Never leave a file the next run refuses.
    toml::from_str::<toml::Table>(&new).with_context(|| {
        format!(
            "{} does not parse as TOML: fix it by hand, then run `mcp-tutor judge setup` again",
            path.display()
        )
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the config folder {}", dir.display()))?;
    }
    std::fs::write(path, new).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_the_table() {
        assert_eq!(
            with_judge("", "http://127.0.0.1:11434/v1", "llama3.1:8b"),
            "[judge]\nurl = \"http://127.0.0.1:11434/v1\"\nmodel = \"llama3.1:8b\"\n"
        );
    }

    #[test]
    fn an_existing_table_keeps_its_other_keys_comments_and_neighbours() {
        let old = "# mine\n[other]\nx = 1\n\n[judge]\nurl = \"http://old/v1\" # was\ntimeout = 5\n\n[more]\ny = 2\n";
        assert_eq!(
            with_judge(old, "http://new/v1", "m"),
            "# mine\n[other]\nx = 1\n\n[judge]\nurl = \"http://new/v1\"\ntimeout = 5\nmodel = \"m\"\n\n[more]\ny = 2\n"
        );
        assert_eq!(
            with_judge("[other]\nx = 1\n", "u", "m"),
            "[other]\nx = 1\n\n[judge]\nurl = \"u\"\nmodel = \"m\"\n"
        );
    }

    #[test]
    fn a_url_given_with_its_v1_is_probed_at_its_root() {
        assert_eq!(root_of("http://h:1/v1/"), "http://h:1");
        assert_eq!(root_of("http://h:1"), "http://h:1");
    }
}
