//! Keys as the Go original matched them: a key names a field when it equals it, or equals
//! it whatever its case (Go's `encoding/json`), and an unknown key gets a hint at the field
//! it was probably meant to be.
//!
//! Why its own room: the Go original's decoding is the compatibility promise for files
//! written for it, and the store must fold keys exactly as the loader does
//! ([`fold_eq`]), or an edit could add a second object for one id.

/// The accepted key that `key` names, as Go's `encoding/json` decides: an exact match, else
/// one equal under Unicode simple case folding (so `"Name"` and `"NAME"` are `name`).
pub(super) fn go_field(key: &str, accepted: &[&'static str]) -> Option<&'static str> {
    if let Some(exact) = accepted.iter().find(|a| **a == key) {
        return Some(exact);
    }
    accepted.iter().copied().find(|a| fold_eq(key, a))
}

/// Case-insensitive equality as Go's `bytes.EqualFold`: char by char, equal when their
/// lower or upper cases are (this also matches `ſ` with `s` and the Kelvin sign with `k`).
pub fn fold_eq(a: &str, b: &str) -> bool {
    a.chars().count() == b.chars().count()
        && a.chars().zip(b.chars()).all(|(x, y)| {
            x == y || x.to_lowercase().eq(y.to_lowercase()) || x.to_uppercase().eq(y.to_uppercase())
        })
}

/// The warning for a key we do not know: what happened to it, and the two ways out.
pub(super) fn unknown_field(key: &str, accepted: &[&str], what: &str) -> String {
    let hint = match closest(key, accepted) {
        Some(near) => format!("if it is a typo, rename it to \"{near}\"; "),
        None => String::new(),
    };
    format!(
        "unknown field, ignored as the Go version ignored it (nothing in it is shown); \
         {hint}to keep its text, move it into \"notes\", otherwise delete it; the fields of \
         {what} are: {}",
        accepted.join(", ")
    )
}

/// The accepted key within two edits of `key`, to suggest a fix for a typo.
fn closest<'a>(key: &str, accepted: &[&'a str]) -> Option<&'a str> {
    let key = key.to_lowercase();
    accepted
        .iter()
        .map(|a| (edit_distance(&key, a), *a))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, a)| a)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
