//! Command-line flags. Every flag can also come from a `LIBATIONS_…` environment variable,
//! which is how the NixOS module and containers configure the service.

use clap::{Parser, Subcommand, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

const EXAMPLES: &str = "\
Examples:
  libations --local
      Serve the embedded sample recipes on http://127.0.0.1:8080 (no tailnet).
  libations --local --recipes-file ~/bar.json --addr 0.0.0.0:8080
      Serve your own recipes to every device on the LAN (0.0.0.0 listens on all
      interfaces; use [::]:8080 for IPv6 too).
  libations --recipes-file /srv/bar.json --hostname bar
      Join the tailnet as https://bar.<tailnet>.ts.net.
  libations check ~/bar.json
      Validate a recipes file and list every problem in it.";

#[derive(Debug, Parser)]
#[command(name = "libations", version, about, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: ServeArgs,

    /// Log format.
    #[arg(long, env = "LIBATIONS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Log level or filter, e.g. `info` or `libations=debug,tower_http=info`. Defaults to
    /// `RUST_LOG`, then `info`.
    #[arg(long, env = "LIBATIONS_LOG_LEVEL", global = true)]
    pub log_level: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate a recipes file: print every problem found and exit 1 if there are any.
    Check {
        /// The recipes file (a JSON array of recipes).
        file: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Serve on an ordinary local address (see --addr) instead of joining the tailnet.
    #[arg(long, env = "LIBATIONS_LOCAL")]
    pub local: bool,

    /// Address for --local. The default only accepts connections from this machine; use
    /// 0.0.0.0:8080 (or [::]:8080) to expose it to your LAN. Port 0 picks a free port.
    #[arg(long, env = "LIBATIONS_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Recipes file (JSON array). Without it, the embedded sample recipes are served.
    #[arg(long, env = "LIBATIONS_RECIPES_FILE")]
    pub recipes_file: Option<PathBuf>,

    /// The node's name on the tailnet: https://<hostname>.<tailnet>.ts.net.
    #[arg(long, env = "LIBATIONS_HOSTNAME", default_value = "libations")]
    pub hostname: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn flags_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn defaults() {
        let cli = Cli::try_parse_from(["libations"]).unwrap();
        assert!(!cli.serve.local);
        assert_eq!(cli.serve.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(cli.serve.hostname, "libations");
        assert!(cli.command.is_none());
    }
}
