//! Confirming an order once it is paid (or accepted for invoice billing).

use anyhow::Context;
use domain::server::EventKind;
use domain::{HostId, OrderId, ServerId};
use sqlx::{Any, FromRow, Row, Transaction};

use super::{get_any, holds, Order, ORDER_COLUMNS};
use crate::db::new_id;
use crate::{jobs, Clock, Db};

/// Payment arrived (or invoice billing accepted the order): the hold becomes
/// an allocation, the server is created and its provisioning queued. If the
/// hold ran out and another buyer took the host, another free host at the
/// same site is taken; if there is none the order fails and its charge is
/// released. Confirming twice changes nothing.
pub async fn confirm(db: &Db, clock: &Clock, order_id: &OrderId) -> anyhow::Result<Order> {
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
    order_id: &OrderId,
    now: i64,
) -> anyhow::Result<Option<ServerId>> {
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
    let host: Option<HostId> = sqlx::query_scalar(
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
            order.plan_id.as_str(),
            order.site_code.as_str(),
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
        crate::events::order(tx, order_id.as_str(), "failed", now).await?;
        return Ok(None);
    };
    let server_id = ServerId::from(new_id());
    sqlx::query(
        "insert into servers (id, organization_id, order_id, name, plan_id, site_code, host_id, state, \
         progress, step, os_image, addons, ssh_keys, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $7, 'pending', 0, '', $8, $9, $10, $11, $11)",
    )
    .bind(&server_id)
    .bind(&order.organization_id)
    .bind(order_id)
    .bind(&order.server_name)
    .bind(order.plan_id.as_str())
    .bind(order.site_code.as_str())
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
    crate::events::order(tx, order_id.as_str(), "confirmed", now).await?;
    crate::servers::record_event(tx, &server_id, EventKind::Ordered, order_id.as_str(), now)
        .await?;
    jobs::enqueue(tx, jobs::JobKind::Provision, &server_id, now, now).await?;
    Ok(Some(server_id))
}
