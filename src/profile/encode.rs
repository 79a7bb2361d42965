//! Turns sampled stacks into a pprof profile: symbolised, counted, and written as the
//! protobuf `perftools.profiles.Profile` (github.com/google/pprof, proto/profile.proto).
//!
//! The message is small and stable, so it is written here by hand rather than through a
//! code generator. Every location carries its address and its function's name, so tools
//! need neither the binary nor a symbol server to read it.

use std::collections::HashMap;
use std::ffi::c_void;
use std::time::{Duration, SystemTime};

/// What was sampled and how.
pub struct Profile<'a> {
    /// Innermost frame first; frames after the first are return addresses.
    pub stacks: &'a [Vec<usize>],
    /// CPU time one sample stands for.
    pub period: Duration,
    pub started: SystemTime,
    pub duration: Duration,
}

/// The profile as pprof's protobuf (not yet compressed).
pub fn encode(profile: &Profile<'_>) -> Vec<u8> {
    let mut tables = Tables::default();
    let mut counts: HashMap<Vec<u64>, i64> = HashMap::new();
    for stack in profile.stacks {
        let locations = stack
            .iter()
            .enumerate()
            // A return address points after the call: look up the call itself.
            .map(|(i, &addr)| tables.location(if i == 0 { addr } else { addr.saturating_sub(1) }))
            .collect();
        *counts.entry(locations).or_default() += 1;
    }
    let period = i64::try_from(profile.period.as_nanos()).unwrap_or(i64::MAX);
    let samples = tables.string("samples");
    let count = tables.string("count");
    let cpu = tables.string("cpu");
    let nanoseconds = tables.string("nanoseconds");

    let mut out = Message::default();
    for (kind, unit) in [(samples, count), (cpu, nanoseconds)] {
        out.message(1, |m| value_type(m, kind, unit));
    }
    for (locations, n) in &counts {
        out.message(2, |m| {
            m.packed(1, locations.iter().copied());
            m.packed(2, [*n as u64, (*n * period) as u64]);
        });
    }
    for (id, location) in tables.locations.iter().enumerate() {
        out.message(4, |m| {
            m.uint(1, id as u64 + 1);
            m.uint(3, location.address as u64);
            for &function in &location.functions {
                m.message(4, |line| line.uint(1, function));
            }
        });
    }
    for (id, &(name, raw)) in tables.functions.iter().enumerate() {
        out.message(5, |m| {
            m.uint(1, id as u64 + 1);
            m.uint(2, name);
            m.uint(3, raw);
        });
    }
    for string in &tables.strings {
        out.bytes(6, string.as_bytes());
    }
    let since_epoch = profile
        .started
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    out.uint(9, since_epoch.as_nanos() as u64);
    out.uint(10, profile.duration.as_nanos() as u64);
    out.message(11, |m| value_type(m, cpu, nanoseconds));
    out.uint(12, period as u64);
    out.0
}

fn value_type(m: &mut Message, kind: u64, unit: u64) {
    m.uint(1, kind);
    m.uint(2, unit);
}

struct Location {
    address: usize,
    /// Innermost first, as pprof lists the lines of inlined calls.
    functions: Vec<u64>,
}

/// The profile's string, function and location tables, each entry once.
struct Tables {
    strings: Vec<String>,
    string_ids: HashMap<String, u64>,
    /// String ids of each function's name and symbol; function id = index + 1.
    functions: Vec<(u64, u64)>,
    function_ids: HashMap<u64, u64>,
    locations: Vec<Location>,
    location_ids: HashMap<usize, u64>,
}

impl Default for Tables {
    fn default() -> Self {
        // pprof requires the first string to be the empty one.
        Tables {
            strings: vec![String::new()],
            string_ids: HashMap::from([(String::new(), 0)]),
            functions: Vec::new(),
            function_ids: HashMap::new(),
            locations: Vec::new(),
            location_ids: HashMap::new(),
        }
    }
}

impl Tables {
    fn string(&mut self, text: &str) -> u64 {
        if let Some(&id) = self.string_ids.get(text) {
            return id;
        }
        let id = self.strings.len() as u64;
        self.strings.push(text.to_owned());
        self.string_ids.insert(text.to_owned(), id);
        id
    }

    fn function(&mut self, name: &str, raw: &str) -> u64 {
        let name = self.string(name);
        let raw = self.string(raw);
        let next = self.functions.len() as u64 + 1;
        let id = *self.function_ids.entry(name).or_insert(next);
        if id == next {
            self.functions.push((name, raw));
        }
        id
    }

