use std::process::ExitCode;

fn main() -> ExitCode {
    libations::run(libations::cli::Cli::parse_args())
}
