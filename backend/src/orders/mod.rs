//! Orders: a customer buys one server of a plan at a site. Placing an order
//! freezes its price and holds a host; payment (or, with invoice billing,
//! placement itself) confirms it, which allocates the host, creates the
//! server and queues its provisioning. A retried submit finds the order it
//! already made; a hold nobody pays for expires and returns the host.

pub mod holds;
pub mod pricing;

use anyhow::Context;
use domain::{Catalog, OsImage};
use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use crate::db::new_id;
use crate::ssh_keys::{self, PublicKey};
use crate::{audit, jobs, Clock, Db};

pub use holds::{expire_holds, HOLD_SECS};

/// Orders an organization may place in 24 hours. Invoice billing allocates
/// hosts before any money arrives, so a runaway script (or a stolen
/// session) must not be able to take a whole site's stock. Orders that
/// failed or expired don't count.
pub const DAILY_ORDER_LIMIT: i64 = 20;

/// What the order form sends.
#[derive(Clone, Debug, Default)]
pub struct NewOrder {
    pub organization_id: String,
    pub user_id: String,
    /// Shown in the audit log: the user's email.
    pub actor: String,
    pub ip: Option<String>,
    pub idempotency_key: String,
    pub plan: String,
    pub site: String,
    pub server_name: String,
    pub os_image: String,
    pub addons: Vec<String>,
    /// Ids of the user's saved keys to install.
    pub ssh_key_ids: Vec<String>,
    /// A key pasted into the form: saved for the user and installed.
    pub new_key: Option<String>,
    pub billing_country: String,
    /// `invoice` (offline) or `stripe`.
    pub billing_method: String,
    /// The country we are established in (VAT rules).
    pub seller_country: String,
}

