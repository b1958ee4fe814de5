//! Storefront pages are rendered once per set of facts and served from
//! memory until the facts change (see `facts`). Stock stays exact: every
//! request learns from the database whether anything changed, by a check
//! that began after the request arrived (on PostgreSQL one read is shared by
//! the requests that waited for it, see `backend::stock_watch`), which costs
//! far less than rendering. The moment stock was confirmed is filled in per
//! response. A page in the cache is answered before the router and the
//! layers behind it (`hit`).

mod hit;

pub use hit::AnswerHits;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::header::{self, HeaderMap, HeaderValue};
use http::StatusCode;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use app::context::{READ_AT_ISO, READ_AT_TEXT};

use crate::facts::Versioned;
use crate::metrics::CacheLabels;
use crate::startup::AppState;

/// Pages kept at most; the key space is small (paths × known parameters),
/// this only bounds memory against crafted URLs.
const MAX_PAGES: usize = 512;
const MAX_BODY: usize = 4 * 1024 * 1024;

#[derive(Default)]
pub struct PageCache {
    pages: RwLock<HashMap<String, Arc<CachedPage>>>,
}

struct CachedPage {
    generation: u64,
    status: StatusCode,
    /// The route pattern that rendered it (`/{lang}`), for the metrics of
    /// answers that skip the router.
    route: String,
    /// The body split around the read-time placeholders.
    segments: Vec<Segment>,
    /// The body as last assembled: the time only changes once a second, so
    /// most responses share one buffer (and one gzip of it).
    assembled: RwLock<Option<Arc<Assembled>>>,
    /// What every answer from the cache before the router shares, made on
    /// the first one.
    hit: OnceLock<hit::Shared>,
}

struct Assembled {
    /// The second the body says stock was read.
    at: i64,
    body: Bytes,
    /// Compressed when first asked for, once per second however many
    /// browsers ask (compressing 40 kB costs more than the rest of a hit).
    gzip: OnceLock<Option<Bytes>>,
}

impl Assembled {
    /// `None` if compressing failed (it writes to memory, so it should
    /// not): the plain body is sent instead.
    fn gzip(&self) -> Option<Bytes> {
        self.gzip
            .get_or_init(|| {
                use std::io::Write;
                let mut encoder =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
                encoder.write_all(&self.body).ok()?;
                encoder.finish().ok().map(Bytes::from)
            })
            .clone()
    }
}

enum Segment {
    Bytes(Bytes),
    ReadAtIso,
    ReadAtText,
}

impl CachedPage {
    fn new(generation: u64, status: StatusCode, route: String, body: Bytes) -> CachedPage {
        let body = strip_hydration_markers(body);
        let mut segments = Vec::new();
        let mut rest = &body[..];
        let mut offset = 0;
        while let Some((at, segment, len)) = next_placeholder(rest) {
            segments.push(Segment::Bytes(body.slice(offset..offset + at)));
            segments.push(segment);
            rest = &rest[at + len..];
            offset += at + len;
        }
        segments.push(Segment::Bytes(body.slice(offset..)));
        CachedPage {
            generation,
            status,
            route,
            segments,
            hit: OnceLock::new(),
            assembled: RwLock::new(None),
        }
    }

    fn body_at(&self, now: i64) -> Arc<Assembled> {
        if let Ok(guard) = self.assembled.read() {
            if let Some(assembled) = guard.as_ref().filter(|a| a.at == now) {
                return assembled.clone();
            }
        }
        let iso = domain::time::format_iso(now);
        let text = domain::time::format_datetime(now);
        let size = self
            .segments
            .iter()
            .map(|s| {
                if let Segment::Bytes(b) = s {
                    b.len()
                } else {
                    24
                }
            })
            .sum();
        let mut body = Vec::with_capacity(size);
        for segment in &self.segments {
            match segment {
                Segment::Bytes(b) => body.extend_from_slice(b),
                Segment::ReadAtIso => body.extend_from_slice(iso.as_bytes()),
                Segment::ReadAtText => body.extend_from_slice(text.as_bytes()),
            }
        }
        let assembled = Arc::new(Assembled {
            at: now,
            body: Bytes::from(body),
            gzip: OnceLock::new(),
        });
        if let Ok(mut guard) = self.assembled.write() {
            *guard = Some(assembled.clone());
        }
        assembled
    }

    fn respond(&self, now: i64) -> Response {
        self.respond_with(self.body_at(now).body.clone())
    }

    fn respond_with(&self, body: Bytes) -> Response {
        let mut response = Response::new(Body::from(body));
        *response.status_mut() = self.status;
        *response.headers_mut() = page_headers();
        response
    }
}

/// The headers of every cached page's answer.
fn page_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    // Stock changes at any moment: browsers and proxies must ask again.
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h
}

