//! Cancelling a server, as Hetzner does it: the customer picks a term end
//! (the current one or a later one), gives a reason and types the server's
//! name; until that date it can be revoked. At the date billing stops, the
//! server is wiped through the Fleet, its host returns to stock (which
//! fires back-in-stock alerts) and it leaves the list; invoices and the
//! audit trail stay.

use anyhow::Context;
use domain::server::EventKind;
use domain::{HostId, ServerId};
use sqlx::Row;

use super::mail_texts::Cancellation;
use super::{get, notices, record_event, Actor, ServerError};
use crate::billing::stripe::StripeClient;
use crate::inventory::notify_stock_changed;
use crate::orders::holds::host_event;
use crate::{audit, jobs, Clock, Db};

/// How many term ends ahead a customer may choose.
const TERMS_AHEAD: u32 = 3;

#[derive(Debug, thiserror::Error)]
pub enum CancelError {
    #[error("the typed name does not match")]
    NameMismatch,
    #[error("not a term end of this server")]
    BadDate,
    #[error("unknown reason")]
    BadReason,
    #[error(transparent)]
    Server(#[from] ServerError),
    /// Stripe could not be told; nothing changed here either.
    #[error("telling Stripe failed: {0}")]
    Billing(crate::billing::stripe::StripeFailure),
}

/// The dates a server can be cancelled on: the end of its current term and
/// the next ones, counted from its terms' anchor (`Server::term_anchor`) so
/// they keep its day and time.
pub fn term_ends(anchor: Option<i64>, renews_at: i64) -> Vec<i64> {
    let mut ends = vec![renews_at];
    for _ in 1..TERMS_AHEAD {
        let last = ends[ends.len() - 1];
        ends.push(match anchor {
            Some(anchor) => domain::time::next_term_boundary(anchor, last),
            None => domain::time::add_months(last, 1),
        });
    }
    ends
}

/// What the customer asked for on the cancellation form.
pub struct Request<'a> {
    /// The term end chosen.
    pub at: i64,
    pub reason: &'a str,
    /// The server's name, typed to confirm.
    pub typed_name: &'a str,
}

/// Checks a cancellation request without recording it (so billing can be
/// told first); answers the server.
pub async fn check(
    db: &Db,
    actor: &Actor<'_>,
    id: &ServerId,
    request: &Request<'_>,
) -> Result<super::Server, CancelError> {
    let server = get(db, actor.organization_id, id)
        .await
        .map_err(ServerError::Db)?
        .ok_or(ServerError::NotFound)?;
    if request.typed_name.trim() != server.name {
        return Err(CancelError::NameMismatch);
    }
    if domain::order::CancelReason::parse(request.reason).is_none() {
        return Err(CancelError::BadReason);
    }
    if server.renews_at.is_none() {
        return Err(ServerError::Busy(server.state).into());
    }
    if !server.cancellable_term_ends().contains(&request.at) {
        return Err(CancelError::BadDate);
    }
    Ok(server)
}

/// Records the cancellation and mails the owners (links to `base_url`).
pub async fn schedule(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    request: &Request<'_>,
    base_url: &str,
) -> Result<(), CancelError> {
    let server = check(db, actor, id, request).await?;
    let (at, reason) = (request.at, request.reason);
    let now = clock.now();
    let mut tx = db.begin().await.map_err(ServerError::Db)?;
    let done = sqlx::query(
        "update servers set cancel_at = $1, cancel_reason = $2, updated_at = $3 \
         where id = $4 and organization_id = $5 and cancelled_at is null",
    )
    .bind(at)
    .bind(reason)
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("scheduling the cancellation")
    .map_err(ServerError::Db)?;
    if done.rows_affected() == 0 {
        return Err(ServerError::NotFound.into());
    }
    let date = domain::time::format_date(at);
    record_event(&mut tx, id, EventKind::CancelScheduled, &date, now)
        .await
        .map_err(ServerError::Db)?;
    audit::record(
        &mut *tx,
        &audit::Entry {
            organization_id: Some(actor.organization_id),
            user_id: Some(actor.user_id),
            actor: actor.email,
            action: "server.cancel_scheduled",
            detail: &format!("{} {date} {reason}", server.name),
            ip: actor.ip,
            at: now,
        },
    )
    .await
    .map_err(ServerError::Db)?;
    let change = Cancellation::Scheduled { ends_at: at };
    let about = (id.as_str(), server.name.as_str());
    notices::tell_owners(&mut tx, actor, about, change, base_url, now)
        .await
        .map_err(ServerError::Db)?;
    tx.commit()
        .await
        .context("committing")
        .map_err(ServerError::Db)?;
    Ok(())
}

/// A customer's cancellation: for a Stripe-billed server, Stripe is told
/// first (to stop at that term end), so if it can't be, nothing is
/// scheduled here either.
pub async fn request(
    db: &Db,
    clock: &Clock,
    stripe: Option<&StripeClient>,
    actor: &Actor<'_>,
    id: &ServerId,
    request: &Request<'_>,
    base_url: &str,
) -> Result<(), CancelError> {
    let server = check(db, actor, id, request).await?;
    if let (Some(client), Some(sub)) = (stripe, &server.stripe_subscription_id) {
        let at_period_end = server.renews_at == Some(request.at);
        crate::billing::stripe::schedule_cancel(client, sub, request.at, at_period_end)
            .await
            .map_err(CancelError::Billing)?;
    }
    schedule(db, clock, actor, id, request, base_url).await
}

