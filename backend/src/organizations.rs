//! Organizations and memberships: every object belongs to an organization,
//! and a member's role decides what they see (owner, technical, billing).

use anyhow::Context;
use sqlx::Row;

use crate::Db;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Owner,
    Technical,
    Billing,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Technical => "technical",
            Role::Billing => "billing",
        }
    }

    pub fn parse(raw: &str) -> Option<Role> {
        [Role::Owner, Role::Technical, Role::Billing]
            .into_iter()
            .find(|r| r.as_str() == raw)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Membership {
    pub organization_id: String,
    pub organization_name: String,
    pub role: Role,
}

/// The organization a user works in by default: the first they joined.
pub async fn primary_membership(db: &Db, user_id: &str) -> anyhow::Result<Option<Membership>> {
    let row = sqlx::query(
        "select m.organization_id, o.name, m.role from memberships m \
         join organizations o on o.id = m.organization_id \
         where m.user_id = $1 order by m.created_at, m.organization_id limit 1",
    )
    .bind(user_id)
    .fetch_optional(&db.pool)
    .await
    .context("loading the membership")?;
    row.map(|r| {
        let role: String = r.try_get("role")?;
        Ok(Membership {
            organization_id: r.try_get("organization_id")?,
            organization_name: r.try_get("name")?,
            role: Role::parse(&role).with_context(|| format!("stored role {role:?}"))?,
        })
    })
    .transpose()
}
