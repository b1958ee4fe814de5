//! A server's out-of-band console (DESIGN §5): the serial console in
//! xterm.js or the graphical one in noVNC, both served from our origin
//! (vendor/). Three routes per server and console: the page (its strings
//! travel in data attributes, so /console.js has no words of its own), a
//! POST that issues a 60-second single-use ticket (JSON), and the WebSocket
//! that redeems it and relays bytes to the host's BMC. The WebSocket checks
//! `Origin` itself (browsers send it; a page on another site must not ride
//! the session cookie) and closes when the session ends or the server stops
//! being available, whichever replica serves it.

use crate::http::page::{lang_of, ours, page, Member, PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::OnServer;
use crate::startup::AppState;
use app::i18n::operations;
use app::portal::nav::PortalNav;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::console::{self, ConsoleError, Opening};
use backend::servers;
use domain::server::{ConsoleClosed, ConsoleKind};
use domain::Lang;
use domain::ServerId;
use futures_util::{SinkExt, StreamExt};
use http::request::Parts;
use http::{header, StatusCode};
use leptos::prelude::*;
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConsoleView {
    pub server_id: domain::ServerId,
    pub server_name: String,
    pub kind: ConsoleKind,
    /// What keeps the console closed, if anything.
    pub unavailable: Option<ConsoleClosed>,
}

/// The tunnel's close codes and what they mean in `lang`, for the page's
/// script: a server state gets the sentence that explains it.
fn close_reasons(lang: domain::Lang) -> String {
    let t = operations(lang);
    let reasons: serde_json::Map<_, _> = ConsoleClosed::ALL
        .iter()
        .map(|why| (why.as_str().into(), (t.console_closed_why)(*why).into()))
        .collect();
    serde_json::Value::Object(reasons).to_string()
}

#[component]
pub fn ConsolePage(lang: Lang, view: ConsoleView) -> impl IntoView {
    let t = operations(lang);
    let serial = view.kind == ConsoleKind::Serial;
    let title = if serial {
        t.console_title_serial
    } else {
        t.console_title_vnc
    };
    let base = format!("/servers/{}", view.server_id);
    let rest = format!("{base}/console/{}", view.kind);
    let tab = |kind: ConsoleKind, label: &'static str| {
        let current = (view.kind == kind).then_some("page");
        view! { <a href=href(lang, &format!("{base}/console/{kind}")) aria-current=current>{label}</a> }
    };
    let tabs = view! {
        <nav class="console-tabs" aria-label=title>
            {tab(ConsoleKind::Serial, t.console_open_serial)}
            {tab(ConsoleKind::Graphical, t.console_open_vnc)}
        </nav>
    };
    let body = match &view.unavailable {
        Some(why) => view! { <p class="notice error" role="alert">{(t.console_closed_why)(*why)}</p> }.into_any(),
        None => view! {
            <noscript><p class="notice">{t.console_needs_js}</p></noscript>
            <div class="console-bar">
                <span id="console-status" role="status" aria-live="polite" class="console-status">{t.console_connecting}</span>
                <button type="button" id="console-reconnect" class="secondary" hidden>{t.console_reconnect}</button>
                <button type="button" id="console-paste" class="secondary">{t.console_paste}</button>
                {(!serial).then(|| view! { <button type="button" id="console-cad" class="secondary">{t.console_cad}</button> })}
            </div>
            <div
                id="console"
                class=if serial { "console-screen serial" } else { "console-screen vnc" }
                data-kind=view.kind.as_str()
                data-ticket-url=href(lang, &rest)
                data-connecting=t.console_connecting
                data-connected=t.console_connected
                data-closed=t.console_closed
                data-reasons=close_reasons(lang)
                data-refused=t.console_refused
                data-paste-denied=t.console_paste_denied
                aria-label=title
            ></div>
            <p class="hint">{if serial { t.console_serial_hint } else { t.console_vnc_hint }}</p>
            {serial.then(|| view! {
                <link rel="stylesheet" href="/vendor/xterm/xterm.css" />
                <script src="/vendor/xterm/xterm.js" defer></script>
                <script src="/vendor/xterm/addon-fit.js" defer></script>
            })}
            <script type="module" src="/console.js"></script>
        }
        .into_any(),
    };
    view! {
        <Page lang title=format!("{title} · {}", view.server_name) description=title.to_owned() rest=rest.clone() noindex=true>
            <section class="section portal-console" aria-labelledby="console-title">
                <PortalNav lang />
                <p><a href=href(lang, &format!("{base}/console"))>{t.console_back}{" · "}{view.server_name.clone()}</a></p>
                <h1 id="console-title">{title}</h1>
                <p class="lead">{t.console_intro}</p>
                {tabs}
                {body}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(ConsoleView => ConsolePage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get(
            "/{lang}/servers/{id}/console/{kind}",
            TECHNICAL,
            console_page,
        ),
        Route::post("/{lang}/servers/{id}/console/{kind}", TECHNICAL, ticket),
        Route::get(
            "/{lang}/servers/{id}/console/{kind}/ws",
            TECHNICAL,
            websocket,
        ),
    ]
}

/// How often an open console rechecks its session and server.
const RECHECK: Duration = Duration::from_secs(2);
/// Close code (private range) telling the page why the console closed.
const CLOSED_BY_PORTAL: u16 = 4000;

async fn console_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id, kind)): Path<(String, ServerId, String)>,
    parts: Parts,
) -> PageResult {
    let kind = ConsoleKind::parse(&kind).ok_or(PageError::NotFound)?;
    let server = servers::get(&state.db, &m.0.organization_id, &id)
        .await?
        .filter(|server| server.cancelled_at.is_none())
        .ok_or(PageError::NotFound)?;
    let unavailable = match console::check_available(&state.db, &server).await {
        Ok(()) => None,
        Err(ConsoleError::NotAvailable(state)) => Some(state),
        Err(error) => return Err(anyhow::Error::from(error).into()),
    };
    let view = ConsoleView {
        server_id: server.id,
        server_name: server.name,
        kind,
        unavailable,
    };
    let mut response = page(&state, parts, view).await?;
    if kind == ConsoleKind::Serial {
        response.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            http::HeaderValue::from_static(crate::http::headers::CSP_SERIAL_CONSOLE),
        );
    }
    Ok(response)
}

