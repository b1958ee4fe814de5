//! Credit notes: money we owe a customer (a refund, an SLA credit). Each is
//! numbered (CN-2026-000001) and set against the customer's next invoices
//! until used up.

use anyhow::Context;
use domain::{InvoiceId, Lang, OrganizationId};
use sqlx::{Any, Row, Transaction};

use super::numbering;
use crate::db::{new_id, Backend};
use crate::{audit, Db};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreditNote {
    pub id: String,
    pub number: String,
    pub reason: String,
    pub amount_cents: i64,
    pub remaining_cents: i64,
    pub created_at: i64,
    /// The invoice it corrects (`INV-2026-000001`), as a credit note must
    /// cite: an SLA credit the invoice of the month it credits, a refund
    /// the invoice it pays back. None for a goodwill credit.
    pub invoice_number: Option<String>,
}

/// What a credit note is about: the server it credits and the invoice it
/// corrects (as a credit note must cite), where there are such.
#[derive(Clone, Copy, Debug, Default)]
pub struct Concerns<'a> {
    pub server_id: Option<&'a str>,
    pub invoice_id: Option<&'a InvoiceId>,
}

/// A credit (ex VAT, like the fees it is a share of) with the VAT charged on
/// it at `rate_bp`: what it takes off an invoice's total, so the credit
/// reduces net and VAT in the same proportion (docs/SLA.md).
pub fn with_vat(net_cents: i64, rate_bp: i64) -> i64 {
    net_cents + (net_cents * rate_bp + 5_000) / 10_000
}

/// The part of a gross amount (VAT included at `rate_bp`) that is net,
/// rounded half up: a refund of G is a credit of G / (1 + r) and VAT the rest.
pub fn net_of(gross_cents: i64, rate_bp: i64) -> i64 {
    let divisor = 10_000 + rate_bp;
    (gross_cents * 10_000 + divisor / 2) / divisor
}

pub async fn issue(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    amount_cents: i64,
    reason: &str,
    concerns: Concerns<'_>,
    actor: &str,
    now: i64,
) -> anyhow::Result<String> {
    let number = record(
        tx,
        organization_id,
        amount_cents,
        reason,
        concerns,
        actor,
        now,
    )
    .await?;
    let invoice_id = concerns.invoice_id;
    let amount = domain::Money::eur(amount_cents);
    let invoice: Option<String> = match invoice_id {
        Some(id) => sqlx::query_scalar("select number from invoices where id = $1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the corrected invoice")?
            .flatten(),
        None => None,
    };
    super::dunning::notify(tx, organization_id, now, |lang| {
        issued_mail(lang, &number, amount, reason, invoice.as_deref())
    })
    .await?;
    Ok(number)
}

/// A numbered credit note and its audit entry, without the mail (the
/// caller tells the customer in its own words, or [`issue`] does).
pub async fn record(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    amount_cents: i64,
    reason: &str,
    concerns: Concerns<'_>,
    actor: &str,
    now: i64,
) -> anyhow::Result<String> {
    let number = numbering::next(tx, "CN", now).await?;
    sqlx::query(
        "insert into credit_notes (id, organization_id, number, reason, amount_cents, currency, \
         remaining_cents, server_id, created_at, created_by, invoice_id) \
         values ($1, $2, $3, $4, $5, 'EUR', $5, $6, $7, $8, $9)",
    )
    .bind(new_id())
    .bind(organization_id)
    .bind(&number)
    .bind(reason)
    .bind(amount_cents)
    .bind(concerns.server_id)
    .bind(now)
    .bind(actor)
    .bind(concerns.invoice_id)
    .execute(&mut **tx)
    .await
    .context("issuing a credit note")?;
    audit::record(
        &mut **tx,
        &audit::Entry::unattended(
            organization_id,
            actor,
            "credit_note.issued",
            &format!("{number} {amount_cents} {reason}"),
            now,
        ),
    )
    .await?;
    Ok(number)
}

/// The credit note's mail: its number, amount (ex VAT), reason and the
/// invoice it corrects.
fn issued_mail(
    lang: Lang,
    number: &str,
    amount: domain::Money,
    reason: &str,
    invoice: Option<&str>,
) -> (String, String) {
    let amount = amount.format(lang);
    let corrects = match (lang, invoice) {
        (Lang::Zh, Some(invoice)) => format!("\n对应发票：{invoice}"),
        (Lang::En, Some(invoice)) => format!("\nIt corrects invoice {invoice}."),
        (_, None) => String::new(),
    };
    match lang {
        Lang::Zh => (
            format!("贷项通知单 {number}"),
            format!(
                "您好：\n\n我们为您开具了贷项通知单 {number}，金额 {amount}（不含增值税）。\n原因：{reason}{corrects}\n\n该金额将从您之后的发票中扣除；如已没有需要开票的服务器，我们会通过银行转账退还。通过 Stripe 付款的客户，金额会退回您的余额或原付款卡。\n\n贷项通知单可在门户的“账务”页面查看。"
            ),
        ),
        Lang::En => (
            format!("Credit note {number}"),
            format!(
                "Hello,\n\nWe have issued credit note {number} for {amount} (ex VAT).\nReason: {reason}{corrects}\n\nIt is set against your next invoices; with no server left to invoice, we transfer it back to you. Customers paying through Stripe get it on their Stripe balance or back on their card.\n\nThe credit note is on the Billing page of the portal."
            ),
        ),
    }
}

