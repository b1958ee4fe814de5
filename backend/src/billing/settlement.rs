//! Settling an invoice by hand: finance records the bank transfer that
//! paid it (the day it arrived, the amount received), or closes it
//! unpaid (void or written off) with a reason. Each is audited with those
//! facts and stored on the invoice, and restores the customer's servers
//! once nothing is overdue.

use anyhow::Context;
use domain::{InvoiceId, Lang, Money, OrganizationId};
use sqlx::Row;

use super::finance::CUSTOMER_NAME;
use crate::{audit, Clock, Db};

/// Why finance's settlement of an invoice was refused.
#[derive(Debug, thiserror::Error)]
pub enum SettleError {
    #[error("no open invoice with that id")]
    NotFound,
    #[error("the payment date is after today")]
    DateInFuture,
    #[error("the payment date is before the invoice date")]
    DateBeforeInvoice,
    #[error("the amount received differs from the amount due ({due:?})")]
    AmountDiffers { due: Money },
    #[error("a reason is required")]
    Reason,
    #[error("not confirmed")]
    Unconfirmed,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// A bank transfer as finance found it on the statement.
#[derive(Clone, Debug)]
pub struct Payment {
    /// The day it arrived (UTC midnight).
    pub paid_on: i64,
    pub amount: Money,
    /// Finance confirmed that `amount` is not the amount due.
    pub differs_confirmed: bool,
    /// Why (required when the amount differs), kept with the invoice.
    pub note: String,
}

/// How an invoice nobody will pay is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closing {
    /// Issued in error.
    Void,
    /// Written off: the customer will not pay.
    Uncollectible,
}

impl Closing {
    pub fn status(self) -> &'static str {
        match self {
            Closing::Void => "void",
            Closing::Uncollectible => "uncollectible",
        }
    }
}

/// The open invoice being settled, read (and on PostgreSQL locked) in the
/// settling transaction: (organization, number, issued at, amount due).
async fn open_invoice(
    db: &Db,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    id: &InvoiceId,
    offline_only: bool,
) -> Result<(OrganizationId, String, i64, i64), SettleError> {
    db.lock_row(tx, "invoices", id).await?;
    let row = sqlx::query(
        "select organization_id, coalesce(number, id) as number, issued_at, amount_due_cents, \
         billing_method from invoices where id = $1 and status = 'open'",
    )
    .bind(id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the invoice to settle")?
    .ok_or(SettleError::NotFound)?;
    let method: String = row.try_get("billing_method").context("billing method")?;
    if offline_only && method != "invoice" {
        return Err(SettleError::NotFound);
    }
    let field = |name: &str| format!("invoice {name}");
    Ok((
        row.try_get("organization_id")
            .context(field("organization"))?,
        row.try_get("number").context(field("number"))?,
        row.try_get("issued_at").context(field("date"))?,
        row.try_get("amount_due_cents")
            .context(field("amount due"))?,
    ))
}

/// Finance records a bank transfer: the invoice is paid on the day it
/// arrived, with the amount received, and servers that were past due or
/// suspended for want of it are restored. A date after today or before the
/// invoice is refused; so is an amount other than the amount due unless
/// finance confirms it with a reason (a bank fee, a rounded transfer).
pub async fn record_payment(
    db: &Db,
    clock: &Clock,
    id: &InvoiceId,
    payment: &Payment,
    actor: &str,
) -> Result<(), SettleError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let (org, number, issued_at, due) = open_invoice(db, &mut tx, id, false).await?;
    if payment.paid_on > now {
        return Err(SettleError::DateInFuture);
    }
    if payment.paid_on < issued_at - issued_at.rem_euclid(86_400) {
        return Err(SettleError::DateBeforeInvoice);
    }
    let note = payment.note.trim();
    if payment.amount.cents != due {
        if !payment.differs_confirmed {
            return Err(SettleError::AmountDiffers {
                due: Money::eur(due),
            });
        }
        if note.is_empty() {
            return Err(SettleError::Reason);
        }
    }
    let reason = (!note.is_empty()).then(|| note.to_owned());
    sqlx::query(
        "update invoices set status = 'paid', paid_at = $1, paid_amount_cents = $2, \
         settled_reason = $3, settled_by = $4, settled_at = $5, updated_at = $5 \
         where id = $6 and status = 'open'",
    )
    .bind(payment.paid_on)
    .bind(payment.amount.cents)
    .bind(&reason)
    .bind(actor)
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("marking the invoice paid")?;
    crate::events::invoice(&mut tx, id.as_str(), now).await?;
    super::dunning::restore_if_settled(&mut tx, &org, now).await?;
    let mut detail = format!(
        "{number}: {} received on {} ({} due)",
        payment.amount.format(Lang::En),
        domain::time::format_date(payment.paid_on),
        Money::eur(due).format(Lang::En),
    );
    if let Some(reason) = &reason {
        detail.push_str(&format!("; {reason}"));
    }
    audit_settlement(&mut tx, &org, actor, "invoice.paid", &detail, now).await?;
    // A receipt, to whoever gets the invoices, in their language.
    let (amount, day) = (payment.amount, domain::time::format_date(payment.paid_on));
    super::dunning::notify(&mut tx, &org, now, |lang| match lang {
        Lang::Zh => (
            format!("已收到发票 {number} 的付款"),
            format!(
                "您好：\n\n我们已于 {day} 收到发票 {number} 的付款 {}。该发票已结清，在门户的“账务”页面显示为已付款。",
                amount.format(Lang::Zh)
            ),
        ),
        Lang::En => (
            format!("Payment received for invoice {number}"),
            format!(
                "Hello,\n\nWe received {} on {day} for invoice {number}. The invoice is settled; the Billing page of the portal shows it as paid.",
                amount.format(Lang::En)
            ),
        ),
    })
    .await?;
    tx.commit().await.context("committing the payment")?;
    Ok(())
}

