//! What members do: open a request, reply, close and reopen it. Every step
//! is scoped by the organization and by the categories the member's role
//! sees; anything else is `NotFound`, like another organization's id.

use anyhow::Context;
use domain::{Role, ServerId};

use super::mails::{self, About};
use super::writes::{self, Author, Current};
use super::{
    valid_body, valid_scaling, valid_subject, Category, NewRequest, State, SupportError,
    REOPEN_SECS,
};
use crate::db::new_id;
use crate::rate_limit::{self, Limit};
use crate::servers::Actor;
use crate::{mail, Clock, Db};

/// Requests a member may open in an hour, and replies they may write.
pub const OPEN_LIMIT: Limit = Limit {
    max: 10,
    window: 3600,
};
pub const REPLY_LIMIT: Limit = Limit {
    max: 30,
    window: 3600,
};

/// Opens a request with its first message and mails the opener its
/// reference. A hardware request names one of the organization's servers
/// (its telemetry is attached for staff by [`super::attach_server_facts`]).
pub async fn open(db: &Db, clock: &Clock, new: &NewRequest<'_>) -> Result<String, SupportError> {
    if !new.category.visible_to(new.role) {
        return Err(SupportError::UnknownCategory);
    }
    let subject = valid_subject(new.subject)?;
    let body = valid_body(new.body)?;
    let scaling = match (&new.scaling, new.category) {
        (Some(plan), Category::Scaling) => Some(valid_scaling(plan)?),
        _ => None,
    };
    let server_id = new.server_id.map(str::trim).filter(|s| !s.is_empty());
    match server_id {
        Some(server) => {
            let owned =
                crate::servers::get(db, new.organization_id, &ServerId::from(server)).await?;
            if owned.is_none() {
                return Err(SupportError::NotFound);
            }
        }
        None if new.category == Category::Hardware => return Err(SupportError::ServerRequired),
        None => {}
    }
    let now = clock.now();
    let key = format!("support.open:{}", new.user_id);
    if let Err(wait) = rate_limit::take(db, &[(&key, &OPEN_LIMIT)], now).await? {
        return Err(SupportError::TooMany(wait));
    }
    let id = new_id();
    let mut tx = db.begin().await?;
    let reference = writes::new_reference(&mut tx).await?;
    let plan = scaling.unwrap_or_default();
    let answer = |s: &str| (new.category == Category::Scaling).then(|| s.to_owned());
    sqlx::query(
        "insert into support_requests (id, reference, organization_id, category, subject, state, lang, \
         server_id, opened_by, origin, scaling_cards, scaling_workload, scaling_model_size, \
         scaling_timeline, turn_since, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, 'open', $6, $7, $8, 'customer', $9, $10, $11, $12, $13, $13, $13)",
    )
    .bind(&id)
    .bind(&reference)
    .bind(new.organization_id)
    .bind(new.category.as_str())
    .bind(&subject)
    .bind(new.lang.code())
    .bind(server_id)
    .bind(new.user_id)
    .bind(answer(&plan.cards))
    .bind(answer(&plan.workload))
    .bind(answer(&plan.model_size))
    .bind(answer(&plan.timeline))
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("opening the support request")?;
    let name = writes::member_name(&mut tx, new.user_id, new.email).await?;
    let author = Author {
        kind: domain::support::AuthorKind::Customer,
        user_id: Some(new.user_id),
        name: &name,
    };
    writes::add_message(&mut tx, &id, &author, false, &body, now).await?;
    // `open` knows no base URL: the confirmation names the portal's page
    // in words (staff replies carry the link).
    let about = About {
        reference: &reference,
        subject: &subject,
        link: "",
    };
    mail::queue(&mut tx, &mails::opened(new.lang, new.email, &about), now).await?;
    let actor = actor_of(new);
    actor
        .audit(&mut tx, "support.opened", &reference, now)
        .await?;
    tx.commit()
        .await
        .context("committing the support request")?;
    Ok(id)
}

fn actor_of<'a>(new: &'a NewRequest<'a>) -> Actor<'a> {
    Actor {
        organization_id: new.organization_id,
        user_id: new.user_id,
        email: new.email,
        ip: new.ip,
    }
}

