//! Inviting people by email with a role. The link works for 7 days, once,
//! and only for the invited address. Owners may withdraw a pending
//! invitation or send it again: a resend mails a fresh link and withdraws
//! the old one, so only the newest link ever works. Accepting is in
//! `joining`.

use anyhow::Context;
use domain::{Lang, OrganizationId};
use sqlx::{Any, Transaction};

use super::{mail_texts, Membership, OrgError, Role};
use crate::accounts::{normalize_email, tokens, Links};
use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::rate_limit::{self, Limit};
use crate::{mail, Clock, Db};

pub const LIFETIME_SECS: i64 = 7 * 24 * 3600;

/// Resending mails someone who has not answered yet: a few times an hour
/// per invited address, so an owner's clicks never become a mail flood.
pub const RESENDS: Limit = Limit {
    max: 3,
    window: 3600,
};

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
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

/// Invites `email` with `role`; an earlier pending invitation of the same
/// address is withdrawn (its link stops working). Answers the address as
/// stored (lowercased).
pub async fn invite(
    db: &Db,
    clock: &Clock,
    links: &Links,
    inviter: &Inviter<'_>,
    email: &str,
    role: Role,
) -> Result<String, OrgError> {
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
    issue(&mut tx, links, inviter, &email, role, now).await?;
    let detail = format!("{email} as {}", role.as_str());
    record(&mut tx, inviter, audit::MEMBER_INVITED, &detail, now).await?;
    tx.commit().await.context("committing the invitation")?;
    Ok(email)
}

/// Mails a fresh link for a pending invitation; the old link now says the
/// invitation was replaced. Answers the invited address.
pub async fn resend(
    db: &Db,
    clock: &Clock,
    links: &Links,
    inviter: &Inviter<'_>,
    invitation_id: &str,
) -> Result<String, OrgError> {
    let actor = inviter.membership;
    if actor.role != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let now = clock.now();
    let found = pending_one(db, &actor.organization_id, invitation_id, now).await?;
    let Invitation { email, role, .. } = found.ok_or(OrgError::UnknownInvitation)?;
    let key = format!("invite-resend:{}:{email}", actor.organization_id);
    if let Err(wait) = rate_limit::take(db, &[(key.as_str(), &RESENDS)], now).await? {
        return Err(OrgError::TooMany(wait));
    }
    let mut tx = db.begin().await.context("starting a resend")?;
    if withdraw(&mut tx, &actor.organization_id, invitation_id, now)
        .await?
        .is_none()
    {
        // Accepted or withdrawn since it was read.
        return Err(OrgError::UnknownInvitation);
    }
    issue(&mut tx, links, inviter, &email, role, now).await?;
    let detail = format!("{email} as {}", role.as_str());
    record(&mut tx, inviter, audit::INVITATION_RESENT, &detail, now).await?;
    tx.commit().await.context("committing the resend")?;
    Ok(email)
}

/// Withdraws a pending invitation: its link says so from now on. Answers
/// the invited address.
pub async fn revoke(
    db: &Db,
    clock: &Clock,
    inviter: &Inviter<'_>,
    invitation_id: &str,
) -> Result<String, OrgError> {
    let actor = inviter.membership;
    if actor.role != Role::Owner {
        return Err(OrgError::NotAllowed);
    }
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a withdrawal")?;
    let email = withdraw(&mut tx, &actor.organization_id, invitation_id, now)
        .await?
        .ok_or(OrgError::UnknownInvitation)?;
    record(&mut tx, inviter, audit::INVITATION_REVOKED, &email, now).await?;
    tx.commit().await.context("committing the withdrawal")?;
    Ok(email)
}

/// Stores a new invitation (withdrawing any pending one of the address)
/// and queues its mail in the inviter's language.
async fn issue(
    tx: &mut Transaction<'_, Any>,
    links: &Links,
    inviter: &Inviter<'_>,
    email: &str,
    role: Role,
    now: i64,
) -> Result<(), OrgError> {
    let actor = inviter.membership;
    sqlx::query(
        "update invitations set revoked_at = $1 \
         where organization_id = $2 and email = $3 and accepted_at is null and revoked_at is null",
    )
    .bind(now)
    .bind(&actor.organization_id)
    .bind(email)
    .execute(&mut **tx)
    .await
    .context("withdrawing the earlier invitation")?;
    let token = tokens::random_token()?;
    sqlx::query(
        "insert into invitations (id, organization_id, email, role, token_hash, invited_by, expires_at, created_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(&actor.organization_id)
    .bind(email)
    .bind(role.as_str())
    .bind(tokens::hash(&token))
    .bind(&actor.user_id)
    .bind(now + LIFETIME_SECS)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("storing the invitation")?;
    let link = format!(
        "{}/{}/invite?token={token}",
        links.base_url.trim_end_matches('/'),
        inviter.lang.code()
    );
    let message = mail_texts::invitation(
        inviter.lang,
        email,
        inviter.name,
        &actor.organization_name,
        role,
        &link,
    );
    mail::queue(tx, &message, now).await?;
    Ok(())
}

/// Marks a pending invitation of the organization withdrawn; its address,
/// or `None` if there is no such pending invitation.
async fn withdraw(
    tx: &mut Transaction<'_, Any>,
    organization_id: &OrganizationId,
    invitation_id: &str,
    now: i64,
) -> anyhow::Result<Option<String>> {
    sqlx::query_scalar(
        "update invitations set revoked_at = $1 \
         where id = $2 and organization_id = $3 and accepted_at is null and revoked_at is null \
         returning email",
    )
    .bind(now)
    .bind(invitation_id)
    .bind(organization_id)
    .fetch_optional(&mut **tx)
    .await
    .context("withdrawing the invitation")
}

async fn record(
    tx: &mut Transaction<'_, Any>,
    inviter: &Inviter<'_>,
    action: &str,
    detail: &str,
    now: i64,
) -> anyhow::Result<()> {
    let entry = Entry {
        organization_id: Some(&inviter.membership.organization_id),
        user_id: Some(&inviter.membership.user_id),
        actor: inviter.email,
        action,
        detail,
        ip: None,
        at: now,
    };
    audit::record(&mut **tx, &entry).await
}

const PENDING: &str = "accepted_at is null and revoked_at is null and expires_at > $2";

async fn pending_one(
    db: &Db,
    organization_id: &OrganizationId,
    invitation_id: &str,
    now: i64,
) -> anyhow::Result<Option<Invitation>> {
    sqlx::query_as(&format!(
        "select id, email, role, expires_at from invitations \
         where organization_id = $1 and {PENDING} and id = $3"
    ))
    .bind(organization_id)
    .bind(now)
    .bind(invitation_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the invitation")
}

/// Invitations not yet accepted, withdrawn or expired.
pub async fn pending(
    db: &Db,
    clock: &Clock,
    organization_id: &OrganizationId,
) -> anyhow::Result<Vec<Invitation>> {
    sqlx::query_as(&format!(
        "select id, email, role, expires_at from invitations \
         where organization_id = $1 and {PENDING} order by created_at"
    ))
    .bind(organization_id)
    .bind(clock.now())
    .fetch_all(&db.pool)
    .await
    .context("listing invitations")
}
