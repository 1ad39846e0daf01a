use std::process::ExitCode;

use clap::Parser;
use mcp_tutor::{commands, term};

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    term::init(cli.global.color, cli.global.plain);
    match commands::run(cli) {
        Ok(code) => code,
        Err(err) => {
            term::print_error(&err);
            ExitCode::from(2)
        }
    }
}
