//! Finance (staff): revenue invoiced by month, plan and site; open and
//! overdue invoices of every organization, settled as transfers arrive
//! (`settle`); credit notes.

use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice, Notice};
use super::nav::PortalNav;
use super::query;
use super::settle::{OpenInvoice, OpenInvoiceCard, SettledRow, SettledTable};
use super::staff::StaffNav;
use crate::i18n::billing;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FinanceView {
    pub by_month: Vec<(String, Money)>,
    pub by_plan: Vec<(String, Money)>,
    pub by_site: Vec<(String, Money)>,
    pub open: Vec<OpenInvoice>,
    /// Invoices finance settled by hand, most recent first.
    pub settled: Vec<SettledRow>,
    /// `YYYY-MM-DD` (UTC): the latest payment date the forms accept.
    pub today: String,
    /// (id, legal name) for the credit note form.
    pub organizations: Vec<(String, String)>,
    /// Payments the customer's bank is disputing.
    pub disputed: Vec<DisputedRow>,
    /// Stripe events stored but not applied: (id, type, why).
    pub held_events: Vec<(String, String, String)>,
    /// Credit customers without a server left are owed by transfer.
    pub refunds_due: Vec<RefundDueRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RefundDueRow {
    pub number: String,
    pub organization: String,
    pub amount: Money,
    pub since: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DisputedRow {
    pub number: String,
    pub organization: String,
    pub amount: Money,
    pub since: String,
    /// Closed against us: the bank took the payment back.
    pub lost: bool,
}

#[component]
pub fn FinancePage(lang: Lang, view: FinanceView) -> impl IntoView {
    let b = billing(lang);
    let s = crate::i18n::staff(lang);
    let done = match query("done").as_deref() {
        Some("paid") => Some(b.finance_paid_done),
        Some("credit") => Some(b.finance_credit_done),
        Some("closed") => Some(b.finance_closed_done),
        Some("refunded") => Some(b.finance_refunded_done),
        _ => None,
    };
    let table = move |title: &'static str, rows: Vec<(String, Money)>| {
        let body = rows
            .into_iter()
            .map(|(k, m)| {
                let key = k.clone();
                view! { <tr data-revenue=key><th scope="row">{k}</th><td class="num">{m.format(lang)}</td></tr> }
            })
            .collect_view();
        view! {
            <div class="revenue">
                <h3>{title}</h3>
                <table>
                    <thead><tr><th scope="col">{title}</th><th scope="col" class="num">{b.finance_net}</th></tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
        }
    };
    let today = view.today.clone();
    // Each list says when it is empty rather than showing a bare heading.
    let empty = |is_empty: bool, text: &'static str| {
        is_empty.then(|| view! { <p class="empty">{text}</p> })
    };
    let no_open = empty(view.open.is_empty(), s.none_open);
    let no_disputed = empty(view.disputed.is_empty(), s.none);
    let no_held = empty(view.held_events.is_empty(), s.none);
    let no_refunds = empty(view.refunds_due.is_empty(), s.none);
    let open = view
        .open
        .into_iter()
        .map(|invoice| view! { <OpenInvoiceCard lang invoice today=today.clone() /> })
        .collect_view();
    let disputed = view
        .disputed
        .into_iter()
        .map(|d| {
            let number = d.number.clone();
            view! {
                <tr data-disputed=number data-lost=d.lost.then_some("true")>
                    <th scope="row">{d.number}</th>
                    <td>{d.organization}</td>
                    <td class="num">{d.amount.format(lang)}</td>
                    <td>{b.finance_disputed_since}" "{d.since}</td>
                    <td>{d.lost.then_some(b.finance_dispute_lost)}</td>
                </tr>
            }
        })
        .collect_view();
    let held = view
        .held_events
        .into_iter()
        .map(|(id, kind, why)| {
            let key = id.clone();
            view! { <tr data-held-event=key><th scope="row"><code>{id}</code></th><td>{kind}</td><td>{why}</td></tr> }
        })
        .collect_view();
    let refunds = view
        .refunds_due
        .into_iter()
        .map(|r| {
            let (number, key) = (r.number.clone(), r.number.clone());
            view! {
                <tr data-refund-due=key>
                    <th scope="row">{r.number}</th>
                    <td>{r.organization}</td>
                    <td class="num">{r.amount.format(lang)}</td>
                    <td>{r.since}</td>
                    <td>
                        <form method="post" action=href(lang, "/staff/finance/refunded") class="inline">
                            <CsrfField />
                            <input type="hidden" name="credit_note" value=number />
                            <button type="submit" class="secondary">{b.finance_mark_refunded}</button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let organizations = view
        .organizations
        .iter()
        .map(|(id, name)| view! { <option value=id.clone()>{name.clone()}</option> })
        .collect_view();
    view! {
        <Page lang title=b.finance_title.to_owned() description=b.finance_title.to_owned() rest="/staff/finance".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="finance-title">
                <PortalNav lang />
                <StaffNav lang />
                <h1 id="finance-title">{b.finance_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                <h2>{b.finance_revenue}</h2>
                <div class="revenue-tables">
                    {table(b.finance_by_month, view.by_month)}
                    {table(b.finance_by_plan, view.by_plan)}
                    {table(b.finance_by_site, view.by_site)}
                </div>
                <h2>{b.finance_open}</h2>
                {no_open}
                <ul class="cards open-invoices">{open}</ul>
                <h2>{s.settled_title}</h2>
                <p>{s.settled_hint}</p>
                <SettledTable lang rows=view.settled />
                <h2>{b.finance_refunds_due}</h2>
                <p>{b.finance_refunds_due_hint}</p>
                {no_refunds}
                <div class="table-scroll" role="region" tabindex="0" aria-label=b.finance_refunds_due>
                    <table><tbody>{refunds}</tbody></table>
                </div>
                <h2>{b.finance_disputed}</h2>
                <p>{b.finance_disputed_hint}</p>
                {no_disputed}
                <div class="table-scroll" role="region" tabindex="0" aria-label=b.finance_disputed>
                    <table><tbody>{disputed}</tbody></table>
                </div>
                <h2>{b.finance_held}</h2>
                <p>{b.finance_held_hint}</p>
                {no_held}
                <div class="table-scroll" role="region" tabindex="0" aria-label=b.finance_held>
                    <table><tbody>{held}</tbody></table>
                </div>
                <h2>{b.finance_credit_title}</h2>
                <form method="post" action=href(lang, "/staff/finance/credit")>
                    <CsrfField />
                    <div class="field">
                        <label for="organization">{b.finance_organization}</label>
                        <select id="organization" name="organization">{organizations}</select>
                    </div>
                    <div class="field">
                        <label for="amount">{b.credit_amount}</label>
                        <input id="amount" name="amount" inputmode="decimal" required pattern="[0-9]+([.,][0-9]{1,2})?" />
                    </div>
                    <div class="field">
                        <label for="reason">{b.credit_reason}</label>
                        <input id="reason" name="reason" required maxlength="200" />
                    </div>
                    <button type="submit">{b.finance_credit_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(FinanceView => FinancePage(view));