fn json_error(status: StatusCode, message: &str) -> Response {
    (status, Json(serde_json::json!({ "error": message }))).into_response()
}

/// Issues a ticket: `{ticket, expires_in, url}`, where `url` is the
/// WebSocket's path with the ticket. The page's script reads the answer,
/// so refusals are JSON, a post not from our pages too. The form has no
/// fields of its own.
async fn ticket(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    Path((_, id, kind)): Path<(String, ServerId, String)>,
    parts: Parts,
    form: Result<SameOrigin<IgnoredAny>, Response>,
) -> Response {
    let lang = lang_of(&parts);
    let t = app::i18n::operations(lang);
    if form.is_err() {
        return json_error(StatusCode::FORBIDDEN, t.console_refused);
    }
    let Some(kind) = ConsoleKind::parse(&kind) else {
        return json_error(StatusCode::NOT_FOUND, t.console_refused);
    };
    let key = format!("console:{}", on.user_id());
    match backend::rate_limit::take(
        &state.db,
        &[(&key, &backend::rate_limit::CONSOLE_TICKETS)],
        state.clock.now(),
    )
    .await
    {
        Ok(Ok(())) => {}
        Ok(Err(_)) => return json_error(StatusCode::TOO_MANY_REQUESTS, t.console_too_many),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "rate limit check failed");
            return json_error(StatusCode::SERVICE_UNAVAILABLE, t.console_refused);
        }
    }
    let actor = on.actor();
    match console::issue(
        &state.db,
        &state.clock,
        &actor,
        &on.session_id,
        &id,
        kind,
    )
    .await
    {
        Ok(ticket) => Json(serde_json::json!({
            "ticket": ticket,
            "expires_in": console::TICKET_LIFETIME_SECS,
            "url": format!("/{}/servers/{id}/console/{}/ws?ticket={ticket}", lang.code(), kind.as_str()),
        }))
        .into_response(),
        Err(ConsoleError::NotFound) => json_error(StatusCode::NOT_FOUND, t.console_refused),
        Err(ConsoleError::NotAvailable(why)) => {
            json_error(StatusCode::CONFLICT, (t.console_closed_why)(why))
        }
        Err(error) => {
            tracing::error!(error = %error, "issuing a console ticket failed");
            json_error(StatusCode::SERVICE_UNAVAILABLE, t.console_refused)
        }
    }
}

#[derive(Deserialize)]
struct TicketQuery {
    #[serde(default)]
    ticket: String,
}

