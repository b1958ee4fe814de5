//! SLA credits, worked out once a month closes: for every server that was
//! down in it, availability (docs/SLA.md, `domain::sla`) and, below
//! 99.99%, a credit note for the share of its monthly fee. Recorded per
//! server and month in the credit's transaction, so it is issued once.

use anyhow::Context;
use domain::sla::{availability, credit_cents, credit_percent, format_ppm};
use domain::{Catalog, InvoiceId, OrganizationId, ServerId};
use sqlx::Row;

use super::credit;
use crate::orders::split_list;
use crate::servers::failures::downtime;
use crate::{Clock, Db};

/// `[start, end)` and `YYYY-MM` of the month before the one `now` is in.
pub fn previous_month(now: i64) -> (i64, i64, String) {
    let (y, m, _) = domain::time::civil_from_days(now.div_euclid(86_400));
    let end = domain::time::days_from_civil(y, m, 1) * 86_400;
    let (py, pm) = if m == 1 { (y - 1, 12) } else { (y, m - 1) };
    let start = domain::time::days_from_civil(py, pm, 1) * 86_400;
    (start, end, format!("{py:04}-{pm:02}"))
}

/// Issues the credits of the month that last closed; answers how many.
pub async fn credit_closed_month(
    db: &Db,
    clock: &Clock,
    catalog: &Catalog,
) -> anyhow::Result<usize> {
    let now = clock.now();
    let (from, to, month) = previous_month(now);
    let due = sqlx::query(
        "select distinct s.id, s.organization_id, s.name, s.plan_id, s.addons from server_downtime d \
         join servers s on s.id = d.server_id where d.started_at < $1 and (d.ended_at is null or d.ended_at > $2) \
         and not exists (select 1 from sla_credits c where c.server_id = s.id and c.month = $3)",
    )
    .bind(to)
    .bind(from)
    .bind(&month)
    .fetch_all(&db.pool)
    .await
    .context("finding servers that were down")?;
    let mut issued = 0;
    for r in &due {
        let id: ServerId = r.try_get("id")?;
        let org: OrganizationId = r.try_get("organization_id")?;
        let name: String = r.try_get("name")?;
        let plan_id: String = r.try_get("plan_id")?;
        let Some(plan) = catalog.plan(&plan_id) else {
            continue;
        };
        let fee = plan.monthly_price.cents
            + split_list(&r.try_get::<String, _>("addons")?)
                .iter()
                .filter_map(|a| catalog.addon(a)?.price_for(&plan.id))
                .map(|m| m.cents)
                .sum::<i64>();
        let spans = downtime(db, &id, from, to).await?;
        // Windows the customer accepted are not downtime they can claim.
        let windows = crate::servers::maintenance::excluded_spans(db, &id, from, to).await?;
        let a = availability(from, to, &spans, &windows);
        let cents = credit_cents(fee, a.ppm);
        let mut tx = db.begin().await?;
        let recorded = sqlx::query(
            "insert into sla_credits (server_id, month, availability_ppm, down_secs, credit_cents, created_at) \
             values ($1, $2, $3, $4, $5, $6) on conflict (server_id, month) do nothing",
        )
        .bind(&id)
        .bind(&month)
        .bind(a.ppm)
        .bind(a.down_secs)
        .bind(cents)
        .bind(now)
        .execute(&mut *tx)
        .await
        .context("recording the SLA result")?;
        if recorded.rows_affected() == 0 {
            continue;
        }
        if cents > 0 {
            let reason = format!(
                "SLA {month} · {name} · {} · {} min · {}%",
                format_ppm(a.ppm),
                a.down_secs / 60,
                credit_percent(a.ppm)
            );
            let invoice = invoice_of_month(&mut tx, &id, from, to).await?;
            let number = credit::issue(
                &mut tx,
                &org,
                cents,
                &reason,
                credit::Concerns {
                    server_id: Some(id.as_str()),
                    invoice_id: invoice.as_ref(),
                },
                "system",
                now,
            )
            .await?;
            sqlx::query(
                "update sla_credits set credit_note = $1 where server_id = $2 and month = $3",
            )
            .bind(&number)
            .bind(&id)
            .bind(&month)
            .execute(&mut *tx)
            .await
            .context("linking the credit note")?;
            // A Stripe customer gets no invoice of ours to set it against:
            // it goes to their Stripe balance, or back as a refund.
            let stripe: Option<Option<String>> =
                sqlx::query_scalar("select stripe_subscription_id from servers where id = $1")
                    .bind(&id)
                    .fetch_optional(&mut *tx)
                    .await
                    .context("reading the server's billing")?;
            if let Some(Some(_)) = stripe {
                crate::jobs::enqueue(
                    &mut tx,
                    crate::jobs::JobKind::StripeCredit,
                    &number,
                    now,
                    now,
                )
                .await?;
            }
            issued += 1;
        }
        tx.commit().await.context("committing the SLA credit")?;
    }
    Ok(issued)
}

/// The invoice that billed `server_id` for the month `[from, to)`, which
/// its SLA credit note corrects: ours by its lines, or Stripe's by the
/// server's subscription; the latest whose period overlaps the month
/// (it may be issued after the month closed), else the server's latest.
async fn invoice_of_month(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    server_id: &ServerId,
    from: i64,
    to: i64,
) -> anyhow::Result<Option<InvoiceId>> {
    sqlx::query_scalar(
        "select i.id from invoices i where i.number is not null \
         and i.status in ('open', 'paid', 'uncollectible') \
         and (exists (select 1 from invoice_lines l where l.invoice_id = i.id and l.server_id = $1) \
              or i.stripe_subscription_id = (select stripe_subscription_id from servers where id = $1)) \
         order by case when i.period_start < $2 and i.period_end > $3 then 0 else 1 end, \
         i.period_start desc, i.issued_at desc limit 1",
    )
    // SQLite numbers `$n` by first appearance: bound in that order.
    .bind(server_id)
    .bind(to)
    .bind(from)
    .fetch_optional(&mut **tx)
    .await
    .context("finding the invoice the credit corrects")
}

/// A server's SLA results: (month, availability ppm, credit cents, credit note).
pub async fn results(
    db: &Db,
    server_id: &ServerId,
) -> anyhow::Result<Vec<(String, i64, i64, Option<String>)>> {
    sqlx::query(
        "select month, availability_ppm, credit_cents, credit_note from sla_credits \
         where server_id = $1 order by month desc",
    )
    .bind(server_id)
    .fetch_all(&db.pool)
    .await
    .context("reading SLA results")?
    .iter()
    .map(|r| {
        Ok((
            r.try_get("month")?,
            r.try_get("availability_ppm")?,
            r.try_get("credit_cents")?,
            r.try_get("credit_note")?,
        ))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_previous_month_crosses_years() {
        let jan = domain::time::parse_utc("2027-01-15").unwrap_or_default();
        let (from, to, month) = previous_month(jan);
        assert_eq!(month, "2026-12");
        assert_eq!(domain::time::format_date(from), "2026-12-01");
        assert_eq!(domain::time::format_date(to), "2027-01-01");
        assert_eq!(format_ppm(999_768), "99.9768%");
        assert_eq!(format_ppm(1_000_000), "100.0000%");
    }
}
