//! Time as the business sees it: unix seconds, UTC. A manual clock lets tests
//! move time forward (hold expiry, terms) without sleeping; in development
//! the system clock can run ahead by an offset an operator stores in the
//! database (`server clock advance`), so a demo or browser test can reach
//! a term end while the application runs.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<AtomicI64>>,
    /// Seconds added to the system time (development).
    offset: Option<Arc<AtomicI64>>,
}

impl Clock {
    pub fn system() -> Clock {
        Clock::default()
    }

    /// The system clock plus an offset [`Clock::set_offset`] can change.
    pub fn adjustable() -> Clock {
        Clock {
            manual: None,
            offset: Some(Arc::new(AtomicI64::new(0))),
        }
    }

    /// Sets an adjustable clock's offset; other clocks ignore it.
    pub fn set_offset(&self, seconds: i64) {
        if let Some(offset) = &self.offset {
            offset.store(seconds, Ordering::SeqCst);
        }
    }

    /// A clock that stands still at `at` until advanced.
    pub fn manual(at: i64) -> Clock {
        Clock {
            manual: Some(Arc::new(AtomicI64::new(at))),
            offset: None,
        }
    }

    pub fn now(&self) -> i64 {
        match &self.manual {
            Some(at) => at.load(Ordering::SeqCst),
            None => {
                let system = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                system + self.offset.as_ref().map_or(0, |o| o.load(Ordering::SeqCst))
            }
        }
    }

    /// Moves a manual clock forward; a system clock cannot be moved.
    pub fn advance(&self, seconds: i64) -> bool {
        match &self.manual {
            Some(at) => {
                at.fetch_add(seconds, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }
}

/// The stored development offset, in seconds (0 when none).
pub async fn stored_offset(db: &crate::Db) -> anyhow::Result<i64> {
    use anyhow::Context;
    let seconds: Option<i64> = sqlx::query_scalar("select seconds from clock_offset where id = 1")
        .fetch_optional(&db.pool)
        .await
        .context("reading the clock offset")?;
    Ok(seconds.unwrap_or(0))
}

/// Stores the development offset; running applications pick it up within
/// a second.
pub async fn store_offset(db: &crate::Db, seconds: i64) -> anyhow::Result<()> {
    use anyhow::Context;
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query("delete from clock_offset")
        .execute(&mut *tx)
        .await
        .context("clearing the clock offset")?;
    sqlx::query("insert into clock_offset (id, seconds) values (1, $1)")
        .bind(seconds)
        .execute(&mut *tx)
        .await
        .context("storing the clock offset")?;
    tx.commit().await.context("committing the clock offset")?;
    Ok(())
}
