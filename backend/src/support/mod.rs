//! Support requests: a thread per request between an organization's
//! members and staff. A request moves `open → waiting → answered → …` as
//! the sides take turns, and ends `closed` by the customer, by staff, or
//! automatically a week after it started waiting for the customer. Members
//! see only the categories their role may see; staff see everything,
//! including internal notes, which never reach a customer page or mail.

mod customers;
mod facts;
mod lifecycle;
mod mails;
mod reads;
mod staff;
mod text;
mod writes;

pub use customers::{close_as_member, open, reopen_as_member, reply_as_member};
pub use facts::attach_server_facts;
pub use lifecycle::{open_for_degraded_host, remind_and_close};
pub use reads::{list_for_member, queue, staff_members, thread_for_member, thread_for_staff};
pub use staff::{assign, close_as_staff, note, reply_as_staff};
pub use text::{excerpt, valid_body, valid_scaling, valid_subject};

use domain::{Lang, OrganizationId, Role, ServerId, UserId};

pub const SUBJECT_MIN: usize = 3;
pub const SUBJECT_MAX: usize = 150;
pub const BODY_MAX: usize = 10_000;
/// Each answer to the scaling-out questions.
pub const SCALING_FIELD_MAX: usize = 200;
pub const AUTO_CLOSE_SECS: i64 = 7 * 86_400;
pub const REMIND_AFTER_SECS: i64 = 6 * 86_400;
pub const REOPEN_SECS: i64 = 30 * 86_400;

pub use domain::support::{AuthorKind, Category, State};

/// The categories `role` sees, as a SQL list of literals (from the enum
/// only, never from input): `'account', 'other'`.
fn sql_list(role: Role) -> String {
    Category::ALL
        .iter()
        .filter(|c| c.visible_to(role))
        .map(|c| format!("'{}'", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The scaling-out questions (all optional strings; validated lengths ≤ 200).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScalingPlan {
    pub cards: String,
    pub workload: String,
    pub model_size: String,
    pub timeline: String,
}

pub struct NewRequest<'a> {
    pub organization_id: &'a OrganizationId,
    pub user_id: &'a UserId,
    pub email: &'a str,
    pub role: Role,
    pub lang: Lang,
    pub ip: Option<&'a str>,
    pub category: Category,
    pub subject: &'a str,
    pub body: &'a str,
    pub server_id: Option<&'a str>,
    pub scaling: Option<ScalingPlan>,
}

#[derive(Debug, thiserror::Error)]
pub enum SupportError {
    #[error("no such support request")]
    NotFound,
    #[error("the subject is 3 to 150 characters, on one line")]
    InvalidSubject,
    #[error("the message is 1 to 10,000 characters")]
    InvalidBody,
    #[error("unknown category")]
    UnknownCategory,
    #[error("choose the server this is about")]
    ServerRequired,
    #[error("the request is closed")]
    Closed,
    #[error("the request was closed more than 30 days ago")]
    ReopenExpired,
    #[error("too many messages; try again in {0} seconds")]
    TooMany(i64),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct RequestSummary {
    pub id: String,
    /// "SR-" and 6 characters, shown to people.
    pub reference: String,
    pub organization_id: OrganizationId,
    pub organization_name: String,
    pub category: Category,
    pub subject: String,
    pub state: State,
    pub server_id: Option<ServerId>,
    pub server_name: Option<String>,
    pub site_code: Option<String>,
    /// The opener's email, or `system` for a thread Fleet health opened.
    pub opened_by_email: String,
    /// The assigned staff member's email.
    pub assigned_to: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub waiting_since: Option<i64>,
    pub first_response_at: Option<i64>,
    pub closed_at: Option<i64>,
    /// `customer`, `staff` or `auto`.
    pub closed_by: Option<String>,
    pub lang: Lang,
}

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Message {
    pub id: String,
    pub author_name: String,
    /// `customer`, `staff` or `system`.
    pub author_kind: AuthorKind,
    #[sqlx(try_from = "crate::db::Flag")]
    pub internal: bool,
    pub body: String,
    pub created_at: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    pub request: RequestSummary,
    pub scaling: Option<ScalingPlan>,
    /// Oldest first.
    pub messages: Vec<Message>,
}

#[derive(Clone, Debug, Default)]
pub struct QueueFilter {
    /// `None`: every request not closed.
    pub state: Option<State>,
    pub category: Option<Category>,
    pub site: Option<String>,
    pub older_than_hours: Option<i64>,
}

pub struct StaffActor<'a> {
    pub user_id: &'a UserId,
    pub email: &'a str,
    pub name: &'a str,
}

/// Where a request's page is, for mails.
fn link(base_url: &str, lang: Lang, id: &str) -> String {
    format!(
        "{}/{}/support/requests/{id}",
        base_url.trim_end_matches('/'),
        lang.code()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn technical_members_never_see_billing_and_billing_members_never_see_servers() {
        assert!(!Category::Billing.visible_to(Role::Technical));
        assert!(!Category::Hardware.visible_to(Role::Billing));
        assert!(!Category::Scaling.visible_to(Role::Billing));
        for role in Role::ALL {
            assert!(Category::Account.visible_to(role));
            assert!(Category::Other.visible_to(role));
        }
        for &c in Category::ALL {
            assert!(c.visible_to(Role::Owner));
            assert_eq!(Category::parse(c.as_str()), Some(c));
        }
        assert_eq!(sql_list(Role::Billing), "'billing', 'account', 'other'");
    }

    #[test]
    fn the_sides_take_turns_and_closed_takes_no_reply() {
        assert_eq!(State::Open.after_customer_reply(), Some(State::Open));
        assert_eq!(State::Waiting.after_customer_reply(), Some(State::Answered));
        assert_eq!(State::Answered.after_staff_reply(), Some(State::Waiting));
        assert_eq!(State::Open.after_staff_reply(), Some(State::Waiting));
        assert_eq!(State::Closed.after_customer_reply(), None);
        assert_eq!(State::Closed.after_staff_reply(), None);
        for &s in State::ALL {
            assert_eq!(State::parse(s.as_str()), Some(s));
        }
    }
}
