//! Reading requests: a member's list and thread (scoped by organization
//! and by the categories their role sees; never internal notes), and the
//! staff queue and thread.

use anyhow::Context;
use domain::{OrganizationId, Role};
use sqlx::any::AnyRow;
use sqlx::{FromRow, Row};

use super::{Category, QueueFilter, RequestSummary, ScalingPlan, State, Thread};
use crate::{Clock, Db};

const SUMMARY: &str = "select r.id, r.reference, r.organization_id, o.name as organization_name, \
    r.category, r.subject, r.state, r.server_id, s.name as server_name, s.site_code, \
    coalesce(u.email, 'system') as opened_by_email, a.email as assigned_to, r.created_at, \
    r.updated_at, r.waiting_since, r.first_response_at, r.closed_at, r.closed_by, r.lang, \
    r.scaling_cards, r.scaling_workload, r.scaling_model_size, r.scaling_timeline \
    from support_requests r join organizations o on o.id = r.organization_id \
    left join servers s on s.id = r.server_id \
    left join users u on u.id = r.opened_by \
    left join users a on a.id = r.assigned_to";

/// The scaling-out answers, for a scaling request that has any.
fn scaling(r: &AnyRow) -> anyhow::Result<Option<ScalingPlan>> {
    let field = |c: &str| -> anyhow::Result<String> {
        Ok(r.try_get::<Option<String>, _>(c)?.unwrap_or_default())
    };
    let plan = ScalingPlan {
        cards: field("scaling_cards")?,
        workload: field("scaling_workload")?,
        model_size: field("scaling_model_size")?,
        timeline: field("scaling_timeline")?,
    };
    let category: String = r.try_get("category")?;
    Ok((category == Category::Scaling.as_str()).then_some(plan))
}

/// An organization's requests `role` may see, newest activity first.
pub async fn list_for_member(
    db: &Db,
    organization_id: &OrganizationId,
    role: Role,
) -> anyhow::Result<Vec<RequestSummary>> {
    sqlx::query_as(&format!(
        "{SUMMARY} where r.organization_id = $1 and r.category in ({}) \
         order by r.updated_at desc, r.id desc",
        super::sql_list(role)
    ))
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing support requests")
}

/// A request of the organization in a category `role` sees, with the
/// messages customers see (internal notes are left out by the query).
pub async fn thread_for_member(
    db: &Db,
    organization_id: &OrganizationId,
    role: Role,
    id: &str,
) -> anyhow::Result<Option<Thread>> {
    let row = sqlx::query(&format!(
        "{SUMMARY} where r.id = $1 and r.organization_id = $2 and r.category in ({})",
        super::sql_list(role)
    ))
    .bind(id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading a support request")?;
    match row {
        Some(row) => Ok(Some(thread(db, &row, false).await?)),
        None => Ok(None),
    }
}

/// Any request, with internal notes.
pub async fn thread_for_staff(db: &Db, id: &str) -> anyhow::Result<Option<Thread>> {
    let row = sqlx::query(&format!("{SUMMARY} where r.id = $1"))
        .bind(id)
        .fetch_optional(&db.pool)
        .await
        .context("reading a support request")?;
    match row {
        Some(row) => Ok(Some(thread(db, &row, true).await?)),
        None => Ok(None),
    }
}

async fn thread(db: &Db, row: &AnyRow, with_internal: bool) -> anyhow::Result<Thread> {
    let request = RequestSummary::from_row(row)?;
    let messages = sqlx::query_as(
        "select id, author_name, author_kind, internal, body, created_at from support_messages \
         where request_id = $1 and (internal = 0 or $2 = 1) order by created_at, id",
    )
    .bind(&request.id)
    .bind(i64::from(with_internal))
    .fetch_all(&db.pool)
    .await
    .context("reading support messages")?;
    Ok(Thread {
        scaling: scaling(row)?,
        request,
        messages,
    })
}

/// The staff queue: staff's turn first (open, answered), the longest
/// waiting first; then those waiting for the customer; closed ones only
/// when asked for.
pub async fn queue(
    db: &Db,
    clock: &Clock,
    filter: &QueueFilter,
) -> anyhow::Result<Vec<RequestSummary>> {
    let cutoff = match filter.older_than_hours {
        Some(hours) => clock.now() - hours.max(0) * 3600,
        None => i64::MAX,
    };
    sqlx::query_as(&format!(
        "{SUMMARY} where (($1 = '' and r.state <> 'closed') or r.state = $1) \
         and ($2 = '' or r.category = $2) and ($3 = '' or s.site_code = $3) \
         and r.turn_since <= $4 \
         order by case r.state when 'open' then 0 when 'answered' then 0 \
         when 'waiting' then 1 else 2 end, r.turn_since, r.id limit 500"
    ))
    .bind(filter.state.map_or("", State::as_str))
    .bind(filter.category.map_or("", Category::as_str))
    .bind(filter.site.as_deref().unwrap_or(""))
    .bind(cutoff)
    .fetch_all(&db.pool)
    .await
    .context("reading the support queue")
}

/// Staff a request can be assigned to: (email, name), by name.
pub async fn staff_members(db: &Db) -> anyhow::Result<Vec<(String, String)>> {
    sqlx::query("select email, name from users where is_staff = 1 order by name, email")
        .fetch_all(&db.pool)
        .await
        .context("listing staff")?
        .iter()
        .map(|r| Ok((r.try_get("email")?, r.try_get("name")?)))
        .collect()
}
