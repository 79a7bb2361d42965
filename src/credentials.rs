//! Secrets and files handed to us by systemd or the user: where they are and what they say.
//!
//! Under systemd, `LoadCredential=auth-key:/run/agenix/ts-key` copies a root-only file into
//! `$CREDENTIALS_DIRECTORY`, readable by our dynamic user only. Flags may therefore name a
//! credential by its bare name (`--auth-key-file auth-key`): relative names are looked up
//! there first whenever that variable is set.

use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[cfg_attr(not(feature = "tailnet"), allow(dead_code))] // auth keys are for the tailnet
pub enum CredentialError {
    #[error(
        "credential {name:?} is not in $CREDENTIALS_DIRECTORY ({dir}); is there a LoadCredential={name}:… line for it in the unit?"
    )]
    MissingCredential { name: String, dir: PathBuf },
    #[error("cannot read {what} {path}: {source}")]
    Read {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("auth key file {0} is empty")]
    EmptyKey(PathBuf),
    #[error(
        "auth key file {0} is not understood: write just the key, or one line TS_AUTHKEY=<key>"
    )]
    KeyFormat(PathBuf),
}

/// Resolves a flag's path: relative names go to `$CREDENTIALS_DIRECTORY` when it is set.
pub fn resolve(path: &Path) -> Result<PathBuf, CredentialError> {
    resolve_in(
        path,
        std::env::var_os("CREDENTIALS_DIRECTORY").map(PathBuf::from),
    )
}

fn resolve_in(path: &Path, credentials: Option<PathBuf>) -> Result<PathBuf, CredentialError> {
    match credentials {
        Some(dir) if path.is_relative() => {
            let candidate = dir.join(path);
            if candidate.exists() {
                Ok(candidate)
            } else {
                Err(CredentialError::MissingCredential {
                    name: path.display().to_string(),
                    dir,
                })
            }
        }
        _ => Ok(path.to_owned()),
    }
}

/// Reads a Tailscale auth key from a file holding either the bare key or the env-file form
/// (`TS_AUTHKEY=tskey-…`, optionally quoted or after `export`) that older setups use.
#[cfg_attr(not(feature = "tailnet"), allow(dead_code))]
pub fn read_auth_key(path: &Path) -> Result<String, CredentialError> {
    let path = resolve(path)?;
    let text = std::fs::read_to_string(&path).map_err(|source| CredentialError::Read {
        what: "auth key file",
        path: path.clone(),
        source,
    })?;
    parse_auth_key(&text).map_err(|e| match e {
        KeyProblem::Empty => CredentialError::EmptyKey(path),
        KeyProblem::Format => CredentialError::KeyFormat(path),
    })
}

#[cfg_attr(not(feature = "tailnet"), allow(dead_code))]
enum KeyProblem {
    Empty,
    Format,
}

#[cfg_attr(not(feature = "tailnet"), allow(dead_code))]
fn parse_auth_key(text: &str) -> Result<String, KeyProblem> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for line in &lines {
        let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
        if let Some(value) = line
            .strip_prefix("TS_AUTHKEY=")
            .or(line.strip_prefix("TS_AUTH_KEY="))
        {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            return if value.is_empty() {
                Err(KeyProblem::Empty)
            } else {
                Ok(value.to_owned())
            };
        }
    }
    match lines.as_slice() {
        [] => Err(KeyProblem::Empty),
        [key] if !key.contains('=') && !key.contains(char::is_whitespace) => Ok((*key).to_owned()),
        _ => Err(KeyProblem::Format),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Option<String> {
        parse_auth_key(text).ok()
    }

    #[test]
    fn auth_key_formats() {
        assert_eq!(
            key("tskey-auth-abc123\n").as_deref(),
            Some("tskey-auth-abc123")
        );
        assert_eq!(
            key("  tskey-auth-abc123  ").as_deref(),
            Some("tskey-auth-abc123")
        );
        assert_eq!(
            key("TS_AUTHKEY=tskey-auth-abc\n").as_deref(),
            Some("tskey-auth-abc")
        );
        assert_eq!(
            key("# comment\nexport TS_AUTHKEY=\"tskey-q\"\n").as_deref(),
            Some("tskey-q")
        );
        assert_eq!(
            key("OTHER=1\nTS_AUTHKEY='tskey-x'").as_deref(),
            Some("tskey-x")
        );
        assert!(matches!(parse_auth_key(""), Err(KeyProblem::Empty)));
        assert!(matches!(parse_auth_key("\n  \n"), Err(KeyProblem::Empty)));
        assert!(matches!(
            parse_auth_key("TS_AUTHKEY="),
            Err(KeyProblem::Empty)
        ));
        assert!(matches!(parse_auth_key("OTHER=1"), Err(KeyProblem::Format)));
        assert!(matches!(
            parse_auth_key("two\nkeys"),
            Err(KeyProblem::Format)
        ));
    }

    #[test]
    fn relative_names_resolve_in_the_credentials_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("auth-key"), "k").unwrap();
        let creds = Some(dir.path().to_owned());
        assert_eq!(
            resolve_in(Path::new("auth-key"), creds.clone()).unwrap(),
            dir.path().join("auth-key")
        );
        let err = resolve_in(Path::new("recipes.json"), creds.clone()).unwrap_err();
        assert!(
            err.to_string()
                .contains("credential \"recipes.json\" is not in $CREDENTIALS_DIRECTORY")
        );
        assert!(err.to_string().contains("LoadCredential=recipes.json:"));
        assert_eq!(
            resolve_in(Path::new("/abs/file"), creds).unwrap(),
            PathBuf::from("/abs/file")
        );
        assert_eq!(
            resolve_in(Path::new("rel"), None).unwrap(),
            PathBuf::from("rel")
        );
    }
}
