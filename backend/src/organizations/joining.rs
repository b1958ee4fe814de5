//! Answering an invitation: what its link says (who invites, to which
//! organization, as what; or that it was withdrawn), accepting it as a
//! signed-in user, and signing up from it. A new account made from an
//! invitation gets no organization of its own: it joins the inviting one
//! with the invited role, and its address counts as confirmed because the
//! link reached that mailbox.

use anyhow::Context;
use domain::{Lang, OrganizationId, UserId};
use sqlx::{Any, Row, Transaction};

use super::{membership_in, Membership, OrgError, Role};
use crate::accounts::{self, password, tokens, AccountError, User};
use crate::audit::{self, Entry};
use crate::db::new_id;
use crate::{Clock, Db};

/// Where an invitation link stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkState {
    Open,
    /// An owner withdrew it.
    Withdrawn,
    /// A newer invitation to the same address replaced it.
    Replaced,
    /// Accepted already, or expired.
    Closed,
}

/// What the invitation page says about a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvitationFacts {
    pub state: LinkState,
    pub organization: String,
    pub inviter: String,
    pub email: String,
    pub role: Role,
}

struct Open {
    id: String,
    organization_id: OrganizationId,
    email: String,
    role: Role,
}

/// The facts of the invitation behind `token`; `None` for a token that
/// was never issued.
pub async fn lookup(
    db: &Db,
    clock: &Clock,
    token: &str,
) -> anyhow::Result<Option<InvitationFacts>> {
    let row = sqlx::query(
        "select i.organization_id, i.email, i.role, i.expires_at, i.accepted_at, i.revoked_at, \
         i.created_at, o.name as organization, coalesce(u.name, '') as inviter, \
         (select count(*) from invitations n where n.organization_id = i.organization_id \
          and n.email = i.email and n.created_at >= i.created_at and n.id <> i.id \
          and n.accepted_at is null and n.revoked_at is null) as newer \
         from invitations i join organizations o on o.id = i.organization_id \
         left join users u on u.id = i.invited_by where i.token_hash = $1",
    )
    .bind(tokens::hash(token))
    .fetch_optional(&db.pool)
    .await
    .context("reading the invitation")?;
    let Some(r) = row else {
        return Ok(None);
    };
    let revoked = r.try_get::<Option<i64>, _>("revoked_at")?.is_some();
    let accepted = r.try_get::<Option<i64>, _>("accepted_at")?.is_some();
    let expired = r.try_get::<i64, _>("expires_at")? <= clock.now();
    let state = if accepted || (expired && !revoked) {
        LinkState::Closed
    } else if revoked && r.try_get::<i64, _>("newer")? > 0 {
        LinkState::Replaced
    } else if revoked {
        LinkState::Withdrawn
    } else {
        LinkState::Open
    };
    Ok(Some(InvitationFacts {
        state,
        organization: r.try_get("organization")?,
        inviter: r.try_get("inviter")?,
        email: r.try_get("email")?,
        role: Role::parse(&r.try_get::<String, _>("role")?).context("role")?,
    }))
}

async fn open(tx: &mut Transaction<'_, Any>, token: &str, now: i64) -> Result<Open, OrgError> {
    let row = sqlx::query(
        "select id, organization_id, email, role from invitations \
         where token_hash = $1 and accepted_at is null and revoked_at is null and expires_at > $2",
    )
    .bind(tokens::hash(token))
    .bind(now)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the invitation")?
    .ok_or(OrgError::BadLink)?;
    let role = row.try_get::<String, _>("role").context("role")?;
    Ok(Open {
        id: row.try_get("id").context("id")?,
        organization_id: row.try_get("organization_id").context("organization")?,
        email: row.try_get("email").context("email")?,
        role: Role::parse(&role).ok_or(OrgError::BadLink)?,
    })
}

