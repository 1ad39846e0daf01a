//! The shipped decks are embedded with `include_dir!`, which cannot tell cargo about files
//! added later: rebuild whenever anything under `decks/` changes.
fn main() {
    println!("cargo:rerun-if-changed=decks");
}
