use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    libations::run(libations::cli::Cli::parse())
}
