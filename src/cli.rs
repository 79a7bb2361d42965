//! Command-line flags. Every flag can also come from a `LIBATIONS_…` environment variable,
//! which is how the NixOS module and containers configure the service.
//!
//! The Go original's command lines work too (see [`go_style`]): its flags are spelled the
//! way Go's `flag` package takes them (`-local`, `-addr=:8080`, `-tsnet-logs=false`), and
//! its `-addr :PORT` means 127.0.0.1:PORT.

use crate::tailnet::TailnetListener;
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use go::{go_bool, listen_addr};
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::PathBuf;

mod go;

const EXAMPLES: &str = "\
Examples:
  libations --local
      Serve the embedded sample recipes on http://127.0.0.1:8080 (no tailnet).
  libations --local --recipes-file ~/bar.json --addr 0.0.0.0:8080
      Serve your own recipes to every device on the LAN (0.0.0.0 listens on all
      interfaces; use [::]:8080 for IPv6 too).
  libations --recipes-file /srv/bar.json --hostname bar --auth-key-file /run/keys/ts
      Join the tailnet as https://bar.<tailnet>.ts.net (the key is needed once; the
      node's identity is kept in --state-dir afterwards).
  kill -HUP <pid>
      Reload the recipes file now (it is also reloaded when it changes).
  libations check ~/bar.json
      Validate a recipes file and list every problem in it.
  libations import bar-assistant-export.zip --into ~/bar.json
      Add another app's recipes as one change (one undo), skipping ones you have.
  libations import-household libations-household.json --state-dir /var/lib/libations
      Merge a household backup (shelf, favourites, ratings, notes, photos) back in.";

#[derive(Debug, Parser)]
#[command(name = "libations", version, about, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Option<Command>,

    #[command(flatten)]
    pub(crate) serve: ServeArgs,

    /// Log format.
    #[arg(long, env = "LIBATIONS_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true, help_heading = "Monitoring")]
    pub(crate) log_format: LogFormat,

    /// Log level or filter, e.g. `info` or `libations=debug,tailscale=warn`. Defaults to
    /// `RUST_LOG`, then `info`.
    #[arg(
        long,
        env = "LIBATIONS_LOG_LEVEL",
        global = true,
        help_heading = "Monitoring"
    )]
    pub(crate) log_level: Option<String>,
}

impl Cli {
    /// Parses the process's arguments, the Go original's spellings included; exits with
    /// clap's message (and status 2) on bad flags, as `Cli::parse` does.
    pub fn parse_args() -> Cli {
        Cli::parse_from(go_style(std::env::args_os()))
    }
}

/// Rewrites the Go original's single-dash long flags (`-local`, `-addr=:8080`,
/// `-recipes-file f`) to ours (`--local`, …), leaving everything else as it is.
///
/// Like Go's `flag` package it stops at `--` and at the first argument that is neither a
/// flag nor a flag's value (here: the `check` subcommand and its file). Whether a flag takes
/// the next argument as its value is read from our own clap definition, so that a value
/// such as `--state-dir -local` is never mistaken for a flag. Booleans need no rewriting
/// beyond the dash: `--local`, `--local=false` and `--tsnet-logs=false` are ours already.
pub(crate) fn go_style(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut cmd = Cli::command();
    cmd.build();
    go::rewrite(&cmd, args)
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Validate a recipes file: print every problem and warning, and exit 1 on a problem.
    /// With --household, also check the household's database (SQLite's integrity check,
    /// the schema version and the schema itself, photo rows whose files are missing; given
    /// the recipes file too, rows for recipe ids it never had).
    Check {
        /// The recipes file (a JSON array of recipes).
        #[arg(required_unless_present = "household")]
        file: Option<PathBuf>,
        /// The household's database (household.sqlite in the state directory).
        #[arg(long, value_name = "FILE")]
        household: Option<PathBuf>,
    },
    /// Merge a household backup (from GET /api/household/download) into the household's
    /// database: the change made last wins, and nothing stored is dropped. A file that is
    /// not a backup is refused whole, naming the field at fault. The household archive
    /// (?photos=1, a zip) brings the photos' files too, each checked. Safe while the app
    /// runs.
    ImportHousehold {
        /// The backup file (libations-household.json) or archive (libations-household.zip),
        /// told apart by their bytes.
        file: PathBuf,
        /// The state directory holding household.sqlite (default as the app's).
        #[arg(long, env = "LIBATIONS_STATE_DIR")]
        state_dir: Option<PathBuf>,
        /// The recipes file the household's rows are for (default as the app's: the
        /// embedded sample without one): the backup may name only recipe ids it has or had.
        #[arg(long, env = "LIBATIONS_RECIPES_FILE", value_name = "FILE")]
        recipes_file: Option<PathBuf>,
    },
    /// Drop the household's rows for recipe ids the recipes file (and its journal) never
    /// had, printing each, and the files of the photos dropped: `libations check FILE
    /// --household DB` lists them. Safe while the app runs.
    RepairHousehold {
        /// The recipes file the household's rows are for.
        #[arg(long, env = "LIBATIONS_RECIPES_FILE", value_name = "FILE")]
        recipes_file: PathBuf,
        /// The state directory holding household.sqlite (default as the app's).
        #[arg(long, env = "LIBATIONS_STATE_DIR")]
        state_dir: Option<PathBuf>,
    },
    /// Add the recipes of another app's file to a recipes file, as one change in its
    /// history (one undo): a Bar Assistant recipe or export (zip or folder), JSON-LD
    /// recipes, a page saved as HTML, or another libations file. Recipes already in the
    /// collection (same name) are skipped; what was added, skipped and guessed is printed.
    /// The app must not be editing the same file meanwhile (upload the file there instead).
    Import {
        /// The file or folder to read.
        file: PathBuf,
        /// The recipes file to add to.
        #[arg(long, value_name = "FILE")]
        into: PathBuf,
    },
}

