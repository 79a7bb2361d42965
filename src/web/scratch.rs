//! Memory that per-request bodies are built in, kept from one request to the next.
//!
//! A search over thousands of recipes renders a body of hundreds of kilobytes and brotli
//! needs a few megabytes of tables to compress it. Allocated and freed for every request,
//! those blocks come from glibc's heaps, land between the small blocks that outlive the
//! request (the compressed answer waiting for its connection, hyper's buffers), and the
//! heaps cannot give the space back: under a load of searches on 5,000 recipes resident
//! memory rose by ~20 MiB over its resting size and stayed there. Mapping each large
//! block on its own instead returns it, but costs page faults for every request (−8 to
//! −40 % searches a second, measured).
//!
//! So a request borrows a [`Scratch`] (buffers for the body and its compressed form, and
//! the memory brotli's encoder asked for last time) and gives it back when its answer is
//! built. At most one scratch per core is kept, the number of searches that run at once
//! ([`super::SearchGate`]), and one that grew past [`KEEP_AT_MOST`] is dropped rather than
//! kept.

use brotli::enc::BrotliAlloc;
use brotli::{Allocator, SliceWrapper, SliceWrapperMut};
use std::any::Any;
use std::sync::{Mutex, PoisonError};

/// A scratch that holds more than this after use is freed instead of kept: a body that
/// large is rare (the whole list of a huge collection) and should not stay resident.
const KEEP_AT_MOST: usize = 8 << 20;

/// Blocks of one element type kept: as many as brotli's encoder holds at once (the ring
/// buffer and one growing buffer beside it, say), so that a second compression of the same
/// size allocates nothing.
const PER_TYPE: usize = 3;

/// A body buffer and brotli's tables, for building one response.
#[derive(Default)]
pub(crate) struct Scratch {
    /// The response body before compression; cleared before each use.
    pub(crate) body: Vec<u8>,
    /// The compressed body, before it is copied out at its size.
    pub(crate) out: Vec<u8>,
    /// What brotli's encoder freed last time, handed back when it asks again.
    pub(crate) tables: Tables,
}

impl Scratch {
    /// Bytes this scratch keeps allocated.
    fn size(&self) -> usize {
        self.body.capacity() + self.out.capacity() + self.tables.bytes
    }
}

/// The scratches not in use.
struct Idle(Mutex<Vec<Scratch>>);

static IDLE: Idle = Idle(Mutex::new(Vec::new()));

/// Runs `build` with a scratch: an idle one if there is one, else a new one. Afterwards
/// the scratch is kept for the next request, unless one per core is kept already or it
/// grew too large.
pub(crate) fn with_scratch<R>(build: impl FnOnce(&mut Scratch) -> R) -> R {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    IDLE.with(cores, build)
}

impl Idle {
    fn with<R>(&self, keep: usize, build: impl FnOnce(&mut Scratch) -> R) -> R {
        let taken = self.0.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let mut scratch = taken.unwrap_or_default();
        scratch.body.clear();
        let result = build(&mut scratch);
        if scratch.size() <= KEEP_AT_MOST {
            let mut idle = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if idle.len() < keep {
                idle.push(scratch);
            }
        }
        result
    }

    #[cfg(test)]
    fn kept(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// Blocks brotli's encoder freed, by element type, kept for its next request.
///
/// brotli asks for zeroed (default) slices of a dozen element types through
/// [`Allocator`]; each freed slice's vector is kept here and the smallest one large enough
/// is reset and handed out next time.
#[derive(Default)]
pub(crate) struct Tables {
    free: Vec<Box<dyn Any + Send>>,
    /// Capacity of the vectors in `free`, in bytes.
    bytes: usize,
}

impl Tables {
    /// An allocator for one compression, drawing on and returning to these tables.
    pub(crate) fn lend(&mut self) -> Lent<'_> {
        Lent(self)
    }
}

/// [`Tables`] lent to one brotli encoder (which takes its allocator by value).
pub(crate) struct Lent<'a>(&'a mut Tables);

/// One slice handed to brotli: a kept vector, reset to `len` default values.
pub(crate) struct Block<T>(Vec<T>);

impl<T> Default for Block<T> {
    fn default() -> Self {
        Block(Vec::new())
    }
}

impl<T> SliceWrapper<T> for Block<T> {
    fn slice(&self) -> &[T] {
        &self.0
    }
}

impl<T> SliceWrapperMut<T> for Block<T> {
    fn slice_mut(&mut self) -> &mut [T] {
        &mut self.0
    }
}

impl<T: Clone + Default + Send + 'static> Allocator<T> for Lent<'_> {
    type AllocatedMemory = Block<T>;

