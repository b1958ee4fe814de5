//! Invoices as the portal and finance see them: issued offline each month
//! (bank transfer), or mirrored from Stripe. Amounts are cents; the
//! customer's name, address and VAT ID are copied onto the invoice when it
//! is issued, so a later profile change does not rewrite history.

use anyhow::Context;
use domain::invoice::InvoiceStatus;
use domain::{InvoiceId, Money, OrganizationId, ServerId, VatTreatment};

use crate::db::EurCents;
use crate::Db;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Invoice {
    pub id: InvoiceId,
    pub organization_id: OrganizationId,
    pub number: Option<String>,
    pub status: InvoiceStatus,
    pub period_start: i64,
    pub period_end: i64,
    pub issued_at: i64,
    pub due_at: i64,
    pub paid_at: Option<i64>,
    #[sqlx(rename = "subtotal_cents", try_from = "EurCents")]
    pub subtotal: Money,
    #[sqlx(flatten, try_from = "StoredVat")]
    pub vat_treatment: VatTreatment,
    #[sqlx(rename = "vat_cents", try_from = "EurCents")]
    pub vat: Money,
    #[sqlx(rename = "total_cents", try_from = "EurCents")]
    pub total: Money,
    #[sqlx(rename = "credit_cents", try_from = "EurCents")]
    pub credit: Money,
    #[sqlx(rename = "amount_due_cents", try_from = "EurCents")]
    pub amount_due: Money,
    pub customer_name: String,
    pub customer_address: String,
    pub customer_country: String,
    pub customer_vat_id: Option<String>,
    pub billing_method: String,
    pub payment_reference: String,
    pub hosted_url: Option<String>,
    pub pdf_url: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct InvoiceLine {
    pub kind: String,
    pub description_zh: String,
    pub description_en: String,
    pub server_id: Option<ServerId>,
    pub plan_id: Option<String>,
    pub site_code: Option<String>,
    pub period_start: i64,
    pub period_end: i64,
    #[sqlx(rename = "amount_cents", try_from = "EurCents")]
    pub amount: Money,
}

/// How VAT was treated, stored as a kind and a rate.
#[derive(sqlx::FromRow)]
struct StoredVat {
    vat_treatment: String,
    vat_rate_bp: i64,
}

impl TryFrom<StoredVat> for VatTreatment {
    type Error = String;

    fn try_from(stored: StoredVat) -> Result<VatTreatment, String> {
        VatTreatment::from_stored(&stored.vat_treatment, stored.vat_rate_bp)
            .ok_or_else(|| format!("stored VAT treatment {:?}", stored.vat_treatment))
    }
}

pub(crate) const COLUMNS: &str = "id, organization_id, number, status, period_start, period_end, \
    issued_at, due_at, paid_at, subtotal_cents, vat_treatment, vat_rate_bp, vat_cents, total_cents, \
    credit_cents, amount_due_cents, customer_name, customer_address, customer_country, \
    customer_vat_id, billing_method, payment_reference, hosted_url, pdf_url";

impl Invoice {
    /// What is left to pay now: the amount due while the invoice is open,
    /// nothing once it is paid, void or written off. (`amount_due` keeps
    /// what the invoice asked for, which a paid invoice was paid.)
    pub fn outstanding(&self) -> Money {
        if self.status == InvoiceStatus::Open {
            self.amount_due
        } else {
            Money::eur(0)
        }
    }

    /// What settled the invoice: the amount due, once paid.
    pub fn settled(&self) -> Option<Money> {
        (self.status == InvoiceStatus::Paid).then_some(self.amount_due)
    }

    /// Issued but not paid, and past its due date.
    pub fn overdue(&self, now: i64) -> bool {
        self.status == InvoiceStatus::Open && self.due_at < now
    }
}

/// Filters of the invoice list; empty matches all.
#[derive(Clone, Debug, Default)]
pub struct InvoiceFilter {
    pub status: Option<InvoiceStatus>,
    /// `YYYY-MM`: invoices issued in that month (UTC).
    pub month: String,
}

/// The first and last second of a `YYYY-MM` month.
pub fn month_bounds(month: &str) -> Option<(i64, i64)> {
    let start = domain::time::parse_utc(&format!("{month}-01"))?;
    Some((start, domain::time::add_months(start, 1)))
}

/// Issued invoices, newest first; never drafts.
pub async fn list(
    db: &Db,
    organization_id: Option<&OrganizationId>,
    filter: &InvoiceFilter,
) -> anyhow::Result<Vec<Invoice>> {
    let (from, to) = month_bounds(&filter.month).unwrap_or((i64::MIN / 2, i64::MAX / 2));
    sqlx::query_as(&format!(
        "select {COLUMNS} from invoices where ($1 = '' or organization_id = $1) \
         and status <> 'draft' and ($2 = '' or status = $2) and issued_at >= $3 and issued_at < $4 \
         order by issued_at desc, id desc limit 1000"
    ))
    .bind(organization_id.map_or("", OrganizationId::as_str))
    .bind(filter.status.map_or("", |s| s.as_str()))
    .bind(from)
    .bind(to)
    .fetch_all(&db.pool)
    .await
    .context("listing invoices")
}

/// Up to `limit` of an organization's invoices matching `filter`, newest
/// first, below `after` (the previous page's last `(issued_at, id)`): cut
/// in the database, so every invoice can be paged to (the API's list).
pub async fn page(
    db: &Db,
    organization_id: &OrganizationId,
    filter: &InvoiceFilter,
    after: Option<(i64, &str)>,
    limit: i64,
) -> anyhow::Result<Vec<Invoice>> {
    let (from, to) = month_bounds(&filter.month).unwrap_or((i64::MIN / 2, i64::MAX / 2));
    sqlx::query_as(&format!(
        "select {COLUMNS} from invoices where organization_id = $1 \
         and status <> 'draft' and ($2 = '' or status = $2) and issued_at >= $3 and issued_at < $4 \
         and ($5 = 0 or issued_at < $6 or (issued_at = $6 and id < $7)) \
         order by issued_at desc, id desc limit $8"
    ))
    .bind(organization_id)
    .bind(filter.status.map_or("", |s| s.as_str()))
    .bind(from)
    .bind(to)
    .bind(i64::from(after.is_some()))
    .bind(after.map_or(0, |(at, _)| at))
    .bind(after.map_or("", |(_, id)| id))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("listing a page of invoices")
}

/// One invoice of an organization (`None` for anyone else's) with its lines.
/// A draft (mirrored before we stopped keeping them) is no invoice.
pub async fn get(
    db: &Db,
    organization_id: Option<&OrganizationId>,
    id: &InvoiceId,
) -> anyhow::Result<Option<(Invoice, Vec<InvoiceLine>)>> {
    let invoice: Option<Invoice> = sqlx::query_as(&format!(
        "select {COLUMNS} from invoices where id = $1 and ($2 = '' or organization_id = $2) \
         and status <> 'draft'"
    ))
    .bind(id)
    .bind(organization_id.map_or("", OrganizationId::as_str))
    .fetch_optional(&db.pool)
    .await
    .context("reading the invoice")?;
    let Some(invoice) = invoice else {
        return Ok(None);
    };
    let lines = sqlx::query_as(
        "select kind, description_zh, description_en, server_id, plan_id, site_code, period_start, \
         period_end, amount_cents from invoice_lines where invoice_id = $1 order by position",
    )
    .bind(id)
    .fetch_all(&db.pool)
    .await
    .context("reading invoice lines")?;
    Ok(Some((invoice, lines)))
}

/// Invoices as CSV for accounting: one row per invoice. Dates are days
/// (UTC); a service period is given by its first and last day, both
/// included, as the invoice page and the PDF print it (a term that ends
/// when 2027-01-01 begins reads 2026-12-01 – 2026-12-31). `amount_due` is
/// what is left to pay today; `paid` the day it was paid.
pub fn to_csv(invoices: &[Invoice]) -> String {
    let mut out = String::from(
        "number,issued,due,status,customer,country,vat_id,period_start,period_end,net,vat_treatment,vat_rate,vat,total,credit,amount_due,currency,paid\n",
    );
    for i in invoices {
        let cents = |m: Money| decimal(m.cents);
        let row = [
            i.number.clone().unwrap_or_default(),
            domain::time::format_date(i.issued_at),
            domain::time::format_date(i.due_at),
            i.status.to_string(),
            i.customer_name.clone(),
            i.customer_country.clone(),
            i.customer_vat_id.clone().unwrap_or_default(),
            domain::time::format_date(i.period_start),
            domain::time::format_date(period_last_day(i.period_end)),
            cents(i.subtotal),
            i.vat_treatment.kind().to_owned(),
            domain::order::format_rate(i.vat_treatment.rate_bp()),
            cents(i.vat),
            cents(i.total),
            cents(i.credit),
            cents(i.outstanding()),
            i.total.currency.code().to_owned(),
            i.paid_at.map(domain::time::format_date).unwrap_or_default(),
        ];
        out.push_str(&crate::csv::row(&row));
    }
    out
}

/// The last day of a period stored with its exclusive end (the moment the
/// next one begins).
pub fn period_last_day(period_end: i64) -> i64 {
    period_end - 86_400
}

/// Cents as a plain decimal with its sign: -50 is `-0.50` (integer
/// division used to drop the sign of amounts under one euro).
fn decimal(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    format!("{sign}{}.{:02}", abs / 100, abs % 100)
}

#[cfg(test)]
mod tests {
    use super::decimal;
    use crate::csv::field as csv_field;

    #[test]
    fn negative_amounts_keep_their_sign_and_stay_numbers() {
        assert_eq!(decimal(-50), "-0.50");
        assert_eq!(decimal(-12_345), "-123.45");
        assert_eq!(decimal(7), "0.07");
        assert_eq!(decimal(30_734), "307.34");
        assert_eq!(csv_field(&decimal(-50)), "-0.50");
        assert_eq!(csv_field("-1+2"), "'-1+2");
        assert_eq!(csv_field("=SUM(A1)"), "'=SUM(A1)");
        assert_eq!(csv_field("-"), "'-");
    }
}
