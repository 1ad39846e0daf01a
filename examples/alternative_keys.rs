//! A deck author's tool: for each line of standard input (one group alternative), print how
//! the grader reads it (its words' synonym classes) and whether it holds a negation.
//!
//! Run with `cargo run --example alternative_keys < alternatives.txt`. Two alternatives of one
//! group with the same key match the same answers, so the second can go.

use std::io::{BufRead, Write};

fn main() -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let key = mcp_tutor::grader::alternative_key(&line);
        let denies = mcp_tutor::grader::alternative_denies(&line);
        writeln!(out, "{key}\t{}", if denies { "denies" } else { "" })?;
    }
    Ok(())
}