/// The request if it is the member's organization's and their role sees
/// its category, read and locked in `tx`.
async fn visible(
    db: &Db,
    tx: &mut sqlx::Transaction<'static, sqlx::Any>,
    who: &Actor<'_>,
    role: Role,
    id: &str,
) -> Result<Current, SupportError> {
    match writes::current(db, tx, id).await? {
        Some(c) if &c.organization_id == who.organization_id && c.category.visible_to(role) => {
            Ok(c)
        }
        _ => Err(SupportError::NotFound),
    }
}

/// A member's reply: staff's turn again. A closed request takes none.
pub async fn reply_as_member(
    db: &Db,
    clock: &Clock,
    who: &Actor<'_>,
    role: Role,
    id: &str,
    body: &str,
) -> Result<(), SupportError> {
    let body = valid_body(body)?;
    let now = clock.now();
    // Not found is found out before a reply is counted against the limit.
    let seen = super::thread_for_member(db, who.organization_id, role, id).await?;
    if seen.is_none() {
        return Err(SupportError::NotFound);
    }
    let key = format!("support.reply:{}", who.user_id);
    if let Err(wait) = rate_limit::take(db, &[(&key, &REPLY_LIMIT)], now).await? {
        return Err(SupportError::TooMany(wait));
    }
    let mut tx = db.begin().await?;
    let current = visible(db, &mut tx, who, role, id).await?;
    let next = current
        .state
        .after_customer_reply()
        .ok_or(SupportError::Closed)?;
    // The staff's turn starts with the first unanswered message: a
    // follow-up does not move the request back in the queue.
    sqlx::query(
        "update support_requests set state = $1, updated_at = $2, waiting_since = null, \
         reminded_at = null, turn_since = case when state = 'waiting' then $2 else turn_since end \
         where id = $3",
    )
    .bind(next.as_str())
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("recording the reply")?;
    let name = writes::member_name(&mut tx, who.user_id, who.email).await?;
    let author = Author {
        kind: domain::support::AuthorKind::Customer,
        user_id: Some(who.user_id),
        name: &name,
    };
    writes::add_message(&mut tx, id, &author, false, &body, now).await?;
    tx.commit().await.context("committing the reply")?;
    Ok(())
}

/// Closes the request (in any state); closing it again changes nothing.
pub async fn close_as_member(
    db: &Db,
    clock: &Clock,
    who: &Actor<'_>,
    role: Role,
    id: &str,
) -> Result<(), SupportError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let current = visible(db, &mut tx, who, role, id).await?;
    if current.state == State::Closed {
        return Ok(());
    }
    close(&mut tx, id, "customer", now).await?;
    who.audit(&mut tx, "support.closed", &current.reference, now)
        .await?;
    tx.commit().await.context("committing the close")?;
    Ok(())
}

/// Reopens a request closed within 30 days: staff's turn. An open one is
/// left as it is.
pub async fn reopen_as_member(
    db: &Db,
    clock: &Clock,
    who: &Actor<'_>,
    role: Role,
    id: &str,
) -> Result<(), SupportError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let current = visible(db, &mut tx, who, role, id).await?;
    let Some(closed_at) = current.closed_at else {
        return Ok(());
    };
    if now - closed_at > REOPEN_SECS {
        return Err(SupportError::ReopenExpired);
    }
    sqlx::query(
        "update support_requests set state = 'open', closed_at = null, closed_by = null, \
         waiting_since = null, reminded_at = null, turn_since = $1, updated_at = $1 where id = $2",
    )
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await
    .context("reopening the request")?;
    who.audit(&mut tx, "support.reopened", &current.reference, now)
        .await?;
    tx.commit().await.context("committing the reopening")?;
    Ok(())
}

/// Closes a request: by `customer`, `staff` or `auto`.
pub(super) async fn close(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    by: &str,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "update support_requests set state = 'closed', closed_at = $1, closed_by = $2, \
         waiting_since = null, reminded_at = null, turn_since = $1, updated_at = $1 where id = $3",
    )
    .bind(now)
    .bind(by)
    .bind(id)
    .execute(&mut **tx)
    .await
    .context("closing the request")?;
    Ok(())
}
