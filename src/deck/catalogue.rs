//! The misconception catalogue (`decks/catalogue.toml`): misconceptions worded as claims that
//! are wrong whatever the question, checked on every free-text card's answers, and truths the
//! grader recognises an answer's statements against.
//!
//! A card adds only the red flags that are misconceptions in its own context; what is wrong
//! everywhere ("the server assigns the subscription id", "resume with `Last-Event-ID`") lives
//! here once. `decks check` runs each entry's examples and refuses an entry that fires on any
//! right answer of the graded corpus, on any card.

use std::sync::OnceLock;

use serde::Deserialize;

use crate::card::RedFlag;

pub const CATALOGUE_FILE: &str = "catalogue.toml";

/// `decks/catalogue.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalogue {
    #[serde(default)]
    pub misconceptions: Vec<RedFlag>,
    #[serde(default)]
    pub truths: Vec<Truth>,
}

/// A statement true in every context, that answers make and no card's text says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Truth {
    pub text: String,
    /// Where the spec says so, in the short form of docs/rules.md.
    #[serde(default)]
    #[expect(dead_code, reason = "written for deck authors; accepted, never shown")]
    pub spec: String,
}

/// The built-in catalogue. A broken file is reported by `decks check` (with its line and
/// column); loading goes on without it, so one bad edit never stops the quiz.
pub fn catalogue() -> &'static Result<Catalogue, String> {
    static C: OnceLock<Result<Catalogue, String>> = OnceLock::new();
    C.get_or_init(|| {
        let text = super::embedded_text(CATALOGUE_FILE).unwrap_or("");
        parse(text)
    })
}

pub fn parse(text: &str) -> Result<Catalogue, String> {
    let mut c: Catalogue = toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|s| super::locate::line_col(text, s.start))
            .unwrap_or((1, 1));
        format!(
            "decks/{CATALOGUE_FILE}:{line}:{column}: {}",
            e.message().trim()
        )
    })?;
    for m in &mut c.misconceptions {
        m.catalogue = true;
    }
    Ok(c)
}

/// The catalogue's misconceptions, or none when the file is broken.
pub fn misconceptions() -> &'static [RedFlag] {
    catalogue()
        .as_ref()
        .map_or(&[], |c| c.misconceptions.as_slice())
}

/// The catalogue's truths, or none when the file is broken.
pub fn truths() -> impl Iterator<Item = &'static str> {
    catalogue()
        .as_ref()
        .map_or(&[][..], |c| c.truths.as_slice())
        .iter()
        .map(|t| t.text.as_str())
}

/// `decks check` on the catalogue: it parses, its concepts exist, and every misconception
/// fires on its examples and not on its non-examples.
pub fn self_test() -> Vec<super::DeckError> {
    use super::DeckError;
    let file = format!("decks/{CATALOGUE_FILE}");
    let text = super::embedded_text(CATALOGUE_FILE).unwrap_or("");
    let cat = match catalogue() {
        Ok(c) => c,
        Err(e) => {
            return vec![DeckError {
                file,
                line: 0,
                column: 0,
                message: e.clone(),
            }];
        }
    };
    let Ok(vocab) = super::concepts::vocabulary() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in &cat.misconceptions {
        let (line, column) = super::locate::find_key_line(text, "id", &m.id, 0).unwrap_or((1, 1));
        let mut at = |message: String| {
            out.push(DeckError {
                file: file.clone(),
                line,
                column,
                message,
            })
        };
        let Ok(mut card) = toml::from_str::<crate::card::Card>(
            "id = \"catalogue\"\nkind = \"recall\"\nquestion = \"\"",
        ) else {
            continue;
        };
        card.red_flags = vec![m.clone()];
        let mut used = std::collections::BTreeSet::new();
        let mut unknown = Vec::new();
        for f in &mut card.red_flags {
            for r in &mut f.rules {
                for g in r.groups_mut() {
                    *g = vocab.expand_group(g, &mut unknown, &mut used);
                }
            }
            for g in &mut f.guards {
                *g = vocab.expand_group(g, &mut unknown, &mut used);
            }
        }
        for u in unknown {
            at(format!(
                "misconception `{}` names an unknown concept `@{u}`; define it in decks/concepts.toml",
                m.id
            ));
        }
        if m.rules.is_empty() {
            at(format!("misconception `{}` has no claim", m.id));
        }
        for ex in &m.examples {
            if crate::grader::grade(&card, ex).red_flags.is_empty() {
                at(format!(
                    "self-test: misconception `{}` does not fire on its example \"{ex}\"; widen its claims",
                    m.id
                ));
            }
        }
        for ex in &m.non_examples {
            if let Some(hit) = crate::grader::grade(&card, ex).red_flags.first() {
                at(format!(
                    "self-test: misconception `{}` fires on its non-example \"{ex}\" (at \"{}\"); narrow its claims",
                    m.id, hit.span.text
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_catalogue_parses() {
        let c = catalogue().as_ref().expect("decks/catalogue.toml parses");
        assert!(
            c.misconceptions
                .iter()
                .all(|m| m.catalogue && !m.id.is_empty())
        );
    }

    #[test]
    fn a_broken_catalogue_is_located() {
        let e = parse("[[misconceptions]]\nid = 3").unwrap_err();
        assert!(e.starts_with("decks/catalogue.toml:2:"), "{e}");
    }
}
