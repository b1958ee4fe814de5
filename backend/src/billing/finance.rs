//! Finance's view across organizations: revenue invoiced (net, ex VAT) by
//! month, plan and site, from the lines of every invoice that isn't void;
//! the invoices still to settle (settling them is `settlement`).

use anyhow::Context;
use domain::Money;
use sqlx::Row;
use std::collections::BTreeMap;

use crate::Db;

/// The name finance knows a customer by: the legal name of its billing
/// profile (what its invoices are addressed to), else the organization's
/// own name. An expression over `organizations o`.
pub(crate) const CUSTOMER_NAME: &str =
    "coalesce((select nullif(p.legal_name, '') from billing_profiles p \
     where p.organization_id = o.id), o.name)";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Revenue {
    /// `YYYY-MM` of issue, newest first.
    pub by_month: Vec<(String, Money)>,
    pub by_plan: Vec<(String, Money)>,
    pub by_site: Vec<(String, Money)>,
}

pub async fn revenue(db: &Db) -> anyhow::Result<Revenue> {
    let rows = sqlx::query(
        "select i.issued_at, l.plan_id, l.site_code, l.amount_cents from invoice_lines l \
         join invoices i on i.id = l.invoice_id where i.status in ('open', 'paid')",
    )
    .fetch_all(&db.pool)
    .await
    .context("reading invoiced revenue")?;
    let (mut month, mut plan, mut site) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    for r in &rows {
        let at: i64 = r.try_get("issued_at")?;
        let cents: i64 = r.try_get("amount_cents")?;
        let key = domain::time::format_date(at)[..7].to_owned();
        *month.entry(key).or_insert(0) += cents;
        let p: Option<String> = r.try_get("plan_id")?;
        *plan.entry(p.unwrap_or_default()).or_insert(0) += cents;
        let s: Option<String> = r.try_get("site_code")?;
        *site.entry(s.unwrap_or_default()).or_insert(0) += cents;
    }
    let money = |m: BTreeMap<String, i64>| -> Vec<(String, Money)> {
        m.into_iter().map(|(k, c)| (k, Money::eur(c))).collect()
    };
    let mut by_month = money(month);
    by_month.reverse();
    Ok(Revenue {
        by_month,
        by_plan: money(plan),
        by_site: money(site),
    })
}

/// Every organization, for the credit note form: (id, legal name).
pub async fn organizations(db: &Db) -> anyhow::Result<Vec<(String, String)>> {
    sqlx::query(&format!(
        "select o.id, {CUSTOMER_NAME} as name from organizations o order by name, o.id"
    ))
    .fetch_all(&db.pool)
    .await
    .context("listing organizations")?
    .iter()
    .map(|r| Ok((r.try_get("id")?, r.try_get("name")?)))
    .collect()
}

/// Open invoices of every organization with the customer's name, oldest
/// due first.
pub async fn open_invoices(db: &Db) -> anyhow::Result<Vec<(super::invoices::Invoice, String)>> {
    let columns = super::invoices::COLUMNS
        .split(", ")
        .map(|c| format!("i.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ");
    sqlx::query(&format!(
        "select {columns}, {CUSTOMER_NAME} as customer from invoices i \
         join organizations o on o.id = i.organization_id \
         where i.status = 'open' order by i.due_at, i.id"
    ))
    .fetch_all(&db.pool)
    .await
    .context("listing open invoices")?
    .iter()
    .map(|r| {
        Ok((
            <super::invoices::Invoice as sqlx::FromRow<_>>::from_row(r)?,
            r.try_get("customer")?,
        ))
    })
    .collect()
}

/// A disputed payment as finance sees it.
pub struct Disputed {
    pub number: String,
    pub organization: String,
    pub total_cents: i64,
    pub since: i64,
    /// Stripe's dispute status: `needs_response`, `under_review`, … or
    /// `lost` (closed, the money gone back).
    pub status: String,
}

/// Invoices with an open payment dispute, or one that was lost, newest
/// first.
pub async fn disputed(db: &Db) -> anyhow::Result<Vec<Disputed>> {
    sqlx::query(&format!(
        "select coalesce(i.number, i.stripe_invoice_id, i.id) as number, {CUSTOMER_NAME} as name, \
         i.total_cents, i.disputed_at, coalesce(i.dispute_status, 'needs_response') as status \
         from invoices i join organizations o on o.id = i.organization_id \
         where i.disputed_at is not null order by i.disputed_at desc, i.id"
    ))
    .fetch_all(&db.pool)
    .await
    .context("listing disputed invoices")?
    .iter()
    .map(|r| {
        Ok(Disputed {
            number: r.try_get("number")?,
            organization: r.try_get("name")?,
            total_cents: r.try_get("total_cents")?,
            since: r.try_get("disputed_at")?,
            status: r.try_get("status")?,
        })
    })
    .collect()
}
