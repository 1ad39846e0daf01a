//! The deck file format: what a TOML deck in `decks/` deserializes into. The cards themselves
//! are [`crate::card`]'s.

use serde::{Deserialize, Serialize};

use crate::card::Card;

/// One `decks/*.toml` file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckFile {
    pub deck: DeckMeta,
    #[serde(default)]
    pub cards: Vec<Card>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckMeta {
    /// Stable deck id, `[a-z0-9-]+`; cards are addressed as `DECK/CARD`.
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub description: String,
    /// The deck format the file is written in ([`FORMAT_VERSION`] today). A deck without one
    /// is format 1, the older `match = [{ all = [...] }]` syntax.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format_version: Option<u32>,
}

/// The deck format this mcp-tutor writes and reads: 2 has stable point and flag ids and
/// `claims` (with `agent`, `action`, `negated`, ...), and `decks check` lints them.
pub const FORMAT_VERSION: u32 = 2;

/// The oldest format still read. Format 1 decks load (so a user's own decks keep working while
/// they are converted), with their claims' lints left out.
pub const OLDEST_FORMAT: u32 = 1;

impl DeckMeta {
    pub fn format(&self) -> u32 {
        self.format_version.unwrap_or(1)
    }
}
