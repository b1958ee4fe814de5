//! What every token `GET` answer gets on its way out: an `ETag` (a hash of
//! the body), so a script polling a server's state gets a bodiless 304
//! while nothing changed; and on a list with a further page, `Link: <…>;
//! rel="next"` (RFC 8288) built from its `next_cursor`, as GitHub's API
//! pages. Public routes set their own cache headers and do not pass here.

use axum::body::Body;
use axum::response::{IntoResponse, Response};
use http::header::{self, HeaderMap, HeaderValue};
use http::{StatusCode, Uri};

use super::stock::conditional::{not_modified, weak_etag};

/// A JSON answer larger than this is passed on untouched (none is).
const LARGEST: usize = 4 * 1024 * 1024;

/// What the request said that the answer depends on.
pub struct Asked {
    pub uri: Uri,
    pub headers: HeaderMap,
}

impl Asked {
    pub fn of(headers: &HeaderMap, uri: &Uri) -> Asked {
        let mut conditions = HeaderMap::new();
        for value in headers.get_all(header::IF_NONE_MATCH) {
            conditions.append(header::IF_NONE_MATCH, value.clone());
        }
        Asked {
            uri: uri.clone(),
            headers: conditions,
        }
    }
}

/// The answer with its `ETag` and `Link`, or a 304 when the client has it.
pub async fn finish(asked: Asked, base_url: &str, response: Response) -> Response {
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if response.status() != StatusCode::OK || !json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, LARGEST).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let etag = weak_etag(&bytes);
    parts.headers.insert(header::ETAG, etag.clone());
    parts.headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    if let Some(link) = next_link(&asked.uri, base_url, &bytes) {
        if let Ok(value) = HeaderValue::from_str(&link) {
            parts.headers.insert(header::LINK, value);
        }
    }
    if not_modified(&asked.headers, &etag) {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_TYPE);
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The next page's absolute address: this request's with `cursor` set to
/// the body's `next_cursor` (the other parameters kept as sent).
fn next_link(uri: &Uri, base_url: &str, body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Paged {
        next_cursor: Option<String>,
        /// The event feed always has a cursor; it says whether to follow.
        has_more: Option<bool>,
    }
    let paged = serde_json::from_slice::<Paged>(body).ok()?;
    if paged.has_more == Some(false) {
        return None;
    }
    let cursor = paged.next_cursor?;
    // A cursor is hex; anything else is not put in a header.
    if cursor.is_empty() || !cursor.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut query: Vec<&str> = uri
        .query()
        .unwrap_or_default()
        .split('&')
        .filter(|pair| !pair.is_empty() && !pair.starts_with("cursor="))
        .collect();
    let cursor = format!("cursor={cursor}");
    query.push(&cursor);
    Some(format!(
        "<{}{}?{}>; rel=\"next\"",
        base_url.trim_end_matches('/'),
        uri.path(),
        query.join("&")
    ))
}

#[cfg(test)]
mod tests {
    use super::next_link;

    #[test]
    fn the_next_link_keeps_the_filters_and_replaces_the_cursor() {
        let uri = "/api/v1/servers?limit=2&site=fra&cursor=aa"
            .parse()
            .expect("uri");
        let body = br#"{"data":[],"next_cursor":"0a1b"}"#;
        assert_eq!(
            next_link(&uri, "https://gpu.example.com/", body).as_deref(),
            Some("<https://gpu.example.com/api/v1/servers?limit=2&site=fra&cursor=0a1b>; rel=\"next\"")
        );
        let last = br#"{"data":[],"next_cursor":null}"#;
        assert_eq!(next_link(&uri, "https://gpu.example.com", last), None);
        let odd = br#"{"data":[],"next_cursor":"x>; rel=evil"}"#;
        assert_eq!(next_link(&uri, "https://gpu.example.com", odd), None);
    }
}
