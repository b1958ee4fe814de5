//! `Idempotency-Key` on every POST and PATCH (the IETF HTTP API draft): a
//! retry of a request that succeeded gets the same answer back, marked
//! `Idempotent-Replayed: true`, without running again; the key reused for
//! another request (other path or body) is a 422; a retry while the first
//! is still running is a 409. The key is checked before the handler runs,
//! so nothing (an SSH key saved, a ticket issued) happens twice. Placing an
//! order requires a key; elsewhere it is optional.

use axum::body::{to_bytes, Body};
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use backend::idempotency::{self, Claim, Owner, Stored};
use http::header::{CONTENT_TYPE, LOCATION};
use http::{HeaderValue, Method, StatusCode};

use super::{ApiCaller, ApiError, Problem};
use crate::startup::AppState;

/// The routes where a request without a key is refused: a retried order
/// without one could bill twice.
const KEY_REQUIRED: &[(Method, &str)] = &[(Method::POST, "/api/v1/orders")];

/// Bodies read here are small JSON documents; the handlers' own limit is
/// the same.
const BODY_LIMIT: usize = 1 << 20;

/// The request's checked key, for a handler that keeps its own record of
/// it (orders are kept once per key).
#[derive(Clone)]
pub struct IdempotencyKey(pub String);

/// Runs `req` (already admitted: its caller is known) at most once per key.
pub async fn once(state: &AppState, req: Request, next: Next) -> Response {
    if !matches!(*req.method(), Method::POST | Method::PATCH) {
        return next.run(req).await;
    }
    let Some(caller) = req.extensions().get::<ApiCaller>().cloned() else {
        return next.run(req).await;
    };
    let required = req.extensions().get::<MatchedPath>().is_some_and(|path| {
        KEY_REQUIRED
            .iter()
            .any(|(method, p)| method == req.method() && *p == path.as_str())
    });
    let key = match req.headers().get("idempotency-key") {
        None if !required => return next.run(req).await,
        None => {
            return caller
                .error(Problem::IdempotencyKeyRequired)
                .into_response()
        }
        Some(value) => match key(value) {
            Some(key) => key,
            None => {
                return caller
                    .error(Problem::IdempotencyKeyRequired)
                    .into_response()
            }
        },
    };
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(IdempotencyKey(key.clone()));
    let Ok(bytes) = to_bytes(body, BODY_LIMIT).await else {
        return caller.error(Problem::TooLarge).into_response();
    };
    // The same JSON however it is spaced or ordered (object keys sort).
    let canonical = serde_json::from_slice::<serde_json::Value>(&bytes)
        .map(|json| json.to_string().into_bytes())
        .unwrap_or_else(|_| bytes.to_vec());
    let fingerprint = idempotency::fingerprint(parts.method.as_str(), parts.uri.path(), &canonical);
    let owner = Owner {
        organization_id: caller.organization_id.as_str(),
        user_id: caller.user_id.as_str(),
    };
    let now = state.clock.now();
    let claim = idempotency::claim(&state.db, &owner, &key, &fingerprint, now).await;
    match claim {
        Err(cause) => ApiError::from(cause).into_response(),
        Ok(Claim::Mismatch) => caller.error(Problem::IdempotencyKeyReused).into_response(),
        Ok(Claim::InFlight) => {
            let mut error = caller.error(Problem::IdempotencyKeyInUse);
            error.retry_after = Some(1);
            error.into_response()
        }
        Ok(Claim::Replay(stored)) => replay(state, stored),
        Ok(Claim::Fresh) => {
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            keep(state, &owner, &key, response).await
        }
    }
}

/// 1–100 printable ASCII characters (a UUID, say).
fn key(value: &HeaderValue) -> Option<String> {
    let text = value.to_str().ok()?.trim();
    let printable = text.bytes().all(|b| (0x20..0x7f).contains(&b));
    ((1..=100).contains(&text.len()) && printable).then(|| text.to_owned())
}

/// A success is kept for retries; anything else frees the key.
async fn keep(state: &AppState, owner: &Owner<'_>, key: &str, response: Response) -> Response {
    if !response.status().is_success() {
        if let Err(cause) = idempotency::release(&state.db, owner, key).await {
            tracing::warn!(error = %format!("{cause:#}"), "releasing an idempotency key failed");
        }
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return ApiError::from(Problem::Internal).into_response();
    };
    let header = |name| {
        parts
            .headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_owned)
    };
    // Sealed: an answer may carry a secret (a webhook's signing secret, a
    // root password, a console ticket), which the table must not hold in
    // the clear for its day.
    let body = match state.sealer.seal(&String::from_utf8_lossy(&bytes)) {
        Ok(sealed) => sealed,
        Err(cause) => {
            tracing::error!(error = %format!("{cause:#}"), "sealing an idempotent answer failed");
            return ApiError::from(Problem::Internal).into_response();
        }
    };
    let stored = Stored {
        status: parts.status.as_u16(),
        content_type: header(CONTENT_TYPE),
        location: header(LOCATION),
        body,
    };
    if let Err(cause) = idempotency::complete(&state.db, owner, key, &stored).await {
        // The request did happen: answer it. A retry finds the key still
        // claimed and is told to wait; only after a minute (an abandoned
        // claim) would it run again, and orders are kept once per key by
        // the orders table besides.
        tracing::error!(error = %format!("{cause:#}"), "keeping an idempotent answer failed");
    }
    Response::from_parts(parts, Body::from(bytes))
}

fn replay(state: &AppState, stored: Stored) -> Response {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let Ok(body) = state.sealer.open(&stored.body) else {
        return ApiError::from(Problem::Internal).into_response();
    };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    let mut set = |name, value: Option<String>| {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(name, value);
        }
    };
    set(CONTENT_TYPE, stored.content_type);
    set(LOCATION, stored.location);
    headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    headers.insert(
        http::header::CACHE_CONTROL,
        HeaderValue::from_static("no-store"),
    );
    response
}
