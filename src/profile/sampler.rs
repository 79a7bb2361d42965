//! Samples every thread's stack on `SIGPROF`, into a buffer that exists only while one
//! profile is being taken.
//!
//! A process-wide `ITIMER_PROF` timer sends `SIGPROF` for every tick of CPU time the
//! process uses; the thread that used it runs [`on_sigprof`], which walks its own stack
//! (through the signal frame, into the interrupted code) and writes the return addresses
//! into the next free slot. Nothing in the handler allocates or locks: a slot is claimed
//! with one atomic add, and the unwinder (libgcc's, through `_dl_find_object`) takes no
//! lock either.
//!
//! The handler runs with `SA_ONSTACK`. The embedded Tailscale node is Go code in this
//! process, and Go runs goroutines on small stacks without guard pages: a handler that
//! ran on one could overflow it. Go gives each of its threads a signal stack and asks
//! every non-Go handler to use it.
//!
//! Symbolising is left to the caller, after sampling stops ([`Sampler::finish`]).

use std::ffi::c_void;
use std::io;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::time::Duration;

/// Frames kept per sample, from the interrupted function outwards. Deeper stacks lose
/// their outermost frames (the runtime's), never the ones that used the CPU.
pub const DEPTH: usize = 64;
/// Words per sample: the number of frames, then [`DEPTH`] addresses.
const STRIDE: usize = DEPTH + 1;
/// Frames the handler may skip (its own and the unwinder's) while looking for the
/// interrupted one before it gives up and keeps only the interrupted address.
const MAX_SKIPPED: usize = 16;

/// Where the handler writes. Made by [`Sampler::start`], freed by its `Drop` after no
/// handler can see it any more; the handler reaches it only through [`BUFFER`].
struct Buffer {
    /// The next slot to claim; may run past `capacity`, which counts dropped samples.
    next: AtomicUsize,
    capacity: usize,
    /// `capacity * STRIDE` words, zeroed by the allocator (so untouched pages cost no
    /// memory), each slot written by the one handler that claimed it.
    words: *mut [usize],
}

/// The buffer samples go to, or null when no profile is being taken.
static BUFFER: AtomicPtr<Buffer> = AtomicPtr::new(ptr::null_mut());
/// Handlers running now: the buffer is freed only once this is back to zero.
static IN_HANDLER: AtomicUsize = AtomicUsize::new(0);

/// The stacks of one profile, innermost frame first. Addresses after the first are
/// return addresses.
#[derive(Debug, Default)]
pub struct Samples {
    pub stacks: Vec<Vec<usize>>,
    /// Samples that arrived after the buffer was full.
    pub dropped: usize,
}

/// Sampling in progress; stops when finished or dropped.
pub struct Sampler {
    buffer: *mut Buffer,
    stopped: bool,
}

impl Sampler {
    /// Starts sampling at `frequency` ticks per second of CPU time, with room for
    /// `capacity` samples. The caller makes sure only one sampler exists at a time.
    pub fn start(frequency: u32, capacity: usize) -> io::Result<Sampler> {
        let words = Box::into_raw(vec![0usize; capacity * STRIDE].into_boxed_slice());
        let buffer = Box::into_raw(Box::new(Buffer {
            next: AtomicUsize::new(0),
            capacity,
            words,
        }));
        // From here on, dropping the sampler stops sampling and frees the buffer.
        let sampler = Sampler {
            buffer,
            stopped: false,
        };
        BUFFER.store(buffer, Ordering::SeqCst);
        install_handler()?;
        set_timer(Duration::from_micros(
            1_000_000 / u64::from(frequency.max(1)),
        ))?;
        Ok(sampler)
    }

    /// Stops sampling and returns what was recorded.
    pub fn finish(mut self) -> Samples {
        self.stop();
        // SAFETY: stopped: no handler can reach the buffer any more, and it is freed
        // only when `self` is dropped, after this borrow ends.
        let buffer = unsafe { &*self.buffer };
        let words = unsafe { &*buffer.words };
        let claimed = buffer.next.load(Ordering::SeqCst);
        let taken = claimed.min(buffer.capacity);
        let stacks = words[..taken * STRIDE]
            .chunks_exact(STRIDE)
            .filter(|slot| slot[0] > 0)
            .map(|slot| slot[1..=slot[0].min(DEPTH)].to_vec())
            .collect();
        Samples {
            stacks,
            dropped: claimed - taken,
        }
    }

