//! What every portal handler uses: its caller's membership, its form checked
//! for same origin, its page rendered with data, and one error type that
//! turns into the translated page. Handlers return
//! `Result<Response, PageError>` and read top to bottom with `?`.

use app::portal::{FormError, FormFeedback, Viewer};
use app::{PageBody, PageView};
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, FromRequestParts, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use backend::organizations::Membership;
use domain::Lang;
use http::request::Parts;
use http::{header, Method, StatusCode};
use leptos::prelude::provide_context;
use serde::de::DeserializeOwned;
use std::sync::Arc;
use tower::ServiceExt;

use super::auth::{ClientIp, CurrentUser};
use super::routes::{self, Plain, Rules};
use crate::startup::AppState;

/// Why a page or form could not be answered as asked.
#[derive(Debug)]
pub enum PageError {
    /// The object does not exist or belongs to another organization (the
    /// two look the same, so ids reveal nothing).
    NotFound,
    /// The caller's role does not allow it.
    Denied,
    /// The form's page again, with this error and these fields filled in.
    Refused(FormError, Vec<(String, String)>),
    /// A database or other internal failure: logged with its cause, the
    /// user gets a translated "try again".
    Unavailable(anyhow::Error),
}

pub type PageResult = Result<Response, PageError>;

/// The form's page again with `error` and the given fields.
pub fn refused(error: FormError, values: &[(&str, &str)]) -> PageError {
    PageError::Refused(
        error,
        values
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
    )
}

impl PageError {
    /// A refusal with these typed fields shown again (other failures stay
    /// as they are).
    pub fn keeping(self, values: &[(&str, &str)]) -> PageError {
        match self {
            PageError::Refused(error, _) => refused(error, values),
            other => other,
        }
    }
}

impl From<anyhow::Error> for PageError {
    fn from(error: anyhow::Error) -> Self {
        PageError::Unavailable(error)
    }
}

impl From<FormError> for PageError {
    fn from(error: FormError) -> Self {
        PageError::Refused(error, Vec::new())
    }
}

/// A `PageError` travelling in a response's extensions to `show_failures`,
/// which has the request and renders the page.
#[derive(Clone)]
struct Failure(Arc<PageError>);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let mut response = StatusCode::INTERNAL_SERVER_ERROR.into_response();
        response.extensions_mut().insert(Failure(Arc::new(self)));
        response
    }
}

/// Renders `body` in the shell, with the form feedback to show. Without an
/// error of its own, a page shown again for a refused form keeps that
/// form's feedback; the status is the error's.
pub async fn render_body(
    state: &AppState,
    mut parts: Parts,
    feedback: FormFeedback,
    body: PageBody,
) -> Response {
    let feedback = match (&feedback.error, parts.extensions.get::<FormFeedback>()) {
        (None, Some(earlier)) => earlier.clone(),
        _ => feedback,
    };
    let status = feedback.error.map_or(200, |e| e.status());
    parts.method = Method::GET;
    parts.extensions.insert(feedback);
    let site_info = state.site_info.clone();
    let options = state.leptos_options.clone();
    let handler = leptos_axum::render_app_to_stream_with_context(
        move || provide_context(site_info.clone()),
        move || app::shell(options.clone(), body.clone()),
    );
    let mut response = handler(Request::from_parts(parts, Body::empty())).await;
    if status != 200 {
        *response.status_mut() =
            StatusCode::from_u16(status).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
    }
    response
}

/// The page at this request's address that needs no data (a sign-in or
/// recovery form, a storefront page), with the form feedback: where a
/// request refused before its handler ran is answered. Any other address
/// is the 404 page, or the "try again" page for a failure.
pub async fn render(state: &AppState, parts: Parts, feedback: FormFeedback) -> Response {
    let lang = lang_of(&parts);
    let body = match routes::plain_page(parts.uri.path()) {
        Some(show) => PageBody::new(move || show(lang)),
        None if feedback.error == Some(FormError::Unavailable) => app::shell::outage(lang),
        None => app::shell::not_found(),
    };
    render_body(state, parts, feedback, body).await
}

/// A page that needs no data, rendered by its route.
pub async fn plain(state: &AppState, parts: Parts, show: Plain) -> Response {
    // `/{lang}` also matches `/xx`: only our languages are pages.
    let Some(lang) = app::context::lang_of_path(parts.uri.path()) else {
        return not_found(state, parts).await;
    };
    let body = PageBody::new(move || show(lang));
    render_body(state, parts, FormFeedback::default(), body).await
}

/// The page of this view, with the storefront facts (catalog names, stock).
pub async fn page<V: PageView>(state: &AppState, mut parts: Parts, view: V) -> PageResult {
    facts_for(state, &mut parts).await?;
    let body = PageBody::of(view, lang_of(&parts));
    Ok(render_body(state, parts, FormFeedback::default(), body).await)
}

