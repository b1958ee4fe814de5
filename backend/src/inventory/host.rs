//! One physical machine and its life cycle.

use anyhow::Context;
use domain::{PlanId, SiteCode};
use sqlx::any::AnyRow;
use sqlx::Row;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostState {
    Free,
    /// Reserved for a checkout in progress; returns by itself at expiry.
    Held,
    Allocated,
    Wiping,
    Maintenance,
    Failed,
}

impl HostState {
    pub const ALL: [HostState; 6] = [
        HostState::Free,
        HostState::Held,
        HostState::Allocated,
        HostState::Wiping,
        HostState::Maintenance,
        HostState::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            HostState::Free => "free",
            HostState::Held => "held",
            HostState::Allocated => "allocated",
            HostState::Wiping => "wiping",
            HostState::Maintenance => "maintenance",
            HostState::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<HostState> {
        HostState::ALL.into_iter().find(|s| s.as_str() == raw)
    }

    /// The states from which an operator may move a host to `to`. A host a
    /// customer holds or uses can be marked failed (its server is then
    /// rebuilt elsewhere) but never freed or put in maintenance by hand.
    pub fn operator_sources(to: HostState) -> &'static [HostState] {
        match to {
            HostState::Free => &[HostState::Maintenance, HostState::Failed],
            HostState::Maintenance => &[HostState::Free, HostState::Failed],
            HostState::Failed => &[
                HostState::Free,
                HostState::Held,
                HostState::Allocated,
                HostState::Wiping,
                HostState::Maintenance,
            ],
            HostState::Held | HostState::Allocated | HostState::Wiping => &[],
        }
    }
}

impl std::fmt::Display for HostState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub id: String,
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
