//! The words of the API tokens page: creating a token, its secret shown
//! once, the list with each token's last use, revoking, and the form's
//! refusals.

pub struct Tokens {
    /// The portal menu's link and the page's title.
    pub title: &'static str,
    pub intro: &'static str,
    /// Before the link to the API documentation.
    pub docs_before: &'static str,
    pub docs_link: &'static str,
    pub empty: &'static str,
    // The list.
    pub col_name: &'static str,
    pub col_token: &'static str,
    pub col_scopes: &'static str,
    pub col_creator: &'static str,
    pub col_created: &'static str,
    pub col_expires: &'static str,
    pub col_last_used: &'static str,
    pub col_state: &'static str,
    /// An expiry that never comes.
    pub never_expires: &'static str,
    pub never_used: &'static str,
    pub state_active: &'static str,
    pub state_expired: &'static str,
    pub state_revoked: &'static str,
    pub revoke: &'static str,
    /// The confirmation checkbox's label, with the token's name.
    pub revoke_confirm: fn(&str) -> String,
    pub revoked_notice: &'static str,
    // Creating one.
    pub create_title: &'static str,
    pub field_name: &'static str,
    pub name_hint: &'static str,
    pub field_scopes: &'static str,
    /// Under the scopes: a token never does more than its creator's role.
    pub scopes_hint: &'static str,
    pub scope_read: &'static str,
    pub scope_servers_write: &'static str,
    pub scope_billing_read: &'static str,
    pub field_expires: &'static str,
    /// An expiry choice, in days.
    pub expires_in: fn(i64) -> String,
    pub expires_never: &'static str,
    pub create_submit: &'static str,
    // The secret, shown once.
    pub secret_title: fn(&str) -> String,
    pub secret_once: &'static str,
    // Refusals.
    pub err_name: &'static str,
    pub err_no_scopes: &'static str,
    pub err_scope: &'static str,
    pub err_expiry: &'static str,
    pub err_too_many: &'static str,
}
