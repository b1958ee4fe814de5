//! Staff support: the queue of every organization's requests, a request's
//! thread with the organization's servers and open invoices beside it, and
//! the thread's forms (reply, internal note, assign, close). The customer's
//! side is `support.rs`.

use app::portal::staff_support::{
    thread_rest, MessageRow, OpenInvoiceRow, OrgServerRow, QueueView, RequestRow, ScalingRow,
    StaffSupportRefusal, ThreadView,
};
use app::portal::FormError;
use axum::extract::{Path, Query, State};
use backend::billing::invoices::{self, InvoiceFilter};
use backend::support::{self, Category, QueueFilter, RequestSummary, StaffActor, SupportError};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed};
use super::routes::{Access, Route};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::get("/{lang}/staff/support", Staff, queue_page),
        Route::get("/{lang}/staff/support/{id}", Staff, thread_page),
        Route::post("/{lang}/staff/support/{id}/reply", Staff, reply),
        Route::post("/{lang}/staff/support/{id}/note", Staff, note),
        Route::post("/{lang}/staff/support/{id}/assign", Staff, assign),
        Route::post("/{lang}/staff/support/{id}/close", Staff, close),
    ]
}

#[derive(Deserialize, Default)]
struct QueueQuery {
    #[serde(default)]
    state: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    site: String,
    #[serde(default)]
    age: String,
}

async fn queue_page(
    State(state): State<Arc<AppState>>,
    Query(query): Query<QueueQuery>,
    parts: Parts,
) -> PageResult {
    // A filter the page does not offer is no filter (and shown as none).
    let filter = QueueFilter {
        state: support::State::parse(&query.state),
        category: Category::parse(&query.category),
        site: domain::SiteCode::parse(&query.site).map(|s| s.to_string()),
        older_than_hours: query.age.parse().ok().filter(|h| *h > 0),
    };
    let names = staff_names(&state).await?;
    let now = state.clock.now();
    let rows = support::queue(&state.db, &state.clock, &filter)
        .await?
        .into_iter()
        .map(|r| request_row(r, &names))
        .collect();
    let view = QueueView {
        now,
        counts: counts(&state).await?,
        rows,
        filter_state: filter.state,
        filter_category: filter.category,
        filter_site: filter.site.clone().unwrap_or_default(),
        filter_age: filter
            .older_than_hours
            .map(|h| h.to_string())
            .unwrap_or_default(),
    };
    page(&state, parts, view).await
}

/// Requests per state, whatever the page's filters: the queue without a
/// state holds every request not closed, closed ones are asked apart.
async fn counts(state: &AppState) -> anyhow::Result<Vec<(support::State, i64)>> {
    let all = |state: Option<support::State>| QueueFilter {
        state,
        category: None,
        site: None,
        older_than_hours: None,
    };
    let mut requests = support::queue(&state.db, &state.clock, &all(None)).await?;
    requests
        .extend(support::queue(&state.db, &state.clock, &all(Some(support::State::Closed))).await?);
    Ok(support::State::ALL
        .iter()
        .map(|&s| {
            let n = requests.iter().filter(|r| r.state == s).count();
            (s, i64::try_from(n).unwrap_or(i64::MAX))
        })
        .collect())
}

/// Staff members' names by email, to name assignees.
async fn staff_names(state: &AppState) -> anyhow::Result<Vec<(String, String)>> {
    support::staff_members(&state.db).await
}

fn request_row(r: RequestSummary, names: &[(String, String)]) -> RequestRow {
    use support::State as S;
    // While it is our turn, the customer's last message is the request's
    // last change (notes and assignments don't change it); on their turn
    // nobody waits for us.
    let customer_waiting_since = match r.state {
        S::Open | S::Answered => Some(r.updated_at),
        S::Waiting | S::Closed => None,
    };
    let assignee = r.assigned_to.map(|email| {
        names
            .iter()
            .find(|(e, _)| *e == email)
            .map(|(_, name)| name.clone())
            .filter(|name| !name.is_empty())
            .unwrap_or(email)
    });
    RequestRow {
        id: r.id,
        reference: r.reference,
        organization: r.organization_name,
        subject: r.subject,
        category: r.category,
        state: r.state,
        server: r.server_name,
        site: r.site_code,
        opened_at: r.created_at,
        customer_waiting_since,
        first_response_secs: r.first_response_at.map(|at| (at - r.created_at).max(0)),
        assignee,
    }
}

/// Longer than any id `new_id` makes; a path no request has is a 404
/// before the database sees it (PostgreSQL refuses a NUL byte).
fn plausible(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && !id.chars().any(char::is_control)
}

