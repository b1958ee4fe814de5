//! Webhooks: an organization's endpoints, each told the events it chose
//! (`server.*`, `invoice.paid`, `*` …) by a signed POST, retried with
//! backoff until it answers 2xx. An endpoint hears only what its creator
//! may see now: invoice events need an owner or billing member, server and
//! order events an owner or technical member; stock changes are public.
//! Delivery itself is `delivery.rs`.

use anyhow::Context;
use domain::{OrganizationId, Role, UserId};
use serde_json::{json, Value};
use sqlx::{Any, Row, Transaction};

use crate::events::Event;
use crate::sealing::Sealer;
use crate::servers::Actor;
use crate::{Clock, Db};

mod delivery;
mod rules;

pub use delivery::{deliver_due, sign, Sending};
pub use rules::{known_pattern, valid_url, wants};

/// A delivery's states: to be tried (again), answered 2xx, or given up.
pub const DELIVERY_STATES: [&str; 3] = ["pending", "succeeded", "failed"];

/// Endpoints one organization may have.
pub const MAX_ENDPOINTS: usize = 10;

/// How long a rolled secret still signs, so receivers can switch over.
pub const OVERLAP_SECS: i64 = 24 * 3600;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub id: String,
    pub organization_id: OrganizationId,
    pub url: String,
    pub description: String,
    pub events: Vec<String>,
    pub enabled: bool,
    pub created_by: UserId,
    pub created_at: i64,
    /// Until when the previous secret still signs (after a roll).
    pub previous_until: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub id: String,
    pub endpoint_id: String,
    pub event_id: String,
    pub event_type: String,
    /// `pending`, `succeeded` or `failed` (after the last try).
    pub state: String,
    pub attempts: i64,
    pub next_attempt_at: i64,
    pub last_status: Option<i64>,
    pub last_response: Option<String>,
    pub last_error: Option<String>,
    pub delivered_at: Option<i64>,
    pub created_at: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("no such endpoint or delivery")]
    NotFound,
    #[error("the URL must be https:// with a host name, at most 2,000 characters")]
    BadUrl,
    #[error("unknown event type {0:?}")]
    UnknownEvent(String),
    #[error("an organization keeps at most {MAX_ENDPOINTS} endpoints")]
    TooMany,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

const ENDPOINT_COLUMNS: &str = "id, organization_id, url, description, events, enabled, \
    created_by, created_at, previous_until";

fn endpoint(row: &sqlx::any::AnyRow) -> anyhow::Result<Endpoint> {
    let events: String = row.try_get("events")?;
    Ok(Endpoint {
        id: row.try_get("id")?,
        organization_id: row.try_get("organization_id")?,
        url: row.try_get("url")?,
        description: row.try_get("description")?,
        events: events.lines().map(str::to_owned).collect(),
        enabled: row.try_get::<i64, _>("enabled")? == 1,
        created_by: row.try_get("created_by")?,
        created_at: row.try_get("created_at")?,
        previous_until: row.try_get("previous_until")?,
    })
}

/// The organization's endpoints, oldest first.
pub async fn list(db: &Db, organization_id: &OrganizationId) -> anyhow::Result<Vec<Endpoint>> {
    let rows = sqlx::query(&format!(
        "select {ENDPOINT_COLUMNS} from webhook_endpoints where organization_id = $1 \
         order by created_at, id"
    ))
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing webhook endpoints")?;
    rows.iter().map(endpoint).collect()
}

pub async fn get(
    db: &Db,
    organization_id: &OrganizationId,
    id: &str,
) -> Result<Endpoint, WebhookError> {
    let row = sqlx::query(&format!(
        "select {ENDPOINT_COLUMNS} from webhook_endpoints where organization_id = $1 and id = $2"
    ))
    .bind(organization_id)
    .bind(id)
    .fetch_optional(&db.pool)
    .await
    .context("reading a webhook endpoint")?;
    row.as_ref()
        .map(endpoint)
        .transpose()?
        .ok_or(WebhookError::NotFound)
}

