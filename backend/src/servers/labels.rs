//! Labels on servers: `key=value` pairs a customer sets to group servers
//! (`env=prod`, `team=vision`) and filters lists by, as Hetzner Cloud's
//! labels and their selectors work. At most [`MAX`] per server; keys and
//! values are kept to characters that need no escaping in a URL or a
//! shell.

use anyhow::Context;
use domain::{OrganizationId, ServerId};
use sqlx::Row;
use std::collections::{BTreeMap, HashMap};

use super::{Actor, ServerError};
use crate::{Clock, Db};

/// Labels one server may carry.
pub const MAX: usize = 16;

/// Conditions one list filter may combine.
pub const MAX_SELECTORS: usize = 5;

pub type Labels = BTreeMap<String, String>;

/// A key: 1–63 lower-case letters, digits, `.`, `_`, `-` or `/`,
/// starting and ending with a letter or digit.
pub fn valid_key(key: &str) -> bool {
    let edge = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    (1..=63).contains(&key.len())
        && edge(key.as_bytes().first())
        && edge(key.as_bytes().last())
        && key.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-' | b'/')
        })
}

/// A value: 0–63 letters, digits, `.`, `_` or `-`.
pub fn valid_value(value: &str) -> bool {
    value.len() <= 63
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The first label that breaks the rules (its key), or `None`.
pub fn invalid(labels: &Labels) -> Option<String> {
    if labels.len() > MAX {
        return Some(labels.keys().nth(MAX).cloned().unwrap_or_default());
    }
    labels
        .iter()
        .find(|(k, v)| !valid_key(k) || !valid_value(v))
        .map(|(k, _)| k.clone())
}

/// One condition of a selector: the key present, or with this value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub key: String,
    pub value: Option<String>,
}

/// `env=prod,gpu`: servers labelled `env=prod` that also have a `gpu`
/// label. `None` for a selector that breaks the label rules.
pub fn parse_selectors(raw: &str) -> Option<Vec<Selector>> {
    let selectors: Vec<Selector> = raw
        .split(',')
        .map(|part| match part.split_once('=') {
            Some((key, value)) => Selector {
                key: key.to_owned(),
                value: Some(value.to_owned()),
            },
            None => Selector {
                key: part.to_owned(),
                value: None,
            },
        })
        .collect();
    let ok = selectors.len() <= MAX_SELECTORS
        && selectors
            .iter()
            .all(|s| valid_key(&s.key) && s.value.as_deref().is_none_or(valid_value));
    ok.then_some(selectors)
}

/// The labels of every server of the organization.
pub async fn of_organization(
    db: &Db,
    organization_id: &OrganizationId,
) -> anyhow::Result<HashMap<ServerId, Labels>> {
    let rows = sqlx::query(
        "select l.server_id, l.key, l.value from server_labels l \
         join servers s on s.id = l.server_id where s.organization_id = $1",
    )
    .bind(organization_id)
    .fetch_all(&db.pool)
    .await
    .context("reading labels")?;
    let mut all: HashMap<ServerId, Labels> = HashMap::new();
    for row in rows {
        let server: ServerId = row.try_get("server_id")?;
        all.entry(server)
            .or_default()
            .insert(row.try_get("key")?, row.try_get("value")?);
    }
    Ok(all)
}

/// One server's labels.
pub async fn of_server(db: &Db, server_id: &ServerId) -> anyhow::Result<Labels> {
    let rows = sqlx::query("select key, value from server_labels where server_id = $1")
        .bind(server_id)
        .fetch_all(&db.pool)
        .await
        .context("reading labels")?;
    rows.iter()
        .map(|row| Ok((row.try_get("key")?, row.try_get("value")?)))
        .collect()
}

/// Replaces a server's labels (the caller checked them with [`invalid`]).
pub async fn set(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    labels: &Labels,
) -> Result<(), ServerError> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    let exists: Option<String> = sqlx::query_scalar(
        "select id from servers where id = $1 and organization_id = $2 \
         and state <> 'failed' and cancelled_at is null",
    )
    .bind(id)
    .bind(actor.organization_id)
    .fetch_optional(&mut *tx)
    .await
    .context("finding the server")?;
    if exists.is_none() {
        return Err(ServerError::NotFound);
    }
    sqlx::query("delete from server_labels where server_id = $1")
        .bind(id)
        .execute(&mut *tx)
        .await
        .context("clearing labels")?;
    for (key, value) in labels {
        sqlx::query("insert into server_labels (server_id, key, value) values ($1, $2, $3)")
            .bind(id)
            .bind(key)
            .bind(value)
            .execute(&mut *tx)
            .await
            .context("storing a label")?;
    }
    let shown: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
    actor
        .audit(&mut tx, "server.labels_changed", &shown.join(", "), now)
        .await?;
    tx.commit().await.context("committing the labels")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_values_and_selectors_follow_the_rules() {
        assert!(valid_key("env") && valid_key("team.ml/gpu-1") && valid_key("a"));
        assert!(!valid_key("") && !valid_key("-env") && !valid_key("Env") && !valid_key("a b"));
        assert!(!valid_key(&"k".repeat(64)));
        assert!(valid_value("") && valid_value("Prod_2.1-b"));
        assert!(!valid_value("a=b") && !valid_value("a,b") && !valid_value(&"v".repeat(64)));
        assert_eq!(
            parse_selectors("env=prod,gpu"),
            Some(vec![
                Selector {
                    key: "env".into(),
                    value: Some("prod".into())
                },
                Selector {
                    key: "gpu".into(),
                    value: None
                },
            ])
        );
        assert_eq!(parse_selectors("env=pr od"), None);
        assert_eq!(parse_selectors("a,b,c,d,e,f"), None);
        let many: Labels = (0..17)
            .map(|i| (format!("k{i:02}"), String::new()))
            .collect();
        assert!(invalid(&many).is_some());
    }
}
