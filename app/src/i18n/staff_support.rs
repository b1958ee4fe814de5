//! The words of the staff support pages: the queue of customers' requests
//! with its filters, and a request's thread with the replies, internal
//! notes, assignment, and the organization's servers and open invoices
//! beside it.

pub struct StaffSupport {
    /// The staff menu's link and the home's card.
    pub nav: &'static str,
    pub home_summary: &'static str,
    // The queue.
    pub queue_title: &'static str,
    pub queue_intro: &'static str,
    /// The counts per state above the table.
    pub counts_label: &'static str,
    /// A request's state as staff read it (`open`, `waiting`, `answered`,
    /// `closed`).
    pub state: fn(domain::support::State) -> &'static str,
    /// A request's category (`scaling`, `hardware`, `billing`, `account`,
    /// `other`).
    pub category: fn(domain::support::Category) -> &'static str,
    pub filter_title: &'static str,
    pub filter_state: &'static str,
    pub filter_category: &'static str,
    pub filter_site: &'static str,
    pub filter_age: &'static str,
    pub filter_search: &'static str,
    /// The state filter's default: every request not closed.
    pub all_not_closed: &'static str,
    pub all: &'static str,
    pub age_any: &'static str,
    /// An age choice, in hours.
    pub age_older: fn(i64) -> String,
    pub filter_submit: &'static str,
    pub empty: &'static str,
    pub col_reference: &'static str,
    pub col_organization: &'static str,
    pub col_subject: &'static str,
    pub col_category: &'static str,
    pub col_state: &'static str,
    pub col_server: &'static str,
    pub col_opened: &'static str,
    pub col_waiting: &'static str,
    pub col_first_response: &'static str,
    pub col_assignee: &'static str,
    /// How long the customer has been waiting for us (seconds).
    pub waiting: fn(i64) -> String,
    /// The customer's turn: nobody waits for us.
    pub not_waiting: &'static str,
    /// A span of time (seconds): "2 h 10 min".
    pub duration: fn(i64) -> String,
    /// No first response yet.
    pub not_yet: &'static str,
    pub unassigned: &'static str,
    pub no_server: &'static str,
    // The thread.
    /// The thread page's title, with its reference only: leptos_meta puts
    /// the title into the page unescaped, so no customer text goes there.
    pub thread_title: fn(&str) -> String,
    pub back: &'static str,
    pub opened_by: &'static str,
    pub closed_by: &'static str,
    pub scaling_title: &'static str,
    pub scaling_cards: &'static str,
    pub scaling_workload: &'static str,
    pub scaling_model_size: &'static str,
    pub scaling_timeline: &'static str,
    pub messages_title: &'static str,
    pub internal_badge: &'static str,
    pub system_badge: &'static str,
    pub author_customer: &'static str,
    pub author_staff: &'static str,
    pub reply_title: &'static str,
    pub reply_hint: &'static str,
    pub reply_submit: &'static str,
    pub note_title: &'static str,
    pub note_hint: &'static str,
    pub note_submit: &'static str,
    /// The message fields' hint, with the longest message in characters.
    pub body_hint: fn(usize) -> String,
    pub assign_title: &'static str,
    pub assign_label: &'static str,
    pub assign_submit: &'static str,
    pub close_title: &'static str,
    pub close_hint: &'static str,
    pub close_submit: &'static str,
    pub closed_note: &'static str,
    pub done_reply: &'static str,
    pub done_note: &'static str,
    pub done_assign: &'static str,
    pub done_close: &'static str,
    // Beside the thread: the organization.
    pub organization_title: &'static str,
    pub servers_title: &'static str,
    pub no_servers: &'static str,
    pub col_name: &'static str,
    pub col_plan: &'static str,
    pub col_site: &'static str,
    pub col_server_state: &'static str,
    pub plans_title: &'static str,
    /// (plan name, how many servers of it)
    pub plan_count: fn(&str, usize) -> String,
    pub invoices_title: &'static str,
    pub no_invoices: &'static str,
    pub col_number: &'static str,
    pub col_amount: &'static str,
    pub col_due: &'static str,
    pub overdue: &'static str,
    /// An invoice not numbered yet.
    pub draft: &'static str,
    // Refusals.
    /// The longest message, in characters.
    pub err_body: fn(usize) -> String,
    pub err_closed: &'static str,
    pub err_assignee: &'static str,
}
