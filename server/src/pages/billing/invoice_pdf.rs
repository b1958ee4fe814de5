//! The PDF of an offline invoice: the same facts as the invoice page, in
//! the reader's language, handed to the PDF layout in backend::billing::pdf.
//! Stripe's invoices have a PDF of Stripe's, which the download redirects
//! to.

use crate::http::page::{PageError, PageResult};
use crate::pages::billing::invoice::InvoiceView;
use crate::pages::billing::invoice_view;
use crate::pages::billing::{period, status_text};
use crate::startup::AppState;
use anyhow::anyhow;
use app::i18n::billing;
use axum::response::{IntoResponse, Redirect};
use backend::billing::pdf::InvoiceDocument;
use domain::time::format_date;
use domain::{InvoiceId, Lang, OrganizationId};

/// The invoice as a PDF download (of the caller's organization, or any for
/// staff); another organization's is not found.
pub(crate) async fn response(
    state: &AppState,
    lang: Lang,
    organization_id: Option<&OrganizationId>,
    id: &InvoiceId,
) -> PageResult {
    Ok(invoice_pdf(state, lang, organization_id, id)
        .await?
        .ok_or(PageError::NotFound)?
        .into_response())
}

/// An invoice's PDF: Stripe's, to send the reader to, or ours.
pub enum InvoicePdf {
    Elsewhere(String),
    /// `file_name` carries the language: the same invoice downloaded in
    /// both is two files side by side, not one overwriting the other.
    Rendered {
        file_name: String,
        bytes: Vec<u8>,
    },
}

impl IntoResponse for InvoicePdf {
    fn into_response(self) -> axum::response::Response {
        match self {
            InvoicePdf::Elsewhere(url) => Redirect::to(&url).into_response(),
            InvoicePdf::Rendered { file_name, bytes } => (
                [
                    (http::header::CONTENT_TYPE, "application/pdf".to_owned()),
                    (
                        http::header::CONTENT_DISPOSITION,
                        format!("attachment; filename=\"{file_name}\""),
                    ),
                ],
                bytes,
            )
                .into_response(),
        }
    }
}

/// The PDF of an invoice (of `organization_id`, or any for staff), in
/// `lang`; `None` if there is no such invoice. The portal's download and
/// the API's both answer with it.
pub async fn invoice_pdf(
    state: &AppState,
    lang: Lang,
    organization_id: Option<&OrganizationId>,
    id: &InvoiceId,
) -> anyhow::Result<Option<InvoicePdf>> {
    let Some(view) = invoice_view(state, organization_id, id, "").await? else {
        return Ok(None);
    };
    if let Some(url) = &view.pdf_url {
        return Ok(Some(InvoicePdf::Elsewhere(url.clone())));
    }
    if view.row.number.is_empty() {
        // An invoice is a document only with its number.
        return Ok(None);
    }
    let font = state
        .invoice_font
        .clone()
        .ok_or_else(|| anyhow!("no invoice font (INVOICE_FONT)"))?;
    let document = document(lang, &view);
    let bytes =
        tokio::task::spawn_blocking(move || backend::billing::pdf::render(&document, &font))
            .await
            .map_err(|error| anyhow!("rendering a PDF panicked: {error}"))??;
    Ok(Some(InvoicePdf::Rendered {
        file_name: format!("{}-{}.pdf", view.row.number, lang.code()),
        bytes,
    }))
}

pub fn document(lang: Lang, v: &InvoiceView) -> InvoiceDocument {
    let b = billing(lang);
    let row = &v.row;
    let mut customer_lines = vec![v.customer_name.clone()];
    customer_lines.extend(
        v.customer_address
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned),
    );
    customer_lines.push(domain::order::country_name(&v.customer_country, lang));
    if let Some(id) = &v.customer_vat_id {
        customer_lines.push(format!("{} {id}", b.vat_prefix));
    }
    let vat_label = match v.vat_kind.as_str() {
        "reverse_charge" => b.invoice_reverse_charge.to_owned(),
        "outside_eu" => b.invoice_outside_eu.to_owned(),
        _ => (b.invoice_vat)(v.vat_rate_bp),
    };
    let mut totals = vec![
        (
            b.invoice_subtotal.to_owned(),
            v.subtotal.format(lang),
            false,
        ),
        (vat_label, v.vat.format(lang), false),
        (b.invoice_total.to_owned(), row.total.format(lang), true),
    ];
    if v.credit.cents > 0 {
        totals.push((
            b.invoice_credit.to_owned(),
            format!("-{}", v.credit.format(lang)),
            false,
        ));
    }
    if let (Some(amount), Some(at)) = (v.paid, row.paid_at) {
        totals.push((
            (b.paid_on_date)(&format_date(at)),
            format!("-{}", amount.format(lang)),
            false,
        ));
    }
    totals.push((
        b.invoice_amount_due.to_owned(),
        row.amount_due.format(lang),
        true,
    ));
    let payment_lines = if row.status == domain::invoice::InvoiceStatus::Open {
        vec![
            b.invoice_pay_by_transfer.to_owned(),
            format!("{}: {}", b.invoice_iban, v.seller.iban),
            format!("{}: {}", b.invoice_bic, v.seller.bic),
            format!("{}: {}", b.invoice_reference, v.payment_reference),
        ]
    } else {
        Vec::new()
    };
    let status = status_text(lang, row);
    let mut facts = vec![
        (b.invoice_date.to_owned(), format_date(row.issued_at)),
        (b.col_due.to_owned(), format_date(row.due_at)),
        (
            b.invoice_period.to_owned(),
            period(row.period_start, row.period_end),
        ),
    ];
    if let Some(at) = row.paid_at {
        facts.push((b.invoice_paid_on.to_owned(), format_date(at)));
    }
    InvoiceDocument {
        lang,
        title: b.invoice_title.to_owned(),
        number: row.number.clone(),
        status,
        seller_lines: vec![
            v.seller.name.clone(),
            v.seller.address.clone(),
            format!("{} {}", b.vat_prefix, v.seller.vat_id),
        ],
        customer_lines,
        facts,
        lines: v
            .lines
            .iter()
            .map(|(zh, en, start, end, amount)| {
                let text = match lang {
                    Lang::Zh => zh,
                    Lang::En => en,
                };
                (
                    format!("{text} ({})", period(*start, *end)),
                    amount.format(lang),
                )
            })
            .collect(),
        totals,
        payment_lines,
        footer: format!(
            "{} · {} · {} {}",
            v.seller.name, v.seller.address, b.vat_prefix, v.seller.vat_id
        ),
    }
}