#[derive(Debug, clap::Args)]
pub(crate) struct ServeArgs {
    /// Serve on an ordinary local address (see --addr) instead of joining the tailnet.
    #[arg(
        long,
        env = "LIBATIONS_LOCAL",
        action = clap::ArgAction::Set,
        value_name = "BOOL",
        num_args = 0..=1,
        require_equals = true,
        default_value = "false",
        default_missing_value = "true",
        value_parser = go_bool,
        hide_default_value = true
    )]
    pub local: bool,

    /// Address for --local. The default only accepts connections from this machine; use
    /// 0.0.0.0:8080 (or [::]:8080) to expose it to your LAN. Port 0 picks a free port.
    /// `:PORT` alone means 127.0.0.1:PORT.
    #[arg(long, env = "LIBATIONS_ADDR", default_value = "127.0.0.1:8080", value_parser = listen_addr)]
    pub addr: SocketAddr,

    /// Host names with a dot that --local and the metrics listener answer to (repeat or
    /// separate with commas), e.g. `bar.lan`. Names without a dot (localhost, bar) and IP
    /// addresses are always answered; other names get 421, so a web page cannot reach
    /// these listeners by pointing its own name at this machine (DNS rebinding).
    #[arg(
        long = "allowed-host",
        env = "LIBATIONS_ALLOWED_HOSTS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub allowed_hosts: Vec<String>,

    /// With --local, who every visitor is (a login such as `alice@example.com`), for working
    /// on what the pages show to someone known. On the tailnet the tailnet says who.
    #[arg(
        long,
        env = "LIBATIONS_LOCAL_IDENTITY",
        default_value = "you@local",
        value_name = "LOGIN"
    )]
    pub local_identity: String,

    /// With --local, grant that identity `{"edit": true}` (on the tailnet, the policy file's
    /// grants decide; see --app-capability).
    #[arg(long, env = "LIBATIONS_LOCAL_EDIT")]
    pub local_edit: bool,

    /// With --local, grant that identity `{"shelf": true}` only: the bar's shelf and
    /// strengths, not the recipes, menus or backups.
    #[arg(long, env = "LIBATIONS_LOCAL_SHELF")]
    pub local_shelf: bool,

    /// With --local, nobody: every request comes from a visitor the tailnet names no one
    /// for, for working on what unknown visitors see (--local-identity is then unused).
    #[arg(long, env = "LIBATIONS_LOCAL_NOBODY", conflicts_with_all = ["local_edit", "local_shelf"])]
    pub local_nobody: bool,

    /// Recipes file (JSON array), reloaded when it changes. Without it, the embedded sample
    /// recipes are served.
    #[arg(long, env = "LIBATIONS_RECIPES_FILE")]
    pub recipes_file: Option<PathBuf>,

    /// The node's name on the tailnet: https://<hostname>.<tailnet>.ts.net.
    #[arg(long, env = "LIBATIONS_HOSTNAME", default_value = "libations")]
    pub hostname: String,

    #[command(flatten)]
    pub tailnet: TailnetArgs,

    #[command(flatten)]
    pub editing: EditArgs,

    #[command(flatten)]
    pub limits: LimitArgs,

    /// Serve Prometheus metrics (/metrics), health checks (/healthz, /readyz) and CPU
    /// profiles (/debug/pprof/profile?seconds=N) on this address of the machine itself,
    /// e.g. 127.0.0.1:9090. Off unless set; never on the tailnet.
    #[arg(long, env = "LIBATIONS_METRICS_ADDR", help_heading = "Monitoring")]
    pub metrics_addr: Option<SocketAddr>,

    /// Log every request: method, path (never the query), status, time taken and the
    /// visitor's tailnet login, or a tagged device's tags (target `libations::access`).
    #[arg(long, env = "LIBATIONS_ACCESS_LOG", help_heading = "Monitoring")]
    pub access_log: bool,
}

