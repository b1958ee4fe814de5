//! Input no database stores: PostgreSQL refuses text with a NUL byte, so a
//! `%00` in a form or query used to surface as "unavailable" (503) from
//! deep inside a handler. It is refused up front, as the form's own page
//! with a translated 422, whatever the route.

use app::portal::FormError;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use std::sync::Arc;

use crate::startup::AppState;

/// The largest form body read here; larger ones are refused with 413, as
/// the form extractors would.
const MAX_FORM: usize = 2 * 1024 * 1024;

pub async fn refuse_unstorable(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let in_query = req.uri().query().is_some_and(has_nul);
    let form = req.headers().get(header::CONTENT_TYPE).is_some_and(|v| {
        v.as_bytes()
            .starts_with(b"application/x-www-form-urlencoded")
    });
    if !form {
        return if in_query {
            unstorable(&state, req).await
        } else {
            next.run(req).await
        };
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_FORM).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let req = Request::from_parts(parts, Body::from(bytes.clone()));
    if in_query || bytes.contains(&0) || std::str::from_utf8(&bytes).is_ok_and(has_nul) {
        return unstorable(&state, req).await;
    }
    next.run(req).await
}

async fn unstorable(state: &AppState, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    let feedback = app::portal::FormFeedback {
        error: Some(FormError::Unstorable),
        values: Vec::new(),
    };
    super::page::render(state, parts, feedback).await
}

/// Whether URL-encoded text decodes to a NUL byte.
fn has_nul(encoded: &str) -> bool {
    encoded
        .as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

#[cfg(test)]
mod tests {
    use super::has_nul;

    #[test]
    fn finds_encoded_nul_bytes_only() {
        assert!(has_nul("name=a%00b"));
        assert!(!has_nul("name=%2500"), "an encoded percent sign then 00");
        assert!(!has_nul("name=100%25&x=%0A"));
    }
}
