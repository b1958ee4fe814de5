//! One page of an organization's servers, filtered and cut in the
//! database (newest first, keyed by creation time and id so a page is
//! stable while servers are added), for the API's list.

use anyhow::Context;
use domain::server::ShownState;
use domain::OrganizationId;

use super::labels::Selector;
use super::{Server, COLUMNS};
use crate::Db;

/// What a list asks for; `None` or empty: any.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub state: Option<ShownState>,
    pub site: Option<String>,
    pub plan: Option<String>,
    pub labels: Vec<Selector>,
}

/// The last item of the previous page (newest first: the page starts
/// below it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct After {
    pub created_at: i64,
    pub id: String,
}

/// The state a customer sees, as stored: a restore and a maintenance
/// window are a reboot with their step.
fn state_condition(state: ShownState) -> &'static str {
    match state {
        ShownState::Pending => "s.state = 'pending'",
        ShownState::Provisioning => "s.state = 'provisioning'",
        ShownState::Running => "s.state = 'running'",
        ShownState::Failed => "s.state = 'failed'",
        ShownState::Off => "s.state = 'rebooting' and s.step = 'off'",
        ShownState::Rebooting => {
            "s.state = 'rebooting' and s.step not in ('restore', 'maintenance', 'stopping', 'off', 'starting')"
        }
        ShownState::Restoring => "s.state = 'rebooting' and s.step = 'restore'",
        ShownState::Maintenance => "s.state = 'rebooting' and s.step = 'maintenance'",
        ShownState::Stopping => "s.state = 'rebooting' and s.step = 'stopping'",
        ShownState::Starting => "s.state = 'rebooting' and s.step = 'starting'",
    }
}

/// Up to `limit` servers after `after` that match `filter`, newest first:
/// the servers the portal lists (not failed installs, not ended ones).
pub async fn page(
    db: &Db,
    organization_id: &OrganizationId,
    filter: &Filter,
    after: Option<&After>,
    limit: i64,
) -> anyhow::Result<Vec<Server>> {
    // Every value is bound; only fixed text is formatted into the query.
    let mut sql = format!(
        "select {COLUMNS} from servers s left join hosts h on h.id = s.host_id \
         where s.organization_id = $1 and s.state <> 'failed' and s.cancelled_at is null \
         and ($2 = '' or s.site_code = $2) and ($3 = '' or s.plan_id = $3) \
         and ($4 = 0 or s.created_at < $5 or (s.created_at = $5 and s.id < $6))"
    );
    if let Some(state) = filter.state {
        sql.push_str(&format!(" and ({})", state_condition(state)));
    }
    let mut next = 7;
    for selector in &filter.labels {
        let value = match selector.value {
            Some(_) => format!(" and l.value = ${}", next + 1),
            None => String::new(),
        };
        sql.push_str(&format!(
            " and exists (select 1 from server_labels l where l.server_id = s.id \
             and l.key = ${next}{value})"
        ));
        next += if selector.value.is_some() { 2 } else { 1 };
    }
    sql.push_str(&format!(
        " order by s.created_at desc, s.id desc limit ${next}"
    ));
    let mut query = sqlx::query_as::<_, Server>(&sql)
        .bind(organization_id)
        .bind(filter.site.as_deref().unwrap_or(""))
        .bind(filter.plan.as_deref().unwrap_or(""))
        .bind(i64::from(after.is_some()))
        .bind(after.map_or(0, |a| a.created_at))
        .bind(after.map_or("", |a| a.id.as_str()));
    for selector in &filter.labels {
        query = query.bind(selector.key.clone());
        if let Some(value) = &selector.value {
            query = query.bind(value.clone());
        }
    }
    query
        .bind(limit)
        .fetch_all(&db.pool)
        .await
        .context("listing a page of servers")
}