/// Who may change recipes, and where changes go.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Editing")]
pub struct EditArgs {
    /// Let visitors the tailnet grants `{"edit": true}` (or listed with --editor) add, edit
    /// and delete recipes in --recipes-file, which must be writable; every change is kept
    /// in <file>.journal beside it and can be undone. With --local, --local-edit grants it.
    #[arg(long, env = "LIBATIONS_ALLOW_EDITS")]
    pub allow_edits: bool,

    /// A tailnet login that may edit without a grant in the policy file (repeat or separate
    /// with commas), for tailnets without app grants. Tagged devices never edit.
    #[arg(
        long = "editor",
        env = "LIBATIONS_EDITORS",
        value_delimiter = ',',
        value_name = "LOGIN"
    )]
    pub editors: Vec<String>,

    /// With --allow-edits: when --recipes-file does not exist yet, create it from this file
    /// (a relative name is looked up in $CREDENTIALS_DIRECTORY when set), or from the
    /// embedded sample without this flag. An existing file is never overwritten.
    #[arg(long, env = "LIBATIONS_SEED_RECIPES_FILE", value_name = "PATH")]
    pub seed_recipes_file: Option<PathBuf>,

    /// Changes one visitor may make per minute (a burst of up to this many, then one every
    /// 60/N seconds); more get 429. Without JavaScript, the form's row buttons (add, remove,
    /// move) count too.
    #[arg(long, env = "LIBATIONS_EDITS_PER_MINUTE", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub edits_per_minute: u32,

    /// FOR TESTS AND A LAN RECIPE SERVER ONLY: a host (name or address, as written in the
    /// link) that "Add from a link" may fetch from although it is not a public address
    /// (repeat or separate with commas). Without it only public unicast addresses are
    /// fetched: never loopback, private, link-local, tailnet/CGNAT or metadata addresses.
    #[arg(
        long = "import-allow-host",
        env = "LIBATIONS_IMPORT_ALLOW_HOSTS",
        value_delimiter = ',',
        value_name = "HOST"
    )]
    pub import_allow_hosts: Vec<String>,
}

