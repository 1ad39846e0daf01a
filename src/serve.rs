//! Placeholder: owned by the issue that builds `serve`.

use std::process::ExitCode;

use crate::cli::Global;

#[derive(Debug, clap::Args)]
pub struct Args {}

pub fn run(_args: Args, _g: &Global) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`serve` is not built yet")
}
