//! Who is asking: the session's user (with the 12-hour absolute limit), the
//! CSRF token, the client address, and the cross-site check on every
//! state-changing request (DESIGN §5).

use app::portal::{FormError, FormFeedback, Viewer, ViewerUser};
use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use backend::accounts::User;
use backend::organizations::Membership;
use domain::{OrganizationId, UserId};
use http::{header, Method};
use std::net::SocketAddr;
use std::sync::Arc;
use tower_sessions::Session;

use super::page::{ours, render, render_body, Pages};
use super::routes::Access;
use super::session_store::USER_KEY;
use crate::startup::AppState;

const AUTH_AT: &str = "auth_at";
/// The minute of the last request: changing it marks the session modified,
/// so the store moves its idle expiry (and the cookie's) with activity.
const SEEN: &str = "seen";
const CSRF: &str = "csrf";
/// The page an anonymous visitor asked for, to return to after login.
const RETURN_TO: &str = "return_to";
pub const ORGANIZATION: &str = "org_id";
/// However active, a login lasts at most this long.
pub const ABSOLUTE_SECS: i64 = 12 * 3600;

/// The logged-in user of this request, if any.
#[derive(Clone, Debug)]
pub struct CurrentUser {
    pub user: User,
    pub session_id: String,
    /// The organization the user is working in now, and their role there.
    pub membership: Option<Membership>,
}

/// The client's address as the server saw it.
#[derive(Clone, Debug)]
pub struct ClientIp(pub String);

/// Loads the session's user and CSRF token into the request for pages and
/// handlers; ends sessions past their absolute lifetime; enforces the
/// matched route's declared access (sign-in, two-factor enrolment, role).
pub async fn load_viewer(
    State(pages): State<Pages>,
    session: Session,
    mut req: Request,
    next: Next,
) -> Response {
    let state = &pages.state;
    let ip = client_ip(state, &req);
    req.extensions_mut().insert(ClientIp(ip));
    // A database outage is not "signed out": the visitor gets a translated
    // 503 and keeps the session, and nothing fails open.
    let (current, viewer) = match identify(state, &session).await {
        Ok(found) => found,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "loading the session failed");
            return unavailable(state, req).await;
        }
    };
    let access = req
        .extensions()
        .get::<MatchedPath>()
        .and_then(|m| pages.rules.access(req.method(), m.as_str()))
        .unwrap_or(Access::Anyone);
    let lang = app::context::lang_of_path(req.uri().path()).unwrap_or_default();
    match current {
        Some(current) => {
            if access.needs_enrolment() {
                match must_enrol(state, &current, access).await {
                    Ok(true) => {
                        return Redirect::to(&format!("/{}/account/2fa", lang.code()))
                            .into_response();
                    }
                    Ok(false) => {}
                    Err(error) => {
                        tracing::error!(error = %format!("{error:#}"), "checking the 2FA requirement failed");
                        return unavailable(state, req).await;
                    }
                }
            }
            let role = current.membership.as_ref().map(|m| m.role);
            let allowed = access.allows(current.user.is_staff, role);
            req.extensions_mut().insert(current);
            req.extensions_mut().insert(viewer);
            if !allowed {
                let (parts, _) = req.into_parts();
                return super::page::denied(state, parts).await;
            }
            next.run(req).await
        }
        None if access.needs_sign_in() => {
            if req.method() == http::Method::GET {
                let wanted = req.uri().path_and_query().map(|p| p.as_str().to_owned());
                if let Err(error) = session.insert(RETURN_TO, wanted).await {
                    tracing::warn!(%error, "remembering the requested page failed");
                }
            }
            Redirect::to(&format!("/{}/login?done=login", lang.code())).into_response()
        }
        None => {
            req.extensions_mut().insert(viewer);
            next.run(req).await
        }
    }
}

/// The page asked for, with the translated "temporarily unavailable" error
/// and status 503.
async fn unavailable(state: &AppState, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    let lang = super::page::lang_of(&parts);
    let mut response =
        render_body(state, parts, Default::default(), app::shell::outage(lang)).await;
    *response.status_mut() = http::StatusCode::SERVICE_UNAVAILABLE;
    response
}

/// An organization that requires 2FA lets a member without it reach only
/// the enrolment pages (and log out).
async fn must_enrol(
    state: &AppState,
    current: &CurrentUser,
    access: Access,
) -> anyhow::Result<bool> {
    // Staff pages reach every customer: in production they need 2FA.
    if current.user.is_staff
        && !state.config.development()
        && access == Access::Staff
        && !backend::accounts::two_factor::is_enabled(&state.db, &current.user.id).await?
    {
        return Ok(true);
    }
    let Some(m) = &current.membership else {
        return Ok(false);
    };
    Ok(m.requires_two_factor()
        && !backend::accounts::two_factor::is_enabled(&state.db, &current.user.id).await?)
}

/// The client's address: behind a load balancer, the right-most entry of
/// the header it appends (the only one a client cannot forge); otherwise
/// the socket's peer. Per-address limits depend on getting this right.
pub(crate) fn client_ip(state: &AppState, req: &Request) -> String {
    let socket = || {
        req.extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map_or_else(|| "unknown".to_owned(), |c| c.0.ip().to_string())
    };
    let Some(name) = state.config.client_ip_header.as_deref() else {
        return socket();
    };
    req.headers()
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .rfind(|v| v.parse::<std::net::IpAddr>().is_ok())
        .map_or_else(socket, str::to_owned)
}