/// Limits on what one client can make the server hold.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Limits")]
pub(crate) struct LimitArgs {
    /// Seconds from accepting a connection (TLS handshake included) until its first request
    /// head is complete; a client that sends nothing, or too slowly, is closed then. The same
    /// bound applies to a keep-alive connection idle between requests.
    #[arg(
        long,
        env = "LIBATIONS_HEADER_TIMEOUT",
        default_value_t = 10,
        value_name = "SECS"
    )]
    pub header_timeout: u64,
    /// Seconds a response may make no progress (the client reads none of it) before the
    /// connection is closed: a reader that stops reading, or HTTP/2 streams whose window is
    /// never opened.
    #[arg(
        long,
        env = "LIBATIONS_WRITE_TIMEOUT",
        default_value_t = 20,
        value_name = "SECS"
    )]
    pub write_timeout: u64,
    /// Seconds a client may take to send a request body it announced; then 408.
    #[arg(
        long,
        env = "LIBATIONS_BODY_TIMEOUT",
        default_value_t = 10,
        value_name = "SECS"
    )]
    pub body_timeout: u64,
    /// Open connections at most, per listener; more are closed as soon as they are accepted.
    #[arg(long, env = "LIBATIONS_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,
    /// Bytes of answers made for one request (searches, recipe pages) that one connection
    /// may leave unread (HTTP/2 streams the client does not read); a request beyond it gets
    /// 503.
    #[arg(
        long,
        env = "LIBATIONS_MAX_UNSENT_BYTES_PER_CONNECTION",
        default_value_t = 4 << 20,
        value_name = "BYTES"
    )]
    pub max_unsent_bytes_per_connection: usize,
    /// The same for all connections together.
    #[arg(
        long,
        env = "LIBATIONS_MAX_UNSENT_BYTES",
        default_value_t = 128 << 20,
        value_name = "BYTES"
    )]
    pub max_unsent_bytes: usize,
    /// Bytes of request bodies held at once, all connections together (a body takes its
    /// announced length before it is read); a body beyond it gets 503.
    #[arg(
        long,
        env = "LIBATIONS_MAX_BUFFERED_BODY_BYTES",
        default_value_t = crate::web::BUFFERED_BODY_BYTES,
        value_name = "BYTES"
    )]
    pub max_buffered_body_bytes: usize,
    /// Largest request head (request line and headers) in bytes; larger gets 431.
    #[arg(
        long,
        env = "LIBATIONS_MAX_HEADER_BYTES",
        default_value_t = 16384,
        value_name = "BYTES"
    )]
    pub max_header_bytes: usize,
    /// Longest request target (path and query) in bytes; longer gets 414.
    #[arg(
        long,
        env = "LIBATIONS_MAX_URI_BYTES",
        default_value_t = 8192,
        value_name = "BYTES"
    )]
    pub max_uri_bytes: usize,
    /// Largest request body in bytes, for a request that changes nothing (GET and HEAD may
    /// carry none at all; a change, POST, PUT or DELETE, may send 256 KiB); larger gets 413.
    #[arg(
        long,
        env = "LIBATIONS_MAX_BODY_BYTES",
        default_value_t = 1024,
        value_name = "BYTES"
    )]
    pub max_body_bytes: usize,
    /// HTTP/2 streams one connection may have open at once. A page needs about ten; an
    /// answer can be megabytes, so a hundred would let one client hold a lot.
    #[arg(long, env = "LIBATIONS_H2_MAX_STREAMS", default_value_t = 32)]
    pub h2_max_streams: u32,
    /// HTTP/2 flow-control window per stream, in bytes.
    #[arg(
        long,
        env = "LIBATIONS_H2_STREAM_WINDOW",
        default_value_t = 65536,
        value_name = "BYTES"
    )]
    pub h2_stream_window: u32,
    /// HTTP/2 flow-control window per connection, in bytes.
    #[arg(
        long,
        env = "LIBATIONS_H2_CONNECTION_WINDOW",
        default_value_t = 1048576,
        value_name = "BYTES"
    )]
    pub h2_connection_window: u32,
    /// Largest recipes file, in bytes: a larger one is refused at start-up, on reload (the
    /// recipes already served are kept) and by a save while editing.
    #[arg(
        long,
        env = "LIBATIONS_MAX_RECIPES_BYTES",
        default_value_t = 64 << 20,
        value_name = "BYTES"
    )]
    pub max_recipes_bytes: u64,
    /// Seconds shutdown waits for requests in flight before closing what is left.
    #[arg(
        long,
        env = "LIBATIONS_DRAIN_TIMEOUT",
        default_value_t = 10,
        value_name = "SECS"
    )]
    pub drain_timeout: u64,
}

