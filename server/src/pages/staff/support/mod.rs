//! The staff side of support: the queue of every organization's requests
//! (`queue`) and one request's thread (`thread`) with the organization's
//! servers, plans and open invoices beside it, and the thread's forms
//! (reply, internal note, assign, close). The customer's side is
//! `pages/support`.

pub mod queue;
pub mod thread;

use crate::http::page::{
    lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Access, Route};
use crate::startup::AppState;
use app::i18n::staff_support;
use app::portal::refusals::StaffSupportRefusal;
use app::portal::FormError;
use axum::extract::{Path, Query, State};
use backend::billing::invoices::{self, InvoiceFilter};
use backend::support::{self as requests, QueueFilter, RequestSummary, StaffActor, SupportError};
use domain::support::{AuthorKind, Category, State as RequestState};
use domain::{Lang, Money};
use http::request::Parts;
use leptos::prelude::*;
pub use queue::StaffSupportQueuePage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
pub use thread::StaffSupportThreadPage;

/// The age filter's choices, in hours.
pub const AGES: [i64; 3] = [4, 24, 72];

/// One request as the queue lists it (and the thread's facts show it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RequestRow {
    pub id: String,
    /// `SR-…`, what people say on the phone.
    pub reference: String,
    pub organization: String,
    pub subject: String,
    pub category: Category,
    pub state: RequestState,
    pub server: Option<String>,
    pub site: Option<String>,
    pub opened_at: i64,
    /// Since when the customer's last message waits for us; `None` when
    /// it is the customer's turn (or the request is closed).
    pub customer_waiting_since: Option<i64>,
    /// Seconds from opening to the first staff reply.
    pub first_response_secs: Option<i64>,
    /// The assigned staff member's name (or email).
    pub assignee: Option<String>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct QueueView {
    pub now: i64,
    /// Requests per state, in [`RequestState::ALL`] order, whatever the filters.
    pub counts: Vec<(RequestState, i64)>,
    pub rows: Vec<RequestRow>,
    pub filter_state: Option<RequestState>,
    pub filter_category: Option<Category>,
    pub filter_site: String,
    pub filter_age: String,
    /// The queue's page, and part of a reference, subject or
    /// organization looked for.
    #[serde(default)]
    pub list: crate::pages::staff::ListAt,
}

/// How many requests a page of the queue shows.
const REQUESTS_PER_PAGE: usize = 50;

/// One message of a thread, oldest first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MessageRow {
    pub author: String,
    pub kind: AuthorKind,
    pub internal: bool,
    pub body: String,
    pub at: i64,
}

/// The scaling-out questions' answers.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScalingRow {
    pub cards: String,
    pub workload: String,
    pub model_size: String,
    pub timeline: String,
}

/// A server of the request's organization.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OrgServerRow {
    pub name: String,
    pub plan: String,
    pub site: String,
    pub state: domain::server::ShownState,
    /// The host it runs on, linked to the staff host page.
    pub host: Option<String>,
}

/// An open invoice of the request's organization.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OpenInvoiceRow {
    pub id: domain::InvoiceId,
    pub number: Option<String>,
    pub amount: Money,
    pub due_at: i64,
    pub overdue: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThreadView {
    pub now: i64,
    pub request: RequestRow,
    pub opened_by: String,
    /// (who closed it: `customer`, `staff` or `auto`, when)
    pub closed: Option<(String, i64)>,
    /// The assigned staff member's email, to select it.
    pub assigned_email: Option<String>,
    pub scaling: Option<ScalingRow>,
    pub messages: Vec<MessageRow>,
    /// Every staff member (email, name), for the assign select.
    pub staff: Vec<(String, String)>,
    pub servers: Vec<OrgServerRow>,
    pub invoices: Vec<OpenInvoiceRow>,
    /// The longest message the backend takes, in characters.
    pub body_max: usize,
}

/// `/staff/support/{id}`, the id percent-encoded (ids are ours, but an
/// address must never be broken by one).
pub fn thread_rest(id: &str) -> String {
    let mut rest = String::from("/staff/support/");
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            rest.push(char::from(byte));
        } else {
            rest.push_str(&format!("%{byte:02X}"));
        }
    }
    rest
}

