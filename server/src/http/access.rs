//! Who may do what in the portal, and rendering a page with its data. Every
//! customer handler picks the caller's membership with the roles it allows
//! and passes that membership's organization to the capability, which
//! scopes every query by it.

use app::portal::{Denied, FormError, FormFeedback, Viewer};
use axum::response::{IntoResponse, Response};
use backend::organizations::{Membership, Role};
use domain::Lang;
use http::request::Parts;
use http::StatusCode;

use super::auth::{same_origin, ClientIp, CurrentUser};
use super::portal::render;
use crate::startup::AppState;

/// The language of the page a request is for: the first segment of its
/// path. Anything else is not a page of ours and gets a 404.
pub struct PageLang(pub Lang);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for PageLang {
    type Rejection = StatusCode;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        app::context::lang_of_path(parts.uri.path())
            .map(PageLang)
            .ok_or(StatusCode::NOT_FOUND)
    }
}

/// Roles that manage servers.
pub const TECHNICAL: &[Role] = &[Role::Owner, Role::Technical];
/// Roles that see money.
pub const MONEY: &[Role] = &[Role::Owner, Role::Billing];
pub const ANY_ROLE: &[Role] = &[Role::Owner, Role::Technical, Role::Billing];

/// The caller's membership if their role in the current organization is one
/// of `roles`. Staff act for no organization.
pub fn member_in<'a>(current: &'a CurrentUser, roles: &[Role]) -> Option<&'a Membership> {
    current
        .membership
        .as_ref()
        .filter(|m| roles.contains(&m.role) && !current.user.is_staff)
}

pub fn lang_of(parts: &Parts) -> Lang {
    app::context::lang_of_path(parts.uri.path()).unwrap_or_default()
}

pub fn client_ip(parts: &Parts) -> Option<String> {
    parts.extensions.get::<ClientIp>().map(|ip| ip.0.clone())
}

/// True when a form post came from our own pages (see `auth::same_origin`).
pub fn trusted(state: &AppState, parts: &Parts, form_token: &str) -> bool {
    let viewer = parts
        .extensions
        .get::<Viewer>()
        .cloned()
        .unwrap_or_default();
    same_origin(state, &parts.headers, form_token, &viewer)
}

pub async fn denied(state: &AppState, mut parts: Parts) -> Response {
    parts.extensions.insert(Denied);
    let mut response = render(state, parts, FormFeedback::default()).await;
    *response.status_mut() = StatusCode::FORBIDDEN;
    response
}

/// The 404 page: the object does not exist or belongs to someone else
/// (the two look the same, so ids reveal nothing).
pub async fn not_found(state: &AppState, parts: Parts) -> Response {
    let mut response = render(state, parts, FormFeedback::default()).await;
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Renders the page at this address with its data and the storefront facts
/// (catalog names, stock), or with `feedback` from a refused post.
pub async fn page<T: Clone + Send + Sync + 'static>(
    state: &AppState,
    mut parts: Parts,
    view: T,
    feedback: FormFeedback,
) -> Response {
    match state.facts.current().await {
        Ok(versioned) => {
            parts.extensions.insert(versioned.facts.clone());
            parts.extensions.insert(view);
            render(state, parts, feedback).await
        }
        Err(error) => unavailable(state, parts, error).await,
    }
}

/// A database or other internal failure: logged with its cause; the user
/// gets a translated "try again" page.
pub async fn unavailable(state: &AppState, parts: Parts, error: anyhow::Error) -> Response {
    tracing::error!(error = %format!("{error:#}"), path = %parts.uri.path(), "request failed");
    render(state, parts, refused(FormError::Unavailable, &[])).await
}

pub fn refused(error: FormError, values: &[(&str, &str)]) -> FormFeedback {
    FormFeedback {
        error: Some(error),
        values: values
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

pub fn forbidden_post() -> FormFeedback {
    refused(FormError::Forbidden, &[])
}

pub fn redirect(lang: Lang, rest: &str) -> Response {
    axum::response::Redirect::to(&format!("/{}{rest}", lang.code())).into_response()
}
