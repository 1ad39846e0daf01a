//! Which model judges, if any. Off unless the learner asks: `--judge URL` (or, for `quiz` and
//! `grade`, `MCP_TUTOR_JUDGE_URL` or `url` in the config file's `[judge]` table). The model and
//! the timeout come from the flag, else the environment, else the config file; the key only
//! ever from `MCP_TUTOR_JUDGE_KEY`, and it is never shown, logged or stored.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Deserialize;

pub const URL_ENV: &str = "MCP_TUTOR_JUDGE_URL";
pub const MODEL_ENV: &str = "MCP_TUTOR_JUDGE_MODEL";
pub const KEY_ENV: &str = "MCP_TUTOR_JUDGE_KEY";
pub const DEFAULT_TIMEOUT_SECS: f64 = 20.0;
/// A judge slower than this is no help in a quiz; it also keeps a typo (`2000`) from hanging.
const MAX_TIMEOUT_SECS: f64 = 600.0;

/// The judge's flags, shared by `quiz`, `grade` and `decks eval`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JudgeArgs {
    /// Also grade with a language model at this OpenAI-compatible base URL (e.g.
    /// http://localhost:11434/v1 for Ollama). Sends the card's rubric and your answer there;
    /// off unless asked. Env: MCP_TUTOR_JUDGE_URL; key: MCP_TUTOR_JUDGE_KEY.
    #[arg(long, value_name = "URL")]
    pub judge: Option<String>,
    /// The judge's model name (e.g. llama3.1:8b). Env: MCP_TUTOR_JUDGE_MODEL.
    #[arg(long, value_name = "NAME")]
    pub judge_model: Option<String>,
    /// Give up on the judge after this many seconds and keep the rules' verdict (default 20).
    #[arg(long, value_name = "SECS")]
    pub judge_timeout: Option<f64>,
    /// Grade by the rules alone, even when a judge is configured.
    #[arg(long, conflicts_with = "judge")]
    pub no_judge: bool,
}

/// Whether a configured URL (environment, config file) turns the judge on, or only the flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `quiz` and `grade`: a learner who configured a judge wants it.
    Learner,
    /// `decks eval`: a whole corpus is only sent with `--judge URL` on the command line.
    FlagOnly,
}

/// A judge ready to be asked.
#[derive(Clone)]
pub struct Settings {
    /// `…/chat/completions`, built from the base URL.
    pub endpoint: reqwest::Url,
    pub model: String,
    pub timeout: Duration,
    key: Option<String>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("endpoint", &self.endpoint.as_str())
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .field("key", &self.key.as_ref().map(|_| "(set)"))
            .finish()
    }
}

impl Settings {
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// `text` with the key, wherever it appears, replaced: a reply or an error body may echo
    /// the request's headers, and nothing the key is in may be shown or stored.
    pub fn redact(&self, text: &str) -> String {
        match self.key() {
            Some(k) if !k.is_empty() && text.contains(k) => text.replace(k, "[key withheld]"),
            _ => text.to_string(),
        }
    }
}

/// The `[judge]` table of the config file. A key is named only to be refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileJudge {
    url: Option<String>,
    model: Option<String>,
    timeout: Option<f64>,
    #[serde(default, alias = "api_key")]
    key: Option<toml::Value>,
}

/// The config file: only `[judge]` is read here; other tables belong to other settings.
#[derive(Debug, Default, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    judge: Option<FileJudge>,
}