/// The tunnel: a browser's WebSocket with a ticket, answered with bare
/// statuses when refused.
async fn websocket(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    Path((_, id, kind)): Path<(String, ServerId, String)>,
    Query(query): Query<TicketQuery>,
    parts: Parts,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let Some(kind) = ConsoleKind::parse(&kind) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    // Browsers send `Origin` with a WebSocket: a page on another site must
    // not ride the session cookie.
    let origin = parts
        .headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok());
    if !origin.is_some_and(|origin| ours(&state, &parts.headers, origin)) {
        tracing::warn!(server = %id, "console refused: foreign or missing Origin");
        return StatusCode::FORBIDDEN.into_response();
    }
    // Checked before the ticket is spent.
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return rejection.into_response(),
    };
    let actor = on.actor();
    let redeemed = console::redeem(
        &state.db,
        &state.clock,
        &actor,
        &on.session_id,
        &query.ticket,
        &id,
        kind,
    )
    .await;
    let opening = match redeemed {
        Ok(opening) => opening,
        Err(ConsoleError::BadTicket) => {
            tracing::warn!(server = %id, user = %on.user_id(), "console refused: bad ticket");
            return StatusCode::FORBIDDEN.into_response();
        }
        Err(ConsoleError::NotFound) => return StatusCode::NOT_FOUND.into_response(),
        Err(ConsoleError::NotAvailable(_)) => return StatusCode::CONFLICT.into_response(),
        Err(ConsoleError::Db(error)) => {
            tracing::error!(error = %format!("{error:#}"), "redeeming a console ticket failed");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let endpoint = match state.fleet.console_endpoint(&opening.host_name, kind).await {
        Ok(endpoint) => endpoint,
        Err(error) => {
            tracing::warn!(error = %error, host = %opening.host_name, "BMC console unreachable");
            return StatusCode::BAD_GATEWAY.into_response();
        }
    };
    upgrade.on_upgrade(move |socket| relay(state, opening, endpoint, socket))
}

/// Connects to the console, presenting the bridge's key first if it has
/// one (a serial bridge on this machine serves only the tunnel with it).
async fn connect(
    endpoint: &backend::fleet::ConsoleEndpoint,
) -> std::io::Result<tokio::net::TcpStream> {
    let mut stream = tokio::net::TcpStream::connect(endpoint.addr).await?;
    if let Some(key) = &endpoint.key {
        stream.write_all(format!("{key}\n").as_bytes()).await?;
    }
    Ok(stream)
}

/// Relays bytes both ways until either side closes or the portal closes
/// the console (signed out, suspended, cancelled, moved).
async fn relay(
    state: Arc<AppState>,
    opening: Opening,
    endpoint: backend::fleet::ConsoleEndpoint,
    socket: WebSocket,
) {
    let (mut to_browser, mut from_browser) = socket.split();
    let close = |why: ConsoleClosed| {
        Message::Close(Some(CloseFrame {
            code: CLOSED_BY_PORTAL,
            reason: why.as_str().into(),
        }))
    };
    let bmc = match connect(&endpoint).await {
        Ok(stream) => stream,
        Err(error) => {
            tracing::warn!(%error, host = %opening.host_name, "connecting to the BMC failed");
            let _ = to_browser.send(close(ConsoleClosed::Unreachable)).await;
            return;
        }
    };
    let _ = bmc.set_nodelay(true);
    let (mut bmc_in, mut bmc_out) = bmc.into_split();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut recheck = tokio::time::interval(RECHECK);
    recheck.tick().await;
    tracing::info!(server = %opening.server_id, kind = opening.kind.as_str(), "console opened");
    // Typing or moving the mouse in the console is activity: it keeps the
    // session from going idle, checked with the recheck.
    let mut active = false;
    let why = loop {
        tokio::select! {
            read = bmc_in.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break "closed by the BMC".to_owned(),
                Ok(n) => {
                    if to_browser.send(Message::Binary(buffer[..n].to_vec().into())).await.is_err() {
                        break "browser gone".to_owned();
                    }
                }
            },
            message = from_browser.next() => match message {
                Some(Ok(Message::Binary(bytes))) => {
                    active = true;
                    if bmc_out.write_all(&bytes).await.is_err() {
                        break "BMC gone".to_owned();
                    }
                }
                Some(Ok(Message::Text(text))) => {
                    active = true;
                    if bmc_out.write_all(text.as_bytes()).await.is_err() {
                        break "BMC gone".to_owned();
                    }
                }
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break "closed by the browser".to_owned(),
                Some(Ok(_)) => {}
            },
            _ = recheck.tick() => {
                if std::mem::take(&mut active) {
                    let touched = backend::sessions::touch(&state.db, &opening.session_id, state.clock.now());
                    if let Err(error) = touched.await {
                        tracing::warn!(error = %format!("{error:#}"), "keeping the console's session alive failed");
                    }
                }
                if let Some(reason) = console::reason_to_close(&state.db, &state.clock, &opening).await {
                    let _ = to_browser.send(close(reason)).await;
                    break reason.to_string();
                }
            }
        }
    };
    let _ = to_browser.close().await;
    tracing::info!(server = %opening.server_id, kind = opening.kind.as_str(), why = %why, "console closed");
}
