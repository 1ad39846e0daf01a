//! The 60 quiz facts (`decks/facts.toml`): what cards may cite in `facts`,
//! and what the shipped decks must cover.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fact {
    pub number: u32,
    pub text: String,
    /// Spec reference in the short form of docs/rules.md.
    pub spec: String,
}

#[derive(Debug, Deserialize)]
struct FactsFile {
    fact: Vec<Fact>,
}

/// Every fact, by number. Empty only if the embedded file is broken, which `decks check` and
/// the unit tests report.
pub fn all() -> &'static [Fact] {
    static FACTS: OnceLock<Vec<Fact>> = OnceLock::new();
    FACTS.get_or_init(|| parse(super::embedded_facts_text()).unwrap_or_default())
}

pub fn parse(text: &str) -> Result<Vec<Fact>, toml::de::Error> {
    let mut facts = toml::from_str::<FactsFile>(text)?.fact;
    facts.sort_by_key(|f| f.number);
    Ok(facts)
}

pub fn numbers() -> &'static BTreeSet<u32> {
    static NUMBERS: OnceLock<BTreeSet<u32>> = OnceLock::new();
    NUMBERS.get_or_init(|| all().iter().map(|f| f.number).collect())
}

pub fn get(number: u32) -> Option<&'static Fact> {
    all().iter().find(|f| f.number == number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_sixty_facts_are_embedded_in_order() {
        let facts = all();
        assert_eq!(facts.len(), 60);
        for (i, f) in facts.iter().enumerate() {
            assert_eq!(f.number as usize, i + 1);
            assert!(!f.text.is_empty() && !f.spec.is_empty());
        }
        assert!(
            get(1).is_some_and(|f| f.text.contains("notifications/subscriptions/acknowledged"))
        );
    }
}
