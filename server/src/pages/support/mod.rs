//! Support requests as members see them: the list (`list`), the form that
//! opens one (`new`, posted to `opening`), a request's thread (`thread`),
//! replying, closing and reopening. Every member may use these routes;
//! which requests and categories they see is the backend's rule (a request
//! they may not see is not found, like another organization's). Messages
//! are plain text: Leptos escapes them, line breaks become `<br>` elements,
//! never HTML from the message itself.

pub mod list;
pub mod new;
mod opening;
pub mod thread;

use crate::http::page::{
    client_ip, lang_of, page, redirect, Member, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Route, MEMBERS};
use crate::pages::servers::server_action::confirmed;
use crate::startup::AppState;
use app::i18n::support;
use app::portal::refusals::SupportRefusal;
use app::portal::FormError;
use axum::extract::{Path, State};
use axum::response::Response;
use backend::organizations::Membership;
use backend::servers::Actor;
use backend::support::{self as requests, SupportError};
use domain::support::{AuthorKind, Category, State as RequestState};
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use opening::{new_form, open};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The lengths a refusal names (`SupportRefusal` lives with `FormError`).
pub use app::portal::refusals::{BODY_MAX, SUBJECT_MAX, SUBJECT_MIN};
/// Longest answer to a scaling-out question, in characters.
pub const SCALING_MAX: usize = 200;

/// One request in the list and at the top of its thread.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RequestRow {
    pub id: String,
    pub reference: String,
    pub category: Category,
    pub subject: String,
    pub state: RequestState,
    pub server_id: Option<domain::ServerId>,
    pub server_name: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub closed_at: Option<i64>,
}

impl RequestRow {
    /// A request as `member` sees it in the list and on its page.
    pub fn new(
        r: backend::support::RequestSummary,
        member: &backend::organizations::Membership,
    ) -> RequestRow {
        RequestRow {
            // Only those who see servers get a link to one.
            server_id: r.server_id.filter(|_| member.role.technical()),
            server_name: r.server_name,
            id: r.id,
            reference: r.reference,
            category: r.category,
            subject: r.subject,
            state: r.state,
            created_at: r.created_at,
            updated_at: r.updated_at,
            closed_at: r.closed_at,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SupportListView {
    pub requests: Vec<RequestRow>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct NewRequestView {
    /// The categories the viewer may open, in display order.
    pub categories: Vec<Category>,
    /// The organization's servers: (id, name).
    pub servers: Vec<(domain::ServerId, String)>,
    /// Chosen by the link that led here (`?category=`, `?server=`).
    pub category: Option<Category>,
    pub server: String,
}

/// The answers to the scaling-out questions, as typed.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScalingView {
    pub cards: String,
    pub workload: String,
    pub model_size: String,
    pub timeline: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MessageView {
    pub author: String,
    pub kind: AuthorKind,
    pub body: String,
    pub created_at: i64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadView {
    pub request: RequestRow,
    pub scaling: Option<ScalingView>,
    /// Oldest first; never staff's internal notes.
    pub messages: Vec<MessageView>,
    /// Until when a closed request may be reopened.
    pub reopen_until: Option<i64>,
}

pub fn category_name(lang: Lang, category: Category) -> &'static str {
    let s = support(lang);
    match category {
        Category::Scaling => s.cat_scaling,
        Category::Hardware => s.cat_hardware,
        Category::Billing => s.cat_billing,
        Category::Account => s.cat_account,
        Category::Other => s.cat_other,
    }
}

pub fn category_hint(lang: Lang, category: Category) -> &'static str {
    let s = support(lang);
    match category {
        Category::Scaling => s.cat_scaling_hint,
        Category::Hardware => s.cat_hardware_hint,
        Category::Billing => s.cat_billing_hint,
        Category::Account => s.cat_account_hint,
        Category::Other => s.cat_other_hint,
    }
}

pub fn state_name(lang: Lang, state: RequestState) -> &'static str {
    let s = support(lang);
    match state {
        RequestState::Open => s.state_open,
        RequestState::Waiting => s.state_waiting,
        RequestState::Answered => s.state_answered,
        RequestState::Closed => s.state_closed,
    }
}

/// The state as a badge; "waiting for you" stands out.
#[component]
pub fn StateBadge(lang: Lang, state: RequestState) -> impl IntoView {
    let class = format!("state-badge support-state support-{state}");
    view! { <span class=class data-state=state.as_str()>{state_name(lang, state)}</span> }
}

pub fn when(at: i64) -> impl IntoView {
    view! { <time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time> }
}

/// Plain text with its line breaks: each line is escaped text, a `<br>`
/// between lines.
pub fn with_breaks(text: &str) -> impl IntoView {
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| l.trim_end_matches('\r').to_owned())
        .collect();
    lines
        .into_iter()
        .enumerate()
        .map(|(i, line)| view! { {(i > 0).then(|| view! { <br /> })} {line} })
        .collect_view()
}

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/support/requests", MEMBERS, list),
        Route::get("/{lang}/support/requests/new", MEMBERS, new_form),
        Route::post("/{lang}/support/requests", MEMBERS, open),
        Route::get("/{lang}/support/requests/{id}", MEMBERS, thread),
        Route::post("/{lang}/support/requests/{id}/reply", MEMBERS, reply),
        Route::post("/{lang}/support/requests/{id}/close", MEMBERS, close),
        Route::post("/{lang}/support/requests/{id}/reopen", MEMBERS, reopen),
    ]
}

