//! What booted installers and wipe images talk to (the Redfish Fleet):
//! the boot media a BMC reads (its media token in the path), the seed the
//! image fetches once (the seed secret from its media as a bearer token),
//! the reports it posts (signed with the seed's report key). Machines
//! call these: no session, no CSRF, and one answer (404) for a credential
//! that is unknown, wrong, spent or expired. See `boots` for why three.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use backend::fleet::redfish::boots::{self, ReportError, SeedError};
use backend::fleet::redfish::media::{self, MediaError};

use crate::startup::AppState;

/// A BMC reads media in ranges of about this much.
const CHUNK: u64 = 256 * 1024;

pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/fleet/media/{token}/boot.iso", get(boot_media))
        .route("/fleet/boots/{boot}/seed", get(seed))
        .route("/fleet/boots/{boot}/report", post(report))
}

fn gone() -> Response {
    (StatusCode::NOT_FOUND, "no such boot\n").into_response()
}

fn unavailable(error: anyhow::Error) -> Response {
    tracing::error!(error = %format!("{error:#}"), "a boot request failed");
    (StatusCode::SERVICE_UNAVAILABLE, "try again\n").into_response()
}

/// The boot's image from the store with its seed area filled in; honours
/// a single `Range: bytes=a-b` (BMCs read virtual media in ranges).
async fn boot_media(
    State(state): State<Arc<AppState>>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    let media = boots::media_by_token(&state.db, &state.sealer, &token, state.clock.now()).await;
    let (boot, seed_secret) = match media {
        Ok(Some(found)) => found,
        Ok(None) => return gone(),
        Err(error) => return unavailable(error),
    };
    let image = match state.redfish.images().media(&boot.image).await {
        Ok(image) => image,
        Err(MediaError::Io(error)) => return unavailable(error),
        Err(error) => {
            tracing::error!(%error, "boot media missing from the image store");
            return (StatusCode::NOT_FOUND, "no such image\n").into_response();
        }
    };
    let base = state.redfish.callback_base();
    let area = match media::seed_area(base, &boot.id, &seed_secret) {
        Ok(area) => area,
        Err(error) => return unavailable(error),
    };
    let (start, end) = match range(&headers, image.len) {
        Ok(range) => range,
        Err(()) => {
            return (
                StatusCode::RANGE_NOT_SATISFIABLE,
                [(header::CONTENT_RANGE, format!("bytes */{}", image.len))],
            )
                .into_response()
        }
    };
    let partial = headers.contains_key(header::RANGE);
    let total = image.len;
    // One open file per response, read on from where the last chunk ended.
    let chunks = futures_util::stream::unfold((None, start), move |(file, at)| {
        let (image, area) = (image.clone(), area.clone());
        async move {
            if at > end || end == u64::MAX {
                return None;
            }
            let len = (end + 1 - at).min(CHUNK);
            let mut file = match file {
                Some(file) => file,
                None => match image.open_at(at).await {
                    Ok(file) => file,
                    Err(error) => {
                        return Some((Err(std::io::Error::other(error)), (None, end + 1)))
                    }
                },
            };
            let read = image.read(&mut file, at, len as usize, &area).await;
            Some((read.map_err(std::io::Error::other), (Some(file), at + len)))
        }
    });
    let len = if end == u64::MAX { 0 } else { end + 1 - start };
    let mut response = Response::new(Body::from_stream(chunks));
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    h.insert(header::CONTENT_LENGTH, len.into());
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if partial {
        *response.status_mut() = StatusCode::PARTIAL_CONTENT;
        if let Ok(value) = format!("bytes {start}-{end}/{total}").parse() {
            response.headers_mut().insert(header::CONTENT_RANGE, value);
        }
    }
    response
}

/// The first and last byte asked for: all of it without a `Range`, and
/// `u64::MAX` as the end of an empty image.
fn range(headers: &HeaderMap, len: u64) -> Result<(u64, u64), ()> {
    let last = len.checked_sub(1).unwrap_or(u64::MAX);
    let Some(value) = headers.get(header::RANGE) else {
        return Ok((0, last));
    };
    let spec = value.to_str().map_err(|_| ())?.trim();
    let spec = spec.strip_prefix("bytes=").ok_or(())?;
    if spec.contains(',') || len == 0 {
        return Err(());
    }
    let (from, to) = spec.split_once('-').ok_or(())?;
    let (start, end) = match (from.trim(), to.trim()) {
        ("", suffix) => {
            let n: u64 = suffix.parse().map_err(|_| ())?;
            (len.saturating_sub(n), last)
        }
        (from, "") => (from.parse().map_err(|_| ())?, last),
        (from, to) => (
            from.parse().map_err(|_| ())?,
            to.parse::<u64>().map_err(|_| ())?.min(last),
        ),
    };
    if start > end || start >= len {
        return Err(());
    }
    Ok((start, end))
}

/// The seed: hostname, SSH keys, root password and the report key, as
/// JSON; `Authorization: Bearer <seed secret>`. A boot not yet proven
/// answers 409 with `Retry-After`: the image asks again.
async fn seed(
    State(state): State<Arc<AppState>>,
    Path(boot): Path<String>,
    headers: HeaderMap,
) -> Response {
    let secret = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    match boots::take_seed(&state.db, &state.sealer, &state.clock, &boot, secret.trim()).await {
        Ok(seed) => ([(header::CACHE_CONTROL, "no-store")], Json(seed)).into_response(),
        Err(SeedError::NoBoot) => gone(),
        Err(SeedError::NotProven) => (
            StatusCode::CONFLICT,
            [(header::RETRY_AFTER, "5")],
            "the boot is not proven yet; ask again\n",
        )
            .into_response(),
        Err(SeedError::Db(error)) => unavailable(error),
    }
}

/// A phase report: JSON, signed in `X-Boot-Signature: sha256=<hex>`.
async fn report(
    State(state): State<Arc<AppState>>,
    Path(boot): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let signature = headers
        .get(boots::SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok());
    let recorded = boots::report(
        &state.db,
        &state.sealer,
        &state.clock,
        &boot,
        signature,
        &body,
    )
    .await;
    match recorded {
        Ok(phase) => Json(serde_json::json!({ "phase": phase.as_str() })).into_response(),
        Err(ReportError::NoBoot) => gone(),
        Err(ReportError::Invalid(why)) => {
            (StatusCode::UNPROCESSABLE_ENTITY, format!("{why}\n")).into_response()
        }
        Err(ReportError::Db(error)) => unavailable(error),
    }
}