/// The storefront facts (catalog, stock) for this request: read once, by a
/// read that began after the request arrived, and reused by everything that
/// answers it. A request that checked stock and then renders its page waits
/// for one shared read, not one per step (docs/BENCHMARKS.md, orders).
pub async fn facts_for(
    state: &AppState,
    parts: &mut Parts,
) -> anyhow::Result<Arc<app::context::StorefrontFacts>> {
    if let Some(facts) = parts.extensions.get::<Arc<app::context::StorefrontFacts>>() {
        return Ok(facts.clone());
    }
    let facts = state.facts.current().await?.facts;
    parts.extensions.insert(facts.clone());
    Ok(facts)
}

/// The designed 404 page, for an address nothing answers.
pub async fn not_found(state: &AppState, parts: Parts) -> Response {
    let mut response = render_body(
        state,
        parts,
        FormFeedback::default(),
        app::shell::not_found(),
    )
    .await;
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// "Not allowed" at this request's address (403).
pub async fn denied(state: &AppState, parts: Parts) -> Response {
    let lang = lang_of(&parts);
    let rest = parts.uri.path().get(3..).unwrap_or_default().to_owned();
    let mut response = render_body(
        state,
        parts,
        FormFeedback::default(),
        app::shell::denied(lang, rest),
    )
    .await;
    *response.status_mut() = StatusCode::FORBIDDEN;
    response
}

/// `/{lang}{rest}`, after a form did what it asked.
pub fn redirect(lang: Lang, rest: &str) -> Response {
    Redirect::to(&format!("/{}{rest}", lang.code())).into_response()
}

/// What `show_failures` needs: the application, the rules (to find a form's
/// page) and the portal's routes (to render that page with its data).
#[derive(Clone)]
pub struct Pages {
    pub state: Arc<AppState>,
    pub rules: Arc<Rules>,
    pub router: axum::Router,
}

/// Turns a handler's `PageError` into the translated page. A refused (or
/// failed) form shows its page again, rendered by that page's own handler
/// with its data, with the error, at the status the error carries.
pub async fn show_failures(State(pages): State<Pages>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let kept = parts.clone();
    let response = next.run(Request::from_parts(parts, body)).await;
    let Some(Failure(failure)) = response.extensions().get::<Failure>().cloned() else {
        return response;
    };
    match feedback(&failure, kept.uri.path()) {
        Some(feedback) => show_again(&pages, kept, feedback).await,
        None => show(&pages.state, kept, &failure).await,
    }
}

/// What a form's page says for a refusal, or for a failure (logged here
/// with its cause: the user gets a translated "try again"); `None` for the
/// failures that are pages of their own (404, 403).
fn feedback(failure: &PageError, path: &str) -> Option<FormFeedback> {
    let (error, values) = match failure {
        PageError::Refused(error, values) => (*error, values.clone()),
        PageError::Unavailable(cause) => {
            tracing::error!(error = %format!("{cause:#}"), %path, "request failed");
            (FormError::Unavailable, Vec::new())
        }
        PageError::NotFound | PageError::Denied => return None,
    };
    Some(FormFeedback {
        error: Some(error),
        values,
    })
}

/// The failure as the page at the request's address.
async fn show(state: &AppState, parts: Parts, failure: &PageError) -> Response {
    match failure {
        PageError::NotFound => not_found(state, parts).await,
        PageError::Denied => denied(state, parts).await,
        other => {
            let feedback = feedback(other, parts.uri.path()).unwrap_or_default();
            render(state, parts, feedback).await
        }
    }
}

/// The page the refused form is on, rendered by its own route.
async fn show_again(pages: &Pages, mut parts: Parts, feedback: FormFeedback) -> Response {
    let pattern = parts
        .extensions
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let segments = pattern.and_then(|p| pages.rules.page_segments(&p));
    let path = parts.uri.path().to_owned();
    let status = feedback.error.map_or(200, |e| e.status());
    // No page of the portal's begins this route (logout): the address
    // itself says it.
    let Some(n) = segments else {
        return render(&pages.state, parts, feedback).await;
    };
    let page_path = path.split('/').take(n).collect::<Vec<_>>().join("/");
    if parts.method == Method::GET && page_path == path {
        return render(&pages.state, parts, feedback).await;
    }
    let Ok(uri) = page_path.parse() else {
        return render(&pages.state, parts, feedback).await;
    };
    parts.method = Method::GET;
    parts.uri = uri;
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    // Only who is asking carries over: the routing of the post (its path
    // parameters, matched path) must not reach the page's handler.
    let mut extensions = http::Extensions::new();
    copy::<CurrentUser>(&parts.extensions, &mut extensions);
    copy::<Viewer>(&parts.extensions, &mut extensions);
    copy::<ClientIp>(&parts.extensions, &mut extensions);
    copy::<tower_sessions::Session>(&parts.extensions, &mut extensions);
    copy::<axum::extract::ConnectInfo<std::net::SocketAddr>>(&parts.extensions, &mut extensions);
    extensions.insert(feedback.clone());
    parts.extensions = extensions;
    let retry = parts.clone();
    let response = match pages
        .router
        .clone()
        .oneshot(Request::from_parts(parts, Body::empty()))
        .await
    {
        Ok(response) => response,
        Err(never) => match never {},
    };
    let mut response = match response.extensions().get::<Failure>().cloned() {
        Some(Failure(failure)) => show(&pages.state, retry, &failure).await,
        None => response,
    };
    if response.status().is_success() {
        *response.status_mut() =
            StatusCode::from_u16(status).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
    }
    response
}

fn copy<T: Clone + Send + Sync + 'static>(from: &http::Extensions, to: &mut http::Extensions) {
    if let Some(value) = from.get::<T>() {
        to.insert(value.clone());
    }
}

