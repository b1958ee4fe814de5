//! The portal's front door: sign up, confirm the email, log in, reset a
//! forgotten password, the account page. Forms are plain POST forms that
//! work without JavaScript; the server answers with a redirect on success
//! or this page again with the error and what was typed.

pub mod alerts;
pub mod forms;
pub mod nav;
pub mod notices;
pub mod order;
pub mod order_quote;
pub mod progress;
pub mod refusals;

use domain::{Lang, OrganizationId, Role};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::portal;

/// Who is looking at a portal page, set by the server per request.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Viewer {
    pub user: Option<ViewerUser>,
    /// Sent back in every form; checked when the browser sends neither
    /// `Origin` nor `Sec-Fetch-Site`.
    pub csrf_token: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ViewerUser {
    pub name: String,
    pub email: String,
    pub organization: String,
    /// In the current organization; `None` for staff without one.
    pub role: Option<Role>,
    /// Every organization the user belongs to: (id, name, role).
    pub organizations: Vec<(OrganizationId, String, Role)>,
    pub organization_id: OrganizationId,
    pub is_staff: bool,
}

pub fn role_name(lang: Lang, role: Role) -> &'static str {
    let p = portal(lang);
    match role {
        Role::Owner => p.role_owner,
        Role::Technical => p.role_technical,
        Role::Billing => p.role_billing,
    }
}

/// What a role may do, in a sentence.
pub fn role_help(lang: Lang, role: Role) -> &'static str {
    let p = portal(lang);
    match role {
        Role::Owner => p.role_owner_help,
        Role::Technical => p.role_technical_help,
        Role::Billing => p.role_billing_help,
    }
}

/// What went wrong with a submitted form, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormError {
    InvalidEmail,
    InvalidName,
    InvalidCompany,
    PasswordTooShort,
    PasswordTooLong,
    PasswordTooCommon,
    PasswordsDiffer,
    BadCredentials,
    WrongCurrentPassword,
    NotVerified,
    Throttled(i64),
    BadLink,
    Forbidden,
    LastOwner,
    OnlyOrganization,
    AlreadyMember,
    WrongAccount,
    NotMember,
    BadCode,
    /// A rate limit on mail we send: seconds until another is allowed.
    TooMany(i64),
    Unavailable,
    /// Input with characters no database stores (a NUL byte).
    Unstorable,
    ServerName,
    Choice,
    SshKey,
    Country,
    SoldOut,
    Busy,
    Confirm,
    UnknownHost,
    HostTransition,
    HostCount,
    OrderFormExpired,
    DailyOrderLimit,
    BillingProfile,
    /// An order before the organization gave its billing profile.
    BillingProfileMissing,
    VatId,
    Amount,
    CancelName,
    /// The name typed to confirm a reinstall is not the server's.
    ReinstallName,
    SnapshotName,
    SnapshotQuota,
    SnapshotBusy,
    /// The Fleet cannot take or restore snapshots here.
    SnapshotsNotOffered,
    /// The Fleet cannot set a root password here.
    RootResetNotOffered,
    MaintenanceTime,
    MaintenanceSettled,
    /// Finance's settlement of an invoice (staff).
    Settle(refusals::SettleRefusal),
    /// Resending or withdrawing an invitation that is no longer pending.
    UnknownInvitation,
    /// Signing up from an invitation with an address that has an account.
    AccountExists,
    /// A host's BMC form, a check, or freeing a host not checked (staff).
    Bmc(refusals::BmcRefusal),
    /// The API token form (name, scopes, expiry, too many tokens).
    Token(refusals::TokenRefusal),
    /// The webhook endpoint form (address, events, too many).
    Webhook(refusals::WebhookRefusal),
    /// A customer's support request form.
    Support(refusals::SupportRefusal),
    /// A staff form on a support request (message, closed, assignee).
    StaffSupport(refusals::StaffSupportRefusal),
}