/// What the config file says about the judge (nothing when there is no file).
fn from_file(path: Option<&Path>) -> anyhow::Result<(FileJudge, String)> {
    let Some(path) = path else {
        return Ok((FileJudge::default(), String::new()));
    };
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((FileJudge::default(), shown));
        }
        Err(e) => bail!("cannot read the config file {shown}: {e}"),
    };
    let at = |offset: usize| crate::deck::locate::line_col(&text, offset);
    let file: ConfigFile = toml::from_str(&text).map_err(|e| {
        let (line, col) = e.span().map(|s| at(s.start)).unwrap_or((0, 0));
        // serde lists every field it knows, the refused `key` and `api_key` among them: name
        // only the ones to write, and the nearest.
        let message = match unknown_field(e.message()) {
            Some(name) => mock_server::names::unknown(
                "[judge] field",
                name,
                FIELDS,
                "the [judge] table takes url, model and timeout",
            ),
            None => format!(
                "{} (the [judge] table takes url, model and timeout)",
                e.message().trim()
            ),
        };
        anyhow::anyhow!("{shown}:{line}:{col}: {message}; the key is read only from {KEY_ENV}")
    })?;
    let judge = file.judge.unwrap_or_default();
    if judge.key.is_some() {
        bail!(
            "{shown}: [judge] holds a key; a key is never read from a file (files get copied and shared): remove it and set {KEY_ENV} instead"
        );
    }
    Ok((judge, shown))
}

/// The fields a `[judge]` table may hold.
const FIELDS: [&str; 3] = ["url", "model", "timeout"];

/// The field serde's "unknown field `modle`, expected one of …" names.
fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.trim().strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(name, _)| name)
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// The judge these flags, the environment and the config file at `config` ask for, if any.
pub fn resolve(
    args: &JudgeArgs,
    scope: Scope,
    config: Option<PathBuf>,
) -> anyhow::Result<Option<Settings>> {
    if args.no_judge {
        return Ok(None);
    }
    let (file, shown) = from_file(config.as_deref())?;
    let (url, from) = match (&args.judge, scope) {
        (Some(u), _) => (u.clone(), "--judge".to_string()),
        (None, Scope::FlagOnly) => return Ok(None),
        (None, Scope::Learner) => match (env(URL_ENV), &file.url) {
            (Some(u), _) => (u, URL_ENV.to_string()),
            (None, Some(u)) => (u.clone(), format!("`url` in {shown}")),
            (None, None) => return Ok(None),
        },
    };
    let model = args
        .judge_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .or_else(|| env(MODEL_ENV))
        .or(file.model.clone())
        .with_context(|| {
            format!(
                "the judge at {url} needs a model name: pass --judge-model NAME (e.g. llama3.1:8b for Ollama), set {MODEL_ENV}, or write `model = \"NAME\"` under [judge] in {}",
                if shown.is_empty() { "the config file" } else { &shown }
            )
        })?;
    let secs = args
        .judge_timeout
        .or(file.timeout)
        .unwrap_or(DEFAULT_TIMEOUT_SECS);
    if !(secs > 0.0 && secs <= MAX_TIMEOUT_SECS) {
        bail!(
            "judge timeout {secs} s is out of range: give seconds between 0 and {MAX_TIMEOUT_SECS} (e.g. --judge-timeout 20)"
        );
    }
    Ok(Some(Settings {
        endpoint: endpoint(&url, &from)?,
        model: model.trim().to_string(),
        timeout: Duration::from_secs_f64(secs),
        key: env(KEY_ENV),
    }))
}

/// The model a request would name (flag, environment, config file), judge on or not: for
/// `grade --judge-prompt`, which sends nothing.
pub fn model_named(args: &JudgeArgs, config: Option<PathBuf>) -> anyhow::Result<Option<String>> {
    let (file, _) = from_file(config.as_deref())?;
    Ok(args
        .judge_model
        .clone()
        .filter(|m| !m.trim().is_empty())
        .or_else(|| env(MODEL_ENV))
        .or(file.model))
}

