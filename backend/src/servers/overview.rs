//! Everything a server's page shows that lives in the database, read in
//! one call: the server, its events, this month's availability so far, the
//! SLA results of past months, its snapshots and maintenance, and an
//! overdue invoice that will suspend it.

use super::billing_state::{self, Overdue};
use super::maintenance::{self, Window};
use super::snapshots::{self, Snapshot};
use super::{events, get, Server, ServerEvent};
use crate::{Clock, Db};
use domain::{OrganizationId, ServerId};

/// How many of the server's latest events the page lists.
const EVENTS: i64 = 30;

pub struct Overview {
    pub server: Server,
    pub events: Vec<ServerEvent>,
    /// Month to date, excluding accepted maintenance.
    pub availability: domain::sla::Availability,
    /// Past months: (month, availability ppm, credit, note).
    pub sla: Vec<(String, i64, domain::Money, Option<String>)>,
    pub snapshots: Vec<Snapshot>,
    /// Why the server's host is degraded, if it is.
    pub degraded: Option<String>,
    pub windows: Vec<Window>,
    /// Its oldest overdue invoice, if any: the suspension it leads to.
    pub overdue: Option<Overdue>,
}

/// The server's page data, or `None` if the organization has no such
/// server. `grace_days` is the seller's (dunning suspends after it).
pub async fn overview(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
    id: &ServerId,
    grace_days: i64,
) -> anyhow::Result<Option<Overview>> {
    let Some(server) = get(db, organization_id, id).await? else {
        return Ok(None);
    };
    let now = clock.now();
    let (y, m, _) = domain::time::civil_from_days(now.div_euclid(86_400));
    let month_start = domain::time::days_from_civil(y, m, 1) * 86_400;
    let down = super::failures::downtime(db, &server.id, month_start, now).await?;
    let excluded = maintenance::excluded_spans(db, &server.id, month_start, now).await?;
    let availability =
        domain::sla::availability(month_start, now.max(month_start + 1), &down, &excluded);
    let sla = crate::billing::sla::results(db, &server.id)
        .await?
        .into_iter()
        .map(|(month, ppm, cents, note)| (month, ppm, domain::Money::eur(cents), note))
        .collect();
    Ok(Some(Overview {
        events: events(db, id, EVENTS).await?,
        availability,
        sla,
        snapshots: snapshots::list(db, organization_id, id).await?,
        degraded: maintenance::degraded(db, &server.id).await?,
        windows: maintenance::windows(db, &server.id).await?,
        overdue: billing_state::overdue(db, organization_id, Some(id), now, grace_days)
            .await?
            .into_iter()
            .next(),
        server,
    }))
}
