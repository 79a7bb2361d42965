//! Taking over the Go original's node, so that switching keeps the same machine.
//!
//! The original keeps its tsnet state in `os.UserConfigDir()/tsnet-libations`:
//! `$XDG_CONFIG_HOME/tsnet-libations` or `~/.config/tsnet-libations`; its NixOS module sets
//! `XDG_CONFIG_HOME=/var/lib/libations/`, so there it is `/var/lib/libations/tsnet-libations`,
//! inside the state directory our module uses. The files are the same tsnet format as ours.
//! A replacement that started from empty state would be a *new* node, and since the old one
//! still holds the name `libations`, it would be `libations-1`, at another URL.
//!
//! So on a start with no state of our own, the first of those directories that holds a node
//! of our `--hostname` is copied into our state directory, and the node comes back as the
//! same machine (name, addresses, certificate) without an auth key. It is a copy: the
//! original directory is only read, so going back to the Go version still works. A node
//! saved under another name is left alone (with a warning saying how to take it over): a
//! second instance with its own name must not become a copy of the first.

use std::ffi::OsString;
use std::fs::{self, DirBuilder, File};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use base64::Engine as _;

/// The file in which tsnet keeps the node's keys and login; its presence means "a node".
pub(crate) const STATE_FILE: &str = "tailscaled.state";

/// The Go original's directory name: tsnet's `tsnet-<program name>`.
pub(crate) const GO_DIR: &str = "tsnet-libations";

/// The Go original's state directory under its NixOS module.
pub(crate) const GO_NIXOS_DIR: &str = "/var/lib/libations/tsnet-libations";

/// Why the original's state could not be copied. Starting anyway would register a new
/// node under a new name, so this stops the start instead.
#[derive(Debug, thiserror::Error)]
#[error(
    "found the Go version's tailnet state in {}, but cannot copy it into {}: {}: {source}. \
     Fix that and start again (the copy is redone from the start), or copy the files \
     yourself",
    .from.display(),
    .to.display(),
    .path.display()
)]
pub struct AdoptError {
    from: PathBuf,
    to: PathBuf,
    path: PathBuf,
    #[source]
    source: io::Error,
}

/// What [`adopt`] found and did.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// We have a node of our own, or there is no Go version's node anywhere.
    Nothing,
    Adopted(Adopted),
    /// The Go version's node is saved under another name than ours: left alone.
    OtherName {
        from: PathBuf,
        name: String,
    },
}

/// A node copied in.
#[derive(Debug, PartialEq, Eq)]
pub struct Adopted {
    pub(crate) from: PathBuf,
    /// The node's name as saved in its state; `None` when it could not be read.
    pub(crate) name: Option<String>,
    /// Files copied, relative to `from`, the state file last.
    pub(crate) files: Vec<PathBuf>,
    /// Entries that are neither files nor directories (symbolic links, sockets), left out.
    pub(crate) skipped: Vec<PathBuf>,
}

/// Where the Go original may have kept its state, in the order they are tried: inside our
/// own state directory (its NixOS module's layout), `$XDG_CONFIG_HOME` (only when absolute,
/// as Go's `os.UserConfigDir` requires), `~/.config`, and the NixOS module's path.
pub(crate) fn candidates(state_dir: &Path, env: impl Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let var = |name| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let mut dirs = vec![state_dir.join(GO_DIR)];
    let config = match var("XDG_CONFIG_HOME") {
        Some(dir) => Some(dir).filter(|d| d.is_absolute()),
        None => var("HOME").map(|home| home.join(".config")),
    };
    dirs.extend(config.map(|dir| dir.join(GO_DIR)));
    dirs.push(PathBuf::from(GO_NIXOS_DIR));
    let mut unique = Vec::new();
    for dir in dirs {
        if !unique.contains(&dir) {
            unique.push(dir);
        }
    }
    unique
}

