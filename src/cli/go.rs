//! The Go original's command lines: its single-dash long flags (`-local`, `-addr=:8080`)
//! rewritten to ours, its booleans (`strconv.ParseBool`) and its `-addr :PORT`. Kept apart
//! from the flags themselves so that the flags read as what they are, and so that what
//! exists only for compatibility is in one place.

use std::ffi::OsString;
use std::net::{Ipv4Addr, SocketAddr};

/// The Go original's flags (plus Go's `-help`), which it took with one dash or two.
const GO_FLAGS: [&str; 6] = [
    "addr",
    "hostname",
    "local",
    "recipes-file",
    "tsnet-logs",
    "help",
];

/// Does the rewriting of [`super::go_style`] for `cmd`, our clap definition, built.
pub(super) fn rewrite(
    cmd: &clap::Command,
    args: impl IntoIterator<Item = OsString>,
) -> Vec<OsString> {
    let mut args = args.into_iter().peekable();
    let mut out: Vec<OsString> = args.next().into_iter().collect();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        if text == "--" || !text.starts_with('-') || text == "-" {
            out.push(arg);
            out.extend(args);
            break;
        }
        let body = text.trim_start_matches('-');
        let (name, inline_value) = match body.split_once('=') {
            Some((name, _)) => (name, true),
            None => (body, false),
        };
        let single_go = !text.starts_with("--") && GO_FLAGS.contains(&name);
        out.push(if single_go {
            format!("-{text}").into()
        } else {
            arg.clone()
        });
        let long = text.starts_with("--") || single_go;
        if long && !inline_value {
            let next_is_value = args
                .peek()
                .and_then(|next| next.to_str())
                .is_some_and(|next| !next.starts_with('-'));
            match values_taken(cmd, name) {
                Values::One => out.extend(args.next()),
                Values::Optional if next_is_value => out.extend(args.next()),
                Values::Optional | Values::None => {}
            }
        }
    }
    out
}

/// How many arguments after `--name` belong to it.
enum Values {
    None,
    One,
    /// `--tsnet-logs [BOOL]`: clap takes the next argument unless it starts with `-`.
    Optional,
}

fn values_taken(cmd: &clap::Command, name: &str) -> Values {
    let Some(arg) = cmd.get_arguments().find(|a| a.get_long() == Some(name)) else {
        return Values::None;
    };
    match arg.get_num_args() {
        _ if !arg.get_action().takes_values() => Values::None,
        Some(range) if range.min_values() == 0 && range.max_values() > 0 => {
            if arg.is_require_equals_set() {
                Values::None
            } else {
                Values::Optional
            }
        }
        Some(range) if range.max_values() == 0 => Values::None,
        _ => Values::One,
    }
}

/// A boolean as Go's `strconv.ParseBool` reads it (`1`, `t`, `TRUE`, `False`, …), plus
/// `yes`/`no`/`on`/`off` for environment variables.
pub(super) fn go_bool(value: &str) -> Result<bool, String> {
    match value {
        "1" | "t" | "T" | "TRUE" | "true" | "True" | "yes" | "on" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" | "no" | "off" => Ok(false),
        other => Err(format!("{other:?} is not a boolean; use true or false")),
    }
}

/// A socket address, or `:PORT` as the Go original took it: 127.0.0.1 and that port.
pub(super) fn listen_addr(value: &str) -> Result<SocketAddr, String> {
    if let Some(port) = value.strip_prefix(':') {
        return port
            .parse::<u16>()
            .map(|port| SocketAddr::from((Ipv4Addr::LOCALHOST, port)))
            .map_err(|_| format!("{value:?}: the port after ':' must be a number up to 65535"));
    }
    value.parse().map_err(|_| {
        format!(
            "{value:?} is not an address: use IP:PORT (127.0.0.1:8080, 0.0.0.0:8080, \
             [::]:8080) or :PORT for 127.0.0.1:PORT"
        )
    })
}
