use std::process::ExitCode;

use mcp_tutor::{commands, term};

fn main() -> ExitCode {
    term::end_quietly_when_reader_leaves();
    let cli = commands::Cli::from_env();
    term::init(cli.global.color, cli.global.plain, cli.global.width);
    match commands::run(cli) {
        Ok(code) => code,
        Err(_) if term::stdout_reader_gone() => ExitCode::from(term::READER_GONE),
        Err(err) => {
            term::print_error(&err);
            ExitCode::from(2)
        }
    }
}
