//! The public API's documentation page (`/{lang}/docs/api`): every heading,
//! paragraph, table cell and code comment. In prose, text between
//! backticks is shown as code. The commands themselves are shared by both
//! languages (`storefront::api_docs::examples`); only their comments differ.

pub struct ApiDocs {
    pub title: &'static str,
    pub description: &'static str,
    pub lead: &'static str,
    /// The footer's link to this page, and the support page's.
    pub footer_link: &'static str,
    pub support_link: &'static str,
    /// The accessible name of the table of contents.
    pub toc_label: &'static str,

    pub overview_heading: &'static str,
    /// Before the base URL, which the page shows as code.
    pub overview_base: &'static str,
    pub overview_paras: &'static [&'static str],
    /// Before the link to the OpenAPI document.
    pub overview_openapi: &'static str,

    pub auth_heading: &'static str,
    /// "Create tokens on the" + link + rest.
    pub auth_tokens_before: &'static str,
    pub auth_tokens_link: &'static str,
    pub auth_tokens_after: &'static str,
    pub auth_paras: &'static [&'static str],

    pub scopes_heading: &'static str,
    pub scopes_intro: &'static str,
    pub col_scope: &'static str,
    pub col_allows: &'static str,
    pub col_granted_by: &'static str,
    pub scope_read: Scope,
    pub scope_servers_write: Scope,
    pub scope_billing_read: Scope,
    pub scopes_after: &'static [&'static str],

    pub errors_heading: &'static str,
    pub errors_intro: &'static str,
    /// The example error's message, in this language.
    pub errors_example_message: &'static str,
    /// The example's `detail`: its title and the scope missing.
    pub errors_example_detail: &'static str,
    pub col_status: &'static str,
    pub col_code: &'static str,
    pub col_meaning: &'static str,
    pub errors: ErrorMeanings,
    pub errors_after: &'static [&'static str],

    pub idempotency_heading: &'static str,
    pub idempotency_paras: &'static [&'static str],

    pub pagination_heading: &'static str,
    pub pagination_paras: &'static [&'static str],

    pub rate_heading: &'static str,
    pub rate_paras: &'static [&'static str],

    pub stock_heading: &'static str,
    pub stock_paras: &'static [&'static str],
    /// Before the Atom feed's address.
    pub stock_feed: &'static str,

    pub long_heading: &'static str,
    pub long_paras: &'static [&'static str],

    pub examples_heading: &'static str,
    pub examples_intro: &'static [&'static str],
    pub compose_example: Example,
    pub order_example: Example,
    pub snapshot_example: Example,
    pub manage_example: Example,
    pub watch_example: Example,
    pub events_example: Example,
    /// Before the stock-alert command, in the stock example.
    pub watch_alert: &'static str,
    pub comments: Comments,

    pub endpoints_heading: &'static str,
    pub endpoints_intro: &'static str,
    pub col_method: &'static str,
    pub col_path: &'static str,
    pub col_what: &'static str,
    /// The scope column of endpoints that need no token.
    pub scope_public: &'static str,
    pub endpoints: EndpointNames,
}

/// A scope's row: what it allows and which roles may give it to a token.
pub struct Scope {
    pub allows: &'static str,
    pub granted_by: &'static str,
}

/// A worked example: its heading, what it does, and notes after the code.
pub struct Example {
    pub heading: &'static str,
    pub intro: &'static [&'static str],
    pub after: &'static [&'static str],
}