    /// Stops the timer, ignores `SIGPROF` from now on (a signal still pending would
    /// otherwise kill the process by default), and waits for running handlers to leave
    /// the buffer.
    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        let _ = set_timer(Duration::ZERO);
        // SAFETY: SIG_IGN is a valid disposition for SIGPROF.
        unsafe { libc::signal(libc::SIGPROF, libc::SIG_IGN) };
        BUFFER.store(ptr::null_mut(), Ordering::SeqCst);
        while IN_HANDLER.load(Ordering::SeqCst) != 0 {
            std::thread::yield_now();
        }
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop();
        // SAFETY: both came from Box::into_raw in `start`, are freed only here, and no
        // handler can reach them after `stop`.
        unsafe {
            let buffer = Box::from_raw(self.buffer);
            drop(Box::from_raw(buffer.words));
        }
    }
}

fn install_handler() -> io::Result<()> {
    // SAFETY: the action is zeroed and then fully set up: a handler with the
    // three-argument signature SA_SIGINFO asks for, and an empty mask.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigprof as *const () as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART | libc::SA_ONSTACK;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGPROF, &action, ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Arms `ITIMER_PROF` to fire every `tick` of the process's CPU time; zero disarms it.
fn set_timer(tick: Duration) -> io::Result<()> {
    let tick = libc::timeval {
        tv_sec: tick.as_secs() as libc::time_t,
        tv_usec: tick.subsec_micros() as libc::suseconds_t,
    };
    let timer = libc::itimerval {
        it_interval: tick,
        it_value: tick,
    };
    // SAFETY: the value is fully initialised; the old value is not asked for.
    if unsafe { libc::setitimer(libc::ITIMER_PROF, &timer, ptr::null_mut()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

extern "C" fn on_sigprof(_: libc::c_int, _: *mut libc::siginfo_t, context: *mut c_void) {
    // SAFETY: errno is thread-local; the interrupted code must find it unchanged.
    let errno = unsafe { *libc::__errno_location() };
    // Count ourselves in before looking at the buffer, so that `stop` cannot free it
    // between our load and our writes.
    IN_HANDLER.fetch_add(1, Ordering::SeqCst);
    let buffer = BUFFER.load(Ordering::SeqCst);
    if !buffer.is_null() {
        // SAFETY: non-null means the sampler is alive, and it waits for IN_HANDLER to
        // reach zero before freeing the buffer.
        record(unsafe { &*buffer }, interrupted_at(context));
    }
    IN_HANDLER.fetch_sub(1, Ordering::SeqCst);
    // SAFETY: as above.
    unsafe { *libc::__errno_location() = errno };
}

/// Claims a slot and writes the interrupted stack into it; the count is written last.
fn record(buffer: &Buffer, pc: Option<usize>) {
    let slot = buffer.next.fetch_add(1, Ordering::Relaxed);
    if slot >= buffer.capacity {
        return;
    }
    // SAFETY: the slot is inside the allocation (slot < capacity) and only this handler
    // claimed it, so nothing else writes these words.
    let words = unsafe {
        std::slice::from_raw_parts_mut((buffer.words as *mut usize).add(slot * STRIDE), STRIDE)
    };
    let (count, frames) = words.split_at_mut(1);
    let mut n = 0;
    let mut skipped = 0;
    let mut found = pc.is_none();
    // SAFETY: unsynchronized tracing is what a signal handler must use (the
    // synchronized one takes a lock the interrupted thread may hold).
    unsafe {
        backtrace::trace_unsynchronized(|frame| {
            let ip = frame.ip() as usize;
            if ip == 0 {
                // The outermost frame: nothing called it.
                return false;
            }
            if !found {
                // The frames before the interrupted one are this handler's own.
                found = Some(ip) == pc;
                skipped += 1;
                if !found {
                    return skipped < MAX_SKIPPED;
                }
            }
            frames[n] = ip;
            n += 1;
            n < DEPTH
        });
    }
    if n == 0
        && let Some(pc) = pc
    {
        frames[0] = pc;
        n = 1;
    }
    count[0] = n;
}

/// The address the signal interrupted, from the saved registers.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn interrupted_at(context: *mut c_void) -> Option<usize> {
    let context = context as *const libc::ucontext_t;
    // SAFETY: with SA_SIGINFO the third argument is the interrupted ucontext_t.
    (!context.is_null())
        .then(|| unsafe { (*context).uc_mcontext.gregs[libc::REG_RIP as usize] as usize })
}

/// The address the signal interrupted, from the saved registers.
#[cfg(all(target_os = "linux", target_arch = "aarch64"))]
fn interrupted_at(context: *mut c_void) -> Option<usize> {
    let context = context as *const libc::ucontext_t;
    // SAFETY: with SA_SIGINFO the third argument is the interrupted ucontext_t.
    (!context.is_null()).then(|| unsafe { (*context).uc_mcontext.pc as usize })
}

/// Elsewhere every frame the unwinder finds is kept, the handler's own included.
#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
fn interrupted_at(_: *mut c_void) -> Option<usize> {
    None
}
