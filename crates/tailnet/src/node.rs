//! Node lifecycle on top of libtailscale's C API.
//!
//! All libtailscale calls that may block (start, listen, loopback, close) run
//! on tokio's blocking pool so they never stall the async workers.

use std::ffi::{CStr, CString, c_char, c_int};
use std::fs::{DirBuilder, File};
use std::io::{self, BufRead, BufReader};
use std::net::SocketAddr;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use libtailscale_sys as sys;

use super::accept::Listener;
use super::localapi::{LocalApi, Status};
use super::{Result, TailnetError};

/// tracing target for lines Tailscale itself logs.
pub(crate) const TAILSCALE_LOG_TARGET: &str = "tailscale";

/// How to start the embedded node.
#[derive(Debug, Clone)]
pub struct NodeConfig {
    /// Machine name in the tailnet; becomes `<hostname>.<tailnet>.ts.net`.
    pub hostname: String,
    /// Where Tailscale keeps the node identity (keys) and cached certificates.
    /// Created with mode 0700 if missing.
    pub state_dir: PathBuf,
    /// Auth key for the first login. Ignored once the state dir holds a
    /// logged-in node. Without it (and without saved state) the node waits
    /// for someone to open the login URL, which we log at WARN.
    pub auth_key: Option<String>,
    /// Coordination server; `None` means Tailscale's own.
    pub control_url: Option<String>,
    /// Register as an ephemeral node (removed from the tailnet when offline).
    pub ephemeral: bool,
    /// Forward Tailscale's (verbose) backend logs into `tracing` under the
    /// `tailscale` target. When false they are discarded.
    pub forward_logs: bool,
}

/// A running embedded Tailscale node.
#[derive(Debug)]
pub struct Node {
    sd: sys::tailscale,
    hostname: String,
    local_api: LocalApi,
    closed: Arc<AtomicBool>,
    /// Tells listeners the node is gone (libtailscale cannot; see accept.rs).
    shutdown: tokio::sync::watch::Sender<bool>,
}

pub(crate) fn cstring(what: &str, value: &str) -> Result<CString> {
    CString::new(value)
        .map_err(|_| TailnetError::InvalidConfig(format!("{what} contains a NUL byte")))
}

/// Reads libtailscale's last error message for `sd`.
pub(crate) fn last_error(sd: sys::tailscale) -> String {
    let mut buf = [0 as c_char; 512];
    // SAFETY: buf is writable for buf.len() bytes; Go always NUL-terminates.
    let rc = unsafe { sys::tailscale_errmsg(sd, buf.as_mut_ptr(), buf.len()) };
    if rc != 0 && rc != libc::ERANGE {
        return format!("(no error message, errmsg returned {rc})");
    }
    // SAFETY: NUL-terminated by tailscale_errmsg.
    let msg = unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    if msg.is_empty() {
        "(no error message)".to_owned()
    } else {
        msg
    }
}

pub(crate) fn check(sd: sys::tailscale, op: &'static str, rc: c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(TailnetError::Ffi {
            op,
            code: rc,
            message: last_error(sd),
        })
    }
}

/// Creates the state dir (0700) or checks an existing one is a writable
/// directory, so that a bad path fails here with the path in the message
/// instead of deep inside Go.
pub(crate) fn prepare_state_dir(path: &Path) -> Result<()> {
    let err = |source: io::Error| TailnetError::StateDir {
        path: path.to_owned(),
        source,
    };
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(err)?;
    let meta = std::fs::metadata(path).map_err(err)?;
    if !meta.is_dir() {
        return Err(err(io::Error::new(
            io::ErrorKind::NotADirectory,
            "not a directory",
        )));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        tracing::warn!(
            target: "libations::tailnet",
            path = %path.display(),
            "tailscale state directory is accessible by other users; it holds the node's private keys (chmod 700 it)"
        );
    }
    let probe = path.join(".libations-write-test");
    File::create(&probe).map_err(err)?;
    std::fs::remove_file(&probe).map_err(err)?;
    Ok(())
}

/// Maps Tailscale's verbosity prefixes onto tracing levels.
pub(crate) fn forward_line(line: &str) {
    let line = line.trim_end();
    if line.is_empty() {
        return;
    }
    // The tag may follow a subsystem prefix ("wg: [v2] ...").
    if line.contains("[v2] ") {
        tracing::trace!(target: TAILSCALE_LOG_TARGET, "{}", line.replacen("[v2] ", "", 1));
    } else if line.contains("[v1] ") {
        tracing::debug!(target: TAILSCALE_LOG_TARGET, "{}", line.replacen("[v1] ", "", 1));
    } else {
        tracing::info!(target: TAILSCALE_LOG_TARGET, "{line}");
    }
}