/// `{URL}/chat/completions`; a URL that already ends there is taken as it is.
fn endpoint(url: &str, from: &str) -> anyhow::Result<reqwest::Url> {
    let trimmed = url.trim().trim_end_matches('/');
    let full = if trimmed.ends_with("/chat/completions") {
        trimmed.to_string()
    } else {
        format!("{trimmed}/chat/completions")
    };
    let parsed = reqwest::Url::parse(&full).map_err(|e| {
        anyhow::anyhow!(
            "{from}: {url:?} is not a URL ({e}); give the base of an OpenAI-compatible API, e.g. http://localhost:11434/v1"
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        bail!("{from}: {url:?}: the judge's URL must start with http:// or https://");
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(url: Option<&str>, model: Option<&str>) -> JudgeArgs {
        JudgeArgs {
            judge: url.map(str::to_string),
            judge_model: model.map(str::to_string),
            ..JudgeArgs::default()
        }
    }

    #[test]
    fn the_flag_builds_the_chat_completions_endpoint() {
        let s = resolve(
            &args(Some("http://localhost:11434/v1/"), Some("m")),
            Scope::FlagOnly,
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            s.endpoint.as_str(),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(s.timeout, Duration::from_secs(20));
        let s = resolve(
            &args(Some("http://h/v1/chat/completions"), Some("m")),
            Scope::FlagOnly,
            None,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.endpoint.as_str(), "http://h/v1/chat/completions");
    }

    #[test]
    fn off_unless_asked_and_no_judge_wins() {
        assert!(
            resolve(&args(None, Some("m")), Scope::FlagOnly, None)
                .unwrap()
                .is_none()
        );
        let mut a = args(Some("http://h/v1"), Some("m"));
        a.no_judge = true;
        assert!(resolve(&a, Scope::Learner, None).unwrap().is_none());
    }

    #[test]
    fn a_missing_model_or_bad_url_says_how_to_fix_it() {
        let e = resolve(&args(Some("http://h/v1"), None), Scope::FlagOnly, None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("--judge-model NAME"), "{e}");
        let e = resolve(&args(Some("ftp://h"), Some("m")), Scope::FlagOnly, None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("http:// or https://"), "{e}");
    }

    #[test]
    fn the_config_file_sets_url_model_and_timeout_but_never_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("config.toml");
        std::fs::write(
            &f,
            "[judge]\nurl = \"http://h/v1\"\nmodel = \"m\"\ntimeout = 3\n",
        )
        .unwrap();
        let s = resolve(&JudgeArgs::default(), Scope::Learner, Some(f.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(s.model, "m");
        assert_eq!(s.timeout, Duration::from_secs(3));
        // The corpus is never sent because a quiz setting exists.
        assert!(
            resolve(&JudgeArgs::default(), Scope::FlagOnly, Some(f.clone()))
                .unwrap()
                .is_none()
        );
        std::fs::write(&f, "[judge]\nurl = \"http://h/v1\"\nkey = \"sk-1\"\n").unwrap();
        let e = resolve(&JudgeArgs::default(), Scope::Learner, Some(f.clone()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("never read from a file"), "{e}");
        assert!(!e.contains("sk-1"), "{e}");
        std::fs::write(&f, "[judge]\ntimeout_secs = 3\n").unwrap();
        let e = resolve(&JudgeArgs::default(), Scope::Learner, Some(f.clone()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("timeout_secs"), "{e}");
        assert!(e.contains("config.toml:2:1"), "located: {e}");
        // A misspelt field: the nearest one, and never the refused key as if it were expected.
        std::fs::write(&f, "[judge]\nurl = \"http://h/v1\"\nmodle = \"m\"\n").unwrap();
        let e = resolve(&JudgeArgs::default(), Scope::Learner, Some(f))
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.ends_with(
                "config.toml:3:1: no [judge] field `modle`: did you mean `model`? (the [judge] \
                 table takes url, model and timeout); the key is read only from \
                 MCP_TUTOR_JUDGE_KEY"
            ),
            "{e}"
        );
        assert!(!e.contains("api_key"), "{e}");
    }

    #[test]
    fn the_key_is_withheld_from_debug_and_redacted_from_text() {
        let mut s = resolve(&args(Some("http://h/v1"), Some("m")), Scope::FlagOnly, None)
            .unwrap()
            .unwrap();
        s.key = Some("sk-secret".into());
        assert!(!format!("{s:?}").contains("sk-secret"));
        assert_eq!(s.redact("Bearer sk-secret"), "Bearer [key withheld]");
    }
}
