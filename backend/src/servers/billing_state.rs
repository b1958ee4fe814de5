//! What an unpaid invoice means for a server, as its page and the list
//! show it: which invoice is overdue and when the server is (or was)
//! suspended. The rules themselves are dunning's
//! (`billing::dunning::run`): a server billed by an open invoice past its
//! due date goes past due, and `grace_days` after that it is suspended.
//! This only reads; it never moves a server along.

use anyhow::Context;
use domain::server::BillingState;
use domain::{InvoiceId, OrganizationId, ServerId};
use sqlx::Row;

use crate::Db;

/// A server's oldest overdue invoice and what it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overdue {
    pub server_id: ServerId,
    pub invoice_id: InvoiceId,
    pub invoice_number: String,
    pub amount_due: domain::Money,
    /// When the server is suspended unless the invoice is paid first.
    pub suspends_at: i64,
    /// Already suspended (network and console off, data kept).
    pub suspended: bool,
}

/// The organization's servers with an overdue invoice (one entry per
/// server, its oldest such invoice), or only `server_id`'s when given.
pub async fn overdue(
    db: &Db,
    organization_id: &OrganizationId,
    server_id: Option<&ServerId>,
    now: i64,
    grace_days: i64,
) -> anyhow::Result<Vec<Overdue>> {
    // The same condition dunning acts on, so the page never warns about
    // an invoice dunning ignores (or the reverse).
    let rows = sqlx::query(
        "select s.id as server_id, s.billing_state, s.past_due_since, i.id as invoice_id, \
         i.number, i.amount_due_cents \
         from servers s join invoice_lines l on l.server_id = s.id \
         join invoices i on i.id = l.invoice_id \
         where s.organization_id = $1 and i.organization_id = $1 and ($2 = '' or s.id = $2) \
         and i.status = 'open' and i.due_at < $3 and s.state <> 'failed' \
         and s.cancelled_at is null \
         order by s.id, i.due_at, i.number",
    )
    .bind(organization_id)
    .bind(server_id.map_or("", ServerId::as_str))
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("reading overdue invoices")?;
    let mut found: Vec<Overdue> = Vec::new();
    for row in rows {
        let server_id: ServerId = row.try_get("server_id")?;
        if found.last().is_some_and(|o| o.server_id == server_id) {
            continue;
        }
        let state: BillingState = row.try_get("billing_state")?;
        // Dunning marks a server past due on its next pass (seconds
        // away); until then its grace period counts from now.
        let since: Option<i64> = row.try_get("past_due_since")?;
        found.push(Overdue {
            server_id,
            invoice_id: row.try_get("invoice_id")?,
            invoice_number: row
                .try_get::<Option<String>, _>("number")?
                .unwrap_or_default(),
            amount_due: domain::Money::eur(row.try_get("amount_due_cents")?),
            suspends_at: since.unwrap_or(now) + grace_days * 86_400,
            suspended: state == BillingState::Suspended,
        });
    }
    Ok(found)
}
