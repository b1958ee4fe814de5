//! The route table: every portal and storefront route with who may use it,
//! declared once, beside its handler, by the capability's HTTP module
//! (`routes()` in each). The router, the sign-in protection, the two-factor
//! enrolment rule, the page a refused form shows again and the
//! authorization matrix test all read this table.

use axum::extract::State;
use axum::handler::Handler;
use axum::routing::MethodRouter;
use backend::organizations::Role;
use domain::Lang;
use http::request::Parts;
use http::Method;
use leptos::prelude::AnyView;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use crate::startup::AppState;

/// Who may use a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A cached storefront page: anyone, served without a session.
    Storefront,
    /// Anyone, signed in or not (sign-in, recovery, invitations, logout).
    Anyone,
    /// A signed-in user, even one who must still enrol in two-factor
    /// authentication: the enrolment pages themselves.
    Enrolling,
    /// Any signed-in user.
    SignedIn,
    /// A member of the current organization with one of these roles. Staff
    /// act for no organization, so never.
    Members(&'static [Role]),
    /// Staff accounts (with two-factor authentication in production).
    Staff,
}

/// Roles that manage servers.
pub const TECHNICAL: Access = Access::Members(&[Role::Owner, Role::Technical]);
/// Roles that see money.
pub const MONEY: Access = Access::Members(&[Role::Owner, Role::Billing]);
/// Every member.
pub const MEMBERS: Access = Access::Members(&[Role::Owner, Role::Technical, Role::Billing]);
/// Owners only.
pub const OWNERS: Access = Access::Members(&[Role::Owner]);

impl Access {
    /// Whether an anonymous visitor is sent to the login page.
    pub fn needs_sign_in(self) -> bool {
        !matches!(self, Access::Storefront | Access::Anyone)
    }

    /// Whether an organization's (or staff's) two-factor requirement
    /// applies before the route answers.
    pub fn needs_enrolment(self) -> bool {
        self.needs_sign_in() && self != Access::Enrolling
    }

    /// Whether a signed-in user may use the route.
    pub fn allows(self, is_staff: bool, role: Option<Role>) -> bool {
        match self {
            Access::Members(roles) => !is_staff && role.is_some_and(|r| roles.contains(&r)),
            Access::Staff => is_staff,
            _ => true,
        }
    }
}

/// One route: a method on a path pattern, who may use it, and its handler.
pub struct Route {
    pub method: Method,
    pub path: &'static str,
    pub access: Access,
    pub(crate) handler: MethodRouter<Arc<AppState>>,
    /// A page that needs no data: what it shows, also where a refused form
    /// or request at its address is shown again.
    pub(crate) plain: Option<Plain>,
}

