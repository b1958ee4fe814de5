//! An overdue invoice where the server is looked at: on its page and in
//! the list, the date it will be suspended unless paid (or that it is).
//! The invoice's number, amount and link reach only members who may see
//! money; the server decides that and leaves `invoice` empty for the
//! others.

use app::i18n::orders;
use app::storefront::href;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverdueView {
    /// (invoice id, number, amount due), for owners and billing members.
    pub invoice: Option<(domain::InvoiceId, String, domain::Money)>,
    /// When dunning suspends the server unless the invoice is paid.
    pub suspends_at: i64,
    pub suspended: bool,
}

impl OverdueView {
    /// An overdue invoice as a member sees it: its number, amount and link
    /// only for those who see money (technical members see the date).
    pub fn new(o: backend::servers::billing_state::Overdue, sees_money: bool) -> OverdueView {
        OverdueView {
            invoice: sees_money.then_some((o.invoice_id, o.invoice_number, o.amount_due)),
            suspends_at: o.suspends_at,
            suspended: o.suspended,
        }
    }
}

/// The warning on the server's page, near its state.
#[component]
pub fn OverdueNotice(lang: Lang, overdue: OverdueView) -> impl IntoView {
    let o = orders(lang);
    let date = domain::time::format_date(overdue.suspends_at);
    let text = match (&overdue.invoice, overdue.suspended) {
        (Some((_, number, amount)), false) => {
            (o.overdue_will_suspend)(number, &amount.format(lang), &date)
        }
        (Some((_, number, amount)), true) => (o.overdue_suspended)(number, &amount.format(lang)),
        (None, false) => (o.overdue_will_suspend_no_money)(&date),
        (None, true) => o.overdue_suspended_no_money.to_owned(),
    };
    let link = overdue.invoice.map(|(id, _, _)| {
        view! { " "<a href=href(lang, &format!("/invoices/{id}"))>{o.overdue_view_invoice}</a> }
    });
    view! {
        <p class="notice notice-error overdue" role="status" data-testid="overdue">
            {text}
            {link}
        </p>
    }
}

/// The short form in the servers list, under the row's state.
#[component]
pub fn OverdueHint(lang: Lang, overdue: OverdueView) -> impl IntoView {
    let o = orders(lang);
    let text = if overdue.suspended {
        o.servers_suspended.to_owned()
    } else {
        (o.servers_suspends_on)(&domain::time::format_date(overdue.suspends_at))
    };
    let link = overdue.invoice.map(|(id, number, _)| {
        view! { " "<a href=href(lang, &format!("/invoices/{id}"))>{(o.servers_overdue_invoice)(&number)}</a> }
    });
    view! { <span class="hint overdue" data-testid="overdue">{text}{link}</span> }
}
