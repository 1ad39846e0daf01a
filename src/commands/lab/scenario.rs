//! Guided scenarios: data in `decks/scenarios/*.toml`, embedded in the binary.
//!
//! A scenario is narration, steps, and predict-then-observe questions. A question is asked
//! before its step runs; the step's frames then show the answer on the wire. Each question
//! names the deck card it exercises, so a wrong prediction becomes a lapse for that card.

use anyhow::{Context, bail};
use include_dir::{Dir, include_dir};
use serde::Deserialize;

use super::step;

static SCENARIOS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/decks/scenarios");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub scenario: Meta,
    #[serde(default)]
    pub steps: Vec<Beat>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    /// `[a-z0-9-]+`, what `lab --scenario NAME` takes.
    pub id: String,
    pub title: String,
    /// One line for `lab --list`.
    pub summary: String,
    /// `http` (the bundled server in-process) or `stdio` (a `mcp-tutor serve --stdio` child).
    #[serde(default)]
    pub transport: Transport,
    /// Faults switched on before the first step (for the diagnose scenarios).
    #[serde(default)]
    pub faults: Vec<String>,
    /// Acknowledgement time-out for this scenario, in milliseconds.
    #[serde(default)]
    pub ack_timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    #[default]
    Http,
    Stdio,
}

/// One beat of a scenario: narration, then an optional question, then the steps it runs,
/// then what to notice.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Beat {
    #[serde(default)]
    pub say: Option<String>,
    #[serde(default)]
    pub ask: Option<Question>,
    #[serde(default)]
    pub run: Vec<String>,
    /// Shown after the steps ran: what the frames just showed.
    #[serde(default)]
    pub notice: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub prompt: String,
    /// Options in display order, lettered a, b, c…
    pub choices: Vec<String>,
    /// The right letter.
    pub answer: String,
    /// Deck card (`DECK/CARD`) that a wrong prediction counts against.
    pub card: String,
    /// Why the answer is right, shown after the step ran.
    pub why: String,
}

impl Question {
    pub fn letters(&self) -> impl Iterator<Item = char> + '_ {
        (b'a'..).take(self.choices.len()).map(char::from)
    }

    pub fn answer_index(&self) -> Option<usize> {
        let c = self.answer.trim().chars().next()?;
        self.letters().position(|l| l == c.to_ascii_lowercase())
    }
}

pub fn parse(name: &str, text: &str) -> anyhow::Result<ScenarioFile> {
    let sc: ScenarioFile = toml::from_str(text).with_context(|| format!("scenario {name}"))?;
    validate(name, &sc)?;
    Ok(sc)
}

fn validate(name: &str, sc: &ScenarioFile) -> anyhow::Result<()> {
    let id = &sc.scenario.id;
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        bail!("{name}: scenario.id `{id}` must be [a-z0-9-]+");
    }
    for (i, beat) in sc.steps.iter().enumerate() {
        let at = format!("{name}: steps[{i}]");
        for line in &beat.run {
            step::parse(line).map_err(|e| anyhow::anyhow!("{at}.run `{line}`: {e}"))?;
        }
        if let Some(q) = &beat.ask {
            if q.choices.len() < 2 {
                bail!("{at}.ask: needs at least two choices");
            }
            if q.answer_index().is_none() {
                bail!(
                    "{at}.ask.answer `{}` is not one of the letters a..{}",
                    q.answer,
                    q.letters().last().unwrap_or('a')
                );
            }
            if !q.card.contains('/') {
                bail!("{at}.ask.card `{}` must be DECK/CARD", q.card);
            }
            if beat.run.is_empty() {
                bail!("{at}: a question needs steps to run, so the wire can answer it");
            }
        }
    }
    Ok(())
}

/// Every embedded scenario, in file-name order (files are numbered for a sensible tour).
pub fn all() -> anyhow::Result<Vec<ScenarioFile>> {
    let mut files: Vec<_> = SCENARIOS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort_by_key(|f| f.path());
    files
        .into_iter()
        .map(|f| {
            let name = format!("decks/scenarios/{}", f.path().display());
            let text = f
                .contents_utf8()
                .with_context(|| format!("{name} is not UTF-8"))?;
            parse(&name, text)
        })
        .collect()
}

pub fn find(id: &str) -> anyhow::Result<ScenarioFile> {
    let all = all()?;
    if let Some(s) = all.iter().find(|s| s.scenario.id == id) {
        return Ok(s.clone());
    }
    bail!(
        "{}",
        mock_server::names::unknown(
            "scenario",
            id,
            all.iter().map(|s| s.scenario.id.as_str()),
            "`mcp-tutor lab --list` lists them"
        )
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_scenarios_parse_and_have_unique_ids() {
        let all = all().unwrap();
        assert!(all.len() >= 9, "issue 5 asks for at least nine scenarios");
        let mut ids: Vec<_> = all.iter().map(|s| s.scenario.id.clone()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all.len(), "duplicate scenario ids");
        for s in &all {
            assert!(
                s.steps.iter().any(|b| b.ask.is_some()),
                "{} asks no question",
                s.scenario.id
            );
        }
    }

    #[test]
    fn every_question_links_a_shipped_card() {
        let lib = crate::deck::Library::embedded();
        for s in all().unwrap() {
            for q in s.steps.iter().filter_map(|b| b.ask.as_ref()) {
                assert!(
                    lib.card(&q.card).is_some(),
                    "scenario {} links card {} that no shipped deck has",
                    s.scenario.id,
                    q.card
                );
            }
        }
    }

    #[test]
    fn bad_answer_letter_is_named() {
        let e = parse(
            "x.toml",
            r#"
            [scenario]
            id = "x"
            title = "x"
            summary = "x"
            [[steps]]
            run = ["listen tools"]
            ask = { prompt = "?", choices = ["a", "b"], answer = "d", card = "d/c", why = "w" }
            "#,
        )
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("steps[0].ask.answer `d`"),
            "{e:#}"
        );
    }
}
