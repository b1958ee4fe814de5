//! One physical machine and its life cycle.

use domain::{HostId, PlanId, SiteCode};

pub use domain::host::HostState;

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Host {
    pub id: HostId,
    /// Operators' name for it: `fra-g-l40s-007`.
    pub name: String,
    #[sqlx(rename = "site_code")]
    pub site: SiteCode,
    #[sqlx(rename = "plan_id")]
    pub plan: PlanId,
    pub state: HostState,
    pub hold_expires_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}
