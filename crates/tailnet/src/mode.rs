//! How tailnet connections reach the app (`--tailnet-listener`): the values of the flag,
//! kept beside the code that acts on them. Compiled without the `tailnet` feature too, so
//! that the flag parses the same in every build.

use clap::ValueEnum;

/// See `--tailnet-listener`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TailnetListener {
    Forward,
    Socketpair,
}
