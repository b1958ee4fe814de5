//! What happens by itself: a request waiting for the customer is reminded
//! after 6 days and closed a day after the reminder (7 days at the
//! earliest); a host Fleet health marks degraded opens a hardware thread
//! for its server.

use anyhow::Context;
use domain::{Lang, OrganizationId, ServerId};
use sqlx::{Any, Row, Transaction};

use super::customers::close;
use super::mails::{self, About};
use super::writes::{self, Author};
use super::{link, AUTO_CLOSE_SECS, REMIND_AFTER_SECS};
use crate::{mail, Clock, Db};

/// Sends due reminders and closes requests nobody answered; each request
/// is claimed by one conditional update, so replicas never mail twice.
/// Answers how many requests it reminded or closed.
pub async fn remind_and_close(db: &Db, clock: &Clock, base_url: &str) -> anyhow::Result<usize> {
    let now = clock.now();
    let mut done = 0;
    let due = sqlx::query(
        "select id from support_requests where state = 'waiting' and reminded_at is null \
         and waiting_since <= $1 order by waiting_since limit 200",
    )
    .bind(now - REMIND_AFTER_SECS)
    .fetch_all(&db.pool)
    .await
    .context("finding requests to remind")?;
    for row in due {
        let id: String = row.try_get("id")?;
        let mut tx = db.begin().await?;
        let claimed = sqlx::query(
            "update support_requests set reminded_at = $1 where id = $2 and state = 'waiting' \
             and reminded_at is null",
        )
        .bind(now)
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("marking the reminder")?;
        if claimed.rows_affected() == 1 {
            tell(&mut tx, &id, base_url, now, mails::reminder).await?;
            done += 1;
        }
        tx.commit().await.context("committing the reminder")?;
    }
    // Closed a week after it started waiting, and never less than the
    // 24 hours the reminder promised.
    let due = sqlx::query(
        "select id from support_requests where state = 'waiting' and waiting_since <= $1 \
         and reminded_at <= $2 order by waiting_since limit 200",
    )
    .bind(now - AUTO_CLOSE_SECS)
    .bind(now - (AUTO_CLOSE_SECS - REMIND_AFTER_SECS))
    .fetch_all(&db.pool)
    .await
    .context("finding requests to close")?;
    for row in due {
        let id: String = row.try_get("id")?;
        let mut tx = db.begin().await?;
        let Some(current) = writes::current(db, &mut tx, &id).await? else {
            continue;
        };
        if current.state != super::State::Waiting {
            continue;
        }
        close(&mut tx, &id, "auto", now).await?;
        let system = Author {
            kind: domain::support::AuthorKind::System,
            user_id: None,
            name: "system",
        };
        let note = mails::auto_closed_note(current.lang);
        writes::add_message(&mut tx, &id, &system, false, note, now).await?;
        tell(&mut tx, &id, base_url, now, mails::auto_closed).await?;
        tx.commit().await.context("committing the auto-close")?;
        done += 1;
    }
    Ok(done)
}

/// Mails `text` about request `id` to its recipients, in its language.
async fn tell(
    tx: &mut Transaction<'_, Any>,
    id: &str,
    base_url: &str,
    now: i64,
    text: fn(Lang, &str, &About<'_>) -> crate::mail::Message,
) -> anyhow::Result<()> {
    let r = sqlx::query("select reference, subject, lang from support_requests where id = $1")
        .bind(id)
        .fetch_one(&mut **tx)
        .await
        .context("reading the request to mail about")?;
    let (reference, subject): (String, String) = (r.try_get("reference")?, r.try_get("subject")?);
    let lang: Lang = r.try_get("lang")?;
    let link = link(base_url, lang, id);
    let about = About {
        reference: &reference,
        subject: &subject,
        link: &link,
    };
    for to in mails::recipients(tx, id).await? {
        mail::queue(tx, &text(lang, &to, &about), now).await?;
    }
    Ok(())
}

/// Opens a hardware thread for a server whose host was marked degraded, in
/// the transaction that marks it, written by "system" in the customer's
/// language (an owner's, else whoever ordered the server). While such a
/// thread is not closed, another report adds nothing.
pub async fn open_for_degraded_host(
    tx: &mut Transaction<'_, Any>,
    server_id: &ServerId,
    reason: &str,
    now: i64,
) -> anyhow::Result<()> {
    let open: Option<String> = sqlx::query_scalar(
        "select id from support_requests where server_id = $1 and origin = 'degraded_host' \
         and state <> 'closed'",
    )
    .bind(server_id)
    .fetch_optional(&mut **tx)
    .await
    .context("looking for the server's open hardware thread")?;
    if open.is_some() {
        return Ok(());
    }
    let server = sqlx::query(
        "select s.organization_id, s.name, \
         (select u.lang from memberships m join users u on u.id = m.user_id \
          where m.organization_id = s.organization_id and m.role = 'owner' \
          order by m.created_at limit 1) as owner_lang, \
         (select u.lang from orders o join users u on u.id = o.user_id where o.id = s.order_id) as placer_lang \
         from servers s where s.id = $1",
    )
    .bind(server_id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the degraded server")?;
    let Some(server) = server else {
        return Ok(());
    };
    let organization_id: OrganizationId = server.try_get("organization_id")?;
    let name: String = server.try_get("name")?;
    let lang = [
        server.try_get::<Option<String>, _>("owner_lang")?,
        server.try_get::<Option<String>, _>("placer_lang")?,
    ]
    .into_iter()
    .flatten()
    .find_map(|code| Lang::from_code(&code))
    .unwrap_or_default();
    let (subject, body) = mails::degraded_host(lang, &name, reason.trim());
    let subject: String = subject.chars().take(super::SUBJECT_MAX).collect();
    let id = crate::db::new_id();
    let reference = writes::new_reference(tx).await?;
    sqlx::query(
        "insert into support_requests (id, reference, organization_id, category, subject, state, lang, \
         server_id, opened_by, origin, turn_since, created_at, updated_at) \
         values ($1, $2, $3, 'hardware', $4, 'open', $5, $6, null, 'degraded_host', $7, $7, $7)",
    )
    .bind(&id)
    .bind(&reference)
    .bind(&organization_id)
    .bind(&subject)
    .bind(lang.code())
    .bind(server_id)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("opening the hardware thread")?;
    let system = Author {
        kind: domain::support::AuthorKind::System,
        user_id: None,
        name: "system",
    };
    writes::add_message(tx, &id, &system, false, &body, now).await?;
    Ok(())
}