impl FormError {
    pub fn message(self, lang: Lang) -> String {
        let p = portal(lang);
        let o = crate::i18n::orders(lang);
        match self {
            FormError::InvalidEmail => p.err_email.to_owned(),
            FormError::InvalidName => p.err_name.to_owned(),
            FormError::InvalidCompany => p.err_company.to_owned(),
            FormError::PasswordTooShort => p.err_password_short.to_owned(),
            FormError::PasswordTooLong => p.err_password_long.to_owned(),
            FormError::PasswordTooCommon => p.err_password_common.to_owned(),
            FormError::PasswordsDiffer => p.err_passwords_differ.to_owned(),
            FormError::BadCredentials => p.err_credentials.to_owned(),
            FormError::WrongCurrentPassword => p.err_current_password.to_owned(),
            FormError::NotVerified => p.err_not_verified.to_owned(),
            FormError::Throttled(secs) => (p.err_throttled)(secs.max(1)),
            FormError::BadLink => p.err_link.to_owned(),
            FormError::Forbidden => p.err_forbidden.to_owned(),
            FormError::LastOwner => p.err_last_owner.to_owned(),
            FormError::OnlyOrganization => p.err_only_organization.to_owned(),
            FormError::AlreadyMember => p.err_already_member.to_owned(),
            FormError::WrongAccount => p.err_wrong_account.to_owned(),
            FormError::NotMember => p.err_not_member.to_owned(),
            FormError::BadCode => p.err_code.to_owned(),
            FormError::TooMany(secs) => (p.err_too_many)(((secs + 59) / 60).max(1)),
            FormError::Unavailable => p.err_unavailable.to_owned(),
            FormError::Unstorable => p.err_unstorable.to_owned(),
            FormError::ServerName => o.err_server_name.to_owned(),
            FormError::Choice => o.err_choice.to_owned(),
            FormError::SshKey => o.err_ssh_key.to_owned(),
            FormError::Country => o.err_country.to_owned(),
            FormError::SoldOut => o.err_sold_out.to_owned(),
            FormError::Busy => o.err_busy.to_owned(),
            FormError::Confirm => o.err_confirm.to_owned(),
            FormError::UnknownHost => o.err_host.to_owned(),
            FormError::HostTransition => o.err_transition.to_owned(),
            FormError::HostCount => o.err_count.to_owned(),
            FormError::OrderFormExpired => o.err_form_expired.to_owned(),
            FormError::DailyOrderLimit => o.err_daily_limit.to_owned(),
            FormError::BillingProfile => crate::i18n::billing(lang).err_profile.to_owned(),
            FormError::BillingProfileMissing => {
                crate::i18n::billing(lang).err_profile_missing.to_owned()
            }
            FormError::VatId => crate::i18n::billing(lang).err_vat_id.to_owned(),
            FormError::Amount => crate::i18n::billing(lang).err_amount.to_owned(),
            FormError::CancelName => o.err_cancel_name.to_owned(),
            FormError::ReinstallName => o.err_reinstall_name.to_owned(),
            FormError::SnapshotName => crate::i18n::operations(lang).snapshots_bad_name.to_owned(),
            FormError::SnapshotQuota => crate::i18n::operations(lang)
                .snapshots_quota_full
                .to_owned(),
            FormError::SnapshotBusy => crate::i18n::operations(lang).snapshots_busy.to_owned(),
            FormError::SnapshotsNotOffered => crate::i18n::operations(lang)
                .snapshots_not_offered
                .to_owned(),
            FormError::RootResetNotOffered => crate::i18n::operations(lang)
                .root_reset_not_offered
                .to_owned(),
            FormError::MaintenanceTime => crate::i18n::operations(lang).maint_bad_time.to_owned(),
            FormError::MaintenanceSettled => crate::i18n::operations(lang).maint_settled.to_owned(),
            FormError::Settle(refusal) => refusal.message(lang),
            FormError::UnknownInvitation => p.err_unknown_invitation.to_owned(),
            FormError::AccountExists => p.err_account_exists.to_owned(),
            FormError::Bmc(refusal) => refusal.message(lang),
            FormError::Token(refusal) => refusal.message(lang),
            FormError::Webhook(refusal) => refusal.message(lang),
            FormError::Support(refusal) => refusal.message(lang),
            FormError::StaffSupport(refusal) => refusal.message(lang),
        }
    }

