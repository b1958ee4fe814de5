//! A cached storefront page, answered before the router. Profiled under
//! load, a fifth of the server's time on a cache hit went to the routing,
//! the layers and the handler futures a rendered page needs and a hit does
//! not (docs/BENCHMARKS.md, storefront). This answers exactly what that
//! path would: the same body and status, the same headers (security
//! headers, the language cookie, `Vary`, gzip as the compression layer
//! would choose it) and the same metrics. Anything else takes that path.

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use axum::Router;
use futures_util::future::{BoxFuture, Either};
use http::header::{self, HeaderMap, HeaderValue};
use http::Method;
use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;
use tower::Service;

use super::{cache_key, CachedPage};
use crate::http::headers::{add_security_headers, is_proxied};
use crate::http::lang::remember_cookie;
use crate::metrics::{CacheLabels, RequestLabels};
use crate::startup::AppState;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::histogram::Histogram;

/// The application's router behind the cache. A service of its own, not a
/// router layer: a layer would run after routing, and each request would
/// clone the route's whole stack of layers first.
#[derive(Clone)]
pub struct AnswerHits {
    state: Arc<AppState>,
    /// Development on loopback refuses proxied requests; those go the full
    /// path, where `refuse_proxied_development` answers them.
    loopback_only: bool,
    router: Router,
}

impl AnswerHits {
    pub fn new(state: Arc<AppState>, loopback_only: bool, router: Router) -> AnswerHits {
        AnswerHits {
            state,
            loopback_only,
            router,
        }
    }
}

impl Service<Request> for AnswerHits {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<
        BoxFuture<'static, Result<Response, Infallible>>,
        <Router as Service<Request>>::Future,
    >;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // A router is always ready.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let proxied = self.loopback_only && is_proxied(req.headers());
        match candidate(&self.state, &req).filter(|_| !proxied) {
            None => Either::Right(self.router.call(req)),
            Some((page, gzip)) => {
                let (state, router) = (self.state.clone(), self.router.clone());
                Either::Left(Box::pin(answer(state, router, page, gzip, req)))
            }
        }
    }
}

async fn answer(
    state: Arc<AppState>,
    mut router: Router,
    page: Arc<CachedPage>,
    gzip: bool,
    mut req: Request,
) -> Result<Response, Infallible> {
    let started = Instant::now();
    // Stock stays exact: the same read a rendered page waits for.
    let versioned = match state.facts.current().await {
        Ok(versioned) => versioned,
        // The full path answers for an unreachable database.
        Err(_) => return router.call(req).await,
    };
    if versioned.generation != page.generation {
        // Rendered anew, from the facts just read.
        req.extensions_mut().insert(versioned);
        return router.call(req).await;
    }
    let shared = page.hit.get_or_init(|| Shared::new(&state, &page));
    let assembled = page.body_at(state.clock.now());
    let (body, headers) = match gzip.then(|| assembled.gzip()).flatten() {
        Some(compressed) => (compressed, &shared.gzip),
        None => (assembled.body.clone(), &shared.identity),
    };
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = page.status;
    *response.headers_mut() = headers.clone();
    let secure = !state.config.development();
    if let Some(cookie) = remember_cookie(secure, req.uri().path(), req.headers()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    shared.hits.inc();
    shared.requests.inc();
    shared.latency.observe(started.elapsed().as_secs_f64());
    Ok(response)
}

/// The headers of a hit, as the layers of the full path set them, and the
/// series it is counted in (a hit of the page's route, GET, its status).
pub(super) struct Shared {
    identity: HeaderMap,
    gzip: HeaderMap,
    hits: Counter,
    requests: Counter,
    latency: Histogram,
}

impl Shared {
    fn new(state: &AppState, page: &CachedPage) -> Shared {
        let mut identity = super::page_headers();
        identity.append(header::VARY, HeaderValue::from_static("accept-encoding"));
        add_security_headers(&mut identity, state.config.development());
        let mut gzip = identity.clone();
        gzip.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        let labels = RequestLabels {
            route: page.route.clone(),
            method: Method::GET.to_string(),
            status: page.status.as_u16(),
        };
        let metrics = &state.metrics;
        Shared {
            identity,
            gzip,
            hits: metrics
                .page_cache
                .get_or_create(&CacheLabels { result: "hit" })
                .clone(),
            requests: metrics.requests.get_or_create(&labels).clone(),
            latency: metrics.latency.get_or_create(&labels).clone(),
        }
    }
}

/// The cached page this request asks for, and whether to send it gzipped.
/// `None` sends it the full path: not a GET, not in the cache, or an
/// `Accept-Encoding` that weighs encodings (the compression layer decides).
fn candidate(state: &AppState, req: &Request) -> Option<(Arc<CachedPage>, bool)> {
    if req.method() != Method::GET {
        return None;
    }
    let gzip = takes_gzip(req.headers())?;
    let pages = state.pages.pages.read().ok()?;
    let page = match req.uri().query() {
        None => pages.get(req.uri().path()),
        Some(_) => pages.get(&cache_key(req)?),
    };
    Some((page?.clone(), gzip))
}

/// Whether `Accept-Encoding` names gzip, as browsers send it
/// (`gzip, deflate, br, zstd`); `None` for q-values.
fn takes_gzip(headers: &HeaderMap) -> Option<bool> {
    let mut gzip = false;
    for value in headers.get_all(header::ACCEPT_ENCODING) {
        let value = value.to_str().ok()?;
        if value.contains(';') {
            return None;
        }
        gzip |= value.split(',').map(str::trim).any(|encoding| {
            encoding.eq_ignore_ascii_case("gzip") || encoding.eq_ignore_ascii_case("x-gzip")
        });
    }
    Some(gzip)
}

#[cfg(test)]
mod tests {
    use super::takes_gzip;
    use http::header::{HeaderMap, HeaderValue, ACCEPT_ENCODING};

    fn accepting(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(ACCEPT_ENCODING, HeaderValue::from_str(value).unwrap());
        headers
    }

    #[test]
    fn browsers_lists_choose_gzip_and_weights_go_the_full_path() {
        assert_eq!(takes_gzip(&HeaderMap::new()), Some(false));
        assert_eq!(
            takes_gzip(&accepting("gzip, deflate, br, zstd")),
            Some(true)
        );
        assert_eq!(takes_gzip(&accepting("br")), Some(false));
        assert_eq!(takes_gzip(&accepting("X-GZIP")), Some(true));
        assert_eq!(takes_gzip(&accepting("gzip;q=0, br")), None);
        assert_eq!(takes_gzip(&accepting("gzippy")), Some(false));
    }
}
