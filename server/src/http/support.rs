//! Support requests as members see them: the list, the form, opening one,
//! a thread, replying, closing and reopening. Every member may use these
//! routes; which requests and categories they see is the backend's rule
//! (a request they may not see is not found, like another organization's).

use app::portal::support::{
    MessageView, RequestRow, ScalingView, SupportListView, SupportRefusal, ThreadView,
};
use app::portal::FormError;
use axum::extract::{Path, State};
use axum::response::Response;
use backend::organizations::Membership;
use backend::servers::Actor;
use backend::support::{self, SupportError};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{
    client_ip, lang_of, page, redirect, Member, PageError, PageResult, SameOrigin, Signed,
};
use super::routes::{Route, MEMBERS};
use super::server_action::confirmed;
use crate::startup::AppState;
use opening::{new_form, open};

mod opening;

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
    let found = support::list_for_member(&state.db, &m.organization_id, m.role).await?;
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
    let found = support::thread_for_member(&state.db, &m.organization_id, m.role, &id).await?;
    let t = found.ok_or(PageError::NotFound)?;
    let now = state.clock.now();
    let reopen_until = t
        .request
        .closed_at
        .map(|at| at + support::REOPEN_SECS)
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
    current: &'a super::auth::CurrentUser,
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
    support::reply_as_member(
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
    let seen = support::thread_for_member(&state.db, &m.organization_id, m.role, &id).await?;
    seen.ok_or(PageError::NotFound)?;
    confirmed(&form.confirm)?;
    let ip = client_ip(&parts);
    support::close_as_member(
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
    support::reopen_as_member(
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
