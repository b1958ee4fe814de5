//! The audit log of security- and money-relevant actions. Owners see their
//! organization's entries; staff see all.

use anyhow::Context;
use domain::{OrganizationId, UserId};
use sqlx::{Any, Executor};

use crate::db::new_id;

/// Every action the log records, so readers get words for each: the
/// portal translates these, and a test fails when a recorded code is
/// missing here (`every_recorded_action_is_listed`).
pub const ACCOUNT_CREATED: &str = "account.created";
pub const ACCOUNT_DELETED: &str = "account.deleted";
pub const EMAIL_CHANGED: &str = "email.changed";
pub const PASSWORD_CHANGED: &str = "password.changed";
pub const PASSWORD_RESET: &str = "password.reset";
pub const LOGIN_SUCCEEDED: &str = "login.succeeded";
pub const LOGIN_FAILED: &str = "login.failed";
pub const MEMBER_INVITED: &str = "member.invited";
pub const INVITATION_RESENT: &str = "invitation.resent";
pub const INVITATION_REVOKED: &str = "invitation.revoked";
pub const MEMBER_JOINED: &str = "member.joined";

pub const ACTIONS: &[&str] = &[
    ACCOUNT_CREATED,
    ACCOUNT_DELETED,
    EMAIL_CHANGED,
    PASSWORD_CHANGED,
    PASSWORD_RESET,
    LOGIN_SUCCEEDED,
    LOGIN_FAILED,
    "2fa.enabled",
    "2fa.disabled",
    "2fa.recovery_code_used",
    "2fa.required",
    "2fa.not_required",
    MEMBER_INVITED,
    INVITATION_RESENT,
    INVITATION_REVOKED,
    MEMBER_JOINED,
    "member.left",
    "member.removed",
    "member.role_changed",
    "staff.created",
    "order.placed",
    "order.refunded",
    "invoice.paid",
    "invoice.void",
    "invoice.uncollectible",
    "invoice.disputed",
    "invoice.dispute_closed",
    "credit_note.issued",
    "credit_note.paid_out",
    "billing.profile_saved",
    "billing.vat_id_checked",
    "server.renamed",
    "server.labels_changed",
    "server.cancel_scheduled",
    "server.cancel_revoked",
    "server.root_password_shown",
    "server.root_password_reset",
    "server.reboot",
    "server.power_cycle",
    "server.power_off",
    "server.power_on",
    "server.reinstalled",
    "console.serial.opened",
    "console.vnc.opened",
    "snapshot.taken",
    "snapshot.restored",
    "snapshot.deleted",
    "maintenance.accepted",
    "maintenance.counter",
    "maintenance.proposed",
    "maintenance.confirmed",
    "host.degraded",
    "host.bmc_set",
    "api_token.created",
    "api_token.revoked",
    "webhook.created",
    "webhook.changed",
    "webhook.deleted",
    "webhook.secret_rolled",
    "api_token.used_from_new_address",
    "support.opened",
    "support.closed",
    "support.reopened",
    "support.assigned",
];

pub struct Entry<'a> {
    pub organization_id: Option<&'a OrganizationId>,
    pub user_id: Option<&'a UserId>,
    /// Who acted, as shown to readers: an email, `operator:…`, `system`.
    pub actor: &'a str,
    /// Dotted verb: `login.succeeded`, `password.changed`, …
    pub action: &'a str,
    pub detail: &'a str,
    pub ip: Option<&'a str>,
    pub at: i64,
}

impl<'a> Entry<'a> {
    /// An action nobody signed in took (`system`, `stripe`): no user, no
    /// address.
    pub fn unattended(
        organization_id: &'a OrganizationId,
        actor: &'a str,
        action: &'a str,
        detail: &'a str,
        at: i64,
    ) -> Entry<'a> {
        Entry {
            organization_id: Some(organization_id),
            user_id: None,
            actor,
            action,
            detail,
            ip: None,
            at,
        }
    }
}

pub async fn record<'e, E: Executor<'e, Database = Any>>(
    executor: E,
    entry: &Entry<'_>,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into audit_log (id, organization_id, user_id, actor, action, detail, ip, at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(entry.organization_id)
    .bind(entry.user_id)
    .bind(entry.actor)
    .bind(entry.action)
    .bind(entry.detail)
    .bind(entry.ip)
    .bind(entry.at)
    .execute(executor)
    .await
    .with_context(|| format!("recording {}", entry.action))?;
    Ok(())
}

/// Which entries a reader asks for: by whom, which action, and from which
/// day to which (Unix seconds, `until` exclusive). Empty means any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub actor: String,
    pub action: String,
    pub from: Option<i64>,
    pub until: Option<i64>,
}

