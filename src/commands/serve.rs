//! `mcp-tutor serve`: the bundled mock MCP server. A thin wrapper over `mock_server::cli`, so the
//! options are exactly those of the standalone `mock_server` binary.

use std::process::ExitCode;

use mock_server::fault::Fault;

use super::lab::{FaultRow, fault_table};
use crate::global::Global;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub serve: mock_server::cli::ServeArgs,
}

pub fn run(args: Args, _g: &Global) -> anyhow::Result<ExitCode> {
    if args.serve.list_faults {
        let rows: Vec<FaultRow> = Fault::all()
            .iter()
            .map(|f| FaultRow {
                name: f.name(),
                on: None,
                rule: f.rule().to_owned(),
                spec: f.spec().to_owned(),
            })
            .collect();
        println!("{}", fault_table(&rows, "", crate::term::width()));
        return Ok(ExitCode::SUCCESS);
    }
    mock_server::cli::run_blocking(args.serve)?;
    Ok(ExitCode::SUCCESS)
}
