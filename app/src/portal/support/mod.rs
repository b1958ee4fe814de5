//! The organization's support requests as its members see them: the list,
//! the form that opens one, and a request's thread. Members see only the
//! categories their role may see; the server decides which and sends only
//! those. Messages are plain text: Leptos escapes them, line breaks become
//! `<br>` elements, never HTML from the message itself.

pub mod list;
pub mod new;
pub mod thread;

use domain::support::{AuthorKind, Category, State};
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::support;

/// Shortest subject, in characters.
pub const SUBJECT_MIN: usize = 3;
/// Longest subject, in characters.
pub const SUBJECT_MAX: usize = 150;
/// Longest message, in characters.
pub const BODY_MAX: usize = 10_000;
/// Longest answer to a scaling-out question, in characters.
pub const SCALING_MAX: usize = 200;

/// One request in the list and at the top of its thread.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RequestRow {
    pub id: String,
    pub reference: String,
    pub category: Category,
    pub subject: String,
    pub state: State,
    pub server_id: Option<domain::ServerId>,
    pub server_name: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub closed_at: Option<i64>,
}

#[cfg(feature = "ssr")]
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

/// Why a support form was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SupportRefusal {
    Subject,
    Body,
    Category,
    Server,
    Scaling,
    Closed,
    ReopenExpired,
    /// Replies too fast: seconds until another is allowed.
    TooMany(i64),
}

impl SupportRefusal {
    pub fn message(self, lang: Lang) -> String {
        let s = support(lang);
        match self {
            SupportRefusal::Subject => (s.err_subject)(SUBJECT_MIN, SUBJECT_MAX),
            SupportRefusal::Body => (s.err_body)(BODY_MAX),
            SupportRefusal::Category => s.err_category.to_owned(),
            SupportRefusal::Server => s.err_server.to_owned(),
            SupportRefusal::Scaling => s.err_scaling.to_owned(),
            SupportRefusal::Closed => s.err_closed.to_owned(),
            SupportRefusal::ReopenExpired => s.err_reopen_expired.to_owned(),
            SupportRefusal::TooMany(secs) => (s.err_too_many)(((secs + 59) / 60).max(1)),
        }
    }

    pub fn status(self) -> u16 {
        match self {
            SupportRefusal::Closed | SupportRefusal::ReopenExpired => 409,
            SupportRefusal::TooMany(_) => 429,
            _ => 422,
        }
    }
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

pub fn state_name(lang: Lang, state: State) -> &'static str {
    let s = support(lang);
    match state {
        State::Open => s.state_open,
        State::Waiting => s.state_waiting,
        State::Answered => s.state_answered,
        State::Closed => s.state_closed,
    }
}

/// The state as a badge; "waiting for you" stands out.
#[component]
pub fn StateBadge(lang: Lang, state: State) -> impl IntoView {
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
