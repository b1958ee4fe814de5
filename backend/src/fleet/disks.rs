//! What the development Fleet's simulated hosts have on their disks: the
//! operating system installed, the hostname written at install and the
//! root password's hash. The simulated BMC boots from it, as a real
//! machine boots what was installed on it.
//!
//! The product hands the hostname over once, at install (the order form
//! promises the server's name becomes its hostname). A rename in the
//! portal later changes only the name we show: like on a real machine,
//! `/etc/hostname` belongs to the customer once the server is theirs, and
//! rewriting it behind their back could break what they configured.
//!
//! In a running product the disks live in the database (`fleet_dev_disks`),
//! since the replica serving a console is not always the one whose worker
//! installed the host; unit tests of the BMC keep them in memory.

use anyhow::Context;
use sha2::{Digest, Sha256};
use sqlx::Row;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use domain::OsImage;

use crate::Db;

/// An installed system, as the machine boots it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installed {
    pub image: OsImage,
    pub hostname: String,
    /// `salt$sha256(salt:password)`; `None` when only SSH keys log in.
    pub root_hash: Option<String>,
}

impl Installed {
    pub fn new(image: OsImage, hostname: &str, root_password: Option<&str>) -> Installed {
        Installed {
            image,
            hostname: hostname.to_owned(),
            root_hash: root_password.map(shadow),
        }
    }

    /// Whether `password` is the installed root password.
    pub fn accepts(&self, password: &str) -> bool {
        let Some((salt, _)) = self.root_hash.as_deref().and_then(|h| h.split_once('$')) else {
            return false;
        };
        self.root_hash.as_deref() == Some(salted(salt, password).as_str())
    }
}

/// The password as the simulated `/etc/shadow` keeps it: never in clear.
fn shadow(password: &str) -> String {
    let salt = crate::accounts::tokens::random_token()
        .map(|t| t[..16].to_owned())
        .unwrap_or_else(|_| crate::db::new_id());
    salted(&salt, password)
}

fn salted(salt: &str, password: &str) -> String {
    let digest = Sha256::digest(format!("{salt}:{password}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{salt}${hex}")
}

/// Where the simulated disks are kept.
#[derive(Clone)]
pub enum Disks {
    Memory(Arc<Mutex<HashMap<String, Installed>>>),
    Database(Db),
}

impl Default for Disks {
    fn default() -> Disks {
        Disks::Memory(Arc::default())
    }
}

impl Disks {
    /// What `host` boots; `None` for an empty (new or wiped) disk.
    pub async fn read(&self, host: &str) -> anyhow::Result<Option<Installed>> {
        match self {
            Disks::Memory(map) => Ok(lock(map).get(host).cloned()),
            Disks::Database(db) => {
                let row = sqlx::query(
                    "select image, hostname, root_hash from fleet_dev_disks where host = $1",
                )
                .bind(host)
                .fetch_optional(&db.pool)
                .await
                .context("reading a simulated disk")?;
                row.map(|r| {
                    let image: String = r.try_get("image")?;
                    Ok(Installed {
                        image: OsImage::parse(&image).context("stored image")?,
                        hostname: r.try_get("hostname")?,
                        root_hash: r.try_get("root_hash")?,
                    })
                })
                .transpose()
            }
        }
    }

    /// Writes a fresh install onto `host`'s disks.
    pub async fn install(&self, host: &str, installed: Installed, at: i64) -> anyhow::Result<()> {
        match self {
            Disks::Memory(map) => {
                lock(map).insert(host.to_owned(), installed);
                Ok(())
            }
            Disks::Database(db) => {
                sqlx::query(
                    "insert into fleet_dev_disks (host, image, hostname, root_hash, installed_at) \
                     values ($1, $2, $3, $4, $5) on conflict (host) do update set \
                     image = excluded.image, hostname = excluded.hostname, \
                     root_hash = excluded.root_hash, installed_at = excluded.installed_at",
                )
                .bind(host)
                .bind(installed.image.as_str())
                .bind(&installed.hostname)
                .bind(&installed.root_hash)
                .bind(at)
                .execute(&db.pool)
                .await
                .context("writing a simulated disk")?;
                Ok(())
            }
        }
    }

    /// Changes the root password of what is installed; `false` when the
    /// disk is empty.
    pub async fn set_root_password(&self, host: &str, password: &str) -> anyhow::Result<bool> {
        let hash = shadow(password);
        match self {
            Disks::Memory(map) => Ok(lock(map)
                .get_mut(host)
                .map(|i| i.root_hash = Some(hash))
                .is_some()),
            Disks::Database(db) => {
                let done = sqlx::query("update fleet_dev_disks set root_hash = $1 where host = $2")
                    .bind(&hash)
                    .bind(host)
                    .execute(&db.pool)
                    .await
                    .context("changing a simulated root password")?;
                Ok(done.rows_affected() > 0)
            }
        }
    }

    /// Erases `host`'s disks.
    pub async fn erase(&self, host: &str) -> anyhow::Result<()> {
        match self {
            Disks::Memory(map) => {
                lock(map).remove(host);
                Ok(())
            }
            Disks::Database(db) => {
                sqlx::query("delete from fleet_dev_disks where host = $1")
                    .bind(host)
                    .execute(&db.pool)
                    .await
                    .context("erasing a simulated disk")?;
                Ok(())
            }
        }
    }
}

/// The map even if a panicking holder poisoned it: it holds plain values.
fn lock(
    map: &Mutex<HashMap<String, Installed>>,
) -> std::sync::MutexGuard<'_, HashMap<String, Installed>> {
    map.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn installs_checks_and_erases() {
        let disks = Disks::default();
        assert_eq!(disks.read("h").await.unwrap(), None);
        let installed = Installed::new(OsImage::Debian13, "train-fra-01", Some("old"));
        assert!(installed.accepts("old") && !installed.accepts("new"));
        assert!(!installed.root_hash.as_deref().unwrap().contains("old"));
        disks.install("h", installed, 1).await.unwrap();
        assert!(disks.set_root_password("h", "new").await.unwrap());
        let now = disks.read("h").await.unwrap().unwrap();
        assert!(now.accepts("new") && !now.accepts("old"));
        disks.erase("h").await.unwrap();
        assert!(!disks.set_root_password("h", "x").await.unwrap());
        let keys_only = Installed::new(OsImage::Rocky9, "k", None);
        assert!(!keys_only.accepts(""));
    }
}