#[derive(Debug, thiserror::Error)]
pub enum OrderError {
    #[error("server names are 1 to 63 letters, digits and hyphens")]
    InvalidName,
    #[error("unknown plan")]
    UnknownPlan,
    #[error("unknown site")]
    UnknownSite,
    #[error("unknown image")]
    UnknownImage,
    #[error("unknown add-on")]
    UnknownAddon,
    #[error("choose a billing country")]
    UnknownCountry,
    #[error("not an OpenSSH public key")]
    BadKey,
    #[error("unknown SSH key")]
    UnknownKey,
    #[error("the order form expired")]
    MissingKey,
    /// The organization placed [`DAILY_ORDER_LIMIT`] orders in 24 hours.
    #[error("too many orders today")]
    DailyLimit,
    /// No host left; the sites that still have this plan.
    #[error("sold out")]
    SoldOut { sites_with_stock: Vec<String> },
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Order {
    pub id: String,
    pub organization_id: String,
    pub user_id: String,
    pub placed_by: String,
    pub plan_id: String,
    pub site_code: String,
    pub server_name: String,
    pub os_image: String,
    pub addons: Vec<String>,
    pub billing_method: String,
    pub billing_country: String,
    pub plan_cents: i64,
    pub addons_cents: i64,
    pub vat_rate_bp: i64,
    pub vat_cents: i64,
    pub total_cents: i64,
    pub currency: String,
    /// held → confirmed → fulfilled, or failed / expired.
    pub state: String,
    pub hold_expires_at: Option<i64>,
    pub server_id: Option<String>,
    pub failure: Option<String>,
    pub created_at: i64,
}

const ORDER_COLUMNS: &str = "o.id, o.organization_id, o.user_id, u.email as placed_by, o.plan_id, \
    o.site_code, o.server_name, o.os_image, o.addons, o.billing_method, o.billing_country, \
    o.plan_cents, o.addons_cents, o.vat_rate_bp, o.vat_cents, o.total_cents, o.currency, o.state, \
    o.hold_expires_at, o.server_id, o.failure, o.created_at";

impl Order {
    fn from_row(r: &AnyRow) -> anyhow::Result<Order> {
        let addons: String = r.try_get("addons")?;
        Ok(Order {
            id: r.try_get("id")?,
            organization_id: r.try_get("organization_id")?,
            user_id: r.try_get("user_id")?,
            placed_by: r.try_get("placed_by")?,
            plan_id: r.try_get("plan_id")?,
            site_code: r.try_get("site_code")?,
            server_name: r.try_get("server_name")?,
            os_image: r.try_get("os_image")?,
            addons: split_list(&addons),
            billing_method: r.try_get("billing_method")?,
            billing_country: r.try_get("billing_country")?,
            plan_cents: r.try_get("plan_cents")?,
            addons_cents: r.try_get("addons_cents")?,
            vat_rate_bp: r.try_get("vat_rate_bp")?,
            vat_cents: r.try_get("vat_cents")?,
            total_cents: r.try_get("total_cents")?,
            currency: r.try_get("currency")?,
            state: r.try_get("state")?,
            hold_expires_at: r.try_get("hold_expires_at")?,
            server_id: r.try_get("server_id")?,
            failure: r.try_get("failure")?,
            created_at: r.try_get("created_at")?,
        })
    }
}

pub(crate) fn split_list(raw: &str) -> Vec<String> {
    raw.split('\n')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A server name doubles as its hostname: one DNS label, lower case.
pub fn server_name(raw: &str) -> Option<String> {
    let name = raw.trim().to_ascii_lowercase();
    let ok = (1..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    ok.then_some(name)
}

/// The outcome of placing an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub order_id: String,
    /// False when the same form was submitted before: nothing new was made.
    pub created: bool,
}

/// Validates the form, freezes the price and holds a host, all or nothing.
pub async fn place(
    db: &Db,
    clock: &Clock,
    catalog: &Catalog,
    new: &NewOrder,
) -> Result<Placed, OrderError> {
    let key = new.idempotency_key.trim();
    if key.is_empty() || key.len() > 100 {
        return Err(OrderError::MissingKey);
    }
    if let Some(id) = find_by_key(db, &new.organization_id, key).await? {
        return Ok(Placed {
            order_id: id,
            created: false,
        });
    }
    // A quick refusal before any work; the count that decides is repeated
    // inside the transaction below.
    if recent_orders(&db.pool, &new.organization_id, clock.now()).await? >= DAILY_ORDER_LIMIT {
        return Err(OrderError::DailyLimit);
    }
    let plan = catalog.plan(&new.plan).ok_or(OrderError::UnknownPlan)?;
    let site = catalog.site(&new.site).ok_or(OrderError::UnknownSite)?;
    let name = server_name(&new.server_name).ok_or(OrderError::InvalidName)?;
    let image = OsImage::parse(&new.os_image).ok_or(OrderError::UnknownImage)?;
    let now = clock.now();
    // A billing profile, when there is one, decides the country and VAT.
    let profile = crate::billing::profile::get(db, &new.organization_id).await?;
    let (billing_country, has_vat_id) = match &profile {
        Some(p) => (p.country.clone(), p.vat_id.is_some()),
        None => (new.billing_country.clone(), false),
    };
    let billed = pricing::Billed {
        country: &billing_country,
        has_vat_id,
        seller_country: &new.seller_country,
    };
    let quote = pricing::quote(db, catalog, plan, &new.addons, &billed, now)
        .await?
        .map_err(|e| match e {
            pricing::PriceError::UnknownAddon(_) => OrderError::UnknownAddon,
            pricing::PriceError::UnknownCountry(_) => OrderError::UnknownCountry,
        })?;
    let pasted: Option<PublicKey> = match new.new_key.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => {
            Some(ssh_keys::parse(text).map_err(|_| OrderError::BadKey)?)
        }
        _ => None,
    };
    let saved = ssh_keys::list(db, &new.user_id).await?;
    let mut keys: Vec<String> = Vec::new();
    for id in &new.ssh_key_ids {
        let key = saved
            .iter()
            .find(|k| &k.id == id)
            .ok_or(OrderError::UnknownKey)?;
        keys.push(key.public_key.clone());
    }
    if let Some(p) = &pasted {
        if !keys.contains(&p.openssh) {
            keys.push(p.openssh.clone());
        }
    }

    let order_id = new_id();
    let hold_until = now + HOLD_SECS;
    let mut tx = db.begin().await.context("starting a transaction")?;
    // Orders of one organization are placed one at a time, so the daily
    // limit holds under concurrency (SQLite's immediate transactions are
    // serial anyway).
    if db.backend == crate::db::Backend::Postgres {
        sqlx::query("select id from organizations where id = $1 for update")
            .bind(&new.organization_id)
            .fetch_optional(&mut *tx)
            .await
            .context("locking the organization's orders")?;
    }
    if recent_orders(&mut *tx, &new.organization_id, now).await? >= DAILY_ORDER_LIMIT {
        return Err(OrderError::DailyLimit);
    }
    // The first statement writes, so SQLite takes its write lock now
    // (waiting its turn) instead of failing to upgrade a read lock later.
    let inserted = sqlx::query(
        "insert into orders (id, organization_id, user_id, idempotency_key, plan_id, site_code, \
         server_name, os_image, addons, ssh_keys, billing_method, billing_country, plan_cents, \
         addons_cents, vat_rate_bp, vat_cents, total_cents, currency, state, hold_expires_at, \
         created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         'held', $19, $20, $20) on conflict (organization_id, idempotency_key) do nothing",
    )
    .bind(&order_id)
    .bind(&new.organization_id)
    .bind(&new.user_id)
    .bind(key)
    .bind(plan.id.as_str())
    .bind(site.code.as_str())
    .bind(&name)
    .bind(image.as_str())
    .bind(new.addons.join("\n"))
    .bind(keys.join("\n"))
    .bind(&new.billing_method)
    .bind(&billing_country)
    .bind(quote.plan.cents)
    .bind(quote.net.cents - quote.plan.cents)
    .bind(quote.vat_treatment.rate_bp())
    .bind(quote.vat.cents)
    .bind(quote.total.cents)
    .bind(quote.total.currency.code())
    .bind(hold_until)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("recording the order")?;
    if inserted.rows_affected() == 0 {
        // The same form, submitted twice at once: the other one made it.
        drop(tx);
        let id = find_by_key(db, &new.organization_id, key)
            .await?
            .context("the order with this key vanished")?;
        return Ok(Placed {
            order_id: id,
            created: false,
        });
    }
    let held = holds::take_host(
        db,
        &mut tx,
        plan.id.as_str(),
        site.code.as_str(),
        &order_id,
        Some(hold_until),
        now,
    )
    .await?;
    if held.is_none() {
        drop(tx);
        return Err(OrderError::SoldOut {
            sites_with_stock: sites_with_stock(db, clock, plan.id.as_str()).await?,
        });
    }
    if let Some(p) = &pasted {
        ssh_keys::add(&mut *tx, &new.user_id, "", p, now).await?;
    }
    sqlx::query("update organizations set billing_country = $1 where id = $2")
        .bind(&billing_country)
        .bind(&new.organization_id)
        .execute(&mut *tx)
        .await
        .context("remembering the billing country")?;
    audit::record(
        &mut *tx,
        &audit::Entry {
            organization_id: Some(&new.organization_id),
            user_id: Some(&new.user_id),
            actor: &new.actor,
            action: "order.placed",
            detail: &format!(
                "{} {} {} {} {}",
                plan.name,
                site.code,
                name,
                domain::Money::format(quote.total, domain::Lang::En),
                order_id
            ),
            ip: new.ip.as_deref(),
            at: now,
        },
    )
    .await?;
    tx.commit().await.context("committing the order")?;
    Ok(Placed {
        order_id,
        created: true,
    })
}

async fn recent_orders<'e, E: sqlx::Executor<'e, Database = Any>>(
    executor: E,
    organization_id: &str,
    now: i64,
) -> anyhow::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from orders where organization_id = $1 and created_at > $2 \
         and state not in ('failed', 'expired')",
    )
    .bind(organization_id)
    .bind(now - 86_400)
    .fetch_one(executor)
    .await
    .context("counting recent orders")
}