/// What an endpoint is created or changed with.
pub struct Settings<'a> {
    pub url: &'a str,
    pub description: &'a str,
    pub events: &'a [String],
    pub enabled: bool,
}

fn check(settings: &Settings<'_>, allow_private: bool) -> Result<(), WebhookError> {
    if !valid_url(settings.url, allow_private) {
        return Err(WebhookError::BadUrl);
    }
    if let Some(unknown) = settings.events.iter().find(|p| !known_pattern(p)) {
        return Err(WebhookError::UnknownEvent(unknown.clone()));
    }
    if settings.events.is_empty() {
        return Err(WebhookError::UnknownEvent(String::new()));
    }
    Ok(())
}

fn new_secret() -> anyhow::Result<String> {
    Ok(format!(
        "whsec_{}",
        crate::accounts::tokens::random_token()?
    ))
}

/// A new endpoint; answers it and its signing secret (shown once).
pub async fn create(
    db: &Db,
    clock: &Clock,
    sealer: &Sealer,
    actor: &Actor<'_>,
    settings: &Settings<'_>,
    allow_private: bool,
) -> Result<(Endpoint, String), WebhookError> {
    check(settings, allow_private)?;
    if list(db, actor.organization_id).await?.len() >= MAX_ENDPOINTS {
        return Err(WebhookError::TooMany);
    }
    let secret = new_secret()?;
    let id = format!("whe_{}", crate::db::new_id().replace('-', ""));
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query(
        "insert into webhook_endpoints (id, organization_id, url, description, events, secret, \
         previous_secret, previous_until, enabled, created_by, created_at) \
         values ($1, $2, $3, $4, $5, $6, null, null, $7, $8, $9)",
    )
    .bind(&id)
    .bind(actor.organization_id)
    .bind(settings.url)
    .bind(settings.description.trim())
    .bind(settings.events.join("\n"))
    .bind(sealer.seal(&secret)?)
    .bind(i64::from(settings.enabled))
    .bind(actor.user_id)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("storing a webhook endpoint")?;
    actor
        .audit(&mut tx, "webhook.created", settings.url, now)
        .await?;
    tx.commit().await.context("committing the endpoint")?;
    Ok((get(db, actor.organization_id, &id).await?, secret))
}

/// Changes an endpoint's URL, description, events or whether it is on.
pub async fn update(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &str,
    settings: &Settings<'_>,
    allow_private: bool,
) -> Result<Endpoint, WebhookError> {
    check(settings, allow_private)?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let done = sqlx::query(
        "update webhook_endpoints set url = $1, description = $2, events = $3, enabled = $4 \
         where id = $5 and organization_id = $6",
    )
    .bind(settings.url)
    .bind(settings.description.trim())
    .bind(settings.events.join("\n"))
    .bind(i64::from(settings.enabled))
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("changing a webhook endpoint")?;
    if done.rows_affected() != 1 {
        return Err(WebhookError::NotFound);
    }
    actor
        .audit(&mut tx, "webhook.changed", settings.url, now)
        .await?;
    tx.commit().await.context("committing the endpoint")?;
    get(db, actor.organization_id, id).await
}

