//! Staff: the hosting company's own people. Created by an operator
//! subcommand, never by sign-up; they see every organization, user and the
//! development outbox, and belong to no organization, so they cannot act
//! as a customer.

use anyhow::Context;
use domain::UserId;
use sqlx::Row;

use crate::accounts::{normalize_email, password, tokens, AccountError, User};
use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::{Clock, Db};
use domain::host::HostState;

/// Creates a staff account with a generated password, returned once.
pub async fn create(
    db: &Db,
    clock: &Clock,
    email: &str,
    name: &str,
) -> Result<(User, String), AccountError> {
    let email = normalize_email(email)?;
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(AccountError::InvalidName);
    }
    // 128 random bits as 32 hex characters: strong, and typeable once.
    let secret = tokens::random_token()?[..32].to_owned();
    let hash = password::hash(secret.clone()).await?;
    let now = clock.now();
    let id = UserId::from(new_id());
    let mut tx = db.begin().await.context("starting staff creation")?;
    sqlx::query(
        "insert into users (id, email, name, lang, password_hash, email_verified_at, is_staff, created_at, updated_at) \
         values ($1, $2, $3, 'en', $4, $5, 1, $5, $5)",
    )
    .bind(&id)
    .bind(&email)
    .bind(name)
    .bind(&hash)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("creating the staff user (is the email already used?)")?;
    let entry = Entry {
        organization_id: None,
        user_id: Some(&id),
        actor: "operator",
        action: "staff.created",
        detail: &email,
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the staff user")?;
    let user = crate::accounts::user_by_id(db, &id)
        .await?
        .context("reading the new staff user")?;
    Ok((user, secret))
}

/// Every organization: (name, members, created).
pub async fn organizations(db: &Db) -> anyhow::Result<Vec<(String, i64, i64)>> {
    let rows = sqlx::query(
        "select o.name, count(m.user_id) as members, o.created_at from organizations o \
         left join memberships m on m.organization_id = o.id group by o.id, o.name, o.created_at \
         order by o.created_at desc, o.name",
    )
    .fetch_all(&db.pool)
    .await
    .context("listing organizations")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("name")?,
                r.try_get("members")?,
                r.try_get("created_at")?,
            ))
        })
        .collect()
}

/// Every user: (email, name, verified, staff).
pub async fn users(db: &Db) -> anyhow::Result<Vec<(String, String, bool, bool)>> {
    let rows = sqlx::query("select email, name, email_verified_at, is_staff from users order by created_at desc, email")
        .fetch_all(&db.pool)
        .await
        .context("listing users")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("email")?,
                r.try_get("name")?,
                r.try_get::<Option<i64>, _>("email_verified_at")?.is_some(),
                r.try_get::<i64, _>("is_staff")? == 1,
            ))
        })
        .collect()
}

/// The staff home's counts: what each staff page holds that needs a look.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overview {
    /// Hosts per state, in the order the database returns them.
    pub hosts: Vec<(HostState, i64)>,
    /// Hosts reporting a fault, and maintenance windows not yet done.
    pub degraded_hosts: i64,
    pub open_windows: i64,
    /// Orders that failed in the last 30 days; orders paid and waiting
    /// for their server.
    pub failed_orders: i64,
    pub confirmed_orders: i64,
    /// Open invoices, those of them past due, and what they still owe.
    pub open_invoices: i64,
    pub overdue_invoices: i64,
    pub amount_due_cents: i64,
}

/// One aggregate per table; cheap enough for every visit of the home.
pub async fn overview(db: &Db, now: i64) -> anyhow::Result<Overview> {
    let hosts = sqlx::query("select state, count(*) as n from hosts group by state order by state")
        .fetch_all(&db.pool)
        .await
        .context("counting hosts by state")?
        .iter()
        .map(|r| Ok((r.try_get("state")?, r.try_get("n")?)))
        .collect::<anyhow::Result<Vec<(HostState, i64)>>>()?;
    let degraded_hosts = count(
        db,
        "select count(*) from hosts where degraded_reason is not null",
        None,
    )
    .await?;
    let open_windows = count(
        db,
        "select count(*) from maintenance_windows where state in ('proposed', 'accepted', 'started')",
        None,
    )
    .await?;
    let failed_orders = count(
        db,
        "select count(*) from orders where state = 'failed' and updated_at > $1",
        Some(now - 30 * 86_400),
    )
    .await?;
    let confirmed_orders = count(
        db,
        "select count(*) from orders where state = 'confirmed'",
        None,
    )
    .await?;
    let open_invoices = count(
        db,
        "select count(*) from invoices where status = 'open'",
        None,
    )
    .await?;
    let overdue_invoices = count(
        db,
        "select count(*) from invoices where status = 'open' and due_at < $1",
        Some(now),
    )
    .await?;
    // PostgreSQL's sum of bigints is numeric: cast back for the Any driver.
    let amount_due_cents = count(
        db,
        "select cast(coalesce(sum(amount_due_cents), 0) as bigint) from invoices where status = 'open'",
        None,
    )
    .await?;
    Ok(Overview {
        hosts,
        degraded_hosts,
        open_windows,
        failed_orders,
        confirmed_orders,
        open_invoices,
        overdue_invoices,
        amount_due_cents,
    })
}

/// One number from the database, with an optional time bound as `$1`.
async fn count(db: &Db, sql: &'static str, at: Option<i64>) -> anyhow::Result<i64> {
    let query = sqlx::query_scalar::<_, i64>(sql);
    let query = match at {
        Some(at) => query.bind(at),
        None => query,
    };
    query
        .fetch_one(&db.pool)
        .await
        .with_context(|| format!("counting for the staff home: {sql}"))
}
