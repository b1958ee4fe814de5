//! The public API, `/api/v1` (issue 14): JSON for scripts, authenticated by
//! bearer tokens (never by the session cookie, so no CSRF), with one error
//! shape, per-token rate limits in the database and an OpenAPI document
//! generated from the handlers. Each module declares its routes with the
//! scope they need, once; the router, the guard and the tests read that.

mod alerts;
mod billing;
mod caller;
mod choices;
mod console;
mod discovery;
pub mod error;
mod events;
mod feed;
mod idempotency;
mod messages;
pub mod openapi;
mod orders;
mod public;
mod revalidate;
mod servers;
mod snapshots;
mod ssh_keys;
mod stock;
mod webhooks;

pub use caller::{sort_key, ApiCaller, ApiLang, ApiPath, ApiQuery, Body, ListPage, PageQuery};
pub use error::{ApiError, ApiResult, Problem};

use axum::extract::{MatchedPath, Request, State};
use axum::handler::Handler;
use axum::middleware::{from_fn_with_state, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, MethodFilter, MethodRouter};
use axum::Router;
use backend::api_tokens::Scope;
use http::{HeaderValue, Method};
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
        discovery::routes(),
        stock::routes(),
        feed::routes(),
        servers::routes(),
        snapshots::routes(),
        console::routes(),
        orders::routes(),
        billing::routes(),
        alerts::routes(),
        ssh_keys::routes(),
        events::routes(),
        webhooks::routes(),
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

impl Rules {
    /// The methods a path answers, for a 405's `Allow`.
    fn allow(&self, path: &str) -> String {
        let mut methods: Vec<&str> = self
            .0
            .keys()
            .filter(|(_, p)| *p == path)
            .map(|(m, _)| m.as_str())
            .collect();
        if methods.contains(&"GET") {
            methods.push("HEAD");
        }
        methods.sort_unstable();
        methods.join(", ")
    }
}

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

/// Every API request passes here: it gets an id (`X-Request-Id`, also in
/// error bodies), and its error answers are worded in the caller's
/// language. Public routes then pass; the others need a bearer token that
/// works, has the route's scope and is within its rate limit. The caller is
/// then in the request's extensions for the handler.
async fn guard(
    State((state, rules)): State<(Arc<AppState>, Rules)>,
    req: Request,
    next: Next,
) -> Response {
    let lang = error::lang_of(req.headers());
    let context = error::RequestContext {
        id: request_id(req.headers()),
        base_url: state
            .config
            .public_base_url
            .trim_end_matches('/')
            .to_owned(),
    };
    let path = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned());
    let mut response = admit(&state, &rules, req, next, lang).await;
    if response.status() == http::StatusCode::METHOD_NOT_ALLOWED {
        if let Some(allow) = path.and_then(|p| HeaderValue::from_str(&rules.allow(&p)).ok()) {
            response.headers_mut().insert(http::header::ALLOW, allow);
        }
    }
    let mut response = error::finish(response, lang, &context);
    if let Ok(id) = HeaderValue::from_str(&context.id) {
        response.headers_mut().insert("x-request-id", id);
    }
    response
}

async fn admit(
    state: &AppState,
    rules: &Rules,
    mut req: Request,
    next: Next,
    lang: domain::Lang,
) -> Response {
    let scope = req
        .extensions()
        .get::<MatchedPath>()
        .and_then(|m| rules.0.get(&(req.method().clone(), m.as_str())).copied())
        .flatten();
    let Some(scope) = scope else {
        return next.run(req).await;
    };
    let ip = super::auth::client_ip(state, &req);
    let caller = match caller::authenticate(state, req.headers(), &ip, lang).await {
        Ok(caller) => caller,
        Err(error) => return error.into_response(),
    };
    if !caller.scopes.contains(&scope) {
        let mut error = ApiError::new(Problem::InsufficientScope, lang);
        error.scope = Some(scope.as_str());
        return error.into_response();
    }
    let window = match caller::count_request(state, &caller, lang).await {
        Ok(window) => window,
        Err(response) => return response,
    };
    req.extensions_mut().insert(caller);
    let asked =
        (req.method() == Method::GET).then(|| revalidate::Asked::of(req.headers(), req.uri()));
    let mut response = idempotency::once(state, req, next).await;
    if let Some(asked) = asked {
        response = revalidate::finish(asked, &state.config.public_base_url, response).await;
    }
    caller::rate_headers(response.headers_mut(), window);
    response
}

/// The id a proxy in front gave the request (`X-Request-Id`, if it looks
/// like one), else a new one.
fn request_id(headers: &http::HeaderMap) -> String {
    headers
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            (8..=64).contains(&v.len())
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(str::to_owned)
        .unwrap_or_else(|| format!("req_{}", backend::db::new_id().replace('-', "")))
}
