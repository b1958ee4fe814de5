//! Members of an organization: listing, changing roles, removing, leaving.
//! Only owners manage members, and the last owner can neither leave nor be
//! demoted or removed.

use anyhow::Context;
use domain::{OrganizationId, UserId};
use sqlx::{Any, Row, Transaction};

use super::{Membership, OrgError, Role};
use crate::audit::{self, Entry};
use crate::{Clock, Db};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub user_id: UserId,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub joined_at: i64,
}

pub async fn list(db: &Db, organization_id: &OrganizationId) -> anyhow::Result<Vec<Member>> {
    let rows = sqlx::query(
        "select u.id, u.name, u.email, m.role, m.created_at from memberships m join users u on u.id = m.user_id \
         where m.organization_id = $1 order by m.created_at, u.email",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("listing members")?;
    rows.iter()
        .map(|r| {
            let role: String = r.try_get("role")?;
            Ok(Member {
                user_id: r.try_get("id")?,
                name: r.try_get("name")?,
                email: r.try_get("email")?,
                role: Role::parse(&role).context("stored role")?,
                joined_at: r.try_get("created_at")?,
            })
        })
        .collect()
}

async fn owners(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
) -> anyhow::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from memberships where organization_id = $1 and role = 'owner'",
    )
    .bind(organization_id)
    .fetch_one(&mut **tx)
    .await
    .context("counting owners")
}

async fn role_of(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    user_id: &UserId,
) -> Result<Role, OrgError> {
    let row =
        sqlx::query("select role from memberships where organization_id = $1 and user_id = $2")
            .bind(organization_id)
            .bind(user_id)
            .fetch_optional(&mut **tx)
            .await
            .context("reading a role")?
            .ok_or(OrgError::UnknownMember)?;
    Role::parse(&row.try_get::<String, _>("role").context("role")?).ok_or(OrgError::UnknownMember)
}

/// An owner gives a member another role.
pub async fn change_role(
    db: &Db,
    clock: &Clock,
    actor: &Membership,
    actor_email: &str,
    member_id: &UserId,
    role: Role,
) -> Result<(), OrgError> {
    if actor.role != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let org = &actor.organization_id;
    let mut tx = db.begin().await.context("starting a role change")?;
    // Member changes of one organization are made one at a time: the last
    // owner rule reads every owner, so two owners demoting (or removing)
    // each other at once would each still count the other and leave none.
    db.lock_row(&mut tx, "organizations", org).await?;
    // The actor's role as it is now, under the lock: an owner demoted a
    // moment ago can't finish a change that was already in flight.
    if role_of(&mut tx, org, &actor.user_id).await? != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let current = role_of(&mut tx, org, member_id).await?;
    if current == Role::Owner && role != Role::Owner && owners(&mut tx, org).await? <= 1 {
        return Err(OrgError::LastOwner);
    }
    sqlx::query("update memberships set role = $1 where organization_id = $2 and user_id = $3")
        .bind(role.as_str())
        .bind(org)
        .bind(member_id)
        .execute(&mut *tx)
        .await
        .context("changing the role")?;
    let detail = format!("{member_id}: {} → {}", current.as_str(), role.as_str());
    let entry = Entry {
        organization_id: Some(org),
        user_id: Some(&actor.user_id),
        actor: actor_email,
        action: "member.role_changed",
        detail: &detail,
        ip: None,
        at: clock.now(),
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the role change")?;
    Ok(())
}

/// An owner removes a member, or a member leaves (`member_id` is the actor).
pub async fn remove(
    db: &Db,
    clock: &Clock,
    actor: &Membership,
    actor_email: &str,
    member_id: &UserId,
) -> Result<(), OrgError> {
    let leaving = &actor.user_id == member_id;
    if !leaving && actor.role != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let org = &actor.organization_id;
    let mut tx = db.begin().await.context("starting a removal")?;
    db.lock_row(&mut tx, "organizations", org).await?;
    if !leaving && role_of(&mut tx, org, &actor.user_id).await? != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let current = role_of(&mut tx, org, member_id).await?;
    if current == Role::Owner && owners(&mut tx, org).await? <= 1 {
        return Err(OrgError::LastOwner);
    }
    // Every user keeps at least one organization.
    let theirs: i64 = sqlx::query_scalar("select count(*) from memberships where user_id = $1")
        .bind(member_id)
        .fetch_one(&mut *tx)
        .await
        .context("counting the member's organizations")?;
    if theirs <= 1 {
        return Err(OrgError::OnlyOrganization);
    }
    sqlx::query("delete from memberships where organization_id = $1 and user_id = $2")
        .bind(org)
        .bind(member_id)
        .execute(&mut *tx)
        .await
        .context("removing the member")?;
    let entry = Entry {
        organization_id: Some(org),
        user_id: Some(&actor.user_id),
        actor: actor_email,
        action: if leaving {
            "member.left"
        } else {
            "member.removed"
        },
        detail: member_id.as_str(),
        ip: None,
        at: clock.now(),
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the removal")?;
    Ok(())
}
