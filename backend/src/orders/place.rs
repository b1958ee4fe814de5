//! Placing an order: validate the form, freeze the price, hold a host, all
//! in one transaction, once per idempotency key.

use anyhow::Context;
use domain::{Catalog, OrderId, OrganizationId, OsImage};
use sqlx::Any;

use super::{
    holds, pricing, server_name, sites_with_stock, NewOrder, OrderError, Placed, DAILY_ORDER_LIMIT,
    HOLD_SECS,
};
use crate::db::new_id;
use crate::ssh_keys::{self, PublicKey};
use crate::{audit, Clock, Db};

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
    let plan = catalog.plan(&new.plan).ok_or(OrderError::UnknownPlan)?;
    let site = catalog.site(&new.site).ok_or(OrderError::UnknownSite)?;
    let name = server_name(&new.server_name).ok_or(OrderError::InvalidName)?;
    let image = OsImage::parse(&new.os_image).ok_or(OrderError::UnknownImage)?;
    // Sold out as of a read that began after the order arrived: answered
    // before the billing profile, the price and the keys are read, and
    // without the organization's lock or any write. In an order storm most
    // orders end here (docs/BENCHMARKS.md). A host freed after this read
    // is the next order's; the hold below is what decides.
    let with_stock = sites_with_stock(db, clock, plan.id.as_str()).await?;
    if !with_stock.iter().any(|code| code == site.code.as_str()) {
        return Err(OrderError::SoldOut {
            sites_with_stock: with_stock,
        });
    }
    // A quick refusal before the work below; the count that decides is
    // repeated inside the transaction.
    if recent_orders(&db.pool, &new.organization_id, clock.now()).await? >= DAILY_ORDER_LIMIT {
        return Err(OrderError::DailyLimit);
    }
    let now = clock.now();
    // The billing profile decides the country and VAT; the order never
    // changes it.
    let customer = pricing::customer(db, &new.organization_id)
        .await?
        .ok_or(OrderError::NoBillingProfile)?;
    let billing_country = customer.country.as_str();
    let billed = customer.billed(&new.seller_country);
    let quote = pricing::quote(db, catalog, plan, &new.addons, &billed, now)
        .await?
        .map_err(|e| match e {
            pricing::PriceError::UnknownAddon(_) => OrderError::UnknownAddon,
            pricing::PriceError::UnknownCountry(_) => OrderError::UnknownCountry,
        })?;
    // The add-ons as priced: each once, however often the form named it.
    let addon_ids: Vec<&str> = quote.addons.iter().map(|(id, _)| id.as_str()).collect();
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

    let order_id = OrderId::from(new_id());
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
    .bind(addon_ids.join("\n"))
    .bind(keys.join("\n"))
    .bind(&new.billing_method)
    .bind(billing_country)
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
    crate::events::order(&mut tx, order_id.as_str(), "held", now).await?;
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
    organization_id: &OrganizationId,
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

async fn find_by_key(
    db: &Db,
    organization_id: &OrganizationId,
    key: &str,
) -> anyhow::Result<Option<OrderId>> {
    sqlx::query_scalar("select id from orders where organization_id = $1 and idempotency_key = $2")
        .bind(organization_id)
        .bind(key)
        .fetch_optional(&db.pool)
        .await
        .context("looking up the order key")
}