/// Staff issue a credit note to an organization; `None` if it doesn't exist.
pub async fn issue_to(
    db: &Db,
    clock: &crate::Clock,
    organization_id: &OrganizationId,
    amount_cents: i64,
    reason: &str,
    actor: &str,
) -> anyhow::Result<Option<String>> {
    let mut tx = db.begin().await?;
    let known: i64 = sqlx::query_scalar("select count(*) from organizations where id = $1")
        .bind(organization_id)
        .fetch_one(&mut *tx)
        .await
        .context("checking the organization")?;
    if known == 0 {
        return Ok(None);
    }
    // A goodwill credit corrects no one invoice.
    let number = issue(
        &mut tx,
        organization_id,
        amount_cents,
        reason,
        Concerns::default(),
        actor,
        clock.now(),
    )
    .await?;
    tx.commit().await.context("committing the credit note")?;
    Ok(Some(number))
}

/// Uses open credit, oldest first, against an amount; answers the credit
/// applied. The open notes are locked as they are read (SQLite's immediate
/// transactions are serial already): two replicas invoicing one customer at
/// once would otherwise both spend what is left on the same note. (The
/// invoice number's counter happens to serialise invoices of one year
/// today; the note must not depend on what its caller did first.)
pub(crate) async fn apply(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    amount_cents: i64,
) -> anyhow::Result<i64> {
    let lock = match db.backend {
        Backend::Postgres => "for update",
        Backend::Sqlite => "",
    };
    let open = sqlx::query(&format!(
        "select id, remaining_cents from credit_notes where organization_id = $1 \
         and remaining_cents > 0 order by created_at, id {lock}"
    ))
    .bind(organization_id)
    .fetch_all(&mut **tx)
    .await
    .context("reading open credit")?;
    let mut left = amount_cents;
    for row in open {
        if left == 0 {
            break;
        }
        let id: String = row.try_get("id")?;
        let remaining: i64 = row.try_get("remaining_cents")?;
        let used = remaining.min(left);
        sqlx::query("update credit_notes set remaining_cents = remaining_cents - $1 where id = $2")
            .bind(used)
            .bind(&id)
            .execute(&mut **tx)
            .await
            .context("using credit")?;
        left -= used;
    }
    Ok(amount_cents - left)
}

pub async fn list(db: &Db, organization_id: &OrganizationId) -> anyhow::Result<Vec<CreditNote>> {
    sqlx::query(
        "select c.id, c.number, c.reason, c.amount_cents, c.remaining_cents, c.created_at, \
         i.number as invoice_number from credit_notes c left join invoices i on i.id = c.invoice_id \
         where c.organization_id = $1 order by c.created_at desc",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing credit notes")?
    .iter()
    .map(|r| {
        Ok(CreditNote {
            id: r.try_get("id")?,
            number: r.try_get("number")?,
            reason: r.try_get("reason")?,
            amount_cents: r.try_get("amount_cents")?,
            remaining_cents: r.try_get("remaining_cents")?,
            created_at: r.try_get("created_at")?,
            invoice_number: r.try_get("invoice_number")?,
        })
    })
    .collect()
}

/// Credit a customer can no longer use against an invoice of ours: open
/// credit notes of an organization with no server left. Finance pays these
/// back by transfer: (number, organization name, cents, issued).
pub async fn refunds_due(db: &Db) -> anyhow::Result<Vec<(String, String, i64, i64)>> {
    sqlx::query(
        "select c.number, coalesce(p.legal_name, o.name) as name, c.remaining_cents, c.created_at \
         from credit_notes c join organizations o on o.id = c.organization_id \
         left join billing_profiles p on p.organization_id = o.id where c.remaining_cents > 0 \
         and not exists (select 1 from servers s where s.organization_id = c.organization_id \
         and s.cancelled_at is null and s.state <> 'failed') order by c.created_at, c.number",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing refunds due")?
    .iter()
    .map(|r| {
        Ok((
            r.try_get("number")?,
            r.try_get("name")?,
            r.try_get("remaining_cents")?,
            r.try_get("created_at")?,
        ))
    })
    .collect()
}

/// Finance transferred what is left of a credit note back to the customer.
/// Answers false if it had nothing left (or does not exist).
pub async fn mark_refunded(
    db: &Db,
    clock: &crate::Clock,
    number: &str,
    actor: &str,
) -> anyhow::Result<bool> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let row = sqlx::query(
        "update credit_notes set paid_out_via = 'transfer', paid_out_cents = remaining_cents, \
         paid_out_at = $1, remaining_cents = 0 where number = $2 and remaining_cents > 0 \
         returning organization_id, paid_out_cents",
    )
    .bind(now)
    .bind(number)
    .fetch_optional(&mut *tx)
    .await
    .context("marking the credit refunded")?;
    let Some(row) = row else {
        return Ok(false);
    };
    let org: OrganizationId = row.try_get("organization_id")?;
    let cents: i64 = row.try_get("paid_out_cents")?;
    audit::record(
        &mut *tx,
        &audit::Entry::unattended(
            &org,
            actor,
            "credit_note.paid_out",
            &format!("{number} transfer {cents}"),
            now,
        ),
    )
    .await?;
    tx.commit().await.context("committing")?;
    Ok(true)
}
