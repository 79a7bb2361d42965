//! Process signals (SIGINT, SIGTERM, SIGHUP), safe next to the Go runtime.
//!
//! The default build links Tailscale's Go runtime (as a C archive), which starts with the
//! process, even in `--local` mode. Go runs goroutines on small stacks and gives its threads
//! an alternate signal stack; a handler installed by non-Go code must carry `SA_ONSTACK`, or a
//! signal that lands on a Go thread runs the handler on a goroutine stack (Go's `os/signal`
//! docs, "Go programs that use cgo or SWIG"). tokio's handlers come from
//! `signal-hook-registry`, which installs them with `SA_RESTART | SA_SIGINFO` only, so after
//! tokio has registered a signal we re-install the same handler with `SA_ONSTACK` added.
//! Tailscale's Go code never calls `signal.Notify`, so tokio still receives the signals.

use std::io;
use std::mem;

use tokio::signal::unix::{Signal, SignalKind, signal};

/// Adds `SA_ONSTACK` to the currently installed handler for `signum`.
fn add_sa_onstack(signum: libc::c_int) -> io::Result<()> {
    // SAFETY: sigaction with a NULL new action only reads the current one; re-installing it
    // with one more flag keeps the handler and mask unchanged.
    unsafe {
        let mut cur: libc::sigaction = mem::zeroed();
        if libc::sigaction(signum, std::ptr::null(), &mut cur) != 0 {
            return Err(io::Error::last_os_error());
        }
        if cur.sa_sigaction == libc::SIG_DFL || cur.sa_sigaction == libc::SIG_IGN {
            return Ok(());
        }
        if cur.sa_flags & libc::SA_ONSTACK == 0 {
            cur.sa_flags |= libc::SA_ONSTACK;
            if libc::sigaction(signum, &cur, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
    }
    Ok(())
}

fn listen(kind: SignalKind, signum: libc::c_int) -> io::Result<Signal> {
    let s = signal(kind)?;
    add_sa_onstack(signum)?;
    Ok(s)
}

/// SIGINT and SIGTERM: the request to stop. Create it early, then await [`Shutdown::recv`].
#[derive(Debug)]
pub struct Shutdown {
    int: Signal,
    term: Signal,
}

impl Shutdown {
    /// Registers the handlers (must run inside a tokio runtime).
    pub fn new() -> io::Result<Shutdown> {
        Ok(Shutdown {
            int: listen(SignalKind::interrupt(), libc::SIGINT)?,
            term: listen(SignalKind::terminate(), libc::SIGTERM)?,
        })
    }

    /// Resolves with the signal's name when one arrives.
    pub async fn recv(&mut self) -> &'static str {
        tokio::select! {
            _ = self.int.recv() => "SIGINT",
            _ = self.term.recv() => "SIGTERM",
        }
    }
}

/// SIGHUP: the request to reload the recipes file.
pub fn hangup() -> io::Result<Signal> {
    listen(SignalKind::hangup(), libc::SIGHUP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn handlers_get_sa_onstack() {
        let _s = Shutdown::new().expect("signals");
        let _h = hangup().expect("sighup");
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: read-only sigaction query.
            let flags = unsafe {
                let mut cur: libc::sigaction = mem::zeroed();
                assert_eq!(libc::sigaction(sig, std::ptr::null(), &mut cur), 0);
                cur.sa_flags
            };
            assert_ne!(flags & libc::SA_ONSTACK, 0, "signal {sig}");
        }
    }
}