/// Text a person typed, shown as typed: each line its own, joined by line
/// breaks. Leptos escapes the text itself; nothing is parsed as HTML.
#[component]
pub fn Lines(text: String) -> impl IntoView {
    text.split('\n')
        .enumerate()
        .map(|(i, line)| {
            let line = line.trim_end_matches('\r').to_owned();
            view! { {(i > 0).then(|| view! { <br /> })}{line} }
        })
        .collect_view()
}

/// "waiting 3 h" while the customer waits for us, else a dash.
pub fn waiting_text(lang: Lang, row: &RequestRow, now: i64) -> String {
    let s = staff_support(lang);
    match row.customer_waiting_since {
        Some(since) => (s.waiting)(now - since),
        None => s.not_waiting.to_owned(),
    }
}

/// "2 h 10 min", or "not yet".
pub fn first_response_text(lang: Lang, row: &RequestRow) -> String {
    let s = staff_support(lang);
    match row.first_response_secs {
        Some(secs) => (s.duration)(secs),
        None => s.not_yet.to_owned(),
    }
}

/// "fra-01 (fra)", or a dash without a server.
pub fn server_text(lang: Lang, row: &RequestRow) -> String {
    match (&row.server, &row.site) {
        (Some(server), Some(site)) => format!("{server} ({site})"),
        (Some(server), None) => server.clone(),
        (None, Some(site)) => site.clone(),
        (None, None) => staff_support(lang).no_server.to_owned(),
    }
}

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
    #[serde(default)]
    q: String,
    #[serde(default)]
    page: Option<usize>,
}

async fn queue_page(
    State(state): State<Arc<AppState>>,
    Query(query): Query<QueueQuery>,
    parts: Parts,
) -> PageResult {
    // A filter the page does not offer is no filter (and shown as none).
    let filter = QueueFilter {
        state: requests::State::parse(&query.state),
        category: Category::parse(&query.category),
        site: domain::SiteCode::parse(&query.site).map(|s| s.to_string()),
        older_than_hours: query.age.parse().ok().filter(|h| *h > 0),
    };
    let names = staff_names(&state).await?;
    let now = state.clock.now();
    let search = query.q.trim().to_lowercase();
    let matching: Vec<RequestRow> = requests::queue(&state.db, &state.clock, &filter)
        .await?
        .into_iter()
        .map(|r| request_row(r, &names))
        .filter(|r| {
            search.is_empty()
                || [&r.reference, &r.subject, &r.organization]
                    .iter()
                    .any(|field| field.to_lowercase().contains(&search))
        })
        .collect();
    let (rows, list) =
        crate::pages::staff::ListAt::slice(matching, &query.q, query.page, REQUESTS_PER_PAGE);
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
        list,
    };
    page(&state, parts, view).await
}

/// Requests per state, whatever the page's filters: the queue without a
/// state holds every request not closed, closed ones are asked apart.
async fn counts(state: &AppState) -> anyhow::Result<Vec<(requests::State, i64)>> {
    let all = |state: Option<requests::State>| QueueFilter {
        state,
        category: None,
        site: None,
        older_than_hours: None,
    };
    let mut requests = requests::queue(&state.db, &state.clock, &all(None)).await?;
    requests.extend(
        requests::queue(&state.db, &state.clock, &all(Some(requests::State::Closed))).await?,
    );
    Ok(requests::State::ALL
        .iter()
        .map(|&s| {
            let n = requests.iter().filter(|r| r.state == s).count();
            (s, i64::try_from(n).unwrap_or(i64::MAX))
        })
        .collect())
}

/// Staff members' names by email, to name assignees.
async fn staff_names(state: &AppState) -> anyhow::Result<Vec<(String, String)>> {
    requests::staff_members(&state.db).await
}

fn request_row(r: RequestSummary, names: &[(String, String)]) -> RequestRow {
    use requests::State as S;
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
    let thread = requests::thread_for_staff(&state.db, &id)
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
        body_max: requests::BODY_MAX,
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
            FormError::StaffSupport(StaffSupportRefusal::Body(requests::BODY_MAX))
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
    requests::reply_as_staff(
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
    requests::note(&state.db, &state.clock, &actor(&staff), &id, &form.body)
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
    requests::thread_for_staff(&state.db, &id)
        .await?
        .ok_or(PageError::NotFound)?;
    requests::assign(&state.db, &state.clock, &actor(&staff), &id, to)
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
    requests::close_as_staff(&state.db, &state.clock, &actor(&staff), &id)
        .await
        .map_err(|e| refusal(e, "close", ""))?;
    done(&parts, &id, "close")
}
