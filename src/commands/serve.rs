//! `mcp-tutor serve`: the bundled mock MCP server. A thin wrapper over `mock_server::cli`, so the
//! options are exactly those of the standalone `mock_server` binary.

use std::process::ExitCode;

use crate::global::Global;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub serve: mock_server::cli::ServeArgs,
}

pub fn run(args: Args, _g: &Global) -> anyhow::Result<ExitCode> {
    mock_server::cli::run_blocking(args.serve)?;
    Ok(ExitCode::SUCCESS)
}