/// What each error code means, one field per code of the contract.
pub struct ErrorMeanings {
    pub bad_request: &'static str,
    pub malformed_body: &'static str,
    pub invalid_cursor: &'static str,
    pub idempotency_key_required: &'static str,
    pub unauthorized: &'static str,
    pub token_expired: &'static str,
    pub token_revoked: &'static str,
    pub token_creator_lost_role: &'static str,
    pub insufficient_scope: &'static str,
    pub not_found: &'static str,
    pub method_not_allowed: &'static str,
    pub conflict: &'static str,
    pub busy: &'static str,
    pub idempotency_key_in_use: &'static str,
    pub not_cancellable: &'static str,
    pub console_unavailable: &'static str,
    pub too_large: &'static str,
    pub unsupported_media_type: &'static str,
    pub invalid: &'static str,
    pub invalid_name: &'static str,
    pub idempotency_key_reused: &'static str,
    pub unknown_choice: &'static str,
    pub bad_ssh_key: &'static str,
    pub sold_out: &'static str,
    pub no_billing_profile: &'static str,
    pub daily_order_limit: &'static str,
    pub snapshot_quota_full: &'static str,
    pub snapshots_not_offered: &'static str,
    pub root_password_reset_not_offered: &'static str,
    pub rate_limited: &'static str,
    pub internal: &'static str,
    pub unavailable: &'static str,
}

/// The comments inside the example commands (shell `#` lines).
pub struct Comments {
    pub setup_token: &'static str,
    pub setup_stop: &'static str,
    pub setup_helper: &'static str,
    pub compose_choices: &'static str,
    pub compose_key: &'static str,
    pub compose_quote: &'static str,
    pub order_place: &'static str,
    pub order_paid: &'static str,
    pub order_poll: &'static str,
    pub order_address: &'static str,
    pub manage_labels: &'static str,
    pub manage_filter: &'static str,
    pub manage_root: &'static str,
    pub manage_power: &'static str,
    pub manage_reinstall: &'static str,
    pub snapshot_server: &'static str,
    pub snapshot_wait: &'static str,
    pub snapshot_take: &'static str,
    pub snapshot_upgrade: &'static str,
    pub snapshot_restore: &'static str,
    pub watch_files: &'static str,
    pub watch_empty: &'static str,
    pub watch_changed: &'static str,
    pub watch_same: &'static str,
    pub alert_mail: &'static str,
    pub pagination_loop: &'static str,
    pub events_poll: &'static str,
    pub events_endpoint: &'static str,
    pub events_verify: &'static str,
}

/// What each endpoint does, one field per endpoint of the contract.
pub struct EndpointNames {
    pub plans: &'static str,
    pub stock: &'static str,
    pub stock_feed: &'static str,
    pub latency: &'static str,
    pub openapi: &'static str,
    pub servers: &'static str,
    pub server: &'static str,
    pub snapshots: &'static str,
    pub snapshot: &'static str,
    pub sites: &'static str,
    pub images: &'static str,
    pub addons: &'static str,
    pub quote: &'static str,
    pub ssh_keys: &'static str,
    pub ssh_key: &'static str,
    pub ssh_key_add: &'static str,
    pub ssh_key_delete: &'static str,
    pub orders: &'static str,
    pub order: &'static str,
    pub stock_alerts: &'static str,
    pub stock_alert: &'static str,
    pub stock_alert_create: &'static str,
    pub stock_alert_delete: &'static str,
    pub order_create: &'static str,
    pub server_rename: &'static str,
    pub server_power: &'static str,
    pub server_reinstall: &'static str,
    pub root_password_reset: &'static str,
    pub root_password_take: &'static str,
    pub snapshot_take: &'static str,
    pub snapshot_restore: &'static str,
    pub snapshot_delete: &'static str,
    pub cancellation_schedule: &'static str,
    pub cancellation_revoke: &'static str,
    pub console_ticket: &'static str,
    pub invoices: &'static str,
    pub invoice: &'static str,
    pub invoice_pdf: &'static str,
    pub credit_notes: &'static str,
    pub events: &'static str,
    pub webhooks: &'static str,
    pub webhook: &'static str,
    pub webhook_create: &'static str,
    pub webhook_update: &'static str,
    pub webhook_delete: &'static str,
    pub webhook_secret: &'static str,
    pub webhook_ping: &'static str,
    pub webhook_deliveries: &'static str,
    pub webhook_resend: &'static str,
}
