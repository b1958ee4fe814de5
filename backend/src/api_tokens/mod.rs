//! API tokens: how a script acts for a member of an organization on
//! `/api/v1`. A member creates one with a name, scopes within what their
//! role may give and an optional expiry; the secret (`gpu_` + 256 random
//! bits in hex) is shown once and kept only as its SHA-256. A token acts
//! for its creator and stops working when the creator leaves or loses a
//! role its scopes need. Creating, revoking and a use from a new address
//! go to the audit log.

mod authenticate;
mod manage;

use anyhow::Context;
use domain::{OrganizationId, UserId};

pub use crate::organizations::Role;
pub use authenticate::{authenticate, Authenticated, Refused};
pub use manage::{create, list, revoke};

pub use domain::role::Scope;

/// Scopes a member of this role may give a token (and that a token of a
/// creator with this role may keep): a token never does more than its
/// creator could in the portal.
pub fn scopes_for(role: Role) -> &'static [Scope] {
    match role {
        Role::Owner => Scope::ALL,
        Role::Technical => &[Scope::Read, Scope::ServersWrite],
        Role::Billing => &[Scope::BillingRead],
    }
}

/// A token as its organization's members see it (never its secret).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct ApiToken {
    pub id: String,
    pub organization_id: OrganizationId,
    pub user_id: UserId,
    #[sqlx(rename = "email")]
    pub creator_email: String,
    pub name: String,
    /// The first 8 hex characters of the secret's random part.
    pub prefix: String,
    #[sqlx(try_from = "StoredScopes")]
    pub scopes: Vec<Scope>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub last_used_at: Option<i64>,
    pub last_used_ip: Option<String>,
}

/// What a member asks for when creating a token.
pub struct NewToken<'a> {
    pub organization_id: &'a OrganizationId,
    pub user_id: &'a UserId,
    pub email: &'a str,
    /// The creator's role in the organization now.
    pub role: Role,
    pub ip: Option<&'a str>,
    pub name: &'a str,
    pub scopes: &'a [Scope],
    /// 30, 90 or 365 days; `None` for a token that does not expire.
    pub expires_in_days: Option<i64>,
}

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("a token's name has 1 to 60 characters and no control characters")]
    InvalidName,
    #[error("a token needs at least one scope")]
    NoScopes,
    #[error("the member's role may not give this scope")]
    ScopeNotAllowed,
    #[error("a token expires after 30, 90 or 365 days, or never")]
    InvalidExpiry,
    #[error("no such token")]
    NotFound,
    #[error("the organization has as many live tokens as it may")]
    TooMany,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// The expiries a member may choose, in days.
pub const EXPIRY_DAYS: [i64; 3] = [30, 90, 365];

/// Live (unrevoked, unexpired) tokens an organization may hold at once.
pub const MAX_LIVE_TOKENS: i64 = 50;

/// What every secret starts with, so scanners and people recognise one.
pub const SECRET_PREFIX: &str = "gpu_";

/// Whether `secret` has the shape of one of ours: `gpu_` and 64 lowercase
/// hex characters. Anything else is refused without asking the database.
fn well_formed(secret: &str) -> bool {
    secret.len() == SECRET_PREFIX.len() + 64
        && secret.starts_with(SECRET_PREFIX)
        && secret[SECRET_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Scopes as stored: known words, in `Scope::ALL`'s order, each once.
fn scopes_text(scopes: &[Scope]) -> String {
    Scope::ALL
        .iter()
        .filter(|s| scopes.contains(s))
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_scopes(text: &str) -> anyhow::Result<Vec<Scope>> {
    text.split_whitespace()
        .map(|s| Scope::parse(s).with_context(|| format!("stored scope {s:?}")))
        .collect()
}

const TOKEN_COLUMNS: &str = "t.id, t.organization_id, t.user_id, u.email, t.name, t.prefix, \
     t.scopes, t.created_at, t.expires_at, t.revoked_at, t.last_used_at, t.last_used_ip";

/// The `scopes` column: names separated by spaces.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
struct StoredScopes(String);

impl TryFrom<StoredScopes> for Vec<Scope> {
    type Error = anyhow::Error;

    fn try_from(stored: StoredScopes) -> anyhow::Result<Vec<Scope>> {
        parse_scopes(&stored.0)
    }
}

/// How the audit log names a token: its name and visible prefix.
fn label(name: &str, prefix: &str) -> String {
    format!("{name} ({SECRET_PREFIX}{prefix}…)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_and_roles_give_what_they_may() {
        for &scope in Scope::ALL {
            assert_eq!(Scope::parse(scope.as_str()), Some(scope));
        }
        assert_eq!(Scope::parse("admin"), None);
        assert_eq!(scopes_for(Role::Owner).len(), 3);
        assert_eq!(
            scopes_for(Role::Technical),
            &[Scope::Read, Scope::ServersWrite]
        );
        assert_eq!(scopes_for(Role::Billing), &[Scope::BillingRead]);
        let text = scopes_text(&[Scope::BillingRead, Scope::Read, Scope::Read]);
        assert_eq!(text, "read billing:read");
        assert_eq!(
            parse_scopes(&text).ok(),
            Some(vec![Scope::Read, Scope::BillingRead])
        );
    }

    #[test]
    fn only_our_shape_of_secret_reaches_the_database() {
        let good = format!("gpu_{}", "0123456789abcdef".repeat(4));
        assert!(well_formed(&good));
        assert!(!well_formed(&good.to_uppercase()));
        assert!(!well_formed(&good[..good.len() - 1]));
        assert!(!well_formed(&format!("{good}0")));
        assert!(!well_formed(&good.replace("gpu_", "gpx_")));
        assert!(!well_formed(&good.replacen('a', "g", 1)));
        assert!(!well_formed(""));
        // Multi-byte text of the right length must not panic on slicing.
        assert!(!well_formed(&format!("gpu_{}", "é".repeat(32))));
    }
}
