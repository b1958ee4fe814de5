//! Conditional GETs for the public catalog: weak ETags computed from what
//! an answer says (so every replica gives the same one for the same
//! content) and `If-None-Match`, answered with 304 and no body.

use axum::body::Body;
use axum::response::Response;
use http::header::{self, HeaderMap, HeaderValue};
use http::StatusCode;

/// `W/"<32 hex>"`: FNV-1a (128 bit) of the content. Weak, because the
/// compression layer may change the bytes but never what they say. Not a
/// secret, only a fingerprint; stable across builds and replicas (unlike
/// std's hasher, whose algorithm may change between Rust versions).
pub fn weak_etag(content: &[u8]) -> HeaderValue {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let hash = content
        .iter()
        .fold(OFFSET, |h, b| (h ^ u128::from(*b)).wrapping_mul(PRIME));
    HeaderValue::try_from(format!("W/\"{hash:032x}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("W/\"0\""))
}

/// Whether the client's `If-None-Match` (a list, or `*`) names `etag`,
/// compared weakly (RFC 9110 §13.1.2).
pub fn not_modified(request: &HeaderMap, etag: &HeaderValue) -> bool {
    let ours = opaque(etag.as_bytes());
    request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .flat_map(|value| value.as_bytes().split(|b| *b == b','))
        .map(|tag| tag.trim_ascii())
        .any(|tag| tag == b"*" || opaque(tag) == ours)
}

fn opaque(tag: &[u8]) -> &[u8] {
    tag.strip_prefix(b"W/").unwrap_or(tag)
}

/// 304: the validator and caching headers again, no body.
pub fn not_modified_response(etag: HeaderValue, cache_control: &'static str) -> Response {
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::NOT_MODIFIED;
    cache_headers(response.headers_mut(), etag, cache_control);
    response
}

/// The headers a cacheable public answer carries, 200 or 304.
pub fn cache_headers(headers: &mut HeaderMap, etag: HeaderValue, cache_control: &'static str) {
    headers.insert(header::ETAG, etag);
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(cache_control),
    );
    headers.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
}

/// A cacheable 200: the body, its type and the caching headers; or 304 if
/// the client has it already.
pub fn answer(
    request: &HeaderMap,
    body: Vec<u8>,
    content_type: &'static str,
    cache_control: &'static str,
) -> Response {
    let etag = weak_etag(&body);
    if not_modified(request, &etag) {
        return not_modified_response(etag, cache_control);
    }
    let mut response = Response::new(Body::from(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    cache_headers(headers, etag, cache_control);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_compares_weakly_and_takes_lists_and_star() {
        let etag = weak_etag(b"stock");
        let tag = etag.to_str().unwrap_or_default().to_owned();
        let strong = tag.trim_start_matches("W/").to_owned();
        for (header, expected) in [
            (tag.clone(), true),
            (strong, true),
            (format!("\"other\", {tag}"), true),
            ("*".to_owned(), true),
            ("W/\"other\"".to_owned(), false),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::IF_NONE_MATCH,
                HeaderValue::try_from(header.as_str()).unwrap_or(HeaderValue::from_static("")),
            );
            assert_eq!(not_modified(&headers, &etag), expected, "{header}");
        }
        assert!(!not_modified(&HeaderMap::new(), &etag));
    }
}
