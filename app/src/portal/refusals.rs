//! Why a form was refused, per part of the portal, in words the page
//! translates. They are variants of `FormError`, which the shell shows, so
//! they live beside it rather than with their pages.

use domain::{Lang, Money};
use serde::{Deserialize, Serialize};

use crate::i18n::{staff, staff_support, support, tokens, webhooks};

/// Shortest support-request subject, in characters.
pub const SUBJECT_MIN: usize = 3;
/// Longest support-request subject, in characters.
pub const SUBJECT_MAX: usize = 150;
/// Longest support message, in characters.
pub const BODY_MAX: usize = 10_000;

/// Why a settlement was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SettleRefusal {
    Date,
    DateInFuture,
    DateBeforeInvoice,
    Amount,
    /// The amount due.
    AmountDiffers(Money),
    Reason,
    Unconfirmed,
}

impl SettleRefusal {
    pub fn message(self, lang: Lang) -> String {
        let s = staff(lang);
        match self {
            SettleRefusal::Date => s.err_date.to_owned(),
            SettleRefusal::DateInFuture => s.err_date_future.to_owned(),
            SettleRefusal::DateBeforeInvoice => s.err_date_before.to_owned(),
            SettleRefusal::Amount => s.err_amount.to_owned(),
            SettleRefusal::AmountDiffers(due) => (s.err_amount_differs)(&due.format(lang)),
            SettleRefusal::Reason => s.err_reason.to_owned(),
            SettleRefusal::Unconfirmed => s.err_confirm.to_owned(),
        }
    }
}

/// Why the create form was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TokenRefusal {
    Name,
    NoScopes,
    Scope,
    Expiry,
    TooMany,
}

impl TokenRefusal {
    pub fn message(self, lang: Lang) -> String {
        let t = tokens(lang);
        match self {
            TokenRefusal::Name => t.err_name,
            TokenRefusal::NoScopes => t.err_no_scopes,
            TokenRefusal::Scope => t.err_scope,
            TokenRefusal::Expiry => t.err_expiry,
            TokenRefusal::TooMany => t.err_too_many,
        }
        .to_owned()
    }

    pub fn status(self) -> u16 {
        match self {
            TokenRefusal::TooMany => 409,
            _ => 422,
        }
    }
}

/// Why the webhook form was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WebhookRefusal {
    Url,
    Events,
    TooMany,
}

impl WebhookRefusal {
    pub fn message(self, lang: Lang) -> String {
        let w = webhooks(lang);
        match self {
            WebhookRefusal::Url => w.err_url,
            WebhookRefusal::Events => w.err_events,
            WebhookRefusal::TooMany => w.err_too_many,
        }
        .to_owned()
    }

    pub fn status(self) -> u16 {
        match self {
            WebhookRefusal::TooMany => 409,
            _ => 422,
        }
    }
}

/// Why a BMC form was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BmcRefusal {
    Url,
    Username,
    Password,
    SerialCommand,
    VncPort,
    /// A check of a host that has no BMC.
    NoBmc,
    /// Setting free a host whose BMC has not passed its check.
    NotChecked,
}

impl BmcRefusal {
    pub fn message(self, lang: Lang) -> String {
        let s = staff(lang);
        match self {
            BmcRefusal::Url => s.err_bmc_url,
            BmcRefusal::Username => s.err_bmc_username,
            BmcRefusal::Password => s.err_bmc_password,
            BmcRefusal::SerialCommand => s.err_bmc_serial_command,
            BmcRefusal::VncPort => s.err_bmc_vnc_port,
            BmcRefusal::NoBmc => s.err_no_bmc,
            BmcRefusal::NotChecked => s.err_not_checked,
        }
        .to_owned()
    }

    pub fn status(self) -> u16 {
        match self {
            BmcRefusal::NoBmc | BmcRefusal::NotChecked => 409,
            _ => 422,
        }
    }
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
