use std::process::ExitCode;

use clap::Parser;
use mcp_tutor::{cli, term};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    term::init(cli.global.color, cli.global.plain);
    match cli::run(cli) {
        Ok(code) => code,
        Err(err) => {
            term::print_error(&err);
            ExitCode::from(2)
        }
    }
}