/// How to join the tailnet (ignored with --local, but for --state-dir).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct TailnetArgs {
    /// Where the node keeps its Tailscale state (keys, login) and the household keeps
    /// household.sqlite (the shelf, favourites, ratings, notes), created with mode 0700.
    /// Default: $XDG_STATE_HOME/libations, else ~/.local/state/libations. With --local
    /// there is a household only when this is given.
    #[arg(long, env = "LIBATIONS_STATE_DIR")]
    pub state_dir: Option<PathBuf>,

    /// File holding a Tailscale auth key (just the key, or a line TS_AUTHKEY=<key>). A
    /// relative name is looked up in $CREDENTIALS_DIRECTORY when set (systemd
    /// LoadCredential). Without it, TS_AUTHKEY is used; with neither, the log shows a login
    /// URL to open once.
    #[arg(long, env = "LIBATIONS_AUTH_KEY_FILE")]
    pub auth_key_file: Option<PathBuf>,

    /// Control server URL, for a self-hosted one such as headscale. Default: Tailscale's.
    #[arg(long, env = "LIBATIONS_CONTROL_URL")]
    pub control_url: Option<String>,

    /// Join as an ephemeral node, removed from the tailnet soon after it goes offline.
    #[arg(long, env = "LIBATIONS_EPHEMERAL")]
    pub ephemeral: bool,

    /// The app capability whose grants in the tailnet policy file say what a visitor may
    /// do, in Tailscale's `<domain>/cap/<name>` form. Grants are merged: nothing unless a
    /// grant gives it, and `{"edit": true}` from any grant lets its users edit.
    #[arg(long, env = "LIBATIONS_APP_CAPABILITY", default_value = crate::web::identity::DEFAULT_CAPABILITY, value_name = "NAME")]
    pub app_capability: String,

    /// How tailnet connections reach the app. `forward` (default): the node's serve config
    /// forwards :443 and :80 to loopback listeners of ours, with a PROXY header naming the
    /// tailnet peer, so every request knows who sent it. `socketpair`: libtailscale's own
    /// listeners, where nobody is known (also the fallback when the serve config cannot be
    /// set).
    #[arg(long, env = "LIBATIONS_TAILNET_LISTENER", value_enum, default_value_t = TailnetListener::Forward, value_name = "MODE")]
    pub tailnet_listener: TailnetListener,

    /// Serve the guests' menu (/menu and its files, nothing else) to the internet through
    /// Tailscale Funnel, at https://<name>:8443/menu. The tailnet policy must give this node
    /// the "funnel" node attribute. Off: nothing listens on :8443 and the node's serve
    /// config lets no Funnel in (one left by an earlier run is removed). Alone it means
    /// true. Needs the serve config (not with --tailnet-listener socketpair) and not --local.
    #[arg(
        long,
        env = "LIBATIONS_GUEST_MENU_FUNNEL",
        action = clap::ArgAction::Set,
        value_name = "BOOL",
        num_args = 0..=1,
        default_value = "false",
        default_missing_value = "true",
        value_parser = go_bool
    )]
    pub guest_menu_funnel: bool,

    /// Pass Tailscale's own log lines to our log (target "tailscale"). Alone it means true.
    #[arg(
        long,
        env = "LIBATIONS_TSNET_LOGS",
        action = clap::ArgAction::Set,
        value_name = "BOOL",
        num_args = 0..=1,
        default_value = "true",
        default_missing_value = "true",
        value_parser = go_bool
    )]
    pub tsnet_logs: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LogFormat {
    Text,
    Json,
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(cli.serve.tailnet.tsnet_logs);
        assert!(!cli.serve.tailnet.ephemeral);
        let cli = Cli::try_parse_from(["libations", "--tsnet-logs", "false"]).unwrap();
        assert!(!cli.serve.tailnet.tsnet_logs);
    }

    /// Parses as `main` does: Go's spellings rewritten first.
    fn go(args: &[&str]) -> Result<Cli, clap::Error> {
        let argv = std::iter::once("libations").chain(args.iter().copied());
        Cli::try_parse_from(go_style(argv.map(OsString::from)))
    }

    fn ok(args: &[&str]) -> ServeArgs {
        go(args).unwrap_or_else(|e| panic!("{args:?}: {e}")).serve
    }

    #[test]
    fn the_go_originals_command_line_works() {
        let a = ok(&["-local", "-addr", ":8080", "-recipes-file", "sample.json"]);
        assert!(a.local);
        assert_eq!(a.addr.to_string(), "127.0.0.1:8080");
        assert_eq!(a.recipes_file, Some(PathBuf::from("sample.json")));
    }

    #[test]
    fn value_flags_in_every_form_go_accepts() {
        for form in [
            &["-addr", ":18105"][..],
            &["--addr", ":18105"],
            &["-addr=:18105"],
            &["--addr=:18105"],
        ] {
            assert_eq!(ok(form).addr.to_string(), "127.0.0.1:18105", "{form:?}");
        }
        for form in [
            &["-hostname", "bar"][..],
            &["--hostname", "bar"],
            &["-hostname=bar"],
            &["--hostname=bar"],
        ] {
            assert_eq!(ok(form).hostname, "bar", "{form:?}");
        }
        for form in [
            &["-recipes-file", "b.json"][..],
            &["--recipes-file", "b.json"],
            &["-recipes-file=b.json"],
            &["--recipes-file=b.json"],
        ] {
            let file = ok(form).recipes_file;
            assert_eq!(file, Some(PathBuf::from("b.json")), "{form:?}");
        }
        // Our own address forms still work, and a bad one says what is accepted.
        assert_eq!(ok(&["--addr", "[::]:80"]).addr.to_string(), "[::]:80");
        assert_eq!(ok(&["-addr", "0.0.0.0:0"]).addr.to_string(), "0.0.0.0:0");
        let err = go(&["-addr", ":http"]).unwrap_err().to_string();
        assert!(err.contains("the port after ':' must be a number"), "{err}");
        let err = go(&["--addr", "localhost"]).unwrap_err().to_string();
        assert!(err.contains(":PORT for 127.0.0.1:PORT"), "{err}");
    }

    #[test]
    fn boolean_flags_in_every_form_go_accepts() {
        for (form, local) in [
            (&["-local"][..], true),
            (&["--local"], true),
            (&["-local=true"], true),
            (&["--local=true"], true),
            (&["-local=1"], true),
            (&["-local=t"], true),
            (&["-local=T"], true),
            (&["-local=TRUE"], true),
            (&["-local=True"], true),
            (&["-local=false"], false),
            (&["--local=false"], false),
            (&["-local=0"], false),
            (&["-local=f"], false),
            (&["-local=F"], false),
            (&["-local=FALSE"], false),
            (&["-local=False"], false),
            (&[], false),
        ] {
            assert_eq!(ok(form).local, local, "{form:?}");
        }
        for (form, logs) in [
            (&["-tsnet-logs"][..], true),
            (&["--tsnet-logs"], true),
            (&["-tsnet-logs=true"], true),
            (&["-tsnet-logs=false"], false),
            (&["--tsnet-logs=false"], false),
            (&["-tsnet-logs=0"], false),
            (&["-tsnet-logs=F"], false),
            // Ours, as the NixOS module and older scripts write it.
            (&["--tsnet-logs", "false"], false),
            (&["--tsnet-logs", "true"], true),
            (&[], true),
        ] {
            assert_eq!(ok(form).tailnet.tsnet_logs, logs, "{form:?}");
        }
        // A boolean alone does not swallow the next flag.
        let a = ok(&["-tsnet-logs", "-local", "-hostname", "x"]);
        assert!(a.tailnet.tsnet_logs && a.local && a.hostname == "x");
        let a = ok(&["--tsnet-logs", "false", "-local"]);
        assert!(!a.tailnet.tsnet_logs && a.local);
        for bad in [&["-local=yes please"][..], &["-tsnet-logs=maybe"]] {
            let err = go(bad).unwrap_err().to_string();
            assert!(err.contains("is not a boolean; use true or false"), "{err}");
        }
    }

    #[test]
    fn rewriting_touches_only_the_go_flags_and_stops_where_go_stops() {
        let rewrite = |args: &[&str]| -> Vec<String> {
            let argv = std::iter::once("libations").chain(args.iter().copied());
            go_style(argv.map(OsString::from))
                .into_iter()
                .skip(1)
                .map(|a| a.into_string().unwrap())
                .collect()
        };
        assert_eq!(
            rewrite(&["--log-level", "debug", "-local", "-V", "-h"]),
            ["--log-level", "debug", "--local", "-V", "-h"]
        );
        // A flag's value is never taken for a flag, not even one that looks like Go's.
        assert_eq!(
            rewrite(&["--state-dir", "-local", "-hostname=h"]),
            ["--state-dir", "-local", "--hostname=h"]
        );
        assert_eq!(
            rewrite(&["-recipes-file", "-addr", "-local"]),
            ["--recipes-file", "-addr", "--local"]
        );
        // After `--` or the first argument that is not a flag, nothing is rewritten.
        assert_eq!(rewrite(&["--", "-local"]), ["--", "-local"]);
        assert_eq!(
            rewrite(&["-local", "check", "-addr"]),
            ["--local", "check", "-addr"]
        );
        // Flags Go never had keep clap's message for a wrong dash.
        assert_eq!(rewrite(&["-ephemeral"]), ["-ephemeral"]);
        assert!(go(&["-ephemeral"]).is_err());
        // Go's -help is our --help.
        let help = go(&["-help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(help.to_string().contains("--recipes-file"));
    }
}
