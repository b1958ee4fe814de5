use super::grouped;
use super::staff_support::StaffSupport;
use domain::support::{Category, State};

/// "2 h 10 min", "45 min", "3 d 4 h".
fn span(secs: i64) -> String {
    let secs = secs.max(0);
    let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    match (days, hours, minutes) {
        (0, 0, 0) => "under a minute".to_owned(),
        (0, 0, m) => format!("{m} min"),
        (0, h, 0) => format!("{h} h"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, 0, _) => format!("{d} d"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

/// "3 h", "25 min", "2 d 4 h": hours are enough once it is over one.
fn coarse(secs: i64) -> String {
    if (3_600..86_400).contains(&secs) {
        format!("{} h", secs / 3_600)
    } else {
        span(secs)
    }
}

pub static STAFF_SUPPORT_EN: StaffSupport = StaffSupport {
    nav: "Support",
    home_summary: "Customers’ requests, the longest waiting first.",
    queue_title: "Support requests",
    queue_intro: "Requests waiting for us come first, the longest waiting at the top; then those waiting for the customer.",
    counts_label: "Requests by state",
    state: |state| match state {
        State::Open => "New",
        State::Waiting => "Waiting for the customer",
        State::Answered => "Customer replied",
        State::Closed => "Closed",
    },
    category: |category| match category {
        Category::Scaling => "Scaling out / capacity",
        Category::Hardware => "Hardware or performance",
        Category::Billing => "Billing",
        Category::Account => "Account",
        Category::Other => "Other",
    },
    filter_title: "Filter",
    filter_state: "State",
    filter_category: "Category",
    filter_site: "Site",
    filter_age: "Age",
    filter_search: "Reference, subject or organization contains",
    all_not_closed: "All not closed",
    all: "All",
    age_any: "Any age",
    age_older: |hours| format!("Older than {hours} hours"),
    filter_submit: "Filter",
    empty: "No requests match these filters.",
    col_reference: "Reference",
    col_organization: "Organization",
    col_subject: "Subject",
    col_category: "Category",
    col_state: "State",
    col_server: "Server",
    col_opened: "Opened",
    col_waiting: "Customer waiting",
    col_first_response: "First response",
    col_assignee: "Assigned to",
    waiting: |secs| format!("waiting {}", coarse(secs)),
    not_waiting: "—",
    duration: span,
    not_yet: "not yet",
    unassigned: "unassigned",
    no_server: "—",
    thread_title: |reference| format!("Support request {reference}"),
    back: "All support requests",
    opened_by: "Opened by",
    closed_by: "Closed by",
    scaling_title: "Scaling-out plan",
    scaling_cards: "Cards",
    scaling_workload: "Workload",
    scaling_model_size: "Model size",
    scaling_timeline: "Timeline",
    messages_title: "Conversation",
    internal_badge: "Internal note — the customer never sees this",
    system_badge: "System message (telemetry attached)",
    author_customer: "Customer",
    author_staff: "Staff",
    reply_title: "Reply to the customer",
    reply_hint: "The customer gets a mail with a link to the request, which then waits for them.",
    reply_submit: "Send reply",
    note_title: "Internal note",
    note_hint: "Only staff see it; it doesn’t change the request’s state and is never mailed.",
    note_submit: "Add internal note",
    body_hint: |max| format!("Plain text, up to {} characters.", grouped(max)),
    assign_title: "Assignment",
    assign_label: "Staff member",
    assign_submit: "Assign",
    close_title: "Close",
    close_hint: "The customer can reopen it within 30 days.",
    close_submit: "Close request",
    closed_note: "This request is closed.",
    done_reply: "Reply sent; the customer has been mailed.",
    done_note: "Internal note added.",
    done_assign: "Assignment saved.",
    done_close: "Request closed.",
    organization_title: "The organization",
    servers_title: "Servers",
    no_servers: "No servers.",
    col_name: "Name",
    col_plan: "Plan",
    col_site: "Site",
    col_server_state: "State",
    plans_title: "Plans",
    plan_count: |plan, n| format!("{plan} × {n}"),
    invoices_title: "Open invoices",
    no_invoices: "No open invoices.",
    col_number: "Invoice",
    col_amount: "Amount due",
    col_due: "Due",
    overdue: "overdue",
    draft: "(no number yet)",
    err_body: |max| format!("Write a message of 1 to {} characters.", grouped(max)),
    err_closed: "This request is closed; it can’t be answered any more.",
    err_assignee: "Choose a staff member from the list.",
};
