//! `mcp-tutor-mock`: the MCP 2026-07-28 mock server alone, for people who only want the test double.

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "mcp-tutor-mock",
    version,
    about = "A faithful MCP 2026-07-28 server for subscriptions/listen, with faults on demand."
)]
struct Cli {
    #[command(flatten)]
    serve: mcp_tutor_mock::cli::ServeArgs,
}

fn main() -> ExitCode {
    match mcp_tutor_mock::cli::run_blocking(Cli::parse().serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-tutor-mock: {e:#}");
            ExitCode::FAILURE
        }
    }
}
