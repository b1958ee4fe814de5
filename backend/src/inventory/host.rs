//! One physical machine and its life cycle.

use anyhow::Context;
use domain::HostId;
use domain::{PlanId, SiteCode};
use sqlx::any::AnyRow;
use sqlx::Row;

pub use domain::host::HostState;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub id: HostId,
    /// Operators' name for it: `fra-g-l40s-007`.
    pub name: String,
    pub site: SiteCode,
    pub plan: PlanId,
    pub state: HostState,
    pub hold_expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Host {
    pub(crate) fn from_row(row: &AnyRow) -> anyhow::Result<Host> {
        let site: String = row.try_get("site_code")?;
        let plan: String = row.try_get("plan_id")?;
        let state: String = row.try_get("state")?;
        Ok(Host {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            site: SiteCode::parse(&site).with_context(|| format!("stored site {site:?}"))?,
            plan: PlanId::parse(&plan).with_context(|| format!("stored plan {plan:?}"))?,
            state: HostState::parse(&state).with_context(|| format!("stored state {state:?}"))?,
            hold_expires_at: row.try_get("hold_expires_at")?,
            created_at: row.try_get("created_at")?,
            updated_at: row.try_get("updated_at")?,
        })
    }
}
