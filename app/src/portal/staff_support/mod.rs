//! The staff side of support: the queue of every organization's requests
//! (`queue`) and one request's thread with its replies, internal notes,
//! assignment, and the organization's servers, plans and open invoices
//! beside it (`thread`). The customer's pages are elsewhere; the forms post
//! to `server/src/http/staff_support.rs`.

pub mod queue;
pub mod thread;

use domain::support::{AuthorKind, Category, State};
use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::staff_support;

pub use queue::StaffSupportQueuePage;
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
    pub state: State,
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
    /// Requests per state, in [`State::ALL`] order, whatever the filters.
    pub counts: Vec<(State, i64)>,
    pub rows: Vec<RequestRow>,
    pub filter_state: Option<State>,
    pub filter_category: Option<Category>,
    pub filter_site: String,
    pub filter_age: String,
}

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

/// Why a staff form on the thread was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StaffSupportRefusal {
    /// Empty or too long; the longest message in characters.
    Body(usize),
    Closed,
    Assignee,
}

impl StaffSupportRefusal {
    pub fn message(self, lang: Lang) -> String {
        let s = staff_support(lang);
        match self {
            StaffSupportRefusal::Body(max) => (s.err_body)(max),
            StaffSupportRefusal::Closed => s.err_closed.to_owned(),
            StaffSupportRefusal::Assignee => s.err_assignee.to_owned(),
        }
    }

    pub fn status(self) -> u16 {
        match self {
            StaffSupportRefusal::Closed => 409,
            _ => 422,
        }
    }
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