    /// The location id of an address, symbolised the first time it is seen.
    fn location(&mut self, address: usize) -> u64 {
        if let Some(&id) = self.location_ids.get(&address) {
            return id;
        }
        let functions = symbol_names(address)
            .iter()
            .map(|(name, raw)| self.function(name, raw))
            .collect();
        self.locations.push(Location { address, functions });
        let id = self.locations.len() as u64;
        self.location_ids.insert(address, id);
        id
    }
}

/// The functions at an address, each as its name (demangled, without Rust's hash) and
/// as the symbol itself: pprof keeps a name that differs from the symbol, and shortens
/// (drops every `<...>` of) one that does not.
///
/// Addresses in our own binary are looked up in its symbol table (more than one function
/// when calls were inlined and the binary still has the debug information to tell).
/// Addresses in shared libraries (glibc, libgcc) get the library's exported name, or the
/// library's file name when the function is internal: reading their full symbols could
/// mean parsing a detached debug file of tens of MiB, which a profile should not cost.
fn symbol_names(address: usize) -> Vec<(String, String)> {
    match shared_library(address) {
        Some(named) => vec![named],
        None => {
            let mut names = Vec::new();
            backtrace::resolve(address as *mut c_void, |symbol| {
                if let Some(name) = symbol.name() {
                    let raw = String::from_utf8_lossy(name.as_bytes()).into_owned();
                    names.push((format!("{name:#}"), raw));
                }
            });
            names
        }
    }
}

/// For an address in a shared library (not our binary): its exported function's name,
/// else `[file name]`. None for our binary's addresses and unknown ones.
fn shared_library(address: usize) -> Option<(String, String)> {
    let (ours, _, _) = dladdr(symbol_names as *const () as usize)?;
    let (object, file, symbol) = dladdr(address)?;
    if object == ours {
        return None;
    }
    let name = symbol.unwrap_or_else(|| {
        let base = file.rsplit('/').next().unwrap_or(&file);
        format!("[{base}]")
    });
    Some((name.clone(), name))
}

/// `dladdr(3)`: the object's load address and file, and the exported symbol, if any.
fn dladdr(address: usize) -> Option<(usize, String, Option<String>)> {
    let text = |p: *const libc::c_char| {
        // SAFETY: dladdr's strings are NUL-terminated and live as long as the object.
        (!p.is_null()).then(|| {
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        })
    };
    // SAFETY: dladdr only reads the loader's tables and fills in the struct.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if unsafe { libc::dladdr(address as *const c_void, &mut info) } == 0 {
        return None;
    }
    Some((
        info.dli_fbase as usize,
        text(info.dli_fname).unwrap_or_default(),
        text(info.dli_sname),
    ))
}

/// A protobuf message being written: fields in the wire format, no schema.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, mut value: u64) {
        while value >= 0x80 {
            self.0.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.0.push(value as u8);
    }

    fn key(&mut self, field: u64, wire_type: u64) {
        self.varint(field << 3 | wire_type);
    }

    /// A varint field; zero is the default and is left out, as protobuf does.
    fn uint(&mut self, field: u64, value: u64) {
        if value != 0 {
            self.key(field, 0);
            self.varint(value);
        }
    }

    /// A length-delimited field (bytes, string, embedded message, packed numbers).
    fn bytes(&mut self, field: u64, bytes: &[u8]) {
        self.key(field, 2);
        self.varint(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }

    fn message(&mut self, field: u64, write: impl FnOnce(&mut Message)) {
        let mut inner = Message::default();
        write(&mut inner);
        self.bytes(field, &inner.0);
    }

    fn packed(&mut self, field: u64, values: impl IntoIterator<Item = u64>) {
        let mut inner = Message::default();
        for value in values {
            inner.varint(value);
        }
        self.bytes(field, &inner.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_as_protobuf_writes_them() {
        let mut m = Message::default();
        m.uint(1, 150);
        assert_eq!(m.0, [0x08, 0x96, 0x01]);
        let mut m = Message::default();
        m.uint(1, 0);
        assert!(m.0.is_empty(), "zero is the default and is not written");
        let mut m = Message::default();
        m.bytes(6, b"ab");
        assert_eq!(m.0, [0x32, 2, b'a', b'b']);
    }

    #[inline(never)]
    fn marker_function_for_the_encoder_test() -> usize {
        marker_function_for_the_encoder_test as *const () as usize
    }

    #[test]
    fn stacks_are_counted_and_named() {
        let here = marker_function_for_the_encoder_test();
        let stacks = vec![vec![here], vec![here], vec![here + 1]];
        let bytes = encode(&Profile {
            stacks: &stacks,
            period: Duration::from_millis(10),
            started: SystemTime::now(),
            duration: Duration::from_secs(1),
        });
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("marker_function_for_the_encoder_test"),
            "the function's name is in the string table"
        );
        for unit in ["samples", "count", "cpu", "nanoseconds"] {
            assert!(text.contains(unit), "{unit}");
        }
    }
}