/// A customer takes a cancellation back. Only one that can still be taken
/// back here is taken back at Stripe (first): past its date the server is
/// being wiped, and Stripe must stop billing it.
pub async fn take_back(
    db: &Db,
    clock: &Clock,
    stripe: Option<&StripeClient>,
    actor: &Actor<'_>,
    id: &ServerId,
    base_url: &str,
) -> Result<(), CancelError> {
    if let Some(client) = stripe {
        let server = get(db, actor.organization_id, id)
            .await
            .map_err(ServerError::Db)?;
        let now = clock.now();
        if let Some(sub) = server
            .filter(|s| revocable(s, now))
            .and_then(|s| s.stripe_subscription_id)
        {
            crate::billing::stripe::revoke_cancel(client, &sub)
                .await
                .map_err(CancelError::Billing)?;
        }
    }
    Ok(revoke(db, clock, actor, id, base_url).await?)
}

/// Whether a scheduled cancellation can still be taken back at `now`: its
/// date has not come (past it, the server is being ended and wiped). The
/// same rule as `revoke`'s update, for callers that must decide before it
/// (billing is told first).
pub fn revocable(server: &super::Server, now: i64) -> bool {
    server.cancelled_at.is_none() && server.cancel_at.is_some_and(|at| at > now)
}

/// Takes a scheduled cancellation back, any time before its date, and
/// mails the owners (links to `base_url`).
pub async fn revoke(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    base_url: &str,
) -> Result<(), ServerError> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let done = sqlx::query(
        "update servers set cancel_at = null, cancel_reason = null, updated_at = $1 \
         where id = $2 and organization_id = $3 and cancelled_at is null and cancel_at > $1 \
         returning name, renews_at",
    )
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .fetch_optional(&mut *tx)
    .await
    .context("revoking the cancellation")?;
    let Some(server) = done else {
        return Err(ServerError::NotFound);
    };
    let name: String = server.try_get("name").context("reading the name")?;
    let renews_at = server.try_get("renews_at").context("reading the renewal")?;
    let change = Cancellation::Revoked { renews_at };
    record_event(&mut tx, id, EventKind::CancelRevoked, "", now).await?;
    audit::record(
        &mut *tx,
        &audit::Entry {
            organization_id: Some(actor.organization_id),
            user_id: Some(actor.user_id),
            actor: actor.email,
            action: "server.cancel_revoked",
            detail: id.as_str(),
            ip: actor.ip,
            at: now,
        },
    )
    .await?;
    let about = (id.as_str(), name.as_str());
    notices::tell_owners(&mut tx, actor, about, change, base_url, now).await?;
    tx.commit().await.context("committing")?;
    Ok(())
}

/// Ends the servers whose date has come: marked cancelled, host to
/// `wiping`, a wipe job queued. Answers how many.
pub async fn end_due(db: &Db, clock: &Clock) -> anyhow::Result<usize> {
    let now = clock.now();
    let due = sqlx::query("select id from servers where cancel_at <= $1 and cancelled_at is null")
        .bind(now)
        .fetch_all(&db.pool)
        .await
        .context("finding servers to end")?;
    let mut ended = 0;
    for row in &due {
        let id: ServerId = row.try_get("id")?;
        let mut tx = db.begin().await?;
        // The date is checked again in the claim: a revoke that landed
        // since the select above (another replica, a slower clock) wins,
        // and the server is not wiped.
        let claimed = sqlx::query(
            "update servers set cancelled_at = $1, updated_at = $1 \
             where id = $2 and cancelled_at is null and cancel_at is not null and cancel_at <= $1",
        )
        .bind(now)
        .bind(&id)
        .execute(&mut *tx)
        .await
        .context("ending the server")?;
        if claimed.rows_affected() == 0 {
            continue;
        }
        let host: Option<HostId> = sqlx::query_scalar(
            "update hosts set state = 'wiping', updated_at = $1 \
             where id = (select host_id from servers where id = $2) and state = 'allocated' returning id",
        )
        .bind(now)
        .bind(&id)
        .fetch_optional(&mut *tx)
        .await
        .context("starting the wipe")?;
        if let Some(host) = &host {
            host_event(&mut tx, host, "wiping", "cancelled", now).await?;
        }
        record_event(&mut tx, &id, EventKind::Cancelled, "", now).await?;
        jobs::enqueue(&mut tx, jobs::JobKind::Wipe, &id, now, now).await?;
        tx.commit().await.context("committing")?;
        ended += 1;
    }
    Ok(ended)
}

/// After the fleet wiped the host: it is free again (stock rises).
pub(crate) async fn wiped(db: &Db, clock: &Clock, server_id: &ServerId) -> anyhow::Result<()> {
    let now = clock.now();
    let mut tx = db.begin().await?;
    let host: Option<HostId> = sqlx::query_scalar(
        "update hosts set state = 'free', order_id = null, updated_at = $1 \
         where id = (select host_id from servers where id = $2) and state = 'wiping' returning id",
    )
    .bind(now)
    .bind(server_id)
    .fetch_optional(&mut *tx)
    .await
    .context("returning the host")?;
    if let Some(host) = &host {
        host_event(&mut tx, host, "free", "wiped after cancellation", now).await?;
        notify_stock_changed(db, &mut tx).await?;
    }
    sqlx::query("update servers set host_id = null, ipv4 = null, ipv6 = null, root_secret = null where id = $1")
        .bind(server_id)
        .execute(&mut *tx)
        .await
        .context("detaching the server")?;
    record_event(&mut tx, server_id, EventKind::Wiped, "", now).await?;
    tx.commit().await.context("committing")?;
    Ok(())
}
