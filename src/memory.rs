//! How glibc's allocator hands memory back, tuned for our two phases.
//!
//! Start-up reads the recipes file, renders the list page and the JSON, and then, in the
//! background, compresses them with brotli's quality 11 (tens of MiB of match-finder
//! tables). By default glibc raises its mmap threshold to the size of the largest block
//! freed so far, so after the first brotli table is freed the next ones come from the
//! heap, whose freed pages stay resident: peak and resting RSS both grew by ~10–30 MiB at
//! 5,000 recipes. [`loading`] keeps the threshold low, so every large block is its own
//! mapping and goes back to the kernel when freed. Once the start-up work is done,
//! [`serving`] raises it, so that per-request bodies (a search over thousands of recipes
//! can be a megabyte) reuse heap memory instead of mapping and faulting fresh pages each
//! time.
//!
//! Elsewhere than glibc both are no-ops.

/// Large allocations are mapped (and unmapped when freed) from here on.
pub fn loading() {
    set(256 << 10, 256 << 10);
}

/// Allocations up to 8 MiB come from the heap from here on; the heap keeps up to 16 MiB
/// of free space at its top before returning it.
pub fn serving() {
    set(8 << 20, 16 << 20);
}

/// Heaps at most. glibc gives threads up to eight per core, and each keeps its own free
/// space and fragments on its own: under a long mixed load (answers of megabytes made on
/// whichever thread) resident memory kept creeping up with the number of heaps touched.
/// Two are plenty for this server's few threads that allocate much.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENAS: i32 = 2;
/// Hands free heap memory back to the kernel now, after a burst of short-lived
/// allocations (taking a profile) that would otherwise stay resident.
pub fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory to the kernel; any argument is valid.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set(mmap_threshold: i32, trim_threshold: i32) {
    // SAFETY: mallopt only adjusts allocator parameters; any value is accepted or refused
    // (return value 0), never undefined.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, mmap_threshold);
        libc::mallopt(libc::M_TRIM_THRESHOLD, trim_threshold);
        libc::mallopt(libc::M_ARENA_MAX, ARENAS);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set(_: i32, _: i32) {}