/// An organization's entries matching `filter`, newest first: (at, actor,
/// action, detail, ip).
pub async fn for_organization(
    db: &crate::Db,
    organization_id: &OrganizationId,
    filter: &Filter,
    limit: i64,
) -> anyhow::Result<Vec<(i64, String, String, String, String)>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "select at, actor, action, detail, coalesce(ip, '') as ip from audit_log \
         where organization_id = $1 and ($2 = '' or actor = $2) and ($3 = '' or action = $3) \
         and at >= $4 and at < $5 order by at desc, id desc limit $6",
    )
    .bind(organization_id)
    .bind(&filter.actor)
    .bind(&filter.action)
    .bind(filter.from.unwrap_or(i64::MIN))
    .bind(filter.until.unwrap_or(i64::MAX))
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("at")?,
                r.try_get("actor")?,
                r.try_get("action")?,
                r.try_get("detail")?,
                r.try_get("ip")?,
            ))
        })
        .collect()
}

/// Who acted and which actions an organization's log holds, sorted: what
/// its filters offer.
pub async fn choices(
    db: &crate::Db,
    organization_id: &OrganizationId,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let actors: Vec<String> = sqlx::query_scalar(
        "select distinct actor from audit_log where organization_id = $1 order by actor",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log's actors")?;
    let actions: Vec<String> = sqlx::query_scalar(
        "select distinct action from audit_log where organization_id = $1 order by action",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log's actions")?;
    Ok((actors, actions))
}

/// Every entry, newest first, for staff: (at, actor, action, detail, ip).
pub async fn all(
    db: &crate::Db,
    limit: i64,
) -> anyhow::Result<Vec<(i64, String, String, String, String)>> {
    use sqlx::Row;
    let rows = sqlx::query(
        "select at, actor, action, detail, coalesce(ip, '') as ip from audit_log order by at desc, id desc limit $1",
    )
    .bind(limit)
    .fetch_all(&db.pool)
    .await
    .context("reading the audit log")?;
    rows.iter()
        .map(|r| {
            Ok((
                r.try_get("at")?,
                r.try_get("actor")?,
                r.try_get("action")?,
                r.try_get("detail")?,
                r.try_get("ip")?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ACTIONS;

    /// Dotted literals in audit-writing files that are not audit actions:
    /// server history kinds, Stripe event names, numbers.
    const NOT_ACTIONS: &[&str] = &[
        "cancel.scheduled",
        "cancel.revoked",
        "billing.subscription_ended",
        "charge.dispute.created",
        "invoice.payment_failed",
        "root_password.shown",
        "root_password.reset_requested",
        "root_password.reset",
        "root_password.reset_failed",
        "root_password.set",
        "snapshot.requested",
        "snapshot.restore.started",
        "maintenance.done",
        "maintenance.started",
        "host.failed",
        "rebuild.waiting",
    ];

    /// The string literals of a Rust source, roughly: escapes are skipped
    /// and a `'"'` char literal does not open a string.
    fn literals(source: &str) -> Vec<String> {
        let source = source.replace("'\\\"'", "").replace("'\"'", "");
        let mut found = Vec::new();
        let mut current: Option<String> = None;
        let mut chars = source.chars();
        while let Some(c) = chars.next() {
            match (&mut current, c) {
                (None, '"') => current = Some(String::new()),
                (None, _) => {}
                (Some(text), '\\') => {
                    text.push(c);
                    if let Some(next) = chars.next() {
                        text.push(next);
                    }
                }
                (Some(_), '"') => found.extend(current.take()),
                (Some(text), _) => text.push(c),
            }
        }
        found
    }

    fn dotted_code(s: &str) -> bool {
        s.contains('.')
            && !s.starts_with('.')
            && !s.ends_with('.')
            && s.chars().any(|c| c.is_ascii_lowercase())
            && s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.')
            && !s.ends_with(".rs")
            && !s.ends_with(".js")
            && !s.ends_with(".svg")
    }

    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// A file that records audit entries may use a new action only once it
    /// is in `ACTIONS` (and so has words in the portal's audit log).
    #[test]
    fn every_recorded_action_is_listed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&root, &mut files);
        let mut missing = Vec::new();
        for file in files {
            let source = std::fs::read_to_string(&file).unwrap_or_default();
            let records = ["audit::record", ".audit(", "staff_audit("]
                .iter()
                .any(|call| source.contains(call));
            if !records || file.ends_with("audit.rs") {
                continue;
            }
            for code in literals(&source).into_iter().filter(|s| dotted_code(s)) {
                if !ACTIONS.contains(&code.as_str()) && !NOT_ACTIONS.contains(&code.as_str()) {
                    missing.push(format!("{code} ({})", file.display()));
                }
            }
        }
        assert!(missing.is_empty(), "audit actions without an entry in audit::ACTIONS (add it, and its words in app/src/i18n/portal_*.rs): {missing:?}");
    }
}
