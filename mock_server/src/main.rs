//! `mock_server`: the MCP 2026-07-28 mock server alone, for people who only want the test double.

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
#[command(
    name = "mock_server",
    version,
    about = "A faithful MCP 2026-07-28 server for subscriptions/listen, with faults on demand."
)]
struct Cli {
    #[command(flatten)]
    serve: mock_server::cli::ServeArgs,
}

fn main() -> ExitCode {
    match mock_server::cli::run_blocking(Cli::parse().serve) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mock_server: {e:#}");
            ExitCode::FAILURE
        }
    }
}
