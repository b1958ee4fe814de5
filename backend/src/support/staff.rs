//! What staff do: answer (the customer's turn, and a mail), write internal
//! notes (no state change, no mail), assign and close. Staff act on any
//! organization's requests and are not rate-limited.

use anyhow::Context;
use domain::OrganizationId;

use super::customers::close;
use super::mails::{self, About};
use super::writes::{self, Author};
use super::{excerpt, link, valid_body, StaffActor, State, SupportError};
use crate::{audit, mail, Clock, Db};

/// A staff answer: the request waits for the customer (the auto-close
/// counts from now), the first answer sets the first-response time, and
/// the customer gets a mail with its first lines and the link.
pub async fn reply_as_staff(
    db: &Db,
    clock: &Clock,
    staff: &StaffActor<'_>,
    id: &str,
    body: &str,
    base_url: &str,
) -> Result<(), SupportError> {
    let body = valid_body(body)?;
    let now = clock.now();
    let mut tx = db.begin().await?;
    let current = writes::current(db, &mut tx, id)
        .await?
        .ok_or(SupportError::NotFound)?;
    let next = current
        .state
        .after_staff_reply()
        .ok_or(SupportError::Closed)?;
    sqlx::query(
        "update support_requests set state = $1, waiting_since = $2, reminded_at = null, \
         turn_since = $2, first_response_at = coalesce(first_response_at, $2), updated_at = $2 \
         where id = $3",
    )
    .bind(next.as_str())
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("recording the answer")?;
    let author = Author {
        kind: domain::support::AuthorKind::Staff,
        user_id: Some(staff.user_id),
        name: staff.name,
    };
    writes::add_message(&mut tx, id, &author, false, &body, now).await?;
    let link = link(base_url, current.lang, id);
    let about = About {
        reference: &current.reference,
        subject: &current.subject,
        link: &link,
    };
    let first_lines = excerpt(&body);
    for to in mails::recipients(&mut tx, id).await? {
        let message = mails::answered(current.lang, &to, &about, &first_lines);
        mail::queue(&mut tx, &message, now).await?;
    }
    tx.commit().await.context("committing the answer")?;
    Ok(())
}

/// An internal note: staff only; the state and the customer's clock stay.
pub async fn note(
    db: &Db,
    clock: &Clock,
    staff: &StaffActor<'_>,
    id: &str,
    body: &str,
) -> Result<(), SupportError> {
    let body = valid_body(body)?;
    let now = clock.now();
    let mut tx = db.begin().await?;
    writes::current(db, &mut tx, id)
        .await?
        .ok_or(SupportError::NotFound)?;
    let author = Author {
        kind: domain::support::AuthorKind::Staff,
        user_id: Some(staff.user_id),
        name: staff.name,
    };
    writes::add_message(&mut tx, id, &author, true, &body, now).await?;
    tx.commit().await.context("committing the note")?;
    Ok(())
}

/// Gives the request to a staff member (by email), or to nobody.
pub async fn assign(
    db: &Db,
    clock: &Clock,
    staff: &StaffActor<'_>,
    id: &str,
    to_staff_email: Option<&str>,
) -> Result<(), SupportError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let current = writes::current(db, &mut tx, id)
        .await?
        .ok_or(SupportError::NotFound)?;
    let assignee = match to_staff_email.map(str::trim).filter(|e| !e.is_empty()) {
        Some(email) => {
            let found: Option<String> =
                sqlx::query_scalar("select id from users where email = $1 and is_staff = 1")
                    .bind(email.to_lowercase())
                    .fetch_optional(&mut *tx)
                    .await
                    .context("finding the staff member")?;
            Some(found.ok_or(SupportError::NotFound)?)
        }
        None => None,
    };
    sqlx::query("update support_requests set assigned_to = $1 where id = $2")
        .bind(&assignee)
        .bind(id)
        .execute(&mut *tx)
        .await
        .context("assigning the request")?;
    let detail = format!("{}: {}", current.reference, to_staff_email.unwrap_or("-"));
    staff_audit(&mut tx, staff, None, "support.assigned", &detail, now).await?;
    tx.commit().await.context("committing the assignment")?;
    Ok(())
}

/// Closes the request for the customer (they may reopen it for 30 days).
pub async fn close_as_staff(
    db: &Db,
    clock: &Clock,
    staff: &StaffActor<'_>,
    id: &str,
) -> Result<(), SupportError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let current = writes::current(db, &mut tx, id)
        .await?
        .ok_or(SupportError::NotFound)?;
    if current.state == State::Closed {
        return Ok(());
    }
    close(&mut tx, id, "staff", now).await?;
    // In the organization's trail too: its owners see who closed it.
    let organization = Some(&current.organization_id);
    staff_audit(
        &mut tx,
        staff,
        organization,
        "support.closed",
        &current.reference,
        now,
    )
    .await?;
    tx.commit().await.context("committing the close")?;
    Ok(())
}

async fn staff_audit(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    staff: &StaffActor<'_>,
    organization_id: Option<&OrganizationId>,
    action: &str,
    detail: &str,
    at: i64,
) -> anyhow::Result<()> {
    audit::record(
        &mut **tx,
        &audit::Entry {
            organization_id,
            user_id: Some(staff.user_id),
            actor: staff.email,
            action,
            detail,
            ip: None,
            at,
        },
    )
    .await
}