impl From<SupportError> for PageError {
    fn from(error: SupportError) -> Self {
        let refusal = match error {
            SupportError::NotFound => return PageError::NotFound,
            SupportError::Db(error) => return PageError::Unavailable(error),
            SupportError::InvalidSubject => SupportRefusal::Subject,
            SupportError::InvalidBody => SupportRefusal::Body,
            SupportError::UnknownCategory => SupportRefusal::Category,
            SupportError::ServerRequired => SupportRefusal::Server,
            SupportError::Closed => SupportRefusal::Closed,
            SupportError::ReopenExpired => SupportRefusal::ReopenExpired,
            SupportError::TooMany(wait) => SupportRefusal::TooMany(wait),
        };
        PageError::from(FormError::Support(refusal))
    }
}

async fn list(State(state): State<Arc<AppState>>, Member(m): Member, parts: Parts) -> PageResult {
    let found = requests::list_for_member(&state.db, &m.organization_id, m.role).await?;
    let view = SupportListView {
        requests: found.into_iter().map(|r| RequestRow::new(r, &m)).collect(),
    };
    page(&state, parts, view).await
}

async fn thread(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    let found = requests::thread_for_member(&state.db, &m.organization_id, m.role, &id).await?;
    let t = found.ok_or(PageError::NotFound)?;
    let now = state.clock.now();
    let reopen_until = t
        .request
        .closed_at
        .map(|at| at + requests::REOPEN_SECS)
        .filter(|until| *until >= now);
    let view = ThreadView {
        scaling: t.scaling.map(|p| ScalingView {
            cards: p.cards,
            workload: p.workload,
            model_size: p.model_size,
            timeline: p.timeline,
        }),
        messages: t
            .messages
            .into_iter()
            .filter(|msg| !msg.internal)
            .map(|msg| MessageView {
                author: msg.author_name,
                kind: msg.author_kind,
                body: msg.body,
                created_at: msg.created_at,
            })
            .collect(),
        request: RequestRow::new(t.request, &m),
        reopen_until,
    };
    page(&state, parts, view).await
}

/// The member acting, as the backend records them.
fn actor<'a>(
    m: &'a Membership,
    current: &'a crate::http::auth::CurrentUser,
    ip: &'a Option<String>,
) -> Actor<'a> {
    Actor {
        organization_id: &m.organization_id,
        user_id: &current.user.id,
        email: &current.user.email,
        ip: ip.as_deref(),
    }
}

#[derive(Deserialize)]
struct ReplyForm {
    #[serde(default)]
    body: String,
}

async fn reply(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
    SameOrigin(form): SameOrigin<ReplyForm>,
) -> PageResult {
    let ip = client_ip(&parts);
    requests::reply_as_member(
        &state.db,
        &state.clock,
        &actor(&m, &current, &ip),
        m.role,
        &id,
        &form.body,
    )
    .await
    .map_err(|e| PageError::from(e).keeping(&[("body", &form.body)]))?;
    done(&parts, &id, "replied")
}

#[derive(Deserialize)]
struct CloseForm {
    #[serde(default)]
    confirm: String,
}

async fn close(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
    SameOrigin(form): SameOrigin<CloseForm>,
) -> PageResult {
    // Another organization's request is not found, confirmed or not.
    let seen = requests::thread_for_member(&state.db, &m.organization_id, m.role, &id).await?;
    seen.ok_or(PageError::NotFound)?;
    confirmed(&form.confirm)?;
    let ip = client_ip(&parts);
    requests::close_as_member(
        &state.db,
        &state.clock,
        &actor(&m, &current, &ip),
        m.role,
        &id,
    )
    .await?;
    done(&parts, &id, "closed")
}

async fn reopen(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
    SameOrigin(_): SameOrigin<serde::de::IgnoredAny>,
) -> PageResult {
    let ip = client_ip(&parts);
    requests::reopen_as_member(
        &state.db,
        &state.clock,
        &actor(&m, &current, &ip),
        m.role,
        &id,
    )
    .await?;
    done(&parts, &id, "reopened")
}

fn done(parts: &Parts, id: &str, what: &str) -> Result<Response, PageError> {
    Ok(redirect(
        lang_of(parts),
        &format!("/support/requests/{id}?done={what}"),
    ))
}
