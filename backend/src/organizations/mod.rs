//! Organizations and memberships: every object belongs to an organization,
//! and a member's role decides what they see. owner: everything, members,
//! audit log; technical: servers, console, snapshots; billing: invoices,
//! billing profile, payment. An organization always keeps an owner.

pub mod invitations;
pub mod joining;
mod mail_texts;
pub mod members;

use anyhow::Context;
use domain::{OrganizationId, UserId};

use crate::Db;

pub use domain::Role;

/// A user's place in one organization: who acts, where, as what.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Membership {
    pub user_id: UserId,
    pub organization_id: OrganizationId,
    #[sqlx(rename = "name")]
    pub organization_name: String,
    pub role: Role,
    /// The organization requires two-factor sign-in of its members (read
    /// with the membership: every portal request checks it).
    #[sqlx(rename = "require_two_factor")]
    requires_two_factor: i64,
}

impl Membership {
    pub fn requires_two_factor(&self) -> bool {
        self.requires_two_factor == 1
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OrgError {
    #[error("only an owner may do this")]
    NotAllowed,
    #[error("an organization must keep at least one owner")]
    LastOwner,
    #[error("a user cannot leave their only organization")]
    OnlyOrganization,
    #[error("no such member")]
    UnknownMember,
    #[error("not a valid email address")]
    InvalidEmail,
    #[error("already a member")]
    AlreadyMember,
    #[error("the invitation is invalid, expired or already used")]
    BadLink,
    #[error("the invitation was sent to another address")]
    WrongAccount,
    #[error("no such pending invitation")]
    UnknownInvitation,
    #[error("an account with the invited address exists; it signs in to accept")]
    AccountExists,
    #[error("too many invitation mails; retry in {0} s")]
    TooMany(i64),
    #[error(transparent)]
    Account(crate::accounts::AccountError),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

const MEMBERSHIP_SQL: &str =
    "select m.user_id, m.organization_id, o.name, m.role, o.require_two_factor \
     from memberships m join organizations o on o.id = m.organization_id";

/// Every organization a user belongs to: the one they last chose first,
/// then oldest first.
pub async fn memberships_of(db: &Db, user_id: &UserId) -> anyhow::Result<Vec<Membership>> {
    sqlx::query_as(&format!(
        "{MEMBERSHIP_SQL} join users u on u.id = m.user_id where m.user_id = $1 \
         order by case when m.organization_id = u.last_organization_id then 0 else 1 end, \
         m.created_at, m.organization_id"
    ))
    .bind(user_id)
    .fetch_all(&db.pool)
    .await
    .context("loading memberships")
}

/// The user's membership in one organization, if any.
pub async fn membership_in(
    db: &Db,
    user_id: &UserId,
    organization_id: &OrganizationId,
) -> anyhow::Result<Option<Membership>> {
    sqlx::query_as(&format!(
        "{MEMBERSHIP_SQL} where m.user_id = $1 and m.organization_id = $2"
    ))
    .bind(user_id)
    .bind(organization_id)
    .fetch_optional(&db.pool)
    .await
    .context("loading a membership")
}

/// Remembers the organization a user chose as where they land when they
/// next sign in (accepting an invitation does the same in its transaction).
pub async fn remember_choice(
    db: &Db,
    user_id: &UserId,
    organization_id: &OrganizationId,
) -> anyhow::Result<()> {
    sqlx::query("update users set last_organization_id = $1 where id = $2")
        .bind(organization_id)
        .bind(user_id)
        .execute(&db.pool)
        .await
        .context("remembering the organization")?;
    Ok(())
}

/// The organization a user works in by default: the one they last chose,
/// else the first they joined.
pub async fn primary_membership(db: &Db, user_id: &UserId) -> anyhow::Result<Option<Membership>> {
    Ok(memberships_of(db, user_id).await?.into_iter().next())
}
