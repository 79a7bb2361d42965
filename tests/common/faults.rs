//! Shared by the fault tests (tests/suite/faults.rs for the recipes file, tests/suite/household_safety.rs
//! for the household's database): whether faults can be injected here, `strace --inject`
//! attached to the running binary, a small tmpfs to fill, and a replayable random source.

use super::record_skip;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether faults can be injected here (root, for ptrace and `mount`, and Debian's
/// `strace`); else the test is recorded as skipped, and fails under
/// `LIBATIONS_REQUIRE_SHARED_DATA=1` (CI), where they must be there.
pub fn injectable(what: &str) -> bool {
    let root = unsafe { libc::geteuid() } == 0;
    let strace = Command::new("strace")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if root && strace {
        return true;
    }
    let reason = format!(
        "{what} needs root and strace (root: {root}, strace: {strace}); scripts/test installs strace"
    );
    let required = std::env::var("LIBATIONS_REQUIRE_SHARED_DATA").is_ok_and(|v| v == "1");
    assert!(!required, "LIBATIONS_REQUIRE_SHARED_DATA=1 but {reason}");
    eprintln!("SKIPPED: {reason}");
    record_skip(&reason);
    false
}

/// One injected fault: `syscall` fails with `error` (`EIO`, `ENOSPC`…) at its `when`th
/// call, counted per thread over the traced files (strace's `when=` syntax: `2` is the
/// second only, `2..3` the second and third, `1+` every one).
#[derive(Debug, Clone, Copy)]
pub struct Inject<'a> {
    pub syscall: &'a str,
    pub error: &'a str,
    pub when: &'a str,
}

impl Inject<'_> {
    pub fn label(&self) -> String {
        format!("{} {} #{}", self.syscall, self.error, self.when)
    }
}

/// `strace` attached to a running process, injecting faults; detached when dropped.
pub struct Tracer {
    child: Child,
    log: PathBuf,
}

impl Tracer {
    /// Attaches to every thread of `pid`, failing `faults` on the files `paths` (strace's
    /// `-P`; every file when empty), logging to `log`; returns once every thread is traced.
    pub fn attach(pid: u32, faults: &[Inject<'_>], paths: &[PathBuf], log: PathBuf) -> Tracer {
        let mut syscalls: Vec<&str> = faults.iter().map(|f| f.syscall).collect();
        syscalls.sort_unstable();
        syscalls.dedup();
        let mut cmd = Command::new("strace");
        cmd.args(["-f", "-p", &pid.to_string(), "-o"])
            .arg(&log)
            .arg(format!("--trace={}", syscalls.join(",")));
        for f in faults {
            cmd.arg(format!(
                "--inject={}:error={}:when={}",
                f.syscall, f.error, f.when
            ));
        }
        for p in paths {
            cmd.arg("-P").arg(p);
        }
        let child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start strace");
        let tracer = Tracer { child, log };
        tracer.wait_attached(pid);
        tracer
    }

    /// Every thread of `pid` is traced by us.
    fn wait_attached(&self, pid: u32) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let ours = format!("TracerPid:\t{}", self.child.id());
        loop {
            let tasks: Vec<_> = std::fs::read_dir(format!("/proc/{pid}/task"))
                .unwrap()
                .filter_map(Result::ok)
                .collect();
            let all = tasks.iter().all(|t| {
                std::fs::read_to_string(t.path().join("status"))
                    .is_ok_and(|s| s.lines().any(|l| l == ours))
            });
            if all {
                return;
            }
            assert!(Instant::now() < deadline, "strace did not attach to {pid}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Detaches and returns strace's log (`(INJECTED)` marks each call it failed).
    pub fn detach(mut self) -> String {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        super::kill_child(&mut self.child);
    }
}

/// A tmpfs of `size` mounted on a new directory, unmounted when dropped.
pub struct Tmpfs {
    pub dir: tempfile::TempDir,
}

impl Tmpfs {
    pub fn mount(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(status.success(), "mount a tmpfs");
        Tmpfs { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Bytes free for us.
    pub fn free(&self) -> u64 {
        let path = std::ffi::CString::new(self.dir.path().to_str().unwrap()).unwrap();
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::statvfs(path.as_ptr(), &mut st) }, 0);
        st.f_bavail * st.f_frsize
    }

    /// Fills the disk until `leave` bytes are free (rounded down to its blocks).
    pub fn fill(&self, leave: u64) -> PathBuf {
        let filler = self.dir.path().join("filler");
        let size = self.free().saturating_sub(leave);
        std::fs::write(&filler, vec![0u8; size as usize]).unwrap();
        filler
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

/// A small xorshift generator: varied, replayable fault counts and kill times.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `$key` as a number, else `default`.
pub fn env_number(key: &str, default: u64) -> u64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A seed from `$key` (to replay a run), else from the clock; printed either way.
pub fn seed(key: &str) -> u64 {
    let seed = std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    eprintln!("{key}={seed} replays this run");
    seed
}