async fn thread_page(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    if !plausible(&id) {
        return Err(PageError::NotFound);
    }
    let thread = support::thread_for_staff(&state.db, &id)
        .await?
        .ok_or(PageError::NotFound)?;
    let now = state.clock.now();
    let staff = staff_names(&state).await?;
    let org = thread.request.organization_id.clone();
    let servers = backend::servers::list(&state.db, &org)
        .await?
        .into_iter()
        .map(|s| OrgServerRow {
            state: s.shown_state(),
            name: s.name,
            plan: s.plan_id.to_string(),
            site: s.site_code.to_string(),
            host: s.host_name,
        })
        .collect();
    let open = InvoiceFilter {
        status: Some(domain::invoice::InvoiceStatus::Open),
        month: String::new(),
    };
    let invoices = invoices::list(&state.db, Some(&org), &open)
        .await?
        .into_iter()
        .map(|i| OpenInvoiceRow {
            overdue: i.overdue(now),
            id: i.id,
            number: i.number,
            amount: i.amount_due,
            due_at: i.due_at,
        })
        .collect();
    let r = thread.request;
    let view = ThreadView {
        now,
        opened_by: r.opened_by_email.clone(),
        closed: r
            .closed_at
            .map(|at| (r.closed_by.clone().unwrap_or_default(), at)),
        assigned_email: r.assigned_to.clone(),
        scaling: thread.scaling.map(|p| ScalingRow {
            cards: p.cards,
            workload: p.workload,
            model_size: p.model_size,
            timeline: p.timeline,
        }),
        messages: thread
            .messages
            .into_iter()
            .map(|m| MessageRow {
                author: m.author_name,
                kind: m.author_kind,
                internal: m.internal,
                body: m.body,
                at: m.created_at,
            })
            .collect(),
        request: request_row(r, &staff),
        staff,
        servers,
        invoices,
        body_max: support::BODY_MAX,
    };
    page(&state, parts, view).await
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    body: String,
}

/// The thread's page again (or the 404 page) with why support refused.
/// `form` says which form's text to show again.
fn refusal(error: SupportError, form: &str, body: &str) -> PageError {
    let error = match error {
        SupportError::NotFound => return PageError::NotFound,
        SupportError::Db(error) => return PageError::Unavailable(error),
        SupportError::TooMany(secs) => FormError::TooMany(secs),
        SupportError::Closed | SupportError::ReopenExpired => {
            FormError::StaffSupport(StaffSupportRefusal::Closed)
        }
        SupportError::InvalidBody
        | SupportError::InvalidSubject
        | SupportError::UnknownCategory
        | SupportError::ServerRequired => {
            FormError::StaffSupport(StaffSupportRefusal::Body(support::BODY_MAX))
        }
    };
    refused(error, &[("form", form), ("body", body)])
}

/// Who acts, as support records staff.
fn actor(staff: &Signed) -> StaffActor<'_> {
    let user = &staff.0.user;
    StaffActor {
        user_id: &user.id,
        email: &user.email,
        name: &user.name,
    }
}

/// Back to the thread, saying what was done.
fn done(parts: &Parts, id: &str, what: &str) -> PageResult {
    Ok(redirect(
        lang_of(parts),
        &format!("{}?done={what}", thread_rest(id)),
    ))
}

/// Answers the customer: the request waits for them, and they are mailed
/// a link (never the text of an internal note).
async fn reply(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, String)>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Message>,
) -> PageResult {
    if !plausible(&id) {
        return Err(PageError::NotFound);
    }
    let base_url = &state.config.public_base_url;
    support::reply_as_staff(
        &state.db,
        &state.clock,
        &actor(&staff),
        &id,
        &form.body,
        base_url,
    )
    .await
    .map_err(|e| refusal(e, "reply", &form.body))?;
    done(&parts, &id, "reply")
}

/// Adds an internal note: staff only, never mailed, the state unchanged.
async fn note(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, String)>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Message>,
) -> PageResult {
    if !plausible(&id) {
        return Err(PageError::NotFound);
    }
    support::note(&state.db, &state.clock, &actor(&staff), &id, &form.body)
        .await
        .map_err(|e| refusal(e, "note", &form.body))?;
    done(&parts, &id, "note")
}

#[derive(Deserialize)]
struct Assignment {
    /// A staff member's email; empty for nobody.
    #[serde(default)]
    to: String,
}

/// Assigns the request to a staff member, or to nobody.
async fn assign(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, String)>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Assignment>,
) -> PageResult {
    if !plausible(&id) {
        return Err(PageError::NotFound);
    }
    let to = Some(form.to.trim()).filter(|to| !to.is_empty());
    // An unknown request is the 404 page; an unknown assignee, the form's
    // error (support says both as NotFound).
    support::thread_for_staff(&state.db, &id)
        .await?
        .ok_or(PageError::NotFound)?;
    support::assign(&state.db, &state.clock, &actor(&staff), &id, to)
        .await
        .map_err(|e| match e {
            SupportError::NotFound => {
                refused(FormError::StaffSupport(StaffSupportRefusal::Assignee), &[])
            }
            other => refusal(other, "assign", ""),
        })?;
    done(&parts, &id, "assign")
}

/// Closes the request for the customer (who may reopen it for 30 days).
async fn close(
    State(state): State<Arc<AppState>>,
    Path((_, id)): Path<(String, String)>,
    staff: Signed,
    parts: Parts,
    SameOrigin(_): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    if !plausible(&id) {
        return Err(PageError::NotFound);
    }
    support::close_as_staff(&state.db, &state.clock, &actor(&staff), &id)
        .await
        .map_err(|e| refusal(e, "close", ""))?;
    done(&parts, &id, "close")
}
