//! One invoice, laid out as the document itself: seller, customer, number,
//! dates, lines, VAT, total, credit, amount due and how to pay. The print
//! stylesheet makes "print or save as PDF" give the same document.

use crate::pages::billing::{period, status_text, InvoiceRow};
use app::i18n::billing;
use app::storefront::href;
use app::storefront::layout::Page;
use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SellerView {
    pub name: String,
    pub address: String,
    pub vat_id: String,
    pub iban: String,
    pub bic: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct InvoiceView {
    pub row: InvoiceRow,
    /// (description zh, description en, period start, period end, amount)
    pub lines: Vec<(String, String, i64, i64, Money)>,
    pub subtotal: Money,
    /// `charged`, `reverse_charge` or `outside_eu`.
    pub vat_kind: String,
    pub vat_rate_bp: i64,
    pub vat: Money,
    pub credit: Money,
    pub customer_name: String,
    pub customer_address: String,
    pub customer_country: String,
    pub customer_vat_id: Option<String>,
    pub seller: SellerView,
    pub payment_reference: String,
    /// What the payment settled (the amount that was due), once paid.
    pub paid: Option<Money>,
    /// Where "all invoices" leads: the billing page or finance.
    pub back: String,
    /// Stripe's PDF for invoices Stripe issued.
    pub pdf_url: Option<String>,
}

#[component]
pub fn InvoicePage(lang: Lang, v: InvoiceView) -> impl IntoView {
    let b = billing(lang);
    let row = v.row.clone();
    let lines = v
        .lines
        .iter()
        .map(|(zh, en, start, end, amount)| {
            let text = match lang {
                Lang::Zh => zh.clone(),
                Lang::En => en.clone(),
            };
            view! {
                <tr>
                    <td>{text}<span class="period">{format!(" ({})", period(*start, *end))}</span></td>
                    <td class="num">{amount.format(lang)}</td>
                </tr>
            }
        })
        .collect_view();
    // The address as issued: street, then postal code and city.
    let address_lines = v
        .customer_address
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| view! { {l.to_owned()}<br /> })
        .collect_view();
    let vat_label = match v.vat_kind.as_str() {
        "reverse_charge" => b.invoice_reverse_charge.to_owned(),
        "outside_eu" => b.invoice_outside_eu.to_owned(),
        _ => (b.invoice_vat)(v.vat_rate_bp),
    };
    let status = status_text(lang, &row);
    let open = row.status == domain::invoice::InvoiceStatus::Open;
    let paid = v.paid.zip(row.paid_at).map(|(amount, at)| {
        view! {
            <tr><th scope="row">{(b.paid_on_date)(&domain::time::format_date(at))}</th><td class="num" data-testid="invoice-paid">{format!("-{}", amount.format(lang))}</td></tr>
        }
    });
    view! {
        <Page lang title=format!("{} {}", b.invoice_title, row.number) description=b.invoice_title.to_owned() rest=crate::pages::staff::switch_rest(&format!("/invoices/{}", row.id)) noindex=true>
            <section class="section invoice-doc" aria-labelledby="invoice-title">
                <crate::pages::staff::StaffNav lang />
                <p class="no-print">
                    <a href=href(lang, &v.back)>{b.invoice_back}</a>
                    " · "
                    <a href=href(lang, &format!("{}/invoices/{}/pdf", v.back.trim_end_matches("/billing"), row.id)) data-testid="invoice-pdf" download>{b.invoice_pdf}</a>
                </p>
                <header class="invoice-head">
                    <div>
                        <h1 id="invoice-title">{b.invoice_title}" "<span data-testid="invoice-number">{row.number.clone()}</span></h1>
                        <p class=format!("state-badge invoice-{}", row.status.as_str()) data-testid="invoice-status">{status}</p>
                    </div>
                    <address>
                        <strong>{v.seller.name.clone()}</strong><br />
                        {v.seller.address.clone()}<br />
                        {format!("{} {}", b.vat_prefix, v.seller.vat_id)}
                    </address>
                </header>
                <dl class="facts invoice-facts">
                    <dt>{b.invoice_to}</dt>
                    <dd>
                        <strong data-testid="bill-to-name">{v.customer_name.clone()}</strong><br />
                        {address_lines}
                        {domain::order::country_name(&v.customer_country, lang)}
                        {v.customer_vat_id.clone().map(|id| view! { <br />{format!("{} {id}", b.vat_prefix)} })}
                    </dd>
                    <dt>{b.invoice_date}</dt><dd>{domain::time::format_date(row.issued_at)}</dd>
                    <dt>{b.col_due}</dt><dd>{domain::time::format_date(row.due_at)}</dd>
                    <dt>{b.invoice_period}</dt>
                    <dd>{period(row.period_start, row.period_end)}</dd>
                </dl>
                <p class="hint">{b.dates_utc}</p>
                <table class="invoice-lines">
                    <thead><tr><th scope="col">{b.invoice_line}</th><th scope="col" class="num">{b.invoice_amount}</th></tr></thead>
                    <tbody>{lines}</tbody>
                    <tfoot>
                        <tr><th scope="row">{b.invoice_subtotal}</th><td class="num">{v.subtotal.format(lang)}</td></tr>
                        <tr><th scope="row">{vat_label}</th><td class="num">{v.vat.format(lang)}</td></tr>
                        <tr class="total"><th scope="row">{b.invoice_total}</th><td class="num" data-testid="invoice-total">{row.total.format(lang)}</td></tr>
                        {(v.credit.cents > 0).then(|| view! {
                            <tr><th scope="row">{b.invoice_credit}</th><td class="num">{format!("-{}", v.credit.format(lang))}</td></tr>
                        })}
                        {paid}
                        <tr class="total"><th scope="row">{b.invoice_amount_due}</th><td class="num" data-testid="invoice-due">{row.amount_due.format(lang)}</td></tr>
                    </tfoot>
                </table>
                {open.then(|| view! {
                    <div class="pay-by">
                        <p>{b.invoice_pay_by_transfer}</p>
                        <dl class="facts">
                            <dt>{b.invoice_iban}</dt><dd><code>{v.seller.iban.clone()}</code></dd>
                            <dt>{b.invoice_bic}</dt><dd><code>{v.seller.bic.clone()}</code></dd>
                            <dt>{b.invoice_reference}</dt><dd><code>{v.payment_reference.clone()}</code></dd>
                        </dl>
                    </div>
                })}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(InvoiceView => InvoicePage(v));
