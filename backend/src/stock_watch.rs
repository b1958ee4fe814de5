//! Knowing, cheaply and on every request, whether stock may have changed
//! since we last counted it: in this process, in another replica, or through
//! an operator's command. The storefront caches its pages against this.
//!
//! SQLite: `pragma data_version` on a dedicated connection changes whenever
//! any other connection (any process) commits to the file. That connection
//! is a plain rusqlite one: the pragma takes about a microsecond in process,
//! while a query through sqlx's worker thread costs tens of microseconds in
//! thread hand-offs, on every storefront request.
//! PostgreSQL: the `storefront_version` row, bumped in the transaction of
//! every stock change, read with one small query per request. (LISTEN/NOTIFY
//! was tried first: notifications arrive after the commit, and under load a
//! request could still see the old stock.)

use anyhow::Context;
use std::sync::Mutex;

use crate::{Backend, Db};

pub struct StockWatch {
    kind: Kind,
}

enum Kind {
    Sqlite(Mutex<rusqlite::Connection>),
    Postgres(Db),
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
            Backend::Postgres => Kind::Postgres(db.clone()),
        };
        Ok(StockWatch { kind })
    }

    /// A value that changes whenever stock may have changed since the last
    /// call, and only grows. Read it *before* counting stock, so a change in
    /// between only costs one extra count.
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
            Kind::Postgres(db) => {
                let version: i64 =
                    sqlx::query_scalar("select version from storefront_version where id = 1")
                        .fetch_one(&db.pool)
                        .await
                        .context("reading the storefront version")?;
                Ok(version as u64)
            }
        }
    }
}
