//! SSH public keys kept per user and installed on new servers. A key is
//! checked the way OpenSSH reads it (type, base64 blob whose first field
//! repeats the type) and named by its SHA256 fingerprint.

use anyhow::Context;
use base64::Engine;
use domain::UserId;
use sha2::{Digest, Sha256};
use sqlx::{Any, Executor};

use crate::db::new_id;
use crate::Db;

const ALGORITHMS: [&str; 6] = [
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKey {
    /// `type base64` without the comment, as installed.
    pub openssh: String,
    pub comment: String,
    /// `SHA256:…` as `ssh-keygen -l` prints it.
    pub fingerprint: String,
}

#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SshKey {
    pub id: String,
    pub name: String,
    pub public_key: String,
    pub fingerprint: String,
    pub created_at: i64,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("not an OpenSSH public key")]
pub struct NotAKey;

/// Parses one `ssh-ed25519 AAAA… comment` line.
/// (type, fingerprint) of each host key a server reported, as `ssh`
/// shows them on a first login (`ED25519 key fingerprint is SHA256:…`).
/// Lines that are not keys are left out.
pub fn host_key_fingerprints(keys: &[String]) -> Vec<(String, String)> {
    keys.iter()
        .filter_map(|k| parse(k).ok())
        .map(|k| {
            let kind = k.openssh.split(' ').next().unwrap_or_default();
            let kind = kind.strip_prefix("ssh-").unwrap_or(kind).to_uppercase();
            (kind, k.fingerprint)
        })
        .collect()
}

pub fn parse(text: &str) -> Result<PublicKey, NotAKey> {
    let mut fields = text.split_whitespace();
    let algorithm = fields.next().ok_or(NotAKey)?;
    let blob_b64 = fields.next().ok_or(NotAKey)?;
    let comment = fields.collect::<Vec<_>>().join(" ");
    if !ALGORITHMS.contains(&algorithm) || text.trim().contains('\n') {
        return Err(NotAKey);
    }
    let blob = base64::engine::general_purpose::STANDARD
        .decode(blob_b64)
        .map_err(|_| NotAKey)?;
    // The blob starts with the algorithm name as a length-prefixed string.
    let len = u32::from_be_bytes(
        blob.get(0..4)
            .ok_or(NotAKey)?
            .try_into()
            .map_err(|_| NotAKey)?,
    ) as usize;
    if blob.get(4..4 + len) != Some(algorithm.as_bytes()) || blob.len() < 4 + len + 16 {
        return Err(NotAKey);
    }
    let digest = Sha256::digest(&blob);
    Ok(PublicKey {
        openssh: format!("{algorithm} {blob_b64}"),
        comment: comment.chars().take(100).collect(),
        fingerprint: format!(
            "SHA256:{}",
            base64::engine::general_purpose::STANDARD_NO_PAD.encode(digest)
        ),
    })
}

pub async fn list(db: &Db, user_id: &UserId) -> anyhow::Result<Vec<SshKey>> {
    sqlx::query_as::<_, SshKey>(
        "select id, name, public_key, fingerprint, created_at from ssh_keys \
         where user_id = $1 order by created_at, id",
    )
    .bind(user_id)
    .fetch_all(&db.pool)
    .await
    .context("listing SSH keys")
}

/// Stores a key for a user; the same key twice is kept once.
pub async fn add<'e, E: Executor<'e, Database = Any>>(
    executor: E,
    user_id: &UserId,
    name: &str,
    key: &PublicKey,
    now: i64,
) -> anyhow::Result<()> {
    let name = if name.trim().is_empty() {
        if key.comment.is_empty() {
            key.fingerprint.clone()
        } else {
            key.comment.clone()
        }
    } else {
        name.trim().chars().take(100).collect()
    };
    sqlx::query(
        "insert into ssh_keys (id, user_id, name, public_key, fingerprint, created_at) \
         values ($1, $2, $3, $4, $5, $6) on conflict (user_id, fingerprint) do nothing",
    )
    .bind(new_id())
    .bind(user_id)
    .bind(name)
    .bind(&key.openssh)
    .bind(&key.fingerprint)
    .bind(now)
    .execute(executor)
    .await
    .context("storing an SSH key")?;
    Ok(())
}

/// Deletes one of the user's keys; servers that have it keep it.
pub async fn delete(db: &Db, user_id: &UserId, id: &str) -> anyhow::Result<bool> {
    let done = sqlx::query("delete from ssh_keys where id = $1 and user_id = $2")
        .bind(id)
        .bind(user_id)
        .execute(&db.pool)
        .await
        .context("deleting an SSH key")?;
    Ok(done.rows_affected() == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Generated with `ssh-keygen -t ed25519 -C demo@example`.
    const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 demo@example";

    #[test]
    fn parses_and_fingerprints_like_openssh() {
        let key = parse(KEY).expect("a valid key");
        assert_eq!(key.comment, "demo@example");
        // As `ssh-keygen -lf` printed it for this key.
        assert_eq!(
            key.fingerprint,
            "SHA256:u6j3L2F6tqtPjTku0QyiBGmX8ecdUHrPtZ8MhawD+sM"
        );
        assert_eq!(parse(&format!("  {KEY}\n")), Ok(key));
    }

    #[test]
    fn refuses_what_is_not_a_public_key() {
        assert_eq!(parse(""), Err(NotAKey));
        assert_eq!(parse("ssh-ed25519"), Err(NotAKey));
        assert_eq!(parse("ssh-ed25519 not-base64!"), Err(NotAKey));
        assert_eq!(parse("ssh-dss AAAAB3NzaC1kc3MAAACBAP"), Err(NotAKey));
        // The blob's own type must match the declared one.
        assert_eq!(
            parse("ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"),
            Err(NotAKey)
        );
        assert_eq!(parse("-----BEGIN OPENSSH PRIVATE KEY-----"), Err(NotAKey));
    }
}