/// Uses the invitation (once) and makes `user_id` a member with its role,
/// working there from now on.
async fn join(
    tx: &mut Transaction<'_, Any>,
    invitation: &Open,
    user_id: &UserId,
    email: &str,
    now: i64,
) -> Result<(), OrgError> {
    let used = sqlx::query(
        "update invitations set accepted_at = $1 where id = $2 and accepted_at is null and revoked_at is null",
    )
    .bind(now)
    .bind(&invitation.id)
    .execute(&mut **tx)
    .await
    .context("using the invitation")?;
    if used.rows_affected() != 1 {
        return Err(OrgError::BadLink);
    }
    let org = &invitation.organization_id;
    sqlx::query(
        "insert into memberships (organization_id, user_id, role, created_at) values ($1, $2, $3, $4) \
         on conflict (organization_id, user_id) do nothing",
    )
    .bind(org)
    .bind(user_id)
    .bind(invitation.role.as_str())
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("adding the member")?;
    // They joined to work there: it is where they land when they sign in.
    sqlx::query("update users set last_organization_id = $1 where id = $2")
        .bind(org)
        .bind(user_id)
        .execute(&mut **tx)
        .await
        .context("remembering the organization")?;
    let entry = Entry {
        organization_id: Some(org),
        user_id: Some(user_id),
        actor: email,
        action: audit::MEMBER_JOINED,
        detail: invitation.role.as_str(),
        ip: None,
        at: now,
    };
    audit::record(&mut **tx, &entry).await?;
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
    let invitation = open(&mut tx, token, now).await?;
    if invitation.email != user.email {
        return Err(OrgError::WrongAccount);
    }
    join(&mut tx, &invitation, &user.id, &user.email, now).await?;
    tx.commit().await.context("committing the acceptance")?;
    membership_in(db, &user.id, &invitation.organization_id)
        .await?
        .ok_or(OrgError::BadLink)
}

/// A new account from an invitation: the invited address, this name and
/// password, a member of the inviting organization only.
pub struct InvitedSignUp<'a> {
    pub token: &'a str,
    pub name: &'a str,
    pub password: String,
    pub lang: Lang,
}

pub async fn sign_up(
    db: &Db,
    clock: &Clock,
    input: InvitedSignUp<'_>,
) -> Result<(User, Membership), OrgError> {
    let now = clock.now();
    // Judge the form before the link: a refused password must not use it up.
    let mut probe = db.begin().await.context("reading the invitation")?;
    let email = open(&mut probe, input.token, now).await?.email;
    probe
        .rollback()
        .await
        .context("ending the invitation check")?;
    let name = accounts::person_name(input.name).map_err(OrgError::Account)?;
    password::check(&input.password, &[&email, &name])
        .map_err(|p| OrgError::Account(AccountError::Password(p)))?;
    let hash = password::hash(input.password).await?;
    let mut tx = db.begin().await.context("starting the invited sign-up")?;
    let invitation = open(&mut tx, input.token, now).await?;
    let known: i64 = sqlx::query_scalar("select count(*) from users where email = $1")
        .bind(&invitation.email)
        .fetch_one(&mut *tx)
        .await
        .context("checking the address")?;
    if known > 0 {
        return Err(OrgError::AccountExists);
    }
    let user_id = UserId::from(new_id());
    sqlx::query(
        "insert into users (id, email, name, lang, password_hash, email_verified_at, created_at, updated_at) \
         values ($1, $2, $3, $4, $5, $6, $6, $6)",
    )
    .bind(&user_id)
    .bind(&invitation.email)
    .bind(&name)
    .bind(input.lang.code())
    .bind(&hash)
    .bind(now)
    .execute(&mut *tx)
    .await
    .context("creating the user")?;
    let created = Entry {
        organization_id: Some(&invitation.organization_id),
        user_id: Some(&user_id),
        actor: &invitation.email,
        action: audit::ACCOUNT_CREATED,
        detail: "",
        ip: None,
        at: now,
    };
    audit::record(&mut *tx, &created).await?;
    join(&mut tx, &invitation, &user_id, &invitation.email, now).await?;
    tx.commit()
        .await
        .context("committing the invited sign-up")?;
    let user = accounts::user_by_id(db, &user_id)
        .await?
        .ok_or(OrgError::BadLink)?;
    let membership = membership_in(db, &user_id, &invitation.organization_id)
        .await?
        .ok_or(OrgError::BadLink)?;
    Ok((user, membership))
}
