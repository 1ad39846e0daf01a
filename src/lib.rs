//! mcp-tutor: learn the subscription rules of MCP 2026-07-28 cold.
//!
//! The binary (`src/main.rs`) is a thin shell over this library so that benchmarks and tests
//! can reach the grader, the store and the lab's checking client directly.

pub(crate) mod card;
pub(crate) mod card_kind;
pub mod client;
pub mod commands;
pub mod deck;
pub mod global;
pub mod grader;
pub(crate) mod judge;
pub(crate) mod name_hint;
pub(crate) mod paths;
pub(crate) mod rules_doc;
pub(crate) mod scheduler;
pub mod store;
pub mod term;