async fn find_by_key(db: &Db, organization_id: &str, key: &str) -> anyhow::Result<Option<String>> {
    sqlx::query_scalar("select id from orders where organization_id = $1 and idempotency_key = $2")
        .bind(organization_id)
        .bind(key)
        .fetch_optional(&db.pool)
        .await
        .context("looking up the order key")
}

/// The country the organization was last billed in, for the order form.
pub async fn billing_country(db: &Db, organization_id: &str) -> anyhow::Result<Option<String>> {
    let country: Option<Option<String>> =
        sqlx::query_scalar("select billing_country from organizations where id = $1")
            .bind(organization_id)
            .fetch_optional(&db.pool)
            .await
            .context("reading the billing country")?;
    Ok(country.flatten())
}

/// Sites where a plan can be bought right now, in display order.
pub async fn sites_with_stock(db: &Db, clock: &Clock, plan: &str) -> anyhow::Result<Vec<String>> {
    sqlx::query_scalar(
        "select s.code from sites s where exists (select 1 from hosts h where h.site_code = s.code \
         and h.plan_id = $1 and (h.state = 'free' or (h.state = 'held' and h.hold_expires_at <= $2))) \
         order by s.position",
    )
    .bind(plan)
    .bind(clock.now())
    .fetch_all(&db.pool)
    .await
    .context("finding sites with stock")
}

/// Payment arrived (or invoice billing accepted the order): the hold becomes
/// an allocation, the server is created and its provisioning queued. If the
/// hold ran out and another buyer took the host, another free host at the
/// same site is taken; if there is none the order fails and its charge is
/// released. Confirming twice changes nothing.
pub async fn confirm(db: &Db, clock: &Clock, order_id: &str) -> anyhow::Result<Order> {
    let mut tx = db.begin().await?;
    confirm_in(db, &mut tx, order_id, clock.now()).await?;
    tx.commit().await.context("committing the confirmation")?;
    get_any(db, order_id).await?.context("no such order")
}

