//! Out-of-band consoles (DESIGN §5). The portal issues a ticket to a
//! signed-in owner or technical user; the browser opens the console's
//! WebSocket with it, and the server relays bytes to the host's BMC. A
//! ticket lives 60 s, is redeemed once, and only by the user and session it
//! was issued to, for the server and console it names. Tickets are rows, so
//! a ticket issued by one replica is redeemed by whichever replica the
//! WebSocket reaches.

use anyhow::Context;
use domain::server::{BillingState, ConsoleClosed};
use domain::{OrganizationId, ServerId, UserId};
use sqlx::Row;

use crate::accounts::tokens::{hash, random_token};
use crate::fleet::ConsoleKind;
use crate::organizations::{self, Role};
use crate::servers::{self, Actor, Server};
use crate::{Clock, Db};

pub const TICKET_LIFETIME_SECS: i64 = 60;

#[derive(Debug, thiserror::Error)]
pub enum ConsoleError {
    #[error("no such server")]
    NotFound,
    /// Not running, suspended for non-payment, cancelled, or being rebuilt.
    #[error("the console is not available: {0}")]
    NotAvailable(ConsoleClosed),
    #[error("the console ticket is unknown, expired, used, or not yours")]
    BadTicket,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Whether a server's console may be open now: it runs (or restarts) and
/// is neither suspended nor cancelled. The tunnel rechecks this while open.
pub fn available(server: &Server, billing_state: BillingState) -> Result<(), ConsoleError> {
    let closed = if server.cancelled_at.is_some() {
        Some(ConsoleClosed::Cancelled)
    } else if billing_state == BillingState::Suspended {
        Some(ConsoleClosed::Suspended)
    } else if let Some(why) = ConsoleClosed::by_state(server.shown_state()) {
        Some(why)
    } else {
        server.host_name.is_none().then_some(ConsoleClosed::NoHost)
    };
    closed.map_or(Ok(()), |why| Err(ConsoleError::NotAvailable(why)))
}

/// A server that is gone counts as active here: `servers::get` answers
/// for it first.
async fn billing_state(db: &Db, server_id: &ServerId) -> anyhow::Result<BillingState> {
    let row = sqlx::query("select billing_state from servers where id = $1")
        .bind(server_id)
        .fetch_optional(&db.pool)
        .await
        .context("reading the billing state")?;
    match row {
        Some(row) => Ok(row.try_get("billing_state")?),
        None => Ok(BillingState::Active),
    }
}

/// Whether `server`'s console may be opened now (reads its billing state).
pub async fn check_available(db: &Db, server: &Server) -> Result<(), ConsoleError> {
    available(server, billing_state(db, &server.id).await?)
}

/// A new ticket for `actor`'s console of a server of their organization,
/// bound to their session. An empty `session_id` is a ticket made through
/// the API (which has no session): the same user redeems it from any of
/// their signed-in browsers, still once and within the minute.
pub async fn issue(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    session_id: &str,
    server_id: &ServerId,
    kind: ConsoleKind,
) -> Result<String, ConsoleError> {
    let server = servers::get(db, actor.organization_id, server_id)
        .await?
        .ok_or(ConsoleError::NotFound)?;
    check_available(db, &server).await?;
    let token = random_token()?;
    let now = clock.now();
    sqlx::query(
        "insert into console_tickets (token_hash, user_id, session_id, organization_id, \
         server_id, kind, created_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(hash(&token))
    .bind(actor.user_id)
    .bind(session_id)
    .bind(actor.organization_id)
    .bind(server_id)
    .bind(kind.as_str())
    .bind(now)
    .bind(now + TICKET_LIFETIME_SECS)
    .execute(&db.pool)
    .await
    .context("storing a console ticket")?;
    Ok(token)
}

/// What a redeemed ticket opens.
#[derive(Clone, Debug)]
pub struct Opening {
    pub user_id: UserId,
    pub server_id: ServerId,
    pub organization_id: OrganizationId,
    pub session_id: String,
    pub host_name: String,
    pub kind: ConsoleKind,
}

/// Redeems a ticket for the console of `server_id` of `kind`, presented by
/// `actor` in `session_id`. The ticket is spent only when everything
/// matches, so a stranger holding it cannot burn it; the opening goes into
/// the audit log.
pub async fn redeem(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    session_id: &str,
    token: &str,
    server_id: &ServerId,
    kind: ConsoleKind,
) -> Result<Opening, ConsoleError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let spent = sqlx::query(
        "update console_tickets set used_at = $1 where token_hash = $2 and used_at is null \
         and expires_at > $1 and user_id = $3 and (session_id = $4 or session_id = '') \
         and organization_id = $5 \
         and server_id = $6 and kind = $7",
    )
    .bind(now)
    .bind(hash(token))
    .bind(actor.user_id)
    .bind(session_id)
    .bind(actor.organization_id)
    .bind(server_id)
    .bind(kind.as_str())
    .execute(&mut *tx)
    .await
    .context("redeeming a console ticket")?;
    if spent.rows_affected() != 1 {
        return Err(ConsoleError::BadTicket);
    }
    let server = servers::get(db, actor.organization_id, server_id)
        .await?
        .ok_or(ConsoleError::NotFound)?;
    available(&server, billing_state(db, server_id).await?)?;
    let action = format!("console.{}.opened", kind.as_str());
    let detail = format!("{} ({})", server.name, server.id);
    actor.audit(&mut tx, &action, &detail, now).await?;
    tx.commit()
        .await
        .context("committing the console opening")?;
    Ok(Opening {
        user_id: actor.user_id.to_owned(),
        server_id: server.id,
        organization_id: server.organization_id,
        session_id: session_id.to_owned(),
        host_name: server.host_name.unwrap_or_default(),
        kind,
    })
}

/// Why an open console must close now, if it must: the session ended
/// (logout, expiry) or the server stopped being available (suspended,
/// cancelled, failed). Checked by the tunnel every few seconds, against
/// the database, so it holds whichever replica the change went through.
pub async fn reason_to_close(db: &Db, clock: &Clock, opening: &Opening) -> Option<ConsoleClosed> {
    // Session expiry is kept in the application's clock, like the session
    // store's.
    match crate::sessions::load(db, &opening.session_id, clock.now()).await {
        Ok(Some(_)) => {}
        Ok(None) => return Some(ConsoleClosed::SignedOut),
        // A database hiccup is no reason to cut a live console.
        Err(_) => return None,
    }
    // Removed from the organization, or made a billing member.
    match organizations::membership_in(db, &opening.user_id, &opening.organization_id).await {
        Ok(Some(m)) if matches!(m.role, Role::Owner | Role::Technical) => {}
        Ok(_) => return Some(ConsoleClosed::AccessWithdrawn),
        Err(_) => return None,
    }
    let server = match servers::get(db, &opening.organization_id, &opening.server_id).await {
        Ok(Some(server)) => server,
        Ok(None) => return Some(ConsoleClosed::ServerGone),
        Err(_) => return None,
    };
    let billing = billing_state(db, &opening.server_id).await.ok()?;
    match available(&server, billing) {
        Err(ConsoleError::NotAvailable(why)) => Some(why),
        _ if server.host_name.as_deref() != Some(opening.host_name.as_str()) => {
            Some(ConsoleClosed::Moved)
        }
        _ => None,
    }
}

/// Forgets tickets that expired an hour ago or more.
pub async fn purge(db: &Db, now: i64) -> anyhow::Result<u64> {
    Ok(
        sqlx::query("delete from console_tickets where expires_at < $1")
            .bind(now - 3600)
            .execute(&db.pool)
            .await
            .context("purging console tickets")?
            .rows_affected(),
    )
}
