//! Reinstalling a server on its own host, with another operating system
//! image or the same one: as Hetzner's and DigitalOcean's "rebuild", the
//! disks are erased and the image written by the same provisioning steps
//! as the first install. The server keeps its name, addresses, term,
//! billing and snapshots; what was on its disks is gone. Without SSH keys
//! a new root password is made, shown once as after the first install.

use anyhow::Context;
use domain::order::OsImage;
use domain::server::EventKind;
use domain::ServerId;

use super::{get, record_event, Actor, ServerError};
use crate::{jobs, ssh_keys, Clock, Db};

#[derive(Debug, thiserror::Error)]
pub enum ReinstallError {
    #[error(transparent)]
    Server(#[from] ServerError),
    /// An SSH key id that is not one of the member's saved keys.
    #[error("no such saved SSH key")]
    UnknownKey,
}

impl From<anyhow::Error> for ReinstallError {
    fn from(error: anyhow::Error) -> ReinstallError {
        ReinstallError::Server(ServerError::Db(error))
    }
}

/// What to install: the image and, if given, the member's saved SSH keys
/// (by id) that replace the ones installed now; `None` keeps those.
pub struct Reinstall<'a> {
    pub image: OsImage,
    pub ssh_key_ids: Option<&'a [String]>,
}

/// Starts reinstalling a running or powered-off server (not one being
/// cancelled, restored or installed).
pub async fn reinstall(
    db: &Db,
    clock: &Clock,
    actor: &Actor<'_>,
    id: &ServerId,
    request: &Reinstall<'_>,
) -> Result<(), ReinstallError> {
    let server = get(db, actor.organization_id, id)
        .await?
        .filter(|s| s.cancelled_at.is_none())
        .ok_or(ServerError::NotFound)?;
    let keys = match request.ssh_key_ids {
        None => server.ssh_keys.clone(),
        Some(ids) => {
            let saved = ssh_keys::list(db, actor.user_id).await?;
            let mut keys = Vec::new();
            for id in ids {
                let key = saved
                    .iter()
                    .find(|k| &k.id == id)
                    .ok_or(ReinstallError::UnknownKey)?;
                if !keys.contains(&key.public_key) {
                    keys.push(key.public_key.clone());
                }
            }
            keys
        }
    };
    let now = clock.now();
    let mut tx = db.begin().await.context("starting a transaction")?;
    db.lock_row(&mut tx, "servers", id).await?;
    // The old root password, host keys and the hostname's install go with
    // the disks; the addresses stay (provisioning keeps them). Not while a
    // snapshot is taken or written back: its job holds the disks.
    let started = sqlx::query(
        "update servers set state = 'provisioning', step = '', progress = 0, os_image = $1, \
         ssh_keys = $2, root_secret = null, host_keys = null, reinstall_requested_at = $3, \
         updated_at = $3 where id = $4 and organization_id = $5 \
         and (state = 'running' or (state = 'rebooting' and step = 'off')) and cancelled_at is null \
         and not exists (select 1 from snapshots where server_id = $4 \
         and state in ('creating', 'restoring'))",
    )
    .bind(request.image)
    .bind(keys.join("\n"))
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await
    .context("starting the reinstall")?;
    if started.rows_affected() == 0 {
        return Err(ServerError::Busy(server.state).into());
    }
    record_event(
        &mut tx,
        id,
        EventKind::ReinstallRequested,
        request.image.as_str(),
        now,
    )
    .await?;
    jobs::enqueue(&mut tx, jobs::JobKind::Provision, id, now, now).await?;
    actor
        .audit(
            &mut tx,
            "server.reinstalled",
            &format!("{id}: {}", request.image.as_str()),
            now,
        )
        .await?;
    tx.commit().await.context("committing the reinstall")?;
    Ok(())
}