/// Copies the first candidate holding a node named `hostname` (or whose name cannot be
/// read) into `state_dir`, if `state_dir` holds no node yet.
pub(crate) fn adopt(
    state_dir: &Path,
    candidates: &[PathBuf],
    hostname: &str,
) -> Result<Outcome, AdoptError> {
    if state_dir.join(STATE_FILE).exists() {
        return Ok(Outcome::Nothing);
    }
    let found: Vec<(&PathBuf, Option<String>)> = candidates
        .iter()
        .filter(|dir| dir.join(STATE_FILE).is_file() && !state_dir.starts_with(dir))
        .map(|dir| (dir, node_name(&dir.join(STATE_FILE))))
        .collect();
    let ours = |name: &Option<String>| {
        name.as_deref()
            .is_none_or(|n| n.eq_ignore_ascii_case(hostname))
    };
    let chosen = found.iter().find(|(_, name)| ours(name));
    let Some((from, name)) = chosen.map(|(from, name)| (*from, name.clone())) else {
        return Ok(match found.into_iter().next() {
            Some((from, Some(name))) => Outcome::OtherName {
                from: from.clone(),
                name,
            },
            _ => Outcome::Nothing,
        });
    };
    let fail = |path: &Path, source| AdoptError {
        from: from.clone(),
        to: state_dir.to_owned(),
        path: path.to_owned(),
        source,
    };
    let mut copied = Copied::default();
    copy_tree(from, state_dir, Path::new(""), &mut copied).map_err(|(p, e)| fail(&p, e))?;
    // The state file last, under a temporary name and then renamed: until it is in place,
    // the next start sees no state of its own and copies again.
    let temp = state_dir.join(format!("{STATE_FILE}.adopting"));
    copy_file(&from.join(STATE_FILE), &temp).map_err(|(p, e)| fail(&p, e))?;
    fs::rename(&temp, state_dir.join(STATE_FILE)).map_err(|e| fail(&temp, e))?;
    copied.files.push(PathBuf::from(STATE_FILE));
    Ok(Outcome::Adopted(Adopted {
        from: from.clone(),
        name,
        files: copied.files,
        skipped: copied.skipped,
    }))
}

/// The node's name saved in a tsnet state file: a JSON object of base64 values, in which
/// `_current-profile` names the key holding the node's preferences (with `Hostname`).
pub(crate) fn node_name(state_file: &Path) -> Option<String> {
    let text = fs::read(state_file).ok()?;
    let keys: std::collections::HashMap<String, serde_json::Value> =
        serde_json::from_slice(&text).ok()?;
    let decode = |key: &str| {
        let value = keys.get(key)?.as_str()?;
        base64::engine::general_purpose::STANDARD.decode(value).ok()
    };
    let profile = String::from_utf8(decode("_current-profile")?).ok()?;
    let prefs: serde_json::Value = serde_json::from_slice(&decode(&profile)?).ok()?;
    let name = prefs.get("Hostname")?.as_str()?;
    (!name.is_empty()).then(|| name.to_owned())
}

/// [`adopt`] for the real environment, logging exactly what was done.
pub fn adopt_go_state(state_dir: &Path, hostname: &str) -> Result<Outcome, AdoptError> {
    let dirs = candidates(state_dir, |name| std::env::var_os(name));
    let outcome = adopt(state_dir, &dirs, hostname)?;
    match &outcome {
        Outcome::Adopted(a) => {
            let files: Vec<String> = a.files.iter().map(|f| f.display().to_string()).collect();
            let name = match &a.name {
                Some(name) => format!("{name:?}"),
                None => "(its saved name could not be read)".to_owned(),
            };
            tracing::info!(
                target: "libations::tailnet",
                from = %a.from.display(),
                to = %state_dir.display(),
                "adopted the Go version's tailnet node {name}: copied {} file(s) ({}) from {} \
                 into {}; {} is left as it was (delete it once you keep this version; never run \
                 both at once, they would be one machine)",
                a.files.len(),
                files.join(", "),
                a.from.display(),
                state_dir.display(),
                a.from.display(),
            );
            if !a.skipped.is_empty() {
                let skipped: Vec<String> =
                    a.skipped.iter().map(|f| f.display().to_string()).collect();
                tracing::warn!(
                    target: "libations::tailnet",
                    "not copied from {} (neither files nor directories): {}",
                    a.from.display(),
                    skipped.join(", ")
                );
            }
        }
        Outcome::OtherName { from, name } => tracing::warn!(
            target: "libations::tailnet",
            "the Go version's tailnet node in {} is named {name:?}, not {hostname:?}: it is \
             not taken over, and this starts as a new machine. To be that machine, start once \
             with --hostname {name} (and rename it afterwards if you like)",
            from.display()
        ),
        Outcome::Nothing if !state_dir.join(STATE_FILE).exists() => tracing::debug!(
            target: "libations::tailnet",
            "no state of our own and no Go version's state in any of: {}",
            dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
        ),
        Outcome::Nothing => {}
    }
    Ok(outcome)
}