/// Finance closes an open offline invoice without payment, confirmed and
/// with its reason. Either way it is settled for dunning, so suspended
/// servers of that customer come back.
pub async fn close_unpaid(
    db: &Db,
    clock: &Clock,
    id: &InvoiceId,
    closing: Closing,
    reason: &str,
    confirmed: bool,
    actor: &str,
) -> Result<(), SettleError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let (org, number, _, due) = open_invoice(db, &mut tx, id, true).await?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(SettleError::Reason);
    }
    if !confirmed {
        return Err(SettleError::Unconfirmed);
    }
    sqlx::query(
        "update invoices set status = $1, amount_due_cents = 0, settled_reason = $2, \
         settled_by = $3, settled_at = $4, updated_at = $4 where id = $5 and status = 'open'",
    )
    .bind(closing.status())
    .bind(reason)
    .bind(actor)
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("closing the invoice")?;
    crate::events::invoice(&mut tx, id.as_str(), now).await?;
    super::dunning::restore_if_settled(&mut tx, &org, now).await?;
    let detail = format!(
        "{number}: {} not collected; {reason}",
        Money::eur(due).format(Lang::En)
    );
    let action = format!("invoice.{}", closing.status());
    audit_settlement(&mut tx, &org, actor, &action, &detail, now).await?;
    tx.commit().await.context("committing the closing")?;
    Ok(())
}

async fn audit_settlement(
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    organization_id: &OrganizationId,
    actor: &str,
    action: &str,
    detail: &str,
    at: i64,
) -> anyhow::Result<()> {
    let entry = audit::Entry {
        organization_id: Some(organization_id),
        user_id: None,
        actor,
        action,
        detail,
        ip: None,
        at,
    };
    audit::record(&mut **tx, &entry).await
}

/// An invoice finance settled by hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    pub id: String,
    pub number: String,
    pub customer: String,
    /// `paid`, `void` or `uncollectible`.
    pub status: domain::invoice::InvoiceStatus,
    pub total: Money,
    /// The day the payment arrived (paid invoices).
    pub paid_on: Option<i64>,
    pub received: Option<Money>,
    pub reason: Option<String>,
    pub by: String,
    pub at: i64,
}

/// The invoices finance settled by hand, newest booking first.
pub async fn settled(db: &Db, limit: i64) -> anyhow::Result<Vec<Settled>> {
    sqlx::query(&format!(
        "select i.id, coalesce(i.number, i.id) as number, {CUSTOMER_NAME} as customer, i.status, \
         i.total_cents, i.paid_at, i.paid_amount_cents, i.settled_reason, i.settled_by, i.settled_at \
         from invoices i join organizations o on o.id = i.organization_id \
         where i.settled_at is not null order by i.settled_at desc, i.id limit $1"
    ))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("listing settled invoices")?
    .iter()
    .map(|r| {
        let received: Option<i64> = r.try_get("paid_amount_cents")?;
        let status: domain::invoice::InvoiceStatus = r.try_get("status")?;
        Ok(Settled {
            id: r.try_get("id")?,
            number: r.try_get("number")?,
            customer: r.try_get("customer")?,
            paid_on: r.try_get("paid_at")?,
            status,
            total: Money::eur(r.try_get("total_cents")?),
            received: received.map(Money::eur),
            reason: r.try_get("settled_reason")?,
            by: r.try_get("settled_by")?,
            at: r.try_get("settled_at")?,
        })
    })
    .collect()
}
