//! Orders: a customer buys one server of a plan at a site. Placing an order
//! freezes its price and holds a host; payment (or, with invoice billing,
//! placement itself) confirms it, which allocates the host, creates the
//! server and queues its provisioning. A retried submit finds the order it
//! already made; a hold nobody pays for expires and returns the host.

mod confirm;
pub mod holds;
mod place;
pub mod pricing;

use anyhow::Context;
use domain::{OrderId, OrganizationId, PlanId, ServerId, SiteCode, UserId};
use sqlx::{FromRow, Row};

use crate::{Clock, Db};
pub use domain::order::OrderState;

pub use confirm::{confirm, confirm_in};
pub use holds::{expire_holds, HOLD_SECS};
pub use place::place;

/// Orders an organization may place in 24 hours. Invoice billing allocates
/// hosts before any money arrives, so a runaway script (or a stolen
/// session) must not be able to take a whole site's stock. Orders that
/// failed or expired don't count.
pub const DAILY_ORDER_LIMIT: i64 = 20;

/// What the order form sends.
#[derive(Clone, Debug, Default)]
pub struct NewOrder {
    pub organization_id: OrganizationId,
    pub user_id: UserId,
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
    /// The organization has no billing profile yet: an invoice needs a
    /// customer, so the profile comes before the first order.
    #[error("no billing profile")]
    NoBillingProfile,
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

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Order {
    pub id: OrderId,
    pub organization_id: OrganizationId,
    pub user_id: UserId,
    pub placed_by: String,
    pub plan_id: PlanId,
    pub site_code: SiteCode,
    pub server_name: String,
    pub os_image: String,
    #[sqlx(try_from = "crate::db::Lines")]
    pub addons: Vec<String>,
    pub billing_method: String,
    pub billing_country: String,
    pub plan_cents: i64,
    pub addons_cents: i64,
    pub vat_rate_bp: i64,
    pub vat_cents: i64,
    pub total_cents: i64,
    pub currency: String,
    pub state: OrderState,
    pub hold_expires_at: Option<i64>,
    pub server_id: Option<ServerId>,
    pub failure: Option<domain::order::OrderFailure>,
    pub created_at: i64,
}

const ORDER_COLUMNS: &str = "o.id, o.organization_id, o.user_id, u.email as placed_by, o.plan_id, \
    o.site_code, o.server_name, o.os_image, o.addons, o.billing_method, o.billing_country, \
    o.plan_cents, o.addons_cents, o.vat_rate_bp, o.vat_cents, o.total_cents, o.currency, o.state, \
    o.hold_expires_at, o.server_id, o.failure, o.created_at";

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
    pub order_id: OrderId,
    /// False when the same form was submitted before: nothing new was made.
    pub created: bool,
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

pub async fn get_any(db: &Db, order_id: &OrderId) -> anyhow::Result<Option<Order>> {
    sqlx::query_as(&format!(
        "select {ORDER_COLUMNS} from orders o join users u on u.id = o.user_id where o.id = $1"
    ))
    .bind(order_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the order")
}

/// One order of an organization; `None` for anyone else's.
pub async fn get(
    db: &Db,
    organization_id: &OrganizationId,
    order_id: &OrderId,
) -> anyhow::Result<Option<Order>> {
    Ok(get_any(db, order_id)
        .await?
        .filter(|o| &o.organization_id == organization_id))
}

/// An organization's orders, newest first; only those `placed_by` placed
/// when given (technical members see their own).
pub async fn list(
    db: &Db,
    organization_id: &OrganizationId,
    placed_by: Option<&str>,
) -> anyhow::Result<Vec<Order>> {
    sqlx::query_as(&format!(
        "select {ORDER_COLUMNS} from orders o join users u on u.id = o.user_id \
         where o.organization_id = $1 and ($2 = '' or o.user_id = $2) \
         order by o.created_at desc, o.id desc limit 500"
    ))
    .bind(organization_id)
    .bind(placed_by.unwrap_or(""))
    .fetch_all(&db.pool)
    .await
    .context("listing orders")
}

/// What an API order list asks for; `None`: any.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub state: Option<domain::order::OrderState>,
    pub site: Option<String>,
    pub plan: Option<String>,
    /// A technical member sees the orders they placed.
    pub placed_by: Option<UserId>,
}

/// Up to `limit` of the organization's orders matching `filter`, newest
/// first, below `after` (the previous page's last `(created_at, id)`):
/// cut in the database, so every order can be paged to.
pub async fn page(
    db: &Db,
    organization_id: &OrganizationId,
    filter: &Filter,
    after: Option<(i64, &str)>,
    limit: i64,
) -> anyhow::Result<Vec<Order>> {
    sqlx::query_as(&format!(
        "select {ORDER_COLUMNS} from orders o join users u on u.id = o.user_id          where o.organization_id = $1 and ($2 = '' or o.user_id = $2)          and ($3 = '' or o.state = $3) and ($4 = '' or o.site_code = $4)          and ($5 = '' or o.plan_id = $5)          and ($6 = 0 or o.created_at < $7 or (o.created_at = $7 and o.id < $8))          order by o.created_at desc, o.id desc limit $9"
    ))
    .bind(organization_id)
    .bind(filter.placed_by.as_ref().map_or("", UserId::as_str))
    .bind(filter.state.map_or("", |s| s.as_str()))
    .bind(filter.site.as_deref().unwrap_or(""))
    .bind(filter.plan.as_deref().unwrap_or(""))
    .bind(i64::from(after.is_some()))
    .bind(after.map_or(0, |(at, _)| at))
    .bind(after.map_or("", |(_, id)| id))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("listing a page of orders")
}

/// Every organization's orders whose organization, server name, order id
/// or orderer's email contains `search` (any case), newest first, a page
/// at a time (`limit` from `offset`), for staff; and how many match.
pub async fn all(
    db: &Db,
    search: &str,
    limit: i64,
    offset: i64,
) -> anyhow::Result<(Vec<(Order, String)>, i64)> {
    const MATCHING: &str = "from orders o \
         join users u on u.id = o.user_id join organizations g on g.id = o.organization_id \
         where ($1 = '' or lower(g.name) like $1 or lower(o.server_name) like $1 \
         or lower(o.id) like $1 or lower(u.email) like $1)";
    let pattern = if search.trim().is_empty() {
        String::new()
    } else {
        // `like`'s wildcards typed are dropped, not run.
        let escaped: String = search
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| !matches!(c, '%' | '_' | '\\'))
            .collect();
        format!("%{escaped}%")
    };
    let total: i64 = sqlx::query_scalar(&format!("select count(*) {MATCHING}"))
        .bind(&pattern)
        .fetch_one(&db.pool)
        .await
        .context("counting orders")?;
    let rows = sqlx::query(&format!(
        "select {ORDER_COLUMNS}, g.name as organization_name {MATCHING} \
         order by o.created_at desc, o.id desc limit $2 offset $3"
    ))
    .bind(&pattern)
    .bind(limit)
    .bind(offset)
    .fetch_all(&db.pool)
    .await
    .context("listing all orders")?
    .iter()
    .map(|r| Ok((Order::from_row(r)?, r.try_get("organization_name")?)))
    .collect::<anyhow::Result<_>>()?;
    Ok((rows, total))
}
