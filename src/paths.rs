//! Where mcp-tutor keeps things on disk.

use std::path::PathBuf;

use anyhow::Context;

use crate::cli::Global;

/// The progress store's folder: `--data-dir`, else `MCP_TUTOR_HOME`, else the OS data directory.
pub fn data_dir(g: &Global) -> anyhow::Result<PathBuf> {
    if let Some(d) = &g.data_dir {
        return Ok(d.clone());
    }
    dirs::data_dir()
        .map(|d| d.join("mcp-tutor"))
        .context("no data directory on this system: pass --data-dir DIR or set MCP_TUTOR_HOME")
}

/// The user's own decks folder, loaded beside the built-in decks when it exists.
pub fn user_decks_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("mcp-tutor").join("decks"))
}
