//! A new root password for a customer who lost theirs. An owner or
//! technical member asks for it (confirmed, audited); a `root_password.set`
//! job has the Fleet set it on the running machine; the new password then
//! waits sealed in `servers.root_secret` and is shown once on the server's
//! page, exactly like the first one (`take_root_password`). The owners are
//! mailed that it was reset, never what it is.

use anyhow::Context;
use domain::server::EventKind;
use domain::{Lang, ServerId};
use sqlx::Row;

use super::{get, get_any, mail_texts, record_event, Actor, ServerError, ServerState};
use crate::db::new_id;
use crate::fleet::FleetError;
use crate::jobs::{self, Job, JobKind, Outcome};
use crate::sealing::Sealer;
use crate::worker::Runner;
use crate::{mail, Clock, Db};

/// Server history: asked for, set by the Fleet, or given up. The page
/// (`app::portal::root_password`) reads the newest of them.
pub const REQUESTED: EventKind = EventKind::RootPasswordResetRequested;
pub const DONE: EventKind = EventKind::RootPasswordReset;
pub const FAILED: EventKind = EventKind::RootPasswordResetFailed;

/// The audit log's word for the request.
const AUDITED: &str = "server.root_password_reset";

/// Runs of the job while the Fleet is unreachable before giving up.
const MAX_ATTEMPTS: i64 = 5;

/// Asks the Fleet for a new root password on a running server. One request
/// at a time per server; refused (`Busy`) while the server is not running,
/// is suspended, or a reset is already under way.
pub async fn request_reset(
    db: &Db,
    clock: &Clock,
    sealer: &Sealer,
    actor: &Actor<'_>,
    id: &ServerId,
) -> Result<(), ServerError> {
    // As long and random as the one made at install.
    let password = crate::accounts::tokens::random_token()?[..24].to_owned();
    let sealed = sealer.seal(&password)?;
    let now = clock.now();
    let reset_id = new_id();
    let mut tx = db.begin().await.context("starting a transaction")?;
    // The insert decides: it happens only for a running server of the
    // caller's organization without an open request (the partial unique
    // index settles two requests racing on PostgreSQL).
    let inserted = sqlx::query(
        "insert into root_password_resets (id, server_id, organization_id, requested_by, \
         sealed_password, state, requested_at) \
         select $1, s.id, s.organization_id, $2, $3, 'queued', $4 from servers s \
         where s.id = $5 and s.organization_id = $6 and s.state = 'running' \
         and s.cancelled_at is null and s.billing_state <> 'suspended' and s.host_id is not null \
         and not exists (select 1 from root_password_resets r \
                         where r.server_id = s.id and r.state = 'queued')",
    )
    .bind(&reset_id)
    .bind(actor.user_id)
    .bind(&sealed)
    .bind(now)
    .bind(id)
    .bind(actor.organization_id)
    .execute(&mut *tx)
    .await;
    let inserted = match inserted {
        Ok(done) => done.rows_affected(),
        Err(error) => {
            drop(tx);
            return match get(db, actor.organization_id, id).await? {
                // The other request won the race.
                Some(s) if s.state == ServerState::Running => Err(ServerError::Busy(s.state)),
                _ => Err(anyhow::Error::new(error)
                    .context("recording the root password reset")
                    .into()),
            };
        }
    };
    if inserted == 0 {
        drop(tx);
        return match get(db, actor.organization_id, id).await? {
            Some(s) => Err(ServerError::Busy(s.state)),
            None => Err(ServerError::NotFound),
        };
    }
    jobs::enqueue(&mut tx, JobKind::RootPassword, &reset_id, now, now).await?;
    record_event(&mut tx, id, REQUESTED, actor.email, now).await?;
    actor.audit(&mut tx, AUDITED, id.as_str(), now).await?;
    tx.commit().await.context("committing the reset request")?;
    Ok(())
}