/// Deletes an endpoint and its deliveries (nothing more is sent to it).
pub async fn delete(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &str,
) -> Result<(), WebhookError> {
    let endpoint = get(db, actor.organization_id, id).await?;
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query("delete from webhook_deliveries where endpoint_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await
        .context("deleting the endpoint's deliveries")?;
    sqlx::query("delete from webhook_endpoints where id = $1 and organization_id = $2")
        .bind(id)
        .bind(actor.organization_id)
        .execute(&mut *tx)
        .await
        .context("deleting a webhook endpoint")?;
    actor
        .audit(&mut tx, "webhook.deleted", &endpoint.url, clock.now())
        .await?;
    tx.commit().await.context("committing the deletion")?;
    Ok(())
}

/// A new signing secret (shown once); the previous one signs too for
/// [`OVERLAP_SECS`].
pub async fn roll_secret(
    db: &Db,
    clock: &Clock,
    sealer: &Sealer,
    actor: &Actor<'_>,
    id: &str,
) -> Result<(Endpoint, String), WebhookError> {
    let endpoint = get(db, actor.organization_id, id).await?;
    let secret = new_secret()?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query(
        "update webhook_endpoints set previous_secret = secret, previous_until = $1, secret = $2 \
         where id = $3 and organization_id = $4",
    )
    .bind(now + OVERLAP_SECS)
    .bind(sealer.seal(&secret)?)
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("rolling the secret")?;
    actor
        .audit(&mut tx, "webhook.secret_rolled", &endpoint.url, now)
        .await?;
    tx.commit().await.context("committing the secret")?;
    Ok((get(db, actor.organization_id, id).await?, secret))
}

/// The event as an endpoint receives it.
pub fn payload(event: &Event) -> Value {
    json!({
        "id": event.id,
        "type": event.kind,
        "seq": event.seq,
        "created_at": domain::time::format_iso(event.created_at),
        "data": event.data,
    })
}

/// Queues `event` for every endpoint that wants it and whose creator may
/// see it (`None`: everyone's event, stock).
pub async fn fan_out(
    tx: &mut Transaction<'_, Any>,
    organization_id: Option<&OrganizationId>,
    event: &Event,
) -> anyhow::Result<()> {
    let endpoints = sqlx::query(
        "select e.id, e.organization_id, e.events, m.role from webhook_endpoints e \
         left join memberships m on m.organization_id = e.organization_id \
         and m.user_id = e.created_by \
         where e.enabled = 1 and ($1 = '' or e.organization_id = $1)",
    )
    .bind(organization_id.map_or("", OrganizationId::as_str))
    .fetch_all(&mut **tx)
    .await
    .context("finding webhook endpoints")?;
    let body = payload(event).to_string();
    for row in endpoints {
        let patterns: Vec<String> = row
            .try_get::<String, _>("events")?
            .lines()
            .map(str::to_owned)
            .collect();
        let role: Option<Role> = row.try_get("role")?;
        let allowed = match role {
            None => false,
            Some(_) if event.kind.starts_with("stock.") => true,
            Some(role) if event.about_money() => role.money(),
            Some(role) => role.technical(),
        };
        if !allowed || !wants(&patterns, &event.kind) {
            continue;
        }
        let endpoint_id: String = row.try_get("id")?;
        let organization: String = row.try_get("organization_id")?;
        queue(
            tx,
            &endpoint_id,
            &organization,
            &event.id,
            &event.kind,
            &body,
            event.created_at,
        )
        .await?;
    }
    Ok(())
}

async fn queue(
    tx: &mut Transaction<'_, Any>,
    endpoint_id: &str,
    organization_id: &str,
    event_id: &str,
    event_type: &str,
    body: &str,
    now: i64,
) -> anyhow::Result<String> {
    let id = format!("whd_{}", crate::db::new_id().replace('-', ""));
    sqlx::query(
        "insert into webhook_deliveries (id, endpoint_id, organization_id, event_id, event_type, \
         payload, state, attempts, next_attempt_at, created_at) \
         values ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7)",
    )
    .bind(&id)
    .bind(endpoint_id)
    .bind(organization_id)
    .bind(event_id)
    .bind(event_type)
    .bind(body)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("queueing a webhook delivery")?;
    Ok(id)
}

/// A `ping` to one endpoint, to check it: delivered like any event.
pub async fn ping(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
    endpoint_id: &str,
) -> Result<Delivery, WebhookError> {
    get(db, organization_id, endpoint_id).await?;
    let now = clock.now();
    let event_id = format!("evt_ping_{}", crate::db::new_id().replace('-', ""));
    let body = json!({
        "id": event_id,
        "type": "ping",
        "created_at": domain::time::format_iso(now),
        "data": { "object": "webhook_endpoint", "id": endpoint_id },
    })
    .to_string();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let id = queue(
        &mut tx,
        endpoint_id,
        organization_id.as_str(),
        &event_id,
        "ping",
        &body,
        now,
    )
    .await?;
    tx.commit().await.context("committing the ping")?;
    delivery(db, organization_id, endpoint_id, &id).await
}

/// Sends a delivery's event again, as a new delivery (the old one stays
/// in the list with its answer).
pub async fn resend(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
    endpoint_id: &str,
    delivery_id: &str,
) -> Result<Delivery, WebhookError> {
    let row = sqlx::query(
        "select event_id, event_type, payload from webhook_deliveries \
         where id = $1 and endpoint_id = $2 and organization_id = $3",
    )
    .bind(delivery_id)
    .bind(endpoint_id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the delivery")?
    .ok_or(WebhookError::NotFound)?;
    let field = |name: &str| -> anyhow::Result<String> { Ok(row.try_get::<String, _>(name)?) };
    let (event_id, event_type, payload) =
        (field("event_id")?, field("event_type")?, field("payload")?);
    let mut tx = db.begin().await.context("starting a transaction")?;
    let id = queue(
        &mut tx,
        endpoint_id,
        organization_id.as_str(),
        &event_id,
        &event_type,
        &payload,
        clock.now(),
    )
    .await?;
    tx.commit().await.context("committing the resend")?;
    delivery(db, organization_id, endpoint_id, &id).await
}

const DELIVERY_COLUMNS: &str = "id, endpoint_id, event_id, event_type, state, attempts, \
    next_attempt_at, last_status, last_response, last_error, delivered_at, created_at";

fn delivery_row(row: &sqlx::any::AnyRow) -> anyhow::Result<Delivery> {
    Ok(Delivery {
        id: row.try_get("id")?,
        endpoint_id: row.try_get("endpoint_id")?,
        event_id: row.try_get("event_id")?,
        event_type: row.try_get("event_type")?,
        state: row.try_get("state")?,
        attempts: row.try_get("attempts")?,
        next_attempt_at: row.try_get("next_attempt_at")?,
        last_status: row.try_get("last_status")?,
        last_response: row.try_get("last_response")?,
        last_error: row.try_get("last_error")?,
        delivered_at: row.try_get("delivered_at")?,
        created_at: row.try_get("created_at")?,
    })
}

pub async fn delivery(
    db: &Db,
    organization_id: &OrganizationId,
    endpoint_id: &str,
    id: &str,
) -> Result<Delivery, WebhookError> {
    let row = sqlx::query(&format!(
        "select {DELIVERY_COLUMNS} from webhook_deliveries \
         where id = $1 and endpoint_id = $2 and organization_id = $3"
    ))
    .bind(id)
    .bind(endpoint_id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading a delivery")?;
    row.as_ref()
        .map(delivery_row)
        .transpose()?
        .ok_or(WebhookError::NotFound)
}

/// An endpoint's deliveries, newest first, at most `limit` (a page below
/// `before`'s `(created_at, id)`).
pub async fn deliveries(
    db: &Db,
    organization_id: &OrganizationId,
    endpoint_id: &str,
    before: Option<(i64, &str)>,
    limit: i64,
) -> anyhow::Result<Vec<Delivery>> {
    let rows = sqlx::query(&format!(
        "select {DELIVERY_COLUMNS} from webhook_deliveries \
         where endpoint_id = $1 and organization_id = $2 \
         and ($3 = 0 or created_at < $4 or (created_at = $4 and id < $5)) \
         order by created_at desc, id desc limit $6"
    ))
    .bind(endpoint_id)
    .bind(organization_id)
    .bind(i64::from(before.is_some()))
    .bind(before.map_or(0, |(at, _)| at))
    .bind(before.map_or("", |(_, id)| id))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("listing deliveries")?;
    rows.iter().map(delivery_row).collect()
}
