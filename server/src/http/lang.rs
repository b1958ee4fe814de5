//! Choosing the language: `/` goes to the visitor's language (cookie, then
//! `Accept-Language`, then Chinese); every page viewed remembers its language.

use axum::extract::{Path, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use domain::Lang;
use http::header::{self, HeaderMap, HeaderValue};

use app::context::lang_of_path;

pub fn cookie_lang(headers: &HeaderMap) -> Option<Lang> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix("lang=").and_then(Lang::from_code))
}

pub fn preferred_lang(headers: &HeaderMap) -> Lang {
    cookie_lang(headers)
        .or_else(|| {
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(Lang::negotiate)
        })
        .unwrap_or_default()
}

pub async fn root(headers: HeaderMap) -> Response {
    let lang = preferred_lang(&headers);
    let mut response = Redirect::to(&format!("/{}", lang.code())).into_response();
    let h = response.headers_mut();
    h.insert(
        header::VARY,
        HeaderValue::from_static("Cookie, Accept-Language"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-cache"),
    );
    response
}

/// `/en/` is the same page as `/en`.
pub async fn trailing_slash(Path(lang): Path<String>) -> Response {
    match Lang::from_code(&lang) {
        Some(lang) => Redirect::permanent(&format!("/{}", lang.code())).into_response(),
        None => http::StatusCode::NOT_FOUND.into_response(),
    }
}

/// Remembers the language of the page being viewed, so `/` returns to it.
pub async fn remember(secure: bool, req: Request, next: Next) -> Response {
    let cookie = remember_cookie(secure, req.uri().path(), req.headers());
    let mut response = next.run(req).await;
    if let Some(cookie) = cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}

/// The `lang` cookie to set when a page in a language is asked for by a
/// browser whose cookie says another (or none).
pub fn remember_cookie(secure: bool, path: &str, headers: &HeaderMap) -> Option<HeaderValue> {
    let lang = lang_of_path(path).filter(|l| Some(*l) != cookie_lang(headers))?;
    // Written out: this is set on most storefront answers.
    Some(HeaderValue::from_static(match (lang, secure) {
        (Lang::Zh, false) => "lang=zh; Path=/; Max-Age=31536000; SameSite=Lax",
        (Lang::Zh, true) => "lang=zh; Path=/; Max-Age=31536000; SameSite=Lax; Secure",
        (Lang::En, false) => "lang=en; Path=/; Max-Age=31536000; SameSite=Lax",
        (Lang::En, true) => "lang=en; Path=/; Max-Age=31536000; SameSite=Lax; Secure",
    }))
}

/// Portal routes answer only under a language we have. Sign-in protection
/// and the two-factor rule used to apply only under `/zh` and `/en`, while
/// handlers took any segment: `/xx/members` skipped both, and
/// `/%2Fevil.com/login/code` redirected to `//evil.com/login`. Anything else
/// is the designed 404 page, before a session is even loaded.
pub async fn known_language<F, Fut>(not_found: F, req: Request, next: Next) -> Response
where
    F: FnOnce(Request) -> Fut,
    Fut: std::future::Future<Output = Response>,
{
    if lang_of_path(req.uri().path()).is_some() {
        next.run(req).await
    } else {
        not_found(req).await
    }
}
