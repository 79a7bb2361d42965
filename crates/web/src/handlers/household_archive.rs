//! `GET /api/household/download?photos=1`: the household archive (a zip of the backup file
//! and every photo's files, `libations_photos::archive`), streamed.
//!
//! Why streamed: the photos may be hundreds of MiB. The zip is written on a blocking
//! thread, one photo file in memory at a time, into a bounded channel the response's body
//! reads from; a slow client slows the writer instead of growing the process. The same
//! address as the JSON download, with a query: one place for "the household's backup",
//! and a plain download stays the small JSON it always was.

use crate::error::WebError;
use crate::household::Backup;
use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use libations_photos::PhotoStore;
use libations_photos::archive;
use std::io::{self, Write};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::mpsc;

/// Chunks in flight between the writer and the connection (each up to [`CHUNK`]).
const IN_FLIGHT: usize = 4;
const CHUNK: usize = 256 << 10;

/// The archive of `backup` and the photos its rows name, as a streamed response; refused
/// (503, naming one) before anything is sent if a row's files are missing.
pub(crate) fn answer(backup: &Backup, store: PhotoStore) -> Result<Response, WebError> {
    let mut seen = std::collections::HashSet::new();
    let hashes: Vec<String> = backup
        .photos
        .iter()
        .filter(|row| seen.insert(row.hash.as_str()))
        .map(|row| row.hash.clone())
        .collect();
    if let Some(missing) = hashes.iter().find(|h| !store.has(h)) {
        return Err(WebError::FileBroken(format!(
            "The photo files {missing}.jpg/.thumb.jpg are missing from the photo store, so no \
             complete archive can be made; `libations check --household` lists such rows. \
             The backup without photos (no ?photos=1) still downloads."
        )));
    }
    let json = serde_json::to_vec(backup)?;
    let (sender, receiver) = mpsc::channel(IN_FLIGHT);
    tokio::task::spawn_blocking(move || {
        let mut out = io::BufWriter::with_capacity(CHUNK, Chunks(sender.clone()));
        let written = archive::write(&mut out, &json, &store, &hashes)
            .map_err(|e| io::Error::other(e.to_string()))
            .and_then(|()| out.flush());
        if let Err(e) = written {
            tracing::warn!("the household archive stopped: {e}");
            let _ = sender.blocking_send(Err(e));
        }
    });
    let mut response = Body::new(Stream(receiver)).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/zip"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"libations-household.zip\""),
    );
    headers.insert(
        header::CACHE_CONTROL,
        crate::http::cache_control::private_revalidate(),
    );
    Ok(response)
}

/// The writer's end: each write a chunk sent to the body, waiting while the channel is full.
struct Chunks(mpsc::Sender<io::Result<Bytes>>);

impl Write for Chunks {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0
            .blocking_send(Ok(Bytes::copy_from_slice(bytes)))
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the download was left"))?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The body's end: the chunks as they come; an error ends the response unfinished.
struct Stream(mpsc::Receiver<io::Result<Bytes>>);

impl http_body::Body for Stream {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|chunk| chunk.map(|r| r.map(Frame::data)))
    }
}
