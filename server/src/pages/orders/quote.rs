//! Server functions of the Leptos islands (the live quotes of the
//! configurator and the order page). They answer only same-origin
//! requests: the browser sends `Origin` and `Sec-Fetch-Site` with every
//! `fetch` POST, so a page elsewhere cannot use them. They read and never
//! change anything. The session layer and `auth::load_viewer` run before
//! this handler, so the caller's organization and role are known.

use crate::http::auth::CurrentUser;
use crate::http::page::ours;
use crate::startup::AppState;
use app::portal::order_quote::ServerFnContext;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use http::StatusCode;
use leptos::prelude::provide_context;
use std::sync::Arc;

/// Where the islands' server functions live (`#[server(prefix = "/api")]`).
pub const PATH: &str = "/api/{*function}";

pub async fn server_fn(State(state): State<Arc<AppState>>, mut req: Request) -> Response {
    if !same_origin(&state, req.headers()) {
        tracing::warn!(path = %req.uri().path(), "refused a cross-site server function call");
        return StatusCode::FORBIDDEN.into_response();
    }
    // The same read a storefront page makes: stock as of this request.
    let versioned = match state.facts.current().await {
        Ok(v) => v,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "reading storefront facts failed");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    req.extensions_mut().insert(versioned.facts.clone());
    let caller = req
        .extensions()
        .get::<CurrentUser>()
        .filter(|c| !c.user.is_staff)
        .and_then(|c| c.membership.as_ref())
        .map(|m| (m.organization_id.clone(), m.role));
    let cx = ServerFnContext {
        db: state.db.clone(),
        clock: state.clock.clone(),
        seller_country: state.seller.country.clone(),
        caller,
    };
    let site_info = state.site_info.clone();
    leptos_axum::handle_server_fns_with_context(
        move || {
            provide_context(site_info.clone());
            provide_context(cx.clone());
        },
        req,
    )
    .await
    .into_response()
}

/// Unlike a form, a server function call has no token to fall back on:
/// without either header it is refused.
fn same_origin(state: &AppState, headers: &http::HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        return site == "same-origin";
    }
    headers
        .get(http::header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|origin| ours(state, headers, origin))
}