/// Leptos marks text boundaries with `<!>` and appends resource scripts
/// after `</html>`, both for hydration. Storefront pages never hydrate;
/// `<!>` and content after `</html>` are invalid HTML, and the inline
/// scripts would only trip the CSP. (Page text is escaped, so a literal
/// `<!>` can only be a marker.)
pub fn strip_hydration_markers(body: Bytes) -> Bytes {
    const MARKER: &[u8] = b"<!>";
    const END: &[u8] = b"</html>";
    let body = match find(&body, END) {
        Some(at) => body.slice(..at + END.len()),
        None => body,
    };
    if find(&body, MARKER).is_none() {
        return body;
    }
    let mut out = Vec::with_capacity(body.len());
    let mut rest = &body[..];
    while let Some(at) = find(rest, MARKER) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at + MARKER.len()..];
    }
    out.extend_from_slice(rest);
    Bytes::from(out)
}

fn next_placeholder(haystack: &[u8]) -> Option<(usize, Segment, usize)> {
    let iso = find(haystack, READ_AT_ISO.as_bytes())
        .map(|at| (at, Segment::ReadAtIso, READ_AT_ISO.len()));
    let text = find(haystack, READ_AT_TEXT.as_bytes())
        .map(|at| (at, Segment::ReadAtText, READ_AT_TEXT.len()));
    match (iso, text) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The cache key: the path plus the query parameters pages read, in a fixed
/// order. `None` when the query has anything else (rendered, not cached).
fn cache_key(req: &Request) -> Option<String> {
    let uri = req.uri();
    let mut key = uri.path().to_owned();
    let Some(query) = uri.query() else {
        return Some(key);
    };
    let mut known: Vec<(&str, &str)> = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        let short = value.len() <= 40;
        if !matches!(name, "plan" | "site" | "city")
            || !short
            || known.iter().any(|(n, _)| *n == name)
        {
            return None;
        }
        known.push((name, value));
    }
    known.sort_unstable();
    for (name, value) in known {
        key.push_str(if key.contains('?') { "&" } else { "?" });
        key.push_str(name);
        key.push('=');
        key.push_str(value);
    }
    Some(key)
}

pub async fn storefront(
    State(state): State<Arc<AppState>>,
    mut req: Request,
    next: Next,
) -> Response {
    // `AnswerHits` may have read the facts for this request already.
    let read = match req.extensions_mut().remove::<Versioned>() {
        Some(known) => Ok(known),
        None => state.facts.current().await,
    };
    let versioned = match read {
        Ok(v) => v,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "reading storefront facts failed");
            // The database is unreachable: the page as last rendered, its
            // stock stated "as of" the last moment the database confirmed
            // it (never a guess at stock now). Without one, the page
            // renders its error state (503).
            let last = cache_key(&req).and_then(|key| {
                state
                    .pages
                    .pages
                    .read()
                    .ok()
                    .and_then(|p| p.get(&key).cloned())
            });
            let confirmed = state.facts.confirmed_at();
            return match last.filter(|_| confirmed > 0) {
                Some(page) => {
                    state
                        .metrics
                        .page_cache
                        .get_or_create(&CacheLabels { result: "stale" })
                        .inc();
                    page.respond(confirmed)
                }
                None => next.run(req).await,
            };
        }
    };
    let now = state.clock.now();
    let key = cache_key(&req).filter(|_| versioned.generation > 0);
    if let Some(key) = &key {
        let hit = state
            .pages
            .pages
            .read()
            .ok()
            .and_then(|pages| pages.get(key).cloned());
        if let Some(page) = hit.filter(|p| p.generation == versioned.generation) {
            state
                .metrics
                .page_cache
                .get_or_create(&CacheLabels { result: "hit" })
                .inc();
            return page.respond(now);
        }
    }
    state
        .metrics
        .page_cache
        .get_or_create(&CacheLabels { result: "miss" })
        .inc();
    req.extensions_mut().insert(versioned.facts.clone());
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "other".to_owned(), |m| m.as_str().to_owned());
    let response = next.run(req).await;
    let (parts, body) = response.into_parts();
    let body = match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(%error, "rendering a storefront page failed");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let page = Arc::new(CachedPage::new(
        versioned.generation,
        parts.status,
        route,
        body,
    ));
    let html = parts
        .headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    if let (Some(key), true, true) = (key, parts.status == StatusCode::OK, html) {
        if let Ok(mut pages) = state.pages.pages.write() {
            if pages.len() >= MAX_PAGES {
                pages.retain(|_, p| p.generation == versioned.generation);
                if pages.len() >= MAX_PAGES {
                    pages.clear();
                }
            }
            pages.insert(key, page.clone());
        }
    }
    let mut out = page.respond(now);
    // Keep what the renderer set besides the body (e.g. its own headers).
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    out
}

/// For rendered pages outside the cache (the portal): the same clean-up,
/// and personal pages are never stored by browsers or proxies.
pub async fn clean_html(req: Request, next: Next) -> Response {
    let mut response = next.run(req).await;
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    if !html {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    match axum::body::to_bytes(body, MAX_BODY).await {
        Ok(bytes) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(strip_hydration_markers(bytes)))
        }
        Err(error) => {
            tracing::error!(%error, "rendering a page failed");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