/// The caller's membership in their current organization. The route's
/// declared access has already checked the role; a route that declared no
/// role gets `Denied` here rather than a membership it never checked.
pub struct Member(pub Membership);

impl<S: Send + Sync> FromRequestParts<S> for Member {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<CurrentUser>()
            .filter(|c| !c.user.is_staff)
            .and_then(|c| c.membership.clone())
            .map(Member)
            .ok_or(PageError::Denied)
    }
}

/// The signed-in caller. Routes that allow anonymous visitors take
/// `Option<Signed>`.
pub struct Signed(pub CurrentUser);

impl<S: Send + Sync> FromRequestParts<S> for Signed {
    type Rejection = PageError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<CurrentUser>()
            .cloned()
            .map(Signed)
            .ok_or(PageError::Denied)
    }
}

impl<S: Send + Sync> axum::extract::OptionalFromRequestParts<S> for Signed {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &S,
    ) -> Result<Option<Self>, Self::Rejection> {
        Ok(parts.extensions.get::<CurrentUser>().cloned().map(Signed))
    }
}

/// The language of the page a request is for: the first segment of its
/// path. Anything else is not a page of ours and gets a 404.
pub struct PageLang(pub Lang);

impl<S: Send + Sync> FromRequestParts<S> for PageLang {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        app::context::lang_of_path(parts.uri.path())
            .map(PageLang)
            .ok_or(StatusCode::NOT_FOUND)
    }
}

/// The client's address as `auth::load_viewer` decided it.
pub fn client_ip(parts: &Parts) -> Option<String> {
    parts.extensions.get::<ClientIp>().map(|ip| ip.0.clone())
}

pub fn lang_of(parts: &Parts) -> Lang {
    app::context::lang_of_path(parts.uri.path()).unwrap_or_default()
}

/// A form posted from one of our own pages: browsers say so with
/// `Sec-Fetch-Site` or `Origin`; without either, its `csrf` field must be
/// the session's token. Anything else is refused with the form's page
/// again (403), keeping what was typed except secrets.
pub struct SameOrigin<T>(pub T);

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for SameOrigin<T> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        let (parts, body) = req.into_parts();
        let viewer = parts
            .extensions
            .get::<Viewer>()
            .cloned()
            .unwrap_or_default();
        let headers = parts.headers.clone();
        let Form(fields): Form<Vec<(String, String)>> =
            Form::from_request(Request::from_parts(parts.clone(), body), state)
                .await
                .map_err(IntoResponse::into_response)?;
        let token = fields
            .iter()
            .find(|(name, _)| name == "csrf")
            .map(|(_, value)| value.as_str())
            .unwrap_or_default();
        if !same_origin(state, &headers, token, &viewer) {
            let kept = fields
                .iter()
                .filter(|(name, _)| !secret(name))
                .cloned()
                .collect();
            return Err(PageError::Refused(FormError::Forbidden, kept).into_response());
        }
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&fields)
            .finish();
        let Form(form) = Form::<T>::from_request(
            Request::from_parts(parts, Body::from(Bytes::from(body))),
            state,
        )
        .await
        .map_err(IntoResponse::into_response)?;
        Ok(SameOrigin(form))
    }
}

/// Fields a refused form never echoes back into the page.
fn secret(name: &str) -> bool {
    matches!(name, "csrf" | "password" | "current" | "repeat" | "code")
}

/// Whether a state-changing request came from our own pages. Browsers send
/// `Sec-Fetch-Site` or `Origin`; without either, the form's token decides.
pub fn same_origin(
    state: &AppState,
    headers: &http::HeaderMap,
    form_token: &str,
    viewer: &Viewer,
) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return site == "same-origin";
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        return ours(state, headers, origin);
    }
    !viewer.csrf_token.is_empty() && form_token == viewer.csrf_token
}

/// Whether an `Origin` header names this site.
pub fn ours(state: &AppState, headers: &http::HeaderMap, origin: &str) -> bool {
    let base = state.config.public_base_url.trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    origin == base
        || origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            == Some(host)
}
