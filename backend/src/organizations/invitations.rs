//! Inviting people by email with a role. The link works for 7 days, once,
//! and only for the account with the invited address.

use anyhow::Context;
use domain::Lang;
use sqlx::Row;

use super::{mail_texts, membership_in, Membership, OrgError, Role};
use crate::accounts::{normalize_email, tokens, Links, User};
use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::{mail, Clock, Db};

pub const LIFETIME_SECS: i64 = 7 * 24 * 3600;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invitation {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: i64,
}

pub struct Inviter<'a> {
    pub membership: &'a Membership,
    pub email: &'a str,
    pub name: &'a str,
    pub lang: Lang,
}

pub async fn invite(
    db: &Db,
    clock: &Clock,
    links: &Links,
    inviter: &Inviter<'_>,
    email: &str,
    role: Role,
) -> Result<(), OrgError> {
    let actor = inviter.membership;
    if actor.role != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let email = normalize_email(email).map_err(|_| OrgError::InvalidEmail)?;
    let now = clock.now();
    let mut tx = db.begin().await.context("starting an invitation")?;
    let member: i64 = sqlx::query_scalar(
        "select count(*) from memberships m join users u on u.id = m.user_id \
         where m.organization_id = $1 and u.email = $2",
    )
    .bind(&actor.organization_id)
    .bind(&email)
    .fetch_one(&mut *tx)
    .await
    .context("checking membership")?;
    if member > 0 {
        return Err(OrgError::AlreadyMember);
    }
    let token = tokens::random_token()?;
    sqlx::query(
        "insert into invitations (id, organization_id, email, role, token_hash, invited_by, expires_at, created_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(&actor.organization_id)
    .bind(&email)
    .bind(role.as_str())
    .bind(tokens::hash(&token))
    .bind(&actor.user_id)
    .bind(now + LIFETIME_SECS)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("storing the invitation")?;
    let link = format!(
        "{}/{}/invite?token={token}",
        links.base_url.trim_end_matches('/'),
        inviter.lang.code()
    );
    let message = mail_texts::invitation(
        inviter.lang,
        &email,
        inviter.name,
        &actor.organization_name,
        role.as_str(),
        &link,
    );
    mail::queue(&mut tx, &message, now).await?;
    let detail = format!("{email} as {}", role.as_str());
    let entry = Entry {
        organization_id: Some(&actor.organization_id),
        user_id: Some(&actor.user_id),
        actor: inviter.email,
        action: "member.invited",
        detail: &detail,
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the invitation")?;
    Ok(())
}

/// Joins the organization of an invitation as the logged-in `user`.
pub async fn accept(
    db: &Db,
    clock: &Clock,
    token: &str,
    user: &User,
) -> Result<Membership, OrgError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting to accept")?;
    let row = sqlx::query(
        "select id, organization_id, email, role from invitations \
         where token_hash = $1 and accepted_at is null and revoked_at is null and expires_at > $2",
    )
    .bind(tokens::hash(token))
    .bind(now)
    .fetch_optional(&mut *tx)
    .await
    .context("reading the invitation")?
    .ok_or(OrgError::BadLink)?;
    let id: String = row.try_get("id").context("id")?;
    let org: String = row.try_get("organization_id").context("organization")?;
    let email: String = row.try_get("email").context("email")?;
    let role =
        Role::parse(&row.try_get::<String, _>("role").context("role")?).ok_or(OrgError::BadLink)?;
    if email != user.email {
        return Err(OrgError::WrongAccount);
    }
    let used = sqlx::query(
        "update invitations set accepted_at = $1 where id = $2 and accepted_at is null",
    )
    .bind(now)
    .bind(&id)
    .execute(&mut *tx)
    .await
    .context("using the invitation")?;
    if used.rows_affected() != 1 {
        return Err(OrgError::BadLink);
    }
    sqlx::query(
        "insert into memberships (organization_id, user_id, role, created_at) values ($1, $2, $3, $4) \
         on conflict (organization_id, user_id) do nothing",
    )
    .bind(&org)
    .bind(&user.id)
    .bind(role.as_str())
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("adding the member")?;
    // They joined to work there: it is where they land when they sign in.
    sqlx::query("update users set last_organization_id = $1 where id = $2")
        .bind(&org)
        .bind(&user.id)
        .execute(&mut *tx)
        .await
        .context("remembering the organization")?;
    let entry = Entry {
        organization_id: Some(&org),
        user_id: Some(&user.id),
        actor: &user.email,
        action: "member.joined",
        detail: role.as_str(),
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &entry).await?;
    tx.commit().await.context("committing the acceptance")?;
    membership_in(db, &user.id, &org)
        .await?
        .ok_or(OrgError::BadLink)
}

/// Invitations not yet accepted, revoked or expired.
pub async fn pending(
    db: &Db,
    clock: &Clock,
    organization_id: &str,
) -> anyhow::Result<Vec<Invitation>> {
    let rows = sqlx::query(
        "select id, email, role, expires_at from invitations \
         where organization_id = $1 and accepted_at is null and revoked_at is null and expires_at > $2 \
         order by created_at",
    )
    .bind(organization_id)
    .bind(clock.now())
    .fetch_all(&db.pool)
    .await
    .context("listing invitations")?;
    rows.iter()
        .map(|r| {
            Ok(Invitation {
                id: r.try_get("id")?,
                email: r.try_get("email")?,
                role: Role::parse(&r.try_get::<String, _>("role")?).context("role")?,
                expires_at: r.try_get("expires_at")?,
            })
        })
        .collect()
}