pub(crate) type CopyResult = Result<(), (PathBuf, io::Error)>;

/// Paths relative to the directory copied.
#[derive(Default)]
pub(crate) struct Copied {
    files: Vec<PathBuf>,
    skipped: Vec<PathBuf>,
}

/// Copies the directory `from/rel` into `to/rel`, every file but the top-level state file;
/// directories private (0700), files keeping their mode (at most 0700).
pub(crate) fn copy_tree(from: &Path, to: &Path, rel: &Path, copied: &mut Copied) -> CopyResult {
    let src = from.join(rel);
    let dst = to.join(rel);
    let at = |p: &Path| {
        let p = p.to_owned();
        move |e| (p, e)
    };
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dst)
        .map_err(at(&dst))?;
    let mut entries = fs::read_dir(&src)
        .map_err(at(&src))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(at(&src))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let rel = rel.join(entry.file_name());
        let kind = entry.file_type().map_err(at(&from.join(&rel)))?;
        if kind.is_dir() {
            copy_tree(from, to, &rel, copied)?;
        } else if !kind.is_file() {
            copied.skipped.push(rel);
        } else if rel != Path::new(STATE_FILE) {
            copy_file(&from.join(&rel), &to.join(&rel))?;
            copied.files.push(rel);
        }
    }
    Ok(())
}