    fn alloc_cell(&mut self, len: usize) -> Block<T> {
        if len == 0 {
            return Block::default();
        }
        let tables = &mut *self.0;
        let best = tables
            .free
            .iter()
            .enumerate()
            .filter_map(|(i, kept)| {
                let v = kept.downcast_ref::<Vec<T>>()?;
                (v.capacity() >= len).then_some((i, v.capacity()))
            })
            .min_by_key(|&(_, capacity)| capacity);
        let mut v = match best {
            Some((i, _)) => match tables.free.swap_remove(i).downcast::<Vec<T>>() {
                Ok(kept) => {
                    tables.bytes -= kept.capacity() * size_of::<T>();
                    *kept
                }
                Err(_) => Vec::new(),
            },
            None => Vec::new(),
        };
        v.clear();
        v.resize(len, T::default());
        Block(v)
    }

    fn free_cell(&mut self, block: Block<T>) {
        if block.0.capacity() == 0 {
            return;
        }
        let tables = &mut *self.0;
        tables.bytes += block.0.capacity() * size_of::<T>();
        tables.free.push(Box::new(block.0));
        // Keep the largest few of each type: brotli grows some buffers step by step
        // (alloc larger, copy, free), and keeping every step would hold their sum.
        let of_type = || {
            tables
                .free
                .iter()
                .enumerate()
                .filter_map(|(i, kept)| Some((i, kept.downcast_ref::<Vec<T>>()?.capacity())))
        };
        if of_type().count() > PER_TYPE
            && let Some((i, capacity)) = of_type().min_by_key(|&(_, capacity)| capacity)
        {
            tables.free.swap_remove(i);
            tables.bytes -= capacity * size_of::<T>();
        }
    }
}

impl BrotliAlloc for Lent<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn compress(tables: &mut Tables, data: &[u8]) -> Vec<u8> {
        let params = brotli::enc::BrotliEncoderParams {
            quality: 3,
            lgwin: 18,
            ..Default::default()
        };
        let (mut input, mut output) = ([0u8; 4096], [0u8; 4096]);
        let mut out = Vec::new();
        brotli::BrotliCompressCustomAlloc(
            &mut &data[..],
            &mut out,
            &mut input,
            &mut output,
            &params,
            tables.lend(),
        )
        .expect("compressing into a Vec cannot fail");
        out
    }

    fn decompress(data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        brotli::BrotliDecompress(&mut &data[..], &mut out).expect("our output decodes");
        out
    }

    #[test]
    fn kept_tables_compress_exactly_as_fresh_ones() {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("<li>recipe {i} with {} ml lime</li>", i % 37).into_bytes())
            .collect();
        let fresh = {
            let mut out = Vec::new();
            let params = brotli::enc::BrotliEncoderParams {
                quality: 3,
                lgwin: 18,
                ..Default::default()
            };
            brotli::BrotliCompress(&mut &text[..], &mut out, &params).expect("compresses");
            out
        };
        let mut tables = Tables::default();
        // A different body first leaves tables with its data in them: reused blocks must
        // be reset, or the second result would differ from a fresh encoder's.
        let other: Vec<u8> = text.iter().rev().copied().collect();
        assert_eq!(decompress(&compress(&mut tables, &other)), other);
        assert!(tables.bytes > 0, "brotli's blocks are kept");
        assert_eq!(compress(&mut tables, &text), fresh);
        // From here on the same work finds every block it needs.
        let kept = (tables.bytes, tables.free.len());
        for _ in 0..3 {
            assert_eq!(compress(&mut tables, &text), fresh);
            assert_eq!((tables.bytes, tables.free.len()), kept, "reused, not added");
        }
    }

    #[test]
    fn scratches_are_reused_cleared_and_large_ones_dropped() {
        let idle = Idle(Mutex::new(Vec::new()));
        let first = idle.with(1, |s| {
            s.body.extend_from_slice(b"an answer");
            s.body.as_ptr()
        });
        assert_eq!(idle.kept(), 1);
        idle.with(1, |s| {
            assert!(s.body.is_empty(), "a reused body starts empty");
            assert!(s.body.capacity() >= 9, "and keeps its memory");
            assert_eq!(s.body.as_ptr(), first);
        });
        // Two at once: both are kept only if the limit allows.
        idle.with(1, |_| idle.with(1, |_| ()));
        assert_eq!(idle.kept(), 1, "no more than `keep` are kept");
        idle.with(1, |s| s.body.reserve(KEEP_AT_MOST + 1));
        assert_eq!(idle.kept(), 0, "a scratch grown past the limit is freed");
    }
}