/// Creates a pipe and a thread that turns each line written to it into a
/// tracing event. Returns the write end for `tailscale_set_logfd`.
///
/// A dedicated thread rather than a tokio task: Go writes to the pipe
/// synchronously from inside the node, so if the reader ever stopped (a busy
/// or shutting-down runtime) a full pipe would stall Tailscale itself. The
/// thread lives as long as the write end is open, i.e. for the process
/// lifetime (Go never closes it).
pub(crate) fn spawn_log_forwarder() -> Result<OwnedFd> {
    let mut fds = [0 as RawFd; 2];
    // SAFETY: fds has room for two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(TailnetError::LogPipe(io::Error::last_os_error()));
    }
    // SAFETY: pipe2 succeeded; both fds are new and owned by us.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    std::thread::Builder::new()
        .name("tailscale-log".into())
        .spawn(move || {
            let mut reader = BufReader::new(File::from(read));
            let mut buf = Vec::with_capacity(512);
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) => break,
                    Ok(_) => forward_line(&String::from_utf8_lossy(&buf)),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        tracing::warn!(target: "libations::tailnet", "tailscale log pipe failed: {e}");
                        break;
                    }
                }
            }
        })
        .map_err(TailnetError::LogPipe)?;
    // Ours until Go takes it (os.NewFile in TsnetSetLogFD); if start-up fails before that,
    // dropping it closes the pipe and ends the thread.
    Ok(write)
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    Ok(tokio::task::spawn_blocking(f).await?)
}

impl Node {
    /// Configures and starts the node. Returns once the Go side is started
    /// and its LocalAPI is reachable; it may still be logging in — use
    /// [`Node::wait_running`].
    pub async fn start(cfg: NodeConfig) -> Result<Node> {
        let settings = CSettings::of(&cfg)?;
        prepare_state_dir(&cfg.state_dir)?;
        let log_pipe = if cfg.forward_logs {
            Some(spawn_log_forwarder()?)
        } else {
            None
        };
        let (sd, loopback) = blocking(move || new_started(&settings, log_pipe)).await??;
        let (addr, cred) = loopback;
        let addr: SocketAddr = addr
            .parse()
            .map_err(|_| TailnetError::Loopback(format!("not an address: {addr:?}")))?;
        tracing::debug!(target: "libations::tailnet", %addr, "tailscale node started; LocalAPI on loopback");
        Ok(Node {
            sd,
            hostname: cfg.hostname,
            local_api: LocalApi::new(addr, &cred),
            closed: Arc::new(AtomicBool::new(false)),
            shutdown: tokio::sync::watch::Sender::new(false),
        })
    }

    /// The LocalAPI client for this node.
    pub fn local_api(&self) -> &LocalApi {
        &self.local_api
    }