pub(crate) fn copy_file(src: &Path, dst: &Path) -> CopyResult {
    let mode = fs::metadata(src)
        .map_err(|e| (src.to_owned(), e))?
        .permissions()
        .mode()
        & 0o700;
    let mut reader = File::open(src).map_err(|e| (src.to_owned(), e))?;
    let mut writer = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode | 0o600)
        .open(dst)
        .map_err(|e| (dst.to_owned(), e))?;
    io::copy(&mut reader, &mut writer).map_err(|e| (dst.to_owned(), e))?;
    writer.sync_all().map_err(|e| (dst.to_owned(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn candidates_follow_gos_user_config_dir_and_the_nixos_module() {
        let state = Path::new("/var/lib/libations");
        let c = candidates(state, env(&[("HOME", "/home/a")]));
        assert_eq!(
            c,
            [
                PathBuf::from("/var/lib/libations/tsnet-libations"),
                PathBuf::from("/home/a/.config/tsnet-libations"),
            ]
        );
        let c = candidates(
            Path::new("/s"),
            env(&[("HOME", "/home/a"), ("XDG_CONFIG_HOME", "/cfg")]),
        );
        assert_eq!(
            c,
            [
                PathBuf::from("/s/tsnet-libations"),
                PathBuf::from("/cfg/tsnet-libations"),
                PathBuf::from(GO_NIXOS_DIR),
            ]
        );
        // Go refuses a relative XDG_CONFIG_HOME (and then has no config dir at all).
        let c = candidates(
            Path::new("/s"),
            env(&[("HOME", "/home/a"), ("XDG_CONFIG_HOME", "cfg")]),
        );
        assert_eq!(c.len(), 2, "{c:?}");
    }

    fn write(path: &Path, text: &str, mode: u32) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn copies_the_first_node_found_and_leaves_it_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let go = tmp.path().join("cfg/tsnet-libations");
        write(&go.join(STATE_FILE), "{\"keys\": 1}", 0o600);
        write(&go.join("tailscaled.log.conf"), "log", 0o600);
        write(&go.join("certs/acme-account.key.pem"), "k", 0o600);
        std::os::unix::fs::symlink("/etc/hostname", go.join("link")).unwrap();
        let empty = tmp.path().join("nothing/tsnet-libations");
        fs::create_dir_all(&empty).unwrap();
        let ours = tmp.path().join("state");

        let Outcome::Adopted(adopted) = adopt(&ours, &[empty, go.clone()], "libations").unwrap()
        else {
            panic!("not adopted")
        };
        assert_eq!(adopted.from, go);
        assert_eq!(adopted.name, None, "this state file holds no name");
        assert_eq!(
            adopted.files,
            [
                PathBuf::from("certs/acme-account.key.pem"),
                PathBuf::from("tailscaled.log.conf"),
                PathBuf::from(STATE_FILE),
            ]
        );
        assert_eq!(adopted.skipped, [PathBuf::from("link")]);
        assert!(fs::symlink_metadata(ours.join("link")).is_err());
        assert_eq!(
            fs::read_to_string(ours.join(STATE_FILE)).unwrap(),
            "{\"keys\": 1}"
        );
        assert_eq!(
            fs::read_to_string(ours.join("certs/acme-account.key.pem")).unwrap(),
            "k"
        );
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&ours.join(STATE_FILE)), 0o600);
        assert_eq!(mode(&ours.join("certs")), 0o700);
        assert!(!ours.join("tailscaled.state.adopting").exists());
        assert_eq!(
            fs::read_to_string(go.join(STATE_FILE)).unwrap(),
            "{\"keys\": 1}"
        );

        // Once we have a node of our own, nothing is copied again.
        write(&go.join(STATE_FILE), "newer", 0o600);
        assert_eq!(adopt(&ours, &[go], "libations").unwrap(), Outcome::Nothing);
        assert_eq!(
            fs::read_to_string(ours.join(STATE_FILE)).unwrap(),
            "{\"keys\": 1}"
        );
    }

    #[test]
    fn the_nixos_layout_inside_our_own_state_dir_is_adopted() {
        let tmp = tempfile::tempdir().unwrap();
        let ours = tmp.path().join("libations");
        let go = ours.join(GO_DIR);
        write(&go.join(STATE_FILE), "node", 0o600);
        let c = candidates(&ours, env(&[]));
        let Outcome::Adopted(adopted) = adopt(&ours, &c, "libations").unwrap() else {
            panic!("not adopted")
        };
        assert_eq!(adopted.from, go);
        assert_eq!(fs::read_to_string(ours.join(STATE_FILE)).unwrap(), "node");
        assert_eq!(fs::read_to_string(go.join(STATE_FILE)).unwrap(), "node");
    }

    #[test]
    fn nothing_to_adopt_and_unreadable_state_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ours = tmp.path().join("state");
        assert_eq!(
            adopt(&ours, &[tmp.path().join("none")], "libations").unwrap(),
            Outcome::Nothing
        );
        assert!(!ours.exists());
        // A state directory we cannot create: the error names both directories.
        let go = tmp.path().join("go");
        write(&go.join(STATE_FILE), "node", 0o600);
        let blocked = tmp.path().join("file");
        fs::write(&blocked, "x").unwrap();
        let err = adopt(
            &blocked.join("state"),
            std::slice::from_ref(&go),
            "libations",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains(&format!(
                "found the Go version's tailnet state in {}",
                go.display()
            )),
            "{err}"
        );
        assert!(err.contains("copy the files yourself"), "{err}");
    }

    /// A state file laid out as tsnet writes it (checked against one a real node wrote).
    fn tsnet_state(hostname: &str) -> String {
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let prefs = format!(r#"{{"ControlURL": "http://127.0.0.1:1", "Hostname": "{hostname}"}}"#);
        format!(
            r#"{{"_current-profile": "{}", "_machinekey": "{}", "profile-aafd": "{}"}}"#,
            b64("profile-aafd"),
            b64("privkey:00"),
            b64(&prefs)
        )
    }

    #[test]
    fn only_a_node_of_our_name_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let go = tmp.path().join("go");
        write(&go.join(STATE_FILE), &tsnet_state("bar"), 0o600);
        assert_eq!(node_name(&go.join(STATE_FILE)).as_deref(), Some("bar"));

        // Another name: left alone, and said so.
        let second = tmp.path().join("second");
        let outcome = adopt(&second, std::slice::from_ref(&go), "libations").unwrap();
        assert_eq!(
            outcome,
            Outcome::OtherName {
                from: go.clone(),
                name: "bar".into()
            }
        );
        assert!(!second.exists());

        // A later candidate with our name is taken instead.
        let other = tmp.path().join("other");
        write(&other.join(STATE_FILE), &tsnet_state("libations"), 0o600);
        let Outcome::Adopted(a) =
            adopt(&second, &[go.clone(), other.clone()], "libations").unwrap()
        else {
            panic!("not adopted")
        };
        assert_eq!((a.from, a.name.as_deref()), (other, Some("libations")));

        // Names compare as DNS names do, whatever their case.
        let third = tmp.path().join("third");
        let outcome = adopt(&third, &[go], "BAR").unwrap();
        assert!(matches!(outcome, Outcome::Adopted(_)), "{outcome:?}");
    }
}
