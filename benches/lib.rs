//! What the benches share: where the `mcp-tutor` binary they spawn is, and where the
//! repository's files are. The benches are a package of their own so that `cargo test` never
//! builds criterion; a package cannot see another's binary through `CARGO_BIN_EXE_*`, so the
//! benches that spawn `mcp-tutor` find it beside their own executable.

use std::path::PathBuf;

/// The `mcp-tutor` binary built with the benches' profile: `MCP_TUTOR_BIN` if set, else
/// `<target>/<profile>/mcp-tutor`, next to `<target>/<profile>/deps/<bench>`. Panics with the
/// command to run when it is not built (a bench, not input).
pub fn tutor_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("MCP_TUTOR_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("mcp-tutor"))
        .expect("the bench runs from <target>/<profile>/deps");
    assert!(
        bin.is_file(),
        "{} is not built: run `cargo build --release` first (or set MCP_TUTOR_BIN)",
        bin.display()
    );
    bin
}

/// A path in the repository (the benches' package is its `benches/` folder).
pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}
