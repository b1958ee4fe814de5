//! The webhooks page (owners and technical members, who may see what the
//! events tell): the organization's endpoints, each with its recent
//! deliveries and the answers they got; adding one, whose signing secret
//! is shown once on the page the form redirects to (`http::once`, as a new
//! API token's); a test event, a new secret, pausing, deleting, and
//! sending a delivery again. The API manages the same endpoints.

use crate::http::once;
use crate::http::page::{
    client_ip, lang_of, page, redirect, refused, Member, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::confirmed;
use crate::startup::AppState;
use app::i18n::webhooks;
use app::portal::forms::{CsrfField, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::refusals::WebhookRefusal;
use app::portal::{query, use_feedback, FormError};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use backend::organizations::Membership;
use backend::servers::Actor;
use backend::webhooks::{self as hooks, Settings, WebhookError};
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

/// Deliveries shown per endpoint (the API pages through all of them).
const SHOWN: i64 = 10;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WebhooksView {
    pub endpoints: Vec<EndpointRow>,
    /// Owners may have invoice events sent.
    pub money: bool,
    /// The secret just made, (address, secret): only on the first page
    /// after the form, never in an address.
    pub secret: Option<(String, String)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct EndpointRow {
    pub id: String,
    pub url: String,
    pub description: String,
    pub events: Vec<String>,
    pub enabled: bool,
    pub previous_until: Option<i64>,
    /// (id, created, event type, state, tries, last status, last error)
    pub deliveries: Vec<DeliveryRow>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DeliveryRow {
    pub id: String,
    pub at: i64,
    pub event_type: String,
    pub state: String,
    pub attempts: i64,
    pub status: Option<i64>,
    pub error: Option<String>,
}

fn when(at: i64) -> impl IntoView {
    view! { <time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time> }
}

/// A small form posting one endpoint's (and delivery's) id to `action`.
fn button(
    lang: Lang,
    action: &str,
    id: &str,
    delivery: Option<&str>,
    label: &'static str,
) -> impl IntoView {
    let delivery =
        delivery.map(|d| view! { <input type="hidden" name="delivery" value=d.to_owned() /> });
    view! {
        <form method="post" action=href(lang, &format!("/webhooks/{action}")) class="inline">
            <CsrfField />
            <input type="hidden" name="id" value=id.to_owned() />
            {delivery}
            <button type="submit" class="secondary">{label}</button>
        </form>
    }
}

#[component]
fn Deliveries(lang: Lang, endpoint: EndpointRow) -> impl IntoView {
    let w = webhooks(lang);
    if endpoint.deliveries.is_empty() {
        return view! { <p>{w.no_deliveries}</p> }.into_any();
    }
    let rows = endpoint
        .deliveries
        .iter()
        .map(|d| {
            let state = match d.state.as_str() {
                "succeeded" => w.delivery_succeeded,
                "failed" => w.delivery_failed,
                _ => w.delivery_pending,
            };
            let answer = match (d.status, &d.error) {
                (Some(status), _) => status.to_string(),
                (None, Some(error)) => error.clone(),
                (None, None) => "–".to_owned(),
            };
            view! {
                <tr data-delivery=d.id.clone() data-state=d.state.clone()>
                    <th scope="row"><code>{d.event_type.clone()}</code></th>
                    <td data-label=w.col_time>{when(d.at)}</td>
                    <td data-label=w.col_state>{state}" · "{(w.attempts)(d.attempts)}</td>
                    <td data-label=w.col_answer class="answer">{answer}</td>
                    <td>{button(lang, "resend", &endpoint.id, Some(&d.id), w.resend)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(w.deliveries_title)>
            <table class="deliveries phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{w.col_event}</th>
                        <th scope="col">{w.col_time}</th>
                        <th scope="col">{w.col_state}</th>
                        <th scope="col">{w.col_answer}</th>
                        <th scope="col"><span class="sr-only">{w.resend}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

#[component]
fn Endpoint(lang: Lang, endpoint: EndpointRow) -> impl IntoView {
    let w = webhooks(lang);
    let id = endpoint.id.clone();
    let heading = format!("endpoint-{id}");
    let labelled_by = heading.clone();
    let confirm_id = format!("delete-{id}");
    let state = if endpoint.enabled {
        w.state_on
    } else {
        w.state_paused
    };
    let previous = endpoint.previous_until.map(
        |at| view! { <p class="hint">{(w.previous_until)(&domain::time::format_datetime(at))}</p> },
    );
    let toggle = if endpoint.enabled { w.pause } else { w.resume };
    view! {
        <article class="card webhook" aria-labelledby=labelled_by data-endpoint=id.clone()>
            <h2 id=heading>{endpoint.url.clone()}</h2>
            {(!endpoint.description.is_empty()).then(|| view! { <p>{endpoint.description.clone()}</p> })}
            <dl class="facts">
                <dt>{w.events_label}</dt>
                <dd><code>{endpoint.events.join(", ")}</code></dd>
                <dt>{w.col_state}</dt>
                <dd data-enabled=endpoint.enabled.to_string()>{state}{previous}</dd>
            </dl>
            <div class="actions">
                {button(lang, "ping", &id, None, w.ping)}
                {button(lang, "roll", &id, None, w.roll)}
                {button(lang, "toggle", &id, None, toggle)}
            </div>
            <h3>{w.deliveries_title}</h3>
            <Deliveries lang endpoint=endpoint.clone() />
            <form method="post" action=href(lang, "/webhooks/delete")>
                <CsrfField />
                <input type="hidden" name="id" value=id.clone() />
                <p>
                    <input type="checkbox" id=confirm_id.clone() name="confirm" value="yes" required />
                    " "
                    <label for=confirm_id>{(w.delete_confirm)(&endpoint.url)}</label>
                </p>
                <button type="submit" class="danger">{w.delete}</button>
            </form>
        </article>
    }
}

#[component]
fn AddForm(lang: Lang, money: bool) -> impl IntoView {
    let w = webhooks(lang);
    let feedback = use_feedback();
    let url_error = feedback.error.filter(|e| e.field() == Some("url"));
    let invalid = url_error.is_some().then_some("true");
    let choices = [
        ("server.*", w.server_events, true),
        ("order.*", w.order_events, true),
        ("invoice.*", w.invoice_events, money),
        ("stock.*", w.stock_events, true),
    ];
    let boxes = choices
        .into_iter()
        .filter(|(_, _, offered)| *offered)
        .map(|(pattern, label, _)| {
            let id = format!("event-{}", pattern.trim_end_matches(".*"));
            view! {
                <p>
                    <input type="checkbox" id=id.clone() name="events" value=pattern />
                    " "
                    <label for=id>{label}</label>
                </p>
            }
        })
        .collect_view();
    view! {
        <h2>{w.add_title}</h2>
        <form method="post" action=href(lang, "/webhooks")>
            <CsrfField />
            <div class="field">
                <label for="webhook-url">{w.url_label}</label>
                <input id="webhook-url" name="url" type="url" required maxlength="2000" inputmode="url"
                    value=feedback.value("url") aria-invalid=invalid aria-describedby="webhook-url-hint" />
                <p class="hint" id="webhook-url-hint">{w.url_hint}</p>
            </div>
            <div class="field">
                <label for="webhook-description">{w.description_label}</label>
                <input id="webhook-description" name="description" maxlength="200" value=feedback.value("description") />
            </div>
            <fieldset>
                <legend>{w.choose_events}</legend>
                {boxes}
            </fieldset>
            <button type="submit">{w.add_submit}</button>
        </form>
    }
}

#[component]
pub fn WebhooksPage(lang: Lang, view: WebhooksView) -> impl IntoView {
    let w = webhooks(lang);
    let done = query("done").and_then(|d| match d.as_str() {
        "pinged" => Some(w.done_pinged),
        "resent" => Some(w.done_resent),
        "deleted" => Some(w.done_deleted),
        "changed" => Some(w.done_changed),
        _ => None,
    });
    let secret = view.secret.clone().map(|(url, secret)| {
        view! {
            <div id="new-secret" class="notice notice-ok secret" role="status" data-testid="new-secret">
                <h2>{w.secret_title}</h2>
                <p><code>{url}</code></p>
                <p class="copyable">
                    <code id="webhook-secret">{secret}</code>
                    " "
                    <app::portal::forms::CopyButton lang target="webhook-secret" />
                </p>
                <p><strong>{w.secret_once}</strong></p>
            </div>
        }
    });
    let list = if view.endpoints.is_empty() {
        view! { <p>{w.empty}</p> }.into_any()
    } else {
        view.endpoints
            .clone()
            .into_iter()
            .map(|endpoint| view! { <Endpoint lang endpoint /> })
            .collect_view()
            .into_any()
    };
    view! {
        <Page lang title=w.title.to_owned() description=w.title.to_owned() rest="/webhooks".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="webhooks-title">
                <PortalNav lang />
                <h1 id="webhooks-title">{w.title}</h1>
                <p class="lead">{w.intro}</p>
                <p>{w.docs_before}<a href=href(lang, "/docs/api#events-and-webhooks")>{w.docs_link}</a></p>
                {secret}
                <FormErrorNotice lang />
                {done.map(|text| view! { <p class="notice notice-ok" role="status" data-testid="notice">{text}</p> })}
                {list}
                <AddForm lang money=view.money />
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(WebhooksView => WebhooksPage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/webhooks", TECHNICAL, webhooks_page),
        Route::post("/{lang}/webhooks", TECHNICAL, create),
        Route::post("/{lang}/webhooks/ping", TECHNICAL, ping),
        Route::post("/{lang}/webhooks/roll", TECHNICAL, roll),
        Route::post("/{lang}/webhooks/toggle", TECHNICAL, toggle),
        Route::post("/{lang}/webhooks/delete", TECHNICAL, delete),
        Route::post("/{lang}/webhooks/resend", TECHNICAL, resend),
    ]
}

/// Where the secret just made waits for the page (`once`).
const NEW_SECRET: &str = "new-webhook-secret";

impl From<WebhookError> for PageError {
    fn from(error: WebhookError) -> Self {
        let refusal = match error {
            WebhookError::BadUrl => WebhookRefusal::Url,
            WebhookError::UnknownEvent(_) => WebhookRefusal::Events,
            WebhookError::TooMany => WebhookRefusal::TooMany,
            WebhookError::NotFound => return PageError::NotFound,
            WebhookError::Db(error) => return PageError::Unavailable(error),
        };
        FormError::Webhook(refusal).into()
    }
}

async fn view_of(
    state: &AppState,
    m: &Membership,
    secret: Option<(String, String)>,
) -> anyhow::Result<WebhooksView> {
    let mut endpoints = Vec::new();
    for e in hooks::list(&state.db, &m.organization_id).await? {
        let deliveries =
            hooks::deliveries(&state.db, &m.organization_id, &e.id, None, SHOWN).await?;
        endpoints.push(EndpointRow {
            deliveries: deliveries
                .into_iter()
                .map(|d| DeliveryRow {
                    id: d.id,
                    at: d.created_at,
                    event_type: d.event_type,
                    state: d.state,
                    attempts: d.attempts,
                    status: d.last_status,
                    error: d.last_error,
                })
                .collect(),
            id: e.id,
            url: e.url,
            description: e.description,
            events: e.events,
            enabled: e.enabled,
            previous_until: e.previous_until,
        });
    }
    Ok(WebhooksView {
        endpoints,
        money: m.role.money(),
        secret,
    })
}

async fn webhooks_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    session: Session,
    parts: Parts,
) -> PageResult {
    let secret = once::take(&session, &state.sealer, NEW_SECRET).await;
    let shown = secret.is_some();
    let view = view_of(&state, &m, secret).await?;
    Ok(once::answer(page(&state, parts, view).await?, shown))
}

fn actor<'a>(m: &'a Membership, email: &'a str, ip: Option<&'a str>) -> Actor<'a> {
    Actor {
        organization_id: &m.organization_id,
        user_id: &m.user_id,
        email,
        ip,
    }
}

async fn create(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    session: Session,
    parts: Parts,
    SameOrigin(fields): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(n, _)| n == name)
            .map_or(String::new(), |(_, v)| v.trim().to_owned())
    };
    let (url, description) = (field("url"), field("description"));
    let kept = [("url", url.as_str()), ("description", description.as_str())];
    let events: Vec<String> = fields
        .iter()
        .filter(|(n, _)| n == "events")
        .map(|(_, v)| v.clone())
        .collect();
    // Invoices only for who may see them (the backend would send none).
    if events.iter().any(|e| e.starts_with("invoice")) && !m.role.money() {
        return Err(refused(FormError::Webhook(WebhookRefusal::Events), &kept));
    }
    let description: String = description.chars().take(200).collect();
    let settings = Settings {
        url: &url,
        description: &description,
        events: &events,
        enabled: true,
    };
    let ip = client_ip(&parts);
    let by = actor(&m, &current.user.email, ip.as_deref());
    let private = state.config.webhooks_private();
    let (endpoint, secret) = hooks::create(
        &state.db,
        &state.clock,
        &state.sealer,
        &by,
        &settings,
        private,
    )
    .await
    .map_err(|e| PageError::from(e).keeping(&kept))?;
    once::stash(&session, &state.sealer, NEW_SECRET, &(endpoint.url, secret)).await?;
    Ok(redirect(lang_of(&parts), "/webhooks#new-secret"))
}

#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    id: String,
    #[serde(default)]
    delivery: String,
    #[serde(default)]
    confirm: String,
}

async fn ping(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    hooks::ping(&state.db, &state.clock, &m.organization_id, &form.id).await?;
    Ok(redirect(lang_of(&parts), "/webhooks?done=pinged"))
}

async fn resend(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    let org = &m.organization_id;
    hooks::resend(&state.db, &state.clock, org, &form.id, &form.delivery).await?;
    Ok(redirect(lang_of(&parts), "/webhooks?done=resent"))
}

async fn roll(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    session: Session,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    let ip = client_ip(&parts);
    let by = actor(&m, &current.user.email, ip.as_deref());
    let (endpoint, secret) =
        hooks::roll_secret(&state.db, &state.clock, &state.sealer, &by, &form.id).await?;
    once::stash(&session, &state.sealer, NEW_SECRET, &(endpoint.url, secret)).await?;
    Ok(redirect(lang_of(&parts), "/webhooks#new-secret"))
}

async fn toggle(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    let endpoint = hooks::get(&state.db, &m.organization_id, &form.id).await?;
    let settings = Settings {
        url: &endpoint.url,
        description: &endpoint.description,
        events: &endpoint.events,
        enabled: !endpoint.enabled,
    };
    let ip = client_ip(&parts);
    let by = actor(&m, &current.user.email, ip.as_deref());
    // An address allowed when it was added stays allowed to pause.
    hooks::update(&state.db, &state.clock, &by, &form.id, &settings, true).await?;
    Ok(redirect(lang_of(&parts), "/webhooks?done=changed"))
}

async fn delete(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    let ip = client_ip(&parts);
    let by = actor(&m, &current.user.email, ip.as_deref());
    hooks::delete(&state.db, &state.clock, &by, &form.id).await?;
    Ok(redirect(lang_of(&parts), "/webhooks?done=deleted"))
}