impl Runner {
    /// Has the Fleet set the requested password, then leaves it to be
    /// shown once and tells the owners.
    pub(crate) async fn set_root_password(&self, job: &Job) -> anyhow::Result<Outcome> {
        let row = sqlx::query(
            "select server_id, sealed_password, state from root_password_resets where id = $1",
        )
        .bind(&job.subject_id)
        .fetch_optional(&self.db.pool)
        .await
        .context("reading the reset")?;
        let Some(row) = row else {
            return Ok(Outcome::Dead("no such reset".into()));
        };
        let state: String = row.try_get("state")?;
        let sealed: Option<String> = row.try_get("sealed_password")?;
        let (Some(sealed), "queued") = (sealed, state.as_str()) else {
            return Ok(Outcome::Done);
        };
        let server_id: ServerId = row.try_get("server_id")?;
        let server = get_any(&self.db, &server_id).await?;
        let host = server
            .filter(|s| s.state == ServerState::Running && s.cancelled_at.is_none())
            .and_then(|s| s.host_name);
        let Some(host) = host else {
            // Stopped, moved or cancelled meanwhile: the customer asks again.
            self.reset_failed(&job.subject_id, &server_id).await?;
            return Ok(Outcome::Done);
        };
        let password = self.sealer.open(&sealed)?;
        match self.fleet.set_root_password(&host, &password).await {
            Ok(()) => {
                self.reset_done(&job.subject_id, &server_id, &sealed)
                    .await?
            }
            Err(FleetError::Unavailable(reason)) if job.attempts < MAX_ATTEMPTS => {
                return Ok(Outcome::RetryAt(
                    self.clock.now() + 15 * job.attempts,
                    reason,
                ));
            }
            Err(error) => {
                tracing::warn!(server = %server_id, error = %error, "root password reset failed");
                self.reset_failed(&job.subject_id, &server_id).await?;
            }
        }
        Ok(Outcome::Done)
    }

    async fn reset_done(
        &self,
        reset_id: &str,
        server_id: &ServerId,
        sealed: &str,
    ) -> anyhow::Result<()> {
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        if !close(&mut tx, reset_id, "done", now).await? {
            return Ok(());
        }
        sqlx::query("update servers set root_secret = $1, updated_at = $2 where id = $3")
            .bind(sealed)
            .bind(now)
            .bind(server_id)
            .execute(&mut *tx)
            .await
            .context("keeping the new root password to show")?;
        record_event(&mut tx, server_id, DONE, "", now).await?;
        let server = sqlx::query(
            "select s.name, s.organization_id, u.email as requested_by from servers s \
             join root_password_resets r on r.server_id = s.id \
             join users u on u.id = r.requested_by where r.id = $1",
        )
        .bind(reset_id)
        .fetch_one(&mut *tx)
        .await
        .context("reading the server and who asked")?;
        let name: String = server.try_get("name")?;
        let by: String = server.try_get("requested_by")?;
        let owners = sqlx::query(
            "select u.email, u.lang from memberships m join users u on u.id = m.user_id \
             where m.organization_id = $1 and m.role = 'owner' \
             and u.email_verified_at is not null order by u.email",
        )
        .bind(server.try_get::<String, _>("organization_id")?)
        .fetch_all(&mut *tx)
        .await
        .context("reading the owners")?;
        for owner in owners {
            let to: String = owner.try_get("email")?;
            let lang = Lang::from_code(&owner.try_get::<String, _>("lang")?).unwrap_or_default();
            let link = format!(
                "{}/{}/servers/{server_id}",
                self.base_url.trim_end_matches('/'),
                lang.code()
            );
            let message = mail_texts::root_password_reset(
                lang,
                &mail_texts::RootPasswordReset {
                    to: &to,
                    server: &name,
                    by: &by,
                    at: now,
                    link: &link,
                },
            );
            mail::queue(&mut tx, &message, now).await?;
        }
        tx.commit().await.context("committing the reset")?;
        Ok(())
    }

    async fn reset_failed(&self, reset_id: &str, server_id: &ServerId) -> anyhow::Result<()> {
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        if close(&mut tx, reset_id, "failed", now).await? {
            record_event(&mut tx, server_id, FAILED, "", now).await?;
        }
        tx.commit().await.context("committing the failed reset")?;
        Ok(())
    }
}

/// Ends an open request, forgetting its sealed password; `false` if another
/// worker ended it first.
async fn close(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    reset_id: &str,
    state: &str,
    now: i64,
) -> anyhow::Result<bool> {
    let done = sqlx::query(
        "update root_password_resets set state = $1, sealed_password = null, finished_at = $2 \
         where id = $3 and state = 'queued'",
    )
    .bind(state)
    .bind(now)
    .bind(reset_id)
    .execute(&mut **tx)
    .await
    .context("closing the reset")?;
    Ok(done.rows_affected() > 0)
}