/// [`confirm`] inside the caller's transaction (a payment webhook records
/// its event in the same one). Answers the new server's id, or `None` if
/// the order was confirmed before or has just failed.
pub async fn confirm_in(
    db: &Db,
    tx: &mut Transaction<'_, Any>,
    order_id: &str,
    now: i64,
) -> anyhow::Result<Option<String>> {
    let claimed = sqlx::query(
        "update orders set state = 'confirmed', hold_expires_at = null, updated_at = $1 \
         where id = $2 and state in ('held', 'expired') returning server_name",
    )
    .bind(now)
    .bind(order_id)
    .fetch_optional(&mut **tx)
    .await
    .context("confirming the order")?;
    if claimed.is_none() {
        return Ok(None);
    }
    let order = {
        let row = sqlx::query(&format!(
            "select {ORDER_COLUMNS}, o.ssh_keys from orders o join users u on u.id = o.user_id where o.id = $1"
        ))
        .bind(order_id)
        .fetch_one(&mut **tx)
        .await
        .context("reading the order")?;
        let keys: String = row.try_get("ssh_keys")?;
        (Order::from_row(&row)?, keys)
    };
    let (order, keys) = order;
    let host: Option<String> = sqlx::query_scalar(
        "update hosts set state = 'allocated', hold_expires_at = null, updated_at = $1 \
         where order_id = $2 and state = 'held' returning id",
    )
    .bind(now)
    .bind(order_id)
    .fetch_optional(&mut **tx)
    .await
    .context("allocating the held host")?;
    let host = match host {
        Some(id) => {
            holds::host_event(tx, &id, "allocated", &format!("order {order_id}"), now).await?;
            Some(id)
        }
        None => holds::take_host(
            db,
            tx,
            &order.plan_id,
            &order.site_code,
            order_id,
            None,
            now,
        )
        .await?
        .map(|(id, _)| id),
    };
    let Some(host_id) = host else {
        sqlx::query(
            "update orders set state = 'failed', failure = 'sold_out_at_payment', updated_at = $1 where id = $2",
        )
        .bind(now)
        .bind(order_id)
        .execute(&mut **tx)
        .await
        .context("failing the order")?;
        return Ok(None);
    };
    let server_id = new_id();
    sqlx::query(
        "insert into servers (id, organization_id, order_id, name, plan_id, site_code, host_id, state, \
         progress, step, os_image, addons, ssh_keys, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, '', $8, $9, $10, $11, $11)",
    )
    .bind(&server_id)
    .bind(&order.organization_id)
    .bind(order_id)
    .bind(&order.server_name)
    .bind(&order.plan_id)
    .bind(&order.site_code)
    .bind(&host_id)
    .bind(&order.os_image)
    .bind(order.addons.join("\n"))
    .bind(&keys)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("creating the server")?;
    sqlx::query("update orders set server_id = $1 where id = $2")
        .bind(&server_id)
        .bind(order_id)
        .execute(&mut **tx)
        .await
        .context("linking the server")?;
    crate::servers::record_event(tx, &server_id, "ordered", order_id, now).await?;
    jobs::enqueue(tx, crate::servers::PROVISION, &server_id, now, now).await?;
    Ok(Some(server_id))
}

pub async fn get_any(db: &Db, order_id: &str) -> anyhow::Result<Option<Order>> {
    sqlx::query(&format!(
        "select {ORDER_COLUMNS} from orders o join users u on u.id = o.user_id where o.id = $1"
    ))
    .bind(order_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the order")?
    .as_ref()
    .map(Order::from_row)
    .transpose()
}

/// One order of an organization; `None` for anyone else's.
pub async fn get(db: &Db, organization_id: &str, order_id: &str) -> anyhow::Result<Option<Order>> {
    Ok(get_any(db, order_id)
        .await?
        .filter(|o| o.organization_id == organization_id))
}

/// An organization's orders, newest first; only those `placed_by` placed
/// when given (technical members see their own).
pub async fn list(
    db: &Db,
    organization_id: &str,
    placed_by: Option<&str>,
) -> anyhow::Result<Vec<Order>> {
    sqlx::query(&format!(
        "select {ORDER_COLUMNS} from orders o join users u on u.id = o.user_id \
         where o.organization_id = $1 and ($2 = '' or o.user_id = $2) \
         order by o.created_at desc, o.id desc limit 500"
    ))
    .bind(organization_id)
    .bind(placed_by.unwrap_or(""))
    .fetch_all(&db.pool)
    .await
    .context("listing orders")?
    .iter()
    .map(Order::from_row)
    .collect()
}

/// Every organization's orders, newest first, for staff.
pub async fn all(db: &Db, limit: i64) -> anyhow::Result<Vec<(Order, String)>> {
    sqlx::query(&format!(
        "select {ORDER_COLUMNS}, g.name as organization_name from orders o \
         join users u on u.id = o.user_id join organizations g on g.id = o.organization_id \
         order by o.created_at desc, o.id desc limit $1"
    ))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("listing all orders")?
    .iter()
    .map(|r| Ok((Order::from_row(r)?, r.try_get("organization_name")?)))
    .collect()
}
