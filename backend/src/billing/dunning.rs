//! When an invoice is not paid (open past its due date, or given up on as
//! `uncollectible`, which is still owed): the servers it bills go past due (the
//! customer is told), and after the grace period they are suspended:
//! network and console off through the Fleet, data kept, never wiped before
//! the term ends. Paying restores them.

use anyhow::Context;
use domain::server::EventKind;
use domain::{Lang, OrganizationId, ServerId};
use sqlx::{Any, Row, Transaction};

use super::Seller;
use crate::jobs::JobKind;
use crate::mail::{self, Message};
use crate::servers::record_event;
use crate::{jobs, Clock, Db};

/// Moves servers along past due → suspended; answers how many changed.
pub async fn run(db: &Db, clock: &Clock, seller: &Seller) -> anyhow::Result<usize> {
    let now = clock.now();
    let mut changed = 0;
    let overdue = sqlx::query(
        "select distinct s.id, s.organization_id, s.name from servers s \
         join invoice_lines l on l.server_id = s.id join invoices i on i.id = l.invoice_id \
         where i.status in ('open', 'uncollectible') and i.due_at < $1 and s.billing_state = 'active' and s.state <> 'failed' \
         and s.cancelled_at is null",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("finding overdue servers")?;
    for r in &overdue {
        let (id, org, name): (ServerId, OrganizationId, String) = (
            r.try_get("id")?,
            r.try_get("organization_id")?,
            r.try_get("name")?,
        );
        let mut tx = db.begin().await?;
        let moved = sqlx::query(
            "update servers set billing_state = 'past_due', past_due_since = $1 \
             where id = $2 and billing_state = 'active'",
        )
        .bind(now)
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("marking the server past due")?;
        if moved.rows_affected() == 1 {
            record_event(&mut tx, &id, EventKind::BillingPastDue, "", now).await?;
            let deadline = now + seller.grace_days * 86_400;
            notify(&mut tx, &org, now, |lang| {
                past_due_mail(lang, &name, deadline)
            })
            .await?;
            changed += 1;
        }
        tx.commit().await.context("committing")?;
    }
    let expired = sqlx::query(
        "select id, organization_id, name from servers where billing_state = 'past_due' \
         and past_due_since <= $1",
    )
    .bind(now - seller.grace_days * 86_400)
    .fetch_all(&db.pool)
    .await
    .context("finding servers past their grace period")?;
    for r in &expired {
        let (id, org, name): (ServerId, OrganizationId, String) = (
            r.try_get("id")?,
            r.try_get("organization_id")?,
            r.try_get("name")?,
        );
        let mut tx = db.begin().await?;
        let moved = sqlx::query(
            "update servers set billing_state = 'suspended' where id = $1 and billing_state = 'past_due'",
        )
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("suspending the server")?;
        if moved.rows_affected() == 1 {
            record_event(&mut tx, &id, EventKind::BillingSuspended, "", now).await?;
            jobs::enqueue(&mut tx, JobKind::Suspend, &id, now, now).await?;
            notify(&mut tx, &org, now, |lang| suspended_mail(lang, &name)).await?;
            changed += 1;
        }
        tx.commit().await.context("committing")?;
    }
    Ok(changed)
}

/// After a payment: if nothing of the organization is overdue any more
/// (an invoice given up on, `uncollectible`, is still unpaid), its
/// past-due and suspended servers are active again.
pub(crate) async fn restore_if_settled(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    now: i64,
) -> anyhow::Result<()> {
    let overdue: i64 = sqlx::query_scalar(
        "select count(*) from invoices where organization_id = $1 \
         and status in ('open', 'uncollectible') and due_at < $2",
    )
    .bind(organization_id)
    .bind(now)
    .fetch_one(&mut **tx)
    .await
    .context("counting overdue invoices")?;
    if overdue > 0 {
        return Ok(());
    }
    let held = sqlx::query(
        "update servers set billing_state = 'active', past_due_since = null \
         where organization_id = $1 and billing_state in ('past_due', 'suspended') \
         returning id, state",
    )
    .bind(organization_id)
    .fetch_all(&mut **tx)
    .await
    .context("restoring servers")?;
    for r in held {
        let id: ServerId = r.try_get("id")?;
        record_event(tx, &id, EventKind::BillingRestored, "", now).await?;
        jobs::enqueue(tx, JobKind::Resume, &id, now, now).await?;
    }
    Ok(())
}

/// Suspends a server now, whatever its grace period (Stripe ended its
/// subscription after failed payments): network and console off, data
/// kept. Nothing if it is suspended already.
pub(crate) async fn suspend_now(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    now: i64,
) -> anyhow::Result<()> {
    let moved = sqlx::query(
        "update servers set billing_state = 'suspended', past_due_since = coalesce(past_due_since, $1) \
         where id = $2 and billing_state <> 'suspended' and cancelled_at is null",
    )
    .bind(now)
    .bind(server_id)
    .execute(&mut **tx)
    .await
    .context("suspending the server")?;
    if moved.rows_affected() == 1 {
        record_event(tx, server_id, EventKind::BillingSuspended, "", now).await?;
        jobs::enqueue(tx, JobKind::Suspend, server_id, now, now).await?;
    }
    Ok(())
}

/// Mails everyone who handles the organization's money: its owners and
/// billing members, each in their language, and the billing profile's
/// address (in the first one's language) unless it is one of them.
pub(crate) async fn notify(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    now: i64,
    message: impl Fn(Lang) -> (String, String),
) -> anyhow::Result<()> {
    let owners = sqlx::query(
        "select u.email, u.lang from memberships m join users u on u.id = m.user_id \
         where m.organization_id = $1 and m.role in ('owner', 'billing') order by u.email",
    )
    .bind(organization_id)
    .fetch_all(&mut **tx)
    .await
    .context("finding who to tell")?;
    let billing: Option<String> =
        sqlx::query_scalar("select billing_email from billing_profiles where organization_id = $1")
            .bind(organization_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading the billing email")?;
    let mut recipients: Vec<(String, Lang)> = owners
        .iter()
        .map(|r| -> anyhow::Result<(String, Lang)> {
            let lang: String = r.try_get("lang")?;
            Ok((
                r.try_get("email")?,
                Lang::from_code(&lang).unwrap_or_default(),
            ))
        })
        .collect::<anyhow::Result<_>>()?;
    if let Some(email) = billing {
        let lang = recipients.first().map(|(_, l)| *l).unwrap_or_default();
        if !recipients.iter().any(|(e, _)| *e == email) {
            recipients.push((email, lang));
        }
    }
    for (to, lang) in recipients {
        let (subject, body) = message(lang);
        mail::queue(tx, &Message { to, subject, body }, now).await?;
    }
    Ok(())
}

fn past_due_mail(lang: Lang, server: &str, deadline: i64) -> (String, String) {
    let date = domain::time::format_date(deadline);
    match lang {
        Lang::Zh => (
            format!("付款逾期：服务器 {server}"),
            format!("您好：\n\n服务器 {server} 的发票已逾期未付。如在 {date} 前仍未收到付款，服务器将被暂停（网络和控制台关闭，数据保留）。\n\n发票在门户的“账务”页面。如已付款，请忽略此邮件。"),
        ),
        Lang::En => (
            format!("Payment overdue: server {server}"),
            format!("Hello,\n\nThe invoice for server {server} is overdue. If payment hasn’t arrived by {date}, the server will be suspended (network and console off, data kept).\n\nThe invoice is on the Billing page of the portal. If you have paid already, please ignore this message."),
        ),
    }
}

fn suspended_mail(lang: Lang, server: &str) -> (String, String) {
    match lang {
        Lang::Zh => (
            format!("服务器 {server} 已暂停"),
            format!("您好：\n\n由于发票逾期未付，服务器 {server} 已被暂停：网络和控制台已关闭，数据完好保留，当前租期结束前不会被擦除。\n\n付款到账后服务器会自动恢复。"),
        ),
        Lang::En => (
            format!("Server {server} is suspended"),
            format!("Hello,\n\nBecause its invoice is overdue, server {server} is suspended: network and console are off, its data is kept and won’t be wiped before the term ends.\n\nIt comes back by itself once the payment arrives."),
        ),
    }
}
