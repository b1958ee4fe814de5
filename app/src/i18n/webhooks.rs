//! The words of the webhooks page: the endpoints with their recent
//! deliveries, adding one (its secret shown once), test events, rolling
//! the secret, pausing, deleting and sending a delivery again.

pub struct Webhooks {
    /// The portal menu's link and the page's title.
    pub title: &'static str,
    pub intro: &'static str,
    /// Before the link to the API documentation's events section.
    pub docs_before: &'static str,
    pub docs_link: &'static str,
    pub empty: &'static str,
    // An endpoint.
    pub events_label: &'static str,
    pub state_on: &'static str,
    pub state_paused: &'static str,
    /// After a roll: until when the previous secret also signs.
    pub previous_until: fn(&str) -> String,
    pub ping: &'static str,
    pub roll: &'static str,
    pub pause: &'static str,
    pub resume: &'static str,
    pub delete: &'static str,
    /// The confirmation checkbox's label, with the endpoint's address.
    pub delete_confirm: fn(&str) -> String,
    // Its deliveries.
    pub deliveries_title: &'static str,
    pub no_deliveries: &'static str,
    pub col_time: &'static str,
    pub col_event: &'static str,
    pub col_state: &'static str,
    pub col_answer: &'static str,
    pub delivery_pending: &'static str,
    pub delivery_succeeded: &'static str,
    pub delivery_failed: &'static str,
    /// Tries so far.
    pub attempts: fn(i64) -> String,
    pub resend: &'static str,
    // The add form.
    pub add_title: &'static str,
    pub url_label: &'static str,
    pub url_hint: &'static str,
    pub description_label: &'static str,
    pub choose_events: &'static str,
    pub all_events: &'static str,
    pub server_events: &'static str,
    pub order_events: &'static str,
    pub invoice_events: &'static str,
    pub stock_events: &'static str,
    pub add_submit: &'static str,
    // The secret, once.
    pub secret_title: &'static str,
    pub secret_once: &'static str,
    // Notices after a redirect.
    pub done_pinged: &'static str,
    pub done_resent: &'static str,
    pub done_deleted: &'static str,
    pub done_changed: &'static str,
    // Refusals.
    pub err_url: &'static str,
    pub err_events: &'static str,
    pub err_too_many: &'static str,
}
