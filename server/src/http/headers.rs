//! Security headers on every response (DESIGN §5) and request metrics.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::header::{self, HeaderMap, HeaderValue};
use std::sync::Arc;
use std::time::Instant;

use crate::metrics::RequestLabels;
use crate::startup::AppState;

/// The serial console's page: xterm.js sizes its character grid with
/// `<style>` elements it creates, which carry no nonce, so this one page
/// allows inline styles. Scripts are as strict as everywhere else.
pub const CSP_SERIAL_CONSOLE: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
    style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; \
    object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// No inline script may run: storefront pages have none, and the JSON-LD
/// block is data, which CSP does not execute. The islands need exactly what
/// this already allows and no more: `/islands.js` and the wasm-bindgen
/// module from `'self'` (no inline loader, so no nonce), the wasm compiled
/// under `'wasm-unsafe-eval'`, fetched and calling its server functions
/// under `connect-src 'self'`. The live-quote browser test checks that no
/// `securitypolicyviolation` fires.
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; \
    img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; \
    form-action 'self'; frame-ancestors 'none'";

pub async fn security_headers(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let mut response = next.run(req).await;
    add_security_headers(response.headers_mut(), state.config.development());
    response
}

/// The headers of `security_headers`, for answers that do not pass it (a
/// cached storefront page, `page_cache::AnswerHits`).
pub fn add_security_headers(h: &mut HeaderMap, development: bool) {
    // A handler may have set a policy of its own (the serial console's).
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        );
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "permissions-policy",
        HeaderValue::from_static("camera=(), microphone=(), geolocation=(), payment=()"),
    );
    if !development {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=63072000; includeSubDomains"),
        );
    }
}

pub async fn record_metrics(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "other".to_owned(), |m| m.as_str().to_owned());
    let method = req.method().as_str().to_owned();
    let response = next.run(req).await;
    let labels = RequestLabels {
        route,
        method,
        status: response.status().as_u16(),
    };
    state.metrics.requests.get_or_create(&labels).inc();
    state
        .metrics
        .latency
        .get_or_create(&labels)
        .observe(started.elapsed().as_secs_f64());
    response
}

/// Development mode refuses requests a reverse proxy forwarded: behind
/// one it is public after all, with development's insecure cookies, public
/// sealing key and demo hosts (`ALLOW_DEVELOPMENT_OFF_LOOPBACK` permits a
/// deliberate demo). The answer names the fix, in both languages.
pub async fn refuse_proxied_development(loopback_only: bool, req: Request, next: Next) -> Response {
    if loopback_only && is_proxied(req.headers()) {
        tracing::error!("a proxied request reached development mode; refused");
        let body =
            "This server runs in development mode and refuses requests forwarded by a proxy. \
            Set APP_ENV=production, or ALLOW_DEVELOPMENT_OFF_LOOPBACK=true for a demo.\n\
            此服务器以开发模式运行，拒绝经代理转发的请求。请设置 APP_ENV=production；\
            如用于演示，请设置 ALLOW_DEVELOPMENT_OFF_LOOPBACK=true。\n";
        let mut response = Response::new(axum::body::Body::from(body));
        *response.status_mut() = http::StatusCode::FORBIDDEN;
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return response;
    }
    next.run(req).await
}

/// Whether a reverse proxy forwarded the request.
pub fn is_proxied(headers: &HeaderMap) -> bool {
    ["forwarded", "x-forwarded-for", "x-real-ip"]
        .iter()
        .any(|name| headers.contains_key(*name))
}
