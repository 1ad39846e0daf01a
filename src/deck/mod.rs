//! Decks: the card model, loading with located errors, and validation.

pub mod model;
