//! The worker's side of snapshots: copying, writing back part by part
//! (progress recorded after each, so another replica resumes a restore
//! where it stopped), and deleting from the site's storage.

use anyhow::Context;
use domain::{ServerId, SnapshotId};

use super::provisioning::MAX_ATTEMPTS;
use super::snapshots::{forget, job_subject};
use super::{record_event, ServerState, SnapshotState, Step};
use crate::fleet::{FleetError, RESTORE_PARTS};
use crate::jobs::{self, Job, Outcome};
use crate::worker::Runner;
use domain::server::EventKind;

impl Runner {
    fn retry_or(&self, job: &Job, error: &FleetError) -> Option<Outcome> {
        matches!(error, FleetError::Unavailable(_))
            .then_some(())
            .filter(|()| job.attempts < MAX_ATTEMPTS)
            .map(|()| Outcome::RetryAt(self.clock.now() + 10 * job.attempts, error.to_string()))
    }

    pub(crate) async fn take_snapshot(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(subject) =
            job_subject(&self.db, &SnapshotId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such snapshot".into()));
        };
        if subject.snapshot.state != SnapshotState::Creating {
            return Ok(Outcome::Done);
        }
        let result = match &subject.host {
            Some(host) => {
                self.fleet
                    .take_snapshot(host, subject.snapshot.id.as_str())
                    .await
            }
            None => Err(FleetError::HostFault("no host".into())),
        };
        let now = self.clock.now();
        let (state, size, event) = match result {
            Ok(size) => (
                "ready",
                i64::try_from(size).unwrap_or(i64::MAX),
                EventKind::SnapshotReady,
            ),
            Err(error) => match self.retry_or(job, &error) {
                Some(retry) => return Ok(retry),
                None => ("failed", 0, EventKind::SnapshotFailed),
            },
        };
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "update snapshots set state = $1, size_bytes = $2, ready_at = $3 \
             where id = $4 and state = 'creating'",
        )
        .bind(state)
        .bind(size)
        .bind(now)
        .bind(&subject.snapshot.id)
        .execute(&mut *tx)
        .await
        .context("finishing the snapshot")?;
        let server_id = &subject.snapshot.server_id;
        record_event(&mut tx, server_id, event, &subject.snapshot.name, now).await?;
        tx.commit().await.context("committing")?;
        Ok(Outcome::Done)
    }

    pub(crate) async fn restore_snapshot(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(subject) =
            job_subject(&self.db, &SnapshotId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Dead("no such snapshot".into()));
        };
        let restoring =
            subject.server_state == ServerState::Rebooting && subject.server_step == Step::Restore;
        if subject.snapshot.state != SnapshotState::Restoring || !restoring {
            return Ok(Outcome::Done);
        }
        let Some(host) = subject.host.as_deref() else {
            return Ok(Outcome::Dead("no host".into()));
        };
        let server_id = &subject.snapshot.server_id;
        let done: i64 = sqlx::query_scalar("select progress from servers where id = $1")
            .bind(server_id)
            .fetch_one(&self.db.pool)
            .await
            .context("reading the restore's progress")?;
        let first = u32::try_from(done / (100 / i64::from(RESTORE_PARTS))).unwrap_or(0);
        let mut outcome = EventKind::SnapshotRestoreDone;
        for part in first..RESTORE_PARTS {
            if !jobs::renew(&self.db, job, &self.owner, self.clock.now()).await? {
                return Ok(Outcome::RetryAt(self.clock.now(), "lease lost".into()));
            }
            match self
                .fleet
                .restore_snapshot_part(host, subject.snapshot.id.as_str(), part)
                .await
            {
                Ok(()) => {}
                Err(error) => match self.retry_or(job, &error) {
                    Some(retry) => return Ok(retry),
                    None => {
                        outcome = EventKind::SnapshotRestoreFailed;
                        break;
                    }
                },
            }
            let progress = i64::from(part + 1) * 100 / i64::from(RESTORE_PARTS);
            sqlx::query("update servers set progress = $1, updated_at = $2 where id = $3")
                .bind(progress)
                .bind(self.clock.now())
                .bind(server_id)
                .execute(&self.db.pool)
                .await
                .context("recording the restore's progress")?;
        }
        // A failed write-back leaves the server up on what it had; the
        // snapshot stays, to try again or for support to look at.
        let now = self.clock.now();
        let mut tx = self.db.begin().await?;
        sqlx::query(
            "update servers set state = 'running', step = '', progress = 100, updated_at = $1 \
             where id = $2 and state = 'rebooting' and step = 'restore'",
        )
        .bind(now)
        .bind(server_id)
        .execute(&mut *tx)
        .await
        .context("bringing the server back")?;
        sqlx::query("update snapshots set state = 'ready' where id = $1 and state = 'restoring'")
            .bind(&subject.snapshot.id)
            .execute(&mut *tx)
            .await
            .context("finishing the restore")?;
        record_event(&mut tx, server_id, outcome, &subject.snapshot.name, now).await?;
        tx.commit().await.context("committing")?;
        Ok(Outcome::Done)
    }

    pub(crate) async fn delete_snapshot(&self, job: &Job) -> anyhow::Result<Outcome> {
        let Some(subject) =
            job_subject(&self.db, &SnapshotId::from(job.subject_id.as_str())).await?
        else {
            return Ok(Outcome::Done);
        };
        match self
            .fleet
            .delete_snapshot(subject.snapshot.id.as_str())
            .await
        {
            Ok(()) => {
                forget(&self.db, &subject.snapshot.id).await?;
                Ok(Outcome::Done)
            }
            Err(error) => Ok(Outcome::RetryAt(
                self.clock.now() + 30 * job.attempts.min(20),
                error.to_string(),
            )),
        }
    }

    /// Before a cancelled server's host is erased: its snapshots go too.
    pub(super) async fn delete_all_snapshots(
        &self,
        server_id: &ServerId,
    ) -> Result<(), FleetError> {
        let ids = super::snapshots::of_server(&self.db, server_id)
            .await
            .map_err(|e| FleetError::Unavailable(format!("{e:#}")))?;
        for id in ids {
            self.fleet.delete_snapshot(id.as_str()).await?;
            forget(&self.db, &id)
                .await
                .map_err(|e| FleetError::Unavailable(format!("{e:#}")))?;
        }
        Ok(())
    }
}
