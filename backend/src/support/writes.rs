//! Steps every change shares: the request as it stands (locked for the
//! transaction), adding a message, and a new reference.

use anyhow::Context;
use domain::{Lang, OrganizationId, UserId};
use sqlx::{Any, Row, Transaction};

use super::{Category, State};
use crate::db::new_id;
use crate::Db;

/// A request as a change needs it.
pub(super) struct Current {
    pub organization_id: OrganizationId,
    pub category: Category,
    pub state: State,
    pub closed_at: Option<i64>,
    pub reference: String,
    pub subject: String,
    pub lang: Lang,
}

/// Reads the request inside `tx`, locked until it ends, so two replies at
/// once take their turns one after the other.
pub(super) async fn current(
    db: &Db,
    tx: &mut Transaction<'static, Any>,
    id: &str,
) -> anyhow::Result<Option<Current>> {
    db.lock_row(tx, "support_requests", id).await?;
    let row = sqlx::query(
        "select organization_id, category, state, closed_at, reference, subject, lang \
         from support_requests where id = $1",
    )
    .bind(id)
    .fetch_optional(&mut **tx)
    .await
    .context("reading the support request")?;
    let Some(r) = row else { return Ok(None) };
    Ok(Some(Current {
        organization_id: r.try_get("organization_id")?,
        category: r.try_get("category")?,
        state: r.try_get("state")?,
        closed_at: r.try_get("closed_at")?,
        reference: r.try_get("reference")?,
        subject: r.try_get("subject")?,
        lang: r.try_get("lang")?,
    }))
}

/// Who wrote a message.
pub(super) struct Author<'a> {
    pub kind: domain::support::AuthorKind,
    pub user_id: Option<&'a UserId>,
    pub name: &'a str,
}

pub(super) async fn add_message(
    tx: &mut Transaction<'_, Any>,
    request_id: &str,
    author: &Author<'_>,
    internal: bool,
    body: &str,
    now: i64,
) -> anyhow::Result<()> {
    sqlx::query(
        "insert into support_messages (id, request_id, author_kind, author_id, author_name, internal, body, created_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(new_id())
    .bind(request_id)
    .bind(author.kind.as_str())
    .bind(author.user_id)
    .bind(author.name)
    .bind(i64::from(internal))
    .bind(body)
    .bind(now)
    .execute(&mut **tx)
    .await
    .context("adding a support message")?;
    Ok(())
}

/// Letters and digits nobody confuses on the phone (no 0/O, 1/I/L).
const ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// "SR-" and six random characters not used yet (31⁶ ≈ 900 million).
pub(super) async fn new_reference(tx: &mut Transaction<'_, Any>) -> anyhow::Result<String> {
    for _ in 0..8 {
        let mut bytes = [0u8; 6];
        getrandom::getrandom(&mut bytes).context("drawing a reference")?;
        let code: String = bytes
            .iter()
            .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
            .collect();
        let reference = format!("SR-{code}");
        let taken: Option<String> =
            sqlx::query_scalar("select id from support_requests where reference = $1")
                .bind(&reference)
                .fetch_optional(&mut **tx)
                .await
                .context("checking a reference")?;
        if taken.is_none() {
            return Ok(reference);
        }
    }
    anyhow::bail!("no free support reference after 8 draws")
}

/// A member's display name for the thread: their name, or their email.
pub(super) async fn member_name(
    tx: &mut Transaction<'_, Any>,
    user_id: &UserId,
    email: &str,
) -> anyhow::Result<String> {
    let name: Option<String> = sqlx::query_scalar("select name from users where id = $1")
        .bind(user_id)
        .fetch_optional(&mut **tx)
        .await
        .context("reading the member's name")?;
    Ok(name
        .filter(|n| !n.trim().is_empty())
        .unwrap_or_else(|| email.to_owned()))
}
