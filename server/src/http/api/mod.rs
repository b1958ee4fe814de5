//! The public API, `/api/v1` (issue 14): JSON for scripts, authenticated by
//! bearer tokens (never by the session cookie, so no CSRF), with one error
//! shape, per-token rate limits in the database and an OpenAPI document
//! generated from the handlers. Each module declares its routes with the
//! scope they need, once; the router, the guard and the tests read that.

mod alerts;
mod billing;
mod caller;
mod console;
pub mod error;
mod feed;
mod messages;
pub mod openapi;
mod orders;
mod public;
mod servers;
mod snapshots;
mod stock;

pub use caller::{sort_key, ApiCaller, ApiLang, ApiPath, ApiQuery, Body, ListPage, PageQuery};
pub use error::{ApiError, ApiResult, Problem};

use axum::extract::{MatchedPath, Request, State};
use axum::handler::Handler;
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, MethodFilter, MethodRouter};
use axum::Router;
use backend::api_tokens::Scope;
use http::Method;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::startup::AppState;

pub const PREFIX: &str = "/api/v1";

/// One API route: a method on a path, the scope it needs (`None`: public,
/// no token), and its handler.
pub struct ApiRoute {
    pub method: Method,
    pub path: &'static str,
    pub scope: Option<Scope>,
    handler: MethodRouter<Arc<AppState>>,
}

impl ApiRoute {
    fn on<H, T>(method: Method, path: &'static str, scope: Option<Scope>, handler: H) -> ApiRoute
    where
        H: Handler<T, Arc<AppState>>,
        T: 'static,
    {
        let filter = match method {
            Method::POST => MethodFilter::POST,
            Method::PATCH => MethodFilter::PATCH,
            Method::DELETE => MethodFilter::DELETE,
            _ => MethodFilter::GET,
        };
        ApiRoute {
            method,
            path,
            scope,
            handler: axum::routing::on(filter, handler),
        }
    }

    pub fn get<H: Handler<T, Arc<AppState>>, T: 'static>(
        path: &'static str,
        scope: Option<Scope>,
        handler: H,
    ) -> ApiRoute {
        ApiRoute::on(Method::GET, path, scope, handler)
    }

    pub fn post<H: Handler<T, Arc<AppState>>, T: 'static>(
        path: &'static str,
        scope: Option<Scope>,
        handler: H,
    ) -> ApiRoute {
        ApiRoute::on(Method::POST, path, scope, handler)
    }

    pub fn patch<H: Handler<T, Arc<AppState>>, T: 'static>(
        path: &'static str,
        scope: Option<Scope>,
        handler: H,
    ) -> ApiRoute {
        ApiRoute::on(Method::PATCH, path, scope, handler)
    }

    pub fn delete<H: Handler<T, Arc<AppState>>, T: 'static>(
        path: &'static str,
        scope: Option<Scope>,
        handler: H,
    ) -> ApiRoute {
        ApiRoute::on(Method::DELETE, path, scope, handler)
    }
}

/// Every API route, module by module.
pub fn all() -> Vec<ApiRoute> {
    [
        openapi::routes(),
        public::routes(),
        stock::routes(),
        feed::routes(),
        servers::routes(),
        snapshots::routes(),
        console::routes(),
        orders::routes(),
        billing::routes(),
        alerts::routes(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// (method, path, scope) of every API route, sorted: what the OpenAPI
/// document and the authorization matrix are checked against.
pub fn inventory() -> Vec<(String, String, Option<&'static str>)> {
    let mut routes: Vec<_> = all()
        .iter()
        .map(|r| {
            (
                r.method.to_string(),
                r.path.to_owned(),
                r.scope.map(Scope::as_str),
            )
        })
        .collect();
    routes.sort();
    routes
}

/// Who may use which route, for the guard.
#[derive(Clone)]
struct Rules(Arc<HashMap<(Method, &'static str), Option<Scope>>>);

/// The API's router: its routes behind the guard, and JSON answers for
/// unknown paths (404) and methods (405).
pub fn router(state: Arc<AppState>) -> Router<Arc<AppState>> {
    let routes = all();
    let rules = Rules(Arc::new(
        routes
            .iter()
            .map(|r| ((r.method.clone(), r.path), r.scope))
            .collect(),
    ));
    let mut by_path: BTreeMap<&'static str, MethodRouter<Arc<AppState>>> = BTreeMap::new();
    for route in routes {
        let merged = match by_path.remove(route.path) {
            Some(earlier) => earlier.merge(route.handler),
            None => route.handler,
        };
        by_path.insert(route.path, merged);
    }
    let mut router = Router::new();
    for (path, methods) in by_path {
        router = router.route(path, methods.fallback(method_not_allowed));
    }
    router
        .route(&format!("{PREFIX}/{{*rest}}"), any(not_found))
        .route_layer(from_fn_with_state((state, rules), guard))
}

async fn not_found(lang: ApiLang) -> Response {
    ApiError::new(Problem::NotFound, lang.0).into_response()
}

async fn method_not_allowed(lang: ApiLang) -> Response {
    ApiError::new(Problem::MethodNotAllowed, lang.0).into_response()
}

/// Public routes pass; the others need a bearer token that works, has the
/// route's scope and is within its rate limit. The caller is then in the
/// request's extensions for the handler.
async fn guard(
    State((state, rules)): State<(Arc<AppState>, Rules)>,
    mut req: Request,
    next: Next,
) -> Response {
    let lang = error::lang_of(req.headers());
    let scope = req
        .extensions()
        .get::<MatchedPath>()
        .and_then(|m| rules.0.get(&(req.method().clone(), m.as_str())).copied())
        .flatten();
    let Some(scope) = scope else {
        return error::localize(next.run(req).await, lang);
    };
    let ip = super::auth::client_ip(&state, &req);
    let caller = match caller::authenticate(&state, req.headers(), &ip, lang).await {
        Ok(caller) => caller,
        Err(error) => return error.into_response(),
    };
    if !caller.scopes.contains(&scope) {
        return ApiError::new(Problem::InsufficientScope, lang).into_response();
    }
    let window = match caller::count_request(&state, &caller, lang).await {
        Ok(window) => window,
        Err(response) => return response,
    };
    req.extensions_mut().insert(caller);
    let mut response = error::localize(next.run(req).await, lang);
    caller::rate_headers(response.headers_mut(), window);
    response
}
