//! Where mcp-tutor keeps things on disk.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The progress store's folder: `--data-dir`, else `MCP_TUTOR_HOME`, else the OS data directory.
/// `explicit` is the `--data-dir` option (clap has already read `MCP_TUTOR_HOME` into it).
pub fn data_dir(explicit: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(d) = explicit {
        return Ok(d.to_path_buf());
    }
    dirs::data_dir()
        .map(|d| d.join("mcp-tutor"))
        .context("no data directory on this system: pass --data-dir DIR or set MCP_TUTOR_HOME")
}

/// The user's own decks folder, loaded beside the built-in decks when it exists.
pub fn user_decks_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("mcp-tutor").join("decks"))
}

/// The settings file, `config.toml` in mcp-tutor's config folder (e.g.
/// `~/.config/mcp-tutor/config.toml`); read when it exists, never written.
pub fn config_file() -> Option<PathBuf> {
    dirs::config_dir().map(|d| d.join("mcp-tutor").join("config.toml"))
}

/// Where the learner's disputed verdicts are kept as a graded-answer corpus, one file per deck
/// (`DIR/DECK.toml`), readable by `decks eval --answers DIR`.
pub fn disputes_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("disputes")
}
