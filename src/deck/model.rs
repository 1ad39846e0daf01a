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
}