impl Route {
    pub fn get<H, T>(path: &'static str, access: Access, handler: H) -> Route
    where
        H: Handler<T, Arc<AppState>>,
        T: 'static,
    {
        Route {
            method: Method::GET,
            path,
            access,
            handler: axum::routing::get(handler),
            plain: None,
        }
    }

    pub fn post<H, T>(path: &'static str, access: Access, handler: H) -> Route
    where
        H: Handler<T, Arc<AppState>>,
        T: 'static,
    {
        Route {
            method: Method::POST,
            path,
            access,
            handler: axum::routing::post(handler),
            plain: None,
        }
    }

    /// What a GET page with its own handler shows when a request at its
    /// address is refused before the handler runs (a cross-site login).
    pub fn shows(mut self, show: Plain) -> Route {
        self.plain = Some(show);
        self
    }

    /// A page that needs no data of the caller's organization: `show`
    /// renders it in the address's language.
    pub fn page(path: &'static str, access: Access, show: Plain) -> Route {
        let handler = move |State(state): State<Arc<AppState>>, parts: Parts| async move {
            super::page::plain(&state, parts, show).await
        };
        Route {
            method: Method::GET,
            path,
            access,
            handler: axum::routing::get(handler),
            plain: Some(show),
        }
    }
}

/// How a page that needs no data is shown.
pub type Plain = fn(Lang) -> AnyView;

/// The `Plain` that shows `<SignupPage lang />`: `shows!(SignupPage)`.
macro_rules! shows {
    ($page:ident) => {
        |lang| leptos::prelude::IntoAny::into_any(leptos::prelude::view! { <$page lang /> })
    };
}
pub(crate) use shows;

/// The page that needs no data at this address (`/en/signup`), if there is
/// one: where a request refused before its handler ran is shown.
pub fn plain_page(path: &str) -> Option<Plain> {
    static PLAIN: LazyLock<Vec<(&'static str, Plain)>> = LazyLock::new(|| {
        all()
            .into_iter()
            .filter_map(|r| Some((r.path, r.plain?)))
            .collect()
    });
    PLAIN
        .iter()
        .find(|(pattern, _)| matches(pattern, path))
        .map(|(_, show)| *show)
}

/// Whether a path fits a pattern such as `/{lang}/configure`.
fn matches(pattern: &str, path: &str) -> bool {
    let (mut pattern, mut path) = (pattern.split('/'), path.split('/'));
    loop {
        match (pattern.next(), path.next()) {
            (None, None) => return true,
            (Some(p), Some(s)) if p == s || (p.starts_with('{') && !s.is_empty()) => {}
            _ => return false,
        }
    }
}

/// Every declared route, capability by capability.
pub fn all() -> Vec<Route> {
    use crate::pages::{account, alerts, billing, finance, orders, servers, staff, support, team};
    [
        super::storefront::routes(),
        account::routes(),
        account::two_factor::routes(),
        account::keys::routes(),
        account::tokens::routes(),
        account::webhooks::routes(),
        team::members::routes(),
        team::audit::routes(),
        team::invitations::routes(),
        orders::routes(),
        servers::routes(),
        servers::power::routes(),
        servers::reinstall::routes(),
        servers::root_password::routes(),
        servers::cancellation::routes(),
        servers::snapshots::routes(),
        servers::maintenance::routes(),
        servers::console::routes(),
        support::routes(),
        alerts::routes(),
        staff::routes(),
        staff::hosts::routes(),
        staff::host_bmc::routes(),
        staff::host_page::routes(),
        staff::maintenance::routes(),
        staff::orders::routes(),
        staff::support::routes(),
        billing::routes(),
        super::stripe::routes(),
        finance::routes(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The table without handlers, for the middleware that enforces it.
#[derive(Debug, Default)]
pub struct Rules {
    by_route: HashMap<(Method, &'static str), Access>,
    by_path: HashMap<&'static str, Access>,
    pages: Vec<&'static str>,
}

impl Rules {
    pub fn new(routes: &[Route]) -> Rules {
        let mut rules = Rules::default();
        for r in routes {
            if let Some(earlier) = rules.by_route.insert((r.method.clone(), r.path), r.access) {
                panic!("{} {} is declared twice ({earlier:?})", r.method, r.path);
            }
            // A method the path doesn't have (405) is guarded like the
            // strictest one it has.
            let strictest = match rules.by_path.get(r.path) {
                Some(a) if !a.needs_sign_in() => r.access,
                Some(a) => *a,
                None => r.access,
            };
            rules.by_path.insert(r.path, strictest);
            // Storefront pages are served by the page cache, not the
            // portal's router: a form posted under one shows its own address.
            if r.method == Method::GET && r.access != Access::Storefront {
                rules.pages.push(r.path);
            }
        }
        rules
    }

    /// The rule of the route a request matched (its pattern); `None` for
    /// requests that matched no declared route (the 404 page).
    pub fn access(&self, method: &Method, pattern: &str) -> Option<Access> {
        self.by_route
            .get(&(method.clone(), pattern))
            .or_else(|| self.by_path.get(pattern))
            .copied()
    }

    /// How many path segments of a request to this pattern make the address
    /// of the page its form is on: the longest page whose pattern begins the
    /// route's (`/{lang}/servers/{id}` for `/{lang}/servers/{id}/rename`).
    pub fn page_segments(&self, pattern: &str) -> Option<usize> {
        let wanted: Vec<&str> = pattern.split('/').collect();
        self.pages
            .iter()
            .map(|p| p.split('/').collect::<Vec<_>>())
            .filter(|p| p.len() <= wanted.len() && wanted[..p.len()] == p[..])
            .map(|p| p.len())
            .max()
    }
}

/// Every route as (method, path pattern), sorted: what the authorization
/// matrix must have a row for.
pub fn inventory() -> Vec<(String, String)> {
    let mut routes: Vec<(String, String)> = all()
        .iter()
        .map(|r| (r.method.to_string(), r.path.to_owned()))
        .collect();
    routes.sort();
    routes
}
