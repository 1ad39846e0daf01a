//! Placeholder: owned by the issue that builds `check`.

use std::process::ExitCode;

use crate::cli::Global;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _g: &Global) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`check` is not built yet")
}