    /// Waits until the node is `Running` with tailnet addresses.
    ///
    /// While Tailscale waits for an interactive login, the login URL is
    /// logged at WARN (once per distinct URL). On success logs the MagicDNS
    /// name and IPs and returns the status.
    pub(crate) async fn wait_running(&self, timeout: Duration) -> Result<Status> {
        let start = Instant::now();
        let mut joining = Joining::default();
        loop {
            self.ensure_open()?;
            match self.local_api.status().await {
                Ok(st) if st.backend_state == "Running" && !st.tailscale_ips.is_empty() => {
                    tracing::info!(
                        target: "libations::tailnet",
                        name = st.dns_name().unwrap_or("(no MagicDNS name)"),
                        ips = %st.tailscale_ips.join(", "),
                        "joined the tailnet"
                    );
                    return Ok(st);
                }
                Ok(st) => joining.saw(&self.hostname, st),
                Err(e) => tracing::debug!(target: "libations::tailnet", "status poll failed: {e}"),
            }
            if start.elapsed() >= timeout {
                return Err(joining.not_running(start.elapsed()));
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// Listens on a tailnet TCP port (all of the node's tailnet addresses).
    pub(crate) async fn listen(&self, port: u16) -> Result<Listener> {
        self.ensure_open()?;
        let sd = self.sd;
        let fd = blocking(move || -> Result<OwnedFd> {
            let network = cstring("network", "tcp")?;
            let addr = cstring("address", &format!(":{port}"))?;
            let mut out: sys::tailscale_listener = -1;
            // SAFETY: strings outlive the call; out is a valid pointer.
            let rc =
                unsafe { sys::tailscale_listen(sd, network.as_ptr(), addr.as_ptr(), &mut out) };
            check(sd, "listen", rc)?;
            // SAFETY: on success `out` is a fresh socketpair end owned by us.
            Ok(unsafe { OwnedFd::from_raw_fd(out) })
        })
        .await??;
        Listener::from_fd(fd, port, self.shutdown.subscribe())
            .map_err(|source| TailnetError::Listen { port, source })
    }

    /// Shuts the node down. Listeners then report closed (`accept` → `None`).
    /// State is persisted continuously by Tailscale, so nothing is lost if
    /// this is never called; it is still the clean way to leave the tailnet
    /// (ephemeral nodes disappear sooner).
    pub(crate) async fn close(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        self.shutdown.send_replace(true);
        let sd = self.sd;
        blocking(move || {
            // SAFETY: sd came from tailscale_new and is closed only once.
            let rc = unsafe { sys::tailscale_close(sd) };
            if rc != 0 {
                // errmsg is gone with the server; Go logged the reason.
                Err(TailnetError::Ffi {
                    op: "close",
                    code: rc,
                    message: "see the tailscale log".into(),
                })
            } else {
                Ok(())
            }
        })
        .await?
    }

    pub(crate) fn ensure_open(&self) -> Result<()> {
        if self.closed.load(Ordering::SeqCst) {
            Err(TailnetError::Closed)
        } else {
            Ok(())
        }
    }
}

/// A node dropped without [`Node::close`] (an error path, a panic) still leaves the tailnet
/// and releases Go's resources. `tailscale_close` blocks while Go shuts the node down, so
/// it runs on a thread of its own rather than in whatever context dropped the node.
impl Drop for Node {
    fn drop(&mut self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.shutdown.send_replace(true);
        let sd = self.sd;
        let closing = std::thread::Builder::new()
            .name("tailscale-close".into())
            // SAFETY: sd came from tailscale_new and, `closed` having been false, was
            // never closed; nothing else can use it once the Node is gone.
            .spawn(move || unsafe { sys::tailscale_close(sd) });
        if let Err(e) = closing {
            tracing::warn!(target: "libations::tailnet", "could not close the tailnet node: {e}");
        }
    }
}

/// The node's settings as C strings, checked before anything starts.
pub(crate) struct CSettings {
    hostname: CString,
    dir: CString,
    auth_key: Option<CString>,
    control_url: Option<CString>,
    ephemeral: bool,
}

impl CSettings {
    pub(crate) fn of(cfg: &NodeConfig) -> Result<CSettings> {
        let hostname = cstring("hostname", &cfg.hostname)?;
        let dir = cfg
            .state_dir
            .to_str()
            .ok_or_else(|| TailnetError::InvalidConfig("state_dir is not valid UTF-8".into()))?;
        let optional =
            |what, value: &Option<String>| value.as_deref().map(|v| cstring(what, v)).transpose();
        Ok(CSettings {
            hostname,
            dir: cstring("state_dir", dir)?,
            auth_key: optional("auth key", &cfg.auth_key)?,
            control_url: optional("control URL", &cfg.control_url)?,
            ephemeral: cfg.ephemeral,
        })
    }

    /// Applies the settings to `sd`, hands it the log pipe's write end (or discards the
    /// logs), starts it, and returns its LocalAPI loopback (address, credential).
    pub fn start(&self, sd: sys::tailscale, log_pipe: Option<OwnedFd>) -> Result<(String, String)> {
        // SAFETY: plain FFI calls with NUL-terminated strings that outlive each call; Go
        // copies them (C.GoString).
        unsafe {
            check(sd, "set_dir", sys::tailscale_set_dir(sd, self.dir.as_ptr()))?;
            let hostname = self.hostname.as_ptr();
            check(
                sd,
                "set_hostname",
                sys::tailscale_set_hostname(sd, hostname),
            )?;
            if let Some(k) = &self.auth_key {
                check(
                    sd,
                    "set_authkey",
                    sys::tailscale_set_authkey(sd, k.as_ptr()),
                )?;
            }
            if let Some(u) = &self.control_url {
                let rc = sys::tailscale_set_control_url(sd, u.as_ptr());
                check(sd, "set_control_url", rc)?;
            }
            let ephemeral = c_int::from(self.ephemeral);
            check(
                sd,
                "set_ephemeral",
                sys::tailscale_set_ephemeral(sd, ephemeral),
            )?;
            // -1 discards Tailscale's logs.
            let fd = log_pipe.as_ref().map_or(-1, |pipe| pipe.as_raw_fd());
            check(sd, "set_logfd", sys::tailscale_set_logfd(sd, fd))?;
            // Go owns the write end now.
            let _ = log_pipe.map(IntoRawFd::into_raw_fd);
            check(sd, "start", sys::tailscale_start(sd))?;
        }
        loopback(sd)
    }
}

/// A new libtailscale server with `settings`, started; closed again if a step fails.
pub(crate) fn new_started(
    settings: &CSettings,
    log_pipe: Option<OwnedFd>,
) -> Result<(sys::tailscale, (String, String))> {
    // SAFETY: tailscale_new takes nothing and returns a handle we own.
    let sd = unsafe { sys::tailscale_new() };
    match settings.start(sd, log_pipe) {
        Ok(loopback) => Ok((sd, loopback)),
        Err(e) => {
            // SAFETY: sd came from tailscale_new.
            unsafe { sys::tailscale_close(sd) };
            Err(e)
        }
    }
}

/// What [`Node::wait_running`] has seen while the node is not running yet, so that each
/// login URL and the approval hint are logged once, and a timeout says what was last seen.
#[derive(Default)]
pub(crate) struct Joining {
    last_url: String,
    warned_machine_auth: bool,
    last: Option<Status>,
}

impl Joining {
    /// Logs what someone must do for `hostname` to join (open a URL, approve it), once.
    pub(crate) fn saw(&mut self, hostname: &str, st: Status) {
        if !st.auth_url.is_empty() && st.auth_url != self.last_url {
            tracing::warn!(
                target: "libations::tailnet",
                "open this URL to add {hostname} to your tailnet: {}",
                st.auth_url
            );
            self.last_url.clone_from(&st.auth_url);
        }
        if st.backend_state == "NeedsMachineAuth" && !self.warned_machine_auth {
            tracing::warn!(
                target: "libations::tailnet",
                "{hostname} is waiting for approval in the Tailscale admin console (Machines page)"
            );
            self.warned_machine_auth = true;
        }
        self.last = Some(st);
    }

    /// The error for a node still not running after `waited`, with what would help.
    pub(crate) fn not_running(&self, waited: Duration) -> TailnetError {
        let last = self.last.as_ref();
        let state = last.map_or_else(|| "unknown".to_owned(), |s| s.backend_state.clone());
        let mut hint = match last {
            Some(s) if !s.auth_url.is_empty() => format!("; log in at {}", s.auth_url),
            Some(s) if s.backend_state == "NeedsLogin" => {
                "; provide an auth key or open the login URL".to_owned()
            }
            Some(s) if s.backend_state == "NeedsMachineAuth" => {
                "; approve the machine in the admin console".to_owned()
            }
            _ => String::new(),
        };
        // Tailscale's own diagnosis, e.g. "You are logged out. The last login error was:
        // invalid authkey".
        if let Some(s) = last.filter(|s| !s.health.is_empty()) {
            hint.push_str("; tailscale reports: ");
            hint.push_str(&s.health.join("; "));
        }
        TailnetError::NotRunning {
            state,
            waited,
            hint,
        }
    }
}

/// Calls `tailscale_loopback` and returns (address, LocalAPI credential).
pub(crate) fn loopback(sd: sys::tailscale) -> Result<(String, String)> {
    let mut addr = [0 as c_char; 128];
    // The C API declares both credential buffers as char[static 33].
    let mut proxy_cred = [0 as c_char; 33];
    let mut local_cred = [0 as c_char; 33];
    // SAFETY: all buffers are writable and of the sizes promised to Go.
    let rc = unsafe {
        sys::tailscale_loopback(
            sd,
            addr.as_mut_ptr(),
            addr.len(),
            proxy_cred.as_mut_ptr(),
            local_cred.as_mut_ptr(),
        )
    };
    check(sd, "loopback", rc)?;
    // SAFETY: Go NUL-terminates every buffer (also on error paths).
    let addr = unsafe { CStr::from_ptr(addr.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    let cred = unsafe { CStr::from_ptr(local_cred.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    if cred.len() != 32 {
        return Err(TailnetError::Loopback(format!(
            "a credential of length {} (want 32)",
            cred.len()
        )));
    }
    Ok((addr, cred))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_dir_is_created_private() {
        let base = std::env::temp_dir().join(format!("tailnet-test-{}", std::process::id()));
        let dir = base.join("a/b");
        prepare_state_dir(&dir).expect("create");
        let mode = std::fs::metadata(&dir).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::remove_dir_all(&base).expect("cleanup");
    }

    #[test]
    fn state_dir_error_names_path() {
        let file = std::env::temp_dir().join(format!("tailnet-test-file-{}", std::process::id()));
        std::fs::write(&file, b"x").expect("write");
        let err = prepare_state_dir(&file.join("sub")).expect_err("must fail");
        assert!(err.to_string().contains("tailnet-test-file"), "{err}");
        std::fs::remove_file(&file).expect("cleanup");
    }
}
