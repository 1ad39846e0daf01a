//! `mcp-tutor --version`: the program's version, the MCP revision it teaches and how many cards
//! its built-in decks hold. The count comes from loading the embedded decks, so it follows them
//! as cards are added; loading takes a noticeable moment, so the text is built only when the
//! version is asked for, never on every start.

use std::ffi::OsString;

use mock_server::protocol::PROTOCOL_VERSION;

use crate::deck::Library;

/// What follows `mcp-tutor ` in `mcp-tutor --version`.
pub fn text() -> String {
    let library = Library::embedded();
    let cards = library.cards().count();
    format!(
        "{} (teaches MCP revision {PROTOCOL_VERSION}; ships {cards} cards in {} decks)",
        env!("CARGO_PKG_VERSION"),
        library.decks.len()
    )
}

/// Whether the command line may ask for the version (`-V` or `--version` anywhere: a stray
/// match only costs the deck load).
pub fn asked(args: &[OsString]) -> bool {
    args.iter().skip(1).any(|a| a == "--version" || a == "-V")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_only_for_the_version_flags() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(asked(&args(&["mcp-tutor", "--version"])));
        assert!(asked(&args(&["mcp-tutor", "--color", "never", "-V"])));
        assert!(!asked(&args(&["mcp-tutor", "quiz"])));
        // The program's own name is not an argument.
        assert!(!asked(&args(&["--version"])));
    }
}
