//! The words of the customer's support pages: the organization's requests,
//! the form that opens one (with the scaling-out questions), a request's
//! thread, the form's refusals, and the storefront's links to the form.

pub struct Support {
    /// The portal menu's link.
    pub nav: &'static str,
    // The list.
    pub list_title: &'static str,
    pub list_intro: &'static str,
    pub new_button: &'static str,
    pub empty_title: &'static str,
    pub empty_body: &'static str,
    pub col_reference: &'static str,
    pub col_subject: &'static str,
    pub col_category: &'static str,
    pub col_state: &'static str,
    pub col_server: &'static str,
    pub col_activity: &'static str,
    /// A request about no server.
    pub no_server: &'static str,
    // Categories.
    pub cat_scaling: &'static str,
    pub cat_hardware: &'static str,
    pub cat_billing: &'static str,
    pub cat_account: &'static str,
    pub cat_other: &'static str,
    /// Under each category on the form: what it is for.
    pub cat_scaling_hint: &'static str,
    pub cat_hardware_hint: &'static str,
    pub cat_billing_hint: &'static str,
    pub cat_account_hint: &'static str,
    pub cat_other_hint: &'static str,
    // States, as the customer reads them.
    pub state_open: &'static str,
    pub state_waiting: &'static str,
    pub state_answered: &'static str,
    pub state_closed: &'static str,
    // The form.
    pub new_title: &'static str,
    pub new_intro: &'static str,
    pub field_category: &'static str,
    pub field_subject: &'static str,
    /// The subject's length limits: (shortest, longest).
    pub subject_hint: fn(usize, usize) -> String,
    pub field_body: &'static str,
    /// The message's limit, in characters.
    pub body_hint: fn(usize) -> String,
    pub field_server: &'static str,
    pub server_none: &'static str,
    pub server_hint: &'static str,
    pub no_servers: &'static str,
    pub scaling_legend: &'static str,
    pub scaling_hint: &'static str,
    pub field_cards: &'static str,
    pub cards_more: &'static str,
    pub field_workload: &'static str,
    pub workload_other: &'static str,
    pub field_model_size: &'static str,
    pub model_size_hint: &'static str,
    pub field_timeline: &'static str,
    pub timeline_month: &'static str,
    pub timeline_quarter: &'static str,
    pub timeline_later: &'static str,
    pub timeline_unsure: &'static str,
    /// The empty choice of an optional select.
    pub choose: &'static str,
    pub new_submit: &'static str,
    // A request's thread.
    pub back_to_list: &'static str,
    pub label_category: &'static str,
    pub label_state: &'static str,
    pub label_server: &'static str,
    pub label_opened: &'static str,
    pub plan_title: &'static str,
    pub messages_title: &'static str,
    /// The author of a staff reply.
    pub support_team: &'static str,
    /// The author of an automatic message (reminders, health checks).
    pub system_author: &'static str,
    /// Said to screen readers before the author of a message.
    pub from: &'static str,
    pub reply_title: &'static str,
    pub reply_submit: &'static str,
    pub close_title: &'static str,
    pub close_confirm: &'static str,
    pub close_submit: &'static str,
    /// When the request was closed.
    pub closed_on: fn(&str) -> String,
    /// Until when it may be reopened.
    pub reopen_until: fn(&str) -> String,
    pub reopen_submit: &'static str,
    pub reopen_expired: &'static str,
    pub open_new_link: &'static str,
    // What a form did, after the redirect.
    pub done_opened: &'static str,
    pub done_replied: &'static str,
    pub done_closed: &'static str,
    pub done_reopened: &'static str,
    // Refusals.
    pub err_subject: fn(usize, usize) -> String,
    pub err_body: fn(usize) -> String,
    pub err_category: &'static str,
    pub err_server: &'static str,
    pub err_closed: &'static str,
    pub err_reopen_expired: &'static str,
    /// Replies come too fast: minutes to wait.
    pub err_too_many: fn(i64) -> String,
    pub err_scaling: &'static str,
    // The storefront's links to the form (the same for every visitor).
    pub storefront_link: &'static str,
    /// Under the home page's step "Ask before you scale out".
    pub step_link: &'static str,
    pub storefront_link_note: &'static str,
}