    /// The form field the error is about, when it is about one: the page
    /// marks that field (`aria-invalid`) and says the error beside it.
    /// It is the field's `name`, except where a page has a second form
    /// with a field of the same name (a snapshot's name beside the
    /// server's).
    /// Wrong credentials name no field, so they tell nothing about which
    /// of email and password was wrong.
    pub fn field(self) -> Option<&'static str> {
        match self {
            FormError::InvalidEmail => Some("email"),
            FormError::InvalidName | FormError::ServerName => Some("name"),
            FormError::SnapshotName => Some("snapshot_name"),
            FormError::InvalidCompany => Some("company"),
            FormError::PasswordTooShort
            | FormError::PasswordTooLong
            | FormError::PasswordTooCommon => Some("password"),
            FormError::PasswordsDiffer => Some("repeat"),
            FormError::WrongCurrentPassword => Some("current"),
            FormError::BadCode => Some("code"),
            FormError::VatId => Some("vat_id"),
            FormError::CancelName => Some("confirm_name"),
            FormError::ReinstallName => Some("reinstall_name"),
            FormError::Token(refusals::TokenRefusal::Name) => Some("name"),
            FormError::Webhook(refusals::WebhookRefusal::Url) => Some("url"),
            FormError::Support(refusals::SupportRefusal::Subject) => Some("subject"),
            FormError::Support(refusals::SupportRefusal::Body) => Some("body"),
            _ => None,
        }
    }

    pub fn status(self) -> u16 {
        match self {
            FormError::BadCredentials | FormError::WrongCurrentPassword | FormError::BadCode => 401,
            FormError::NotVerified | FormError::Forbidden | FormError::WrongAccount => 403,
            FormError::NotMember | FormError::UnknownHost => 404,
            FormError::SoldOut | FormError::Busy | FormError::HostTransition => 409,
            FormError::SnapshotQuota | FormError::SnapshotBusy => 409,
            FormError::SnapshotsNotOffered | FormError::RootResetNotOffered => 409,
            FormError::MaintenanceSettled | FormError::BillingProfileMissing => 409,
            FormError::AlreadyMember | FormError::LastOwner | FormError::OnlyOrganization => 409,
            FormError::UnknownInvitation | FormError::AccountExists => 409,
            FormError::Throttled(_) | FormError::TooMany(_) | FormError::DailyOrderLimit => 429,
            FormError::Unavailable => 503,
            FormError::Bmc(refusal) => refusal.status(),
            FormError::Token(refusal) => refusal.status(),
            FormError::Webhook(refusal) => refusal.status(),
            FormError::Support(refusal) => refusal.status(),
            FormError::StaffSupport(refusal) => refusal.status(),
            _ => 422,
        }
    }
}

/// A refused submission: the error and the fields to show again
/// (never passwords).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FormFeedback {
    pub error: Option<FormError>,
    pub values: Vec<(String, String)>,
}

impl FormFeedback {
    pub fn value(&self, name: &str) -> String {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }
}

/// What the server attached to this request (`http::page::render`).
fn request_extension<T: Clone + Send + Sync + 'static>() -> Option<T> {
    use_context::<http::request::Parts>().and_then(|parts| parts.extensions.get::<T>().cloned())
}

pub fn use_viewer() -> Viewer {
    request_extension::<Viewer>().unwrap_or_default()
}

pub fn use_feedback() -> FormFeedback {
    request_extension::<FormFeedback>().unwrap_or_default()
}

/// A query parameter of the page's address (the first of that name); an
/// empty one counts as absent.
pub fn query(name: &str) -> Option<String> {
    let parts = use_context::<http::request::Parts>()?;
    form_urlencoded::parse(parts.uri.query()?.as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
        .filter(|v| !v.is_empty())
}