/// Ends a session and starts an anonymous one with a fresh CSRF token, so
/// the login form on the page being rendered can be submitted.
async fn ended(session: &Session) -> anyhow::Result<Viewer> {
    session.flush().await?;
    let token = backend::accounts::tokens::random_token()?;
    session.insert(CSRF, &token).await?;
    Ok(Viewer {
        user: None,
        csrf_token: token,
    })
}

async fn identify(
    state: &AppState,
    session: &Session,
) -> anyhow::Result<(Option<CurrentUser>, Viewer)> {
    let csrf = match session.get::<String>(CSRF).await? {
        Some(token) => token,
        None => {
            let token = backend::accounts::tokens::random_token()?;
            session.insert(CSRF, &token).await?;
            token
        }
    };
    let mut viewer = Viewer {
        user: None,
        csrf_token: csrf,
    };
    let Some(user_id) = session.get::<UserId>(USER_KEY).await? else {
        return Ok((None, viewer));
    };
    let now = state.clock.now();
    let auth_at = session.get::<i64>(AUTH_AT).await?.unwrap_or(0);
    if now - auth_at > ABSOLUTE_SECS {
        return Ok((None, ended(session).await?));
    }
    session
        .insert(SEEN, now / backend::sessions::TOUCH_EVERY_SECS)
        .await?;
    let Some(user) = backend::accounts::user_by_id(&state.db, &user_id).await? else {
        return Ok((None, ended(session).await?));
    };
    let memberships = backend::organizations::memberships_of(&state.db, &user.id).await?;
    let chosen = session.get::<OrganizationId>(ORGANIZATION).await?;
    let membership = chosen
        .and_then(|id| {
            memberships
                .iter()
                .find(|m| m.organization_id == id)
                .cloned()
        })
        .or_else(|| memberships.first().cloned());
    viewer.user = Some(ViewerUser {
        name: user.name.clone(),
        email: user.email.clone(),
        organization: membership
            .as_ref()
            .map(|m| m.organization_name.clone())
            .unwrap_or_default(),
        role: membership.as_ref().map(|m| m.role),
        organizations: memberships
            .iter()
            .map(|m| {
                (
                    m.organization_id.clone(),
                    m.organization_name.clone(),
                    m.role,
                )
            })
            .collect(),
        organization_id: membership
            .as_ref()
            .map(|m| m.organization_id.clone())
            .unwrap_or_default(),
        is_staff: user.is_staff,
    });
    let session_id = session.id().map(|id| id.to_string()).unwrap_or_default();
    Ok((
        Some(CurrentUser {
            user,
            session_id,
            membership,
        }),
        viewer,
    ))
}

/// Logs a user in on this session: a new session id (no fixation), the
/// user and the moment, a fresh CSRF token.
pub async fn start_login(session: &Session, user_id: &UserId, now: i64) -> anyhow::Result<()> {
    session.cycle_id().await?;
    session.insert(USER_KEY, user_id).await?;
    session.insert(AUTH_AT, now).await?;
    session
        .insert(CSRF, backend::accounts::tokens::random_token()?)
        .await?;
    Ok(())
}

/// Sends the visitor back to `path` (one of our pages) after they log in.
pub async fn remember_return(session: &Session, path: &str) -> anyhow::Result<()> {
    session.insert(RETURN_TO, Some(path.to_owned())).await?;
    Ok(())
}

/// Where a fresh login goes: the portal page the visitor asked for before
/// logging in (only ever a path of ours, so it can't redirect elsewhere),
/// or the user's home in the portal (`home`).
pub async fn after_login(
    state: &AppState,
    session: &Session,
    user: &User,
    lang: domain::Lang,
) -> anyhow::Result<String> {
    let wanted = session
        .remove::<Option<String>>(RETURN_TO)
        .await
        .ok()
        .flatten()
        .flatten()
        .filter(|p| p.starts_with(&format!("/{}/", lang.code())) && !p.contains("//"));
    if let Some(path) = wanted {
        return Ok(path);
    }
    let membership = backend::organizations::primary_membership(&state.db, &user.id).await?;
    Ok(format!(
        "/{}{}",
        lang.code(),
        home(user, membership.map(|m| m.role))
    ))
}

/// The page a user works from, as Hetzner's and DigitalOcean's consoles
/// open on the resources: staff on the staff home, whoever runs servers
/// on their servers, billing members on billing; someone in no
/// organization yet on their account.
fn home(user: &User, role: Option<domain::Role>) -> &'static str {
    match role {
        _ if user.is_staff => "/staff",
        Some(role) if role.technical() => "/servers",
        Some(role) if role.money() => "/billing",
        _ => "/account",
    }
}

/// Refuses cross-site state changes before any handler runs.
pub async fn reject_cross_site(
    State(state): State<Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let unsafe_method = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let cross_site = req
        .headers()
        .get("sec-fetch-site")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|s| s != "same-origin");
    let foreign_origin = req
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|origin| !ours(&state, req.headers(), origin));
    if unsafe_method && (cross_site || foreign_origin) {
        tracing::warn!(path = %req.uri().path(), "refused a cross-site request");
        let (parts, _) = req.into_parts();
        let feedback = FormFeedback {
            error: Some(FormError::Forbidden),
            values: Vec::new(),
        };
        return render(&state, parts, feedback).await;
    }
    next.run(req).await
}
