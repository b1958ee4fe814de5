//! Knowing, cheaply and on every request, whether stock may have changed
//! since we last counted it: in this process, in another replica, or through
//! an operator's command. The storefront caches its pages against this.
//!
//! SQLite: `pragma data_version` on a dedicated connection changes whenever
//! any other connection (any process) commits to the file. That connection
//! is a plain rusqlite one: the pragma takes about a microsecond in process,
//! while a query through sqlx's worker thread costs tens of microseconds in
//! thread hand-offs, on every storefront request.
//! PostgreSQL: every stock change notifies `PG_CHANNEL` in its transaction;
//! a listener counts notifications. While the listener is disconnected every
//! call returns a new token, so nothing stale is ever trusted.

use anyhow::Context;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{Backend, Db};

pub const PG_CHANNEL: &str = "storefront_changed";

pub struct StockWatch {
    kind: Kind,
}

enum Kind {
    Sqlite(Mutex<rusqlite::Connection>),
    Postgres(Arc<PgState>),
}

struct PgState {
    generation: AtomicU64,
    connected: AtomicBool,
}

impl StockWatch {
    pub async fn start(db: &Db) -> anyhow::Result<StockWatch> {
        let kind = match db.backend {
            Backend::Sqlite => {
                let path = crate::db::sqlite_path(db.url())
                    .context("the stock watch needs a SQLite file")?;
                let conn = rusqlite::Connection::open_with_flags(
                    path,
                    rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                        | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .context("opening the stock watch connection")?;
                Kind::Sqlite(Mutex::new(conn))
            }
            Backend::Postgres => {
                let mut listener = sqlx::postgres::PgListener::connect(db.url())
                    .await
                    .context("connecting the stock listener")?;
                listener
                    .listen(PG_CHANNEL)
                    .await
                    .context("listening for stock changes")?;
                let state = Arc::new(PgState {
                    generation: AtomicU64::new(1),
                    connected: AtomicBool::new(true),
                });
                tokio::spawn(listen(listener, db.url().to_owned(), state.clone()));
                Kind::Postgres(state)
            }
        };
        Ok(StockWatch { kind })
    }

    /// A value that changes whenever stock may have changed since the last
    /// call. Read it *before* counting stock, so a change in between only
    /// costs one extra count.
    pub async fn token(&self) -> anyhow::Result<u64> {
        match &self.kind {
            Kind::Sqlite(conn) => {
                let conn = conn
                    .lock()
                    .map_err(|_| anyhow::anyhow!("stock watch lock poisoned"))?;
                let version: i64 = conn
                    .query_row("pragma data_version", [], |row| row.get(0))
                    .context("reading the data version")?;
                Ok(version as u64)
            }
            Kind::Postgres(state) => {
                if state.connected.load(Ordering::Acquire) {
                    Ok(state.generation.load(Ordering::Acquire))
                } else {
                    Ok(state.generation.fetch_add(1, Ordering::AcqRel) + 1)
                }
            }
        }
    }
}

async fn listen(mut listener: sqlx::postgres::PgListener, url: String, state: Arc<PgState>) {
    loop {
        match listener.try_recv().await {
            Ok(Some(_)) => {
                state.generation.fetch_add(1, Ordering::AcqRel);
            }
            // The connection dropped and was re-established: notifications may
            // have been lost, so assume a change.
            Ok(None) => {
                state.generation.fetch_add(1, Ordering::AcqRel);
            }
            Err(error) => {
                state.connected.store(false, Ordering::Release);
                tracing::warn!(%error, "stock listener lost its connection; reconnecting");
                listener = reconnect(&url).await;
                state.generation.fetch_add(1, Ordering::AcqRel);
                state.connected.store(true, Ordering::Release);
            }
        }
    }
}

async fn reconnect(url: &str) -> sqlx::postgres::PgListener {
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        match sqlx::postgres::PgListener::connect(url).await {
            Ok(mut listener) => match listener.listen(PG_CHANNEL).await {
                Ok(()) => return listener,
                Err(error) => tracing::warn!(%error, "stock listener could not listen"),
            },
            Err(error) => tracing::warn!(%error, "stock listener could not connect"),
        }
    }
}
