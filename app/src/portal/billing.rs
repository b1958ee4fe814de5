//! The billing page (owners and billing members): the billing profile,
//! invoices with filters and a monthly CSV export, and credit notes.

use domain::order::COUNTRIES;
use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice, Notice};
use super::nav::PortalNav;
use super::{from_parts, query, use_feedback};
use crate::i18n::billing;
use crate::shell::route_lang;
use crate::storefront::href;
use crate::storefront::layout::Page;
use crate::storefront::not_found::NotFound;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvoiceRow {
    pub id: String,
    pub number: String,
    pub status: String,
    pub overdue: bool,
    pub issued_at: i64,
    pub due_at: i64,
    pub period_start: i64,
    pub period_end: i64,
    pub total: Money,
    pub amount_due: Money,
    pub customer: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProfileValues {
    pub legal_name: String,
    pub address: String,
    pub postal_code: String,
    pub city: String,
    pub country: String,
    pub vat_id: String,
    pub billing_email: String,
}

/// What VIES said about the saved VAT ID (EU countries only).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct VatIdCheckView {
    pub vat_id: String,
    /// `valid`, `invalid` or `unchecked`.
    pub status: String,
    /// The registered name, where the member state discloses it.
    pub name: Option<String>,
    /// When VIES last answered.
    pub checked_at: Option<i64>,
    /// The profile's country, whose rate applies without reverse charge.
    pub country: String,
    /// Reverse charge hangs on it: an EU country other than the seller's.
    pub decides_vat: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BillingView {
    pub profile: ProfileValues,
    pub vat_id_check: Option<VatIdCheckView>,
    pub invoices: Vec<InvoiceRow>,
    /// (number, reason, amount, remaining, issued at)
    pub credit_notes: Vec<(String, String, Money, Money, i64)>,
    pub filter_status: String,
    pub filter_month: String,
    /// Payment methods are managed in Stripe's Billing Portal.
    pub stripe: bool,
}

pub const STATUSES: [&str; 5] = ["draft", "open", "paid", "void", "uncollectible"];

fn period(start: i64, end: i64) -> String {
    // The period's last day is the day before the next one starts.
    format!(
        "{} – {}",
        domain::time::format_date(start),
        domain::time::format_date(end - 86_400)
    )
}

/// A row of an invoice table: the organization's and finance's.
#[component]
pub fn InvoiceTableRow(
    lang: Lang,
    row: InvoiceRow,
    #[prop(optional)] customer: bool,
    #[prop(optional)] base: &'static str,
) -> impl IntoView {
    let b = billing(lang);
    let link = if base.is_empty() { "/invoices" } else { base };
    let status = if row.overdue {
        b.overdue
    } else {
        (b.status)(&row.status)
    };
    view! {
        <tr data-invoice=row.number.clone() data-status=row.status.clone()>
            <th scope="row"><a href=href(lang, &format!("{link}/{}", row.id))>{row.number.clone()}</a></th>
            {customer.then(|| view! { <td>{row.customer.clone()}</td> })}
            <td>{domain::time::format_date(row.issued_at)}</td>
            <td>{domain::time::format_date(row.due_at)}</td>
            <td>{period(row.period_start, row.period_end)}</td>
            <td class="num">{row.total.format(lang)}</td>
            <td class="num">{row.amount_due.format(lang)}</td>
            <td class:overdue=row.overdue>{status}</td>
        </tr>
    }
}

#[component]
pub fn InvoiceTableHead(lang: Lang, #[prop(optional)] customer: bool) -> impl IntoView {
    let b = billing(lang);
    view! {
        <thead>
            <tr>
                <th scope="col">{b.col_number}</th>
                {customer.then(|| view! { <th scope="col">{b.col_customer}</th> })}
                <th scope="col">{b.col_issued}</th>
                <th scope="col">{b.col_due}</th>
                <th scope="col">{b.col_period}</th>
                <th scope="col" class="num">{b.col_total}</th>
                <th scope="col" class="num">{b.col_amount_due}</th>
                <th scope="col">{b.col_status}</th>
            </tr>
        </thead>
    }
}

/// The saved VAT ID's standing in VIES and what it means for VAT.
#[component]
fn VatIdCheckNotice(lang: Lang, check: VatIdCheckView) -> impl IntoView {
    let b = billing(lang);
    // Chinese sentences follow each other without a space.
    let sep = match lang {
        Lang::Zh => "",
        Lang::En => " ",
    };
    let country =
        COUNTRIES
            .iter()
            .find(|c| c.code == check.country)
            .map_or(check.country.as_str(), |c| match lang {
                Lang::Zh => c.zh,
                Lang::En => c.en,
            });
    let mut sentences = Vec::new();
    match check.status.as_str() {
        "valid" => {
            let date = check
                .checked_at
                .map(domain::time::format_date)
                .unwrap_or_default();
            sentences.push((b.vat_valid)(&check.vat_id, &date));
            if let Some(name) = &check.name {
                sentences.push((b.vat_registered_to)(name));
            }
            if check.decides_vat {
                sentences.push(b.vat_reverse_charged.to_owned());
            }
        }
        "invalid" => {
            sentences.push((b.vat_invalid)(&check.vat_id));
            if check.decides_vat {
                sentences.push((b.vat_charged_until_corrected)(country));
            }
        }
        _ => {
            sentences.push((b.vat_unchecked)(&check.vat_id));
            sentences.push(if check.decides_vat {
                (b.vat_charged_until_checked)(country)
            } else {
                b.vat_retried.to_owned()
            });
        }
    }
    let class = if check.status == "valid" {
        "notice notice-ok"
    } else {
        "notice"
    };
    view! {
        <p class=class id="vat-status" data-testid="vat-status" data-vat-status=check.status.clone()>
            <strong>{(b.vat_status)(&check.status)}</strong>{sep}{sentences.join(sep)}
        </p>
    }
}

#[component]
pub fn BillingPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/billing" /> }.into_any();
    }
    let Some(view) = from_parts::<BillingView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let b = billing(lang);
    let feedback = use_feedback();
    let value = move |name: &str, stored: &str| {
        let typed = feedback.value(name);
        if feedback.error.is_some() {
            typed
        } else {
            stored.to_owned()
        }
    };
    let p = view.profile.clone();
    let vat_check = view.vat_id_check.clone();
    let vat_described = if vat_check.is_some() {
        "vat-hint vat-status"
    } else {
        "vat-hint"
    };
    let country = value("country", &p.country);
    let countries = COUNTRIES
        .iter()
        .map(|c| {
            let name = match lang {
                Lang::Zh => c.zh,
                Lang::En => c.en,
            };
            view! { <option value=c.code selected=country == c.code>{name}</option> }
        })
        .collect_view();
    let done = query("done").map(|_| b.saved);
    let empty = view.invoices.is_empty();
    let rows = view
        .invoices
        .into_iter()
        .map(|row| view! { <InvoiceTableRow lang row /> })
        .collect_view();
    let statuses = STATUSES
        .iter()
        .map(|s| view! { <option value=*s selected=view.filter_status == *s>{(b.status)(s)}</option> })
        .collect_view();
    let month = view.filter_month.clone();
    let export_month = month.clone();
    let credits = view
        .credit_notes
        .iter()
        .map(|(number, reason, amount, remaining, at)| {
            view! {
                <tr data-credit=number.clone()>
                    <th scope="row">{number.clone()}</th>
                    <td>{domain::time::format_date(*at)}</td>
                    <td>{reason.clone()}</td>
                    <td class="num">{amount.format(lang)}</td>
                    <td class="num">{remaining.format(lang)}</td>
                </tr>
            }
        })
        .collect_view();
    let has_credits = !view.credit_notes.is_empty();
    view! {
        <Page lang title=b.title.to_owned() description=b.title.to_owned() rest="/billing".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="billing-title">
                <PortalNav lang />
                <h1 id="billing-title">{b.title}</h1>
                <p class="lead">{b.intro}</p>
                <FormErrorNotice lang />
                <Notice text=done />
                {view.stripe.then(|| view! {
                    <form method="post" action=href(lang, "/billing/portal") class="inline">
                        <CsrfField />
                        <button type="submit" class="secondary">{b.payment_methods}</button>
                    </form>
                })}
                <h2 id="invoices">{b.invoices_title}</h2>
                <form method="get" action=href(lang, "/billing") class="choice">
                    <div class="field">
                        <label for="status">{b.filter_status}</label>
                        <select id="status" name="status">
                            <option value="" selected=view.filter_status.is_empty()>{b.all}</option>
                            {statuses}
                        </select>
                    </div>
                    <div class="field">
                        <label for="month">{b.filter_month}</label>
                        <input id="month" name="month" type="month" value=month />
                    </div>
                    <button type="submit">{b.filter_submit}</button>
                </form>
                {(!view.filter_month.is_empty()).then(|| view! {
                    <p><a href=href(lang, &format!("/billing/export?month={export_month}")) data-testid="export-csv">{b.export_csv}</a></p>
                })}
                {if empty {
                    view! { <p>{b.no_invoices}</p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=b.invoices_title>
                            <table class="invoices"><InvoiceTableHead lang /><tbody>{rows}</tbody></table>
                        </div>
                    }
                    .into_any()
                }}
                {has_credits.then(|| view! {
                    <h2>{b.credit_title}</h2>
                    <div class="table-scroll" role="region" tabindex="0" aria-label=b.credit_title>
                        <table class="credit-notes">
                            <thead>
                                <tr>
                                    <th scope="col">{b.col_number}</th>
                                    <th scope="col">{b.col_issued}</th>
                                    <th scope="col">{b.credit_reason}</th>
                                    <th scope="col" class="num">{b.credit_amount}</th>
                                    <th scope="col" class="num">{b.credit_remaining}</th>
                                </tr>
                            </thead>
                            <tbody>{credits}</tbody>
                        </table>
                    </div>
                })}
                <h2 id="profile">{b.profile_title}</h2>
                <form method="post" action=href(lang, "/billing/profile")>
                    <CsrfField />
                    <div class="field">
                        <label for="legal_name">{b.legal_name}</label>
                        <input id="legal_name" name="legal_name" value=value("legal_name", &p.legal_name) required maxlength="200" autocomplete="organization" />
                    </div>
                    <div class="field">
                        <label for="address">{b.address}</label>
                        <input id="address" name="address" value=value("address", &p.address) required maxlength="300" autocomplete="street-address" />
                    </div>
                    <div class="field">
                        <label for="postal_code">{b.postal_code}</label>
                        <input id="postal_code" name="postal_code" value=value("postal_code", &p.postal_code) required maxlength="20" autocomplete="postal-code" />
                    </div>
                    <div class="field">
                        <label for="city">{b.city}</label>
                        <input id="city" name="city" value=value("city", &p.city) required maxlength="100" autocomplete="address-level2" />
                    </div>
                    <div class="field">
                        <label for="country">{b.country}</label>
                        <select id="country" name="country" required>
                            <option value="" selected=country.is_empty()>{crate::i18n::orders(lang).order_country_choose}</option>
                            {countries}
                        </select>
                    </div>
                    <div class="field">
                        <label for="vat_id">{b.vat_id}</label>
                        <input id="vat_id" name="vat_id" value=value("vat_id", &p.vat_id) maxlength="40" aria-describedby=vat_described />
                        <p class="hint" id="vat-hint">{b.vat_id_hint}</p>
                        {vat_check.map(|check| view! { <VatIdCheckNotice lang check /> })}
                    </div>
                    <div class="field">
                        <label for="billing_email">{b.billing_email}</label>
                        <input id="billing_email" name="billing_email" type="email" value=value("billing_email", &p.billing_email) required autocomplete="email" />
                    </div>
                    <button type="submit">{b.save}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}
