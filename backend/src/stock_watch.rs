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
//! every stock change. One query per request made PostgreSQL 5x slower than
//! SQLite, so reads are shared (`coalesce`): a request waits for the next
//! read to *start* and takes its answer, which is as fresh as a read of its
//! own. The reads run on one dedicated connection owned by the reading task
//! on its own thread (reconnecting after an error): no pool acquire, no
//! Any-driver layer, one prepared statement. (LISTEN/NOTIFY was tried first: notifications arrive
//! after the commit, and under load a request could still see the old stock.)

mod coalesce;

use anyhow::Context;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::Connection;
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

use crate::{Backend, Db};
use coalesce::{Coalesced, Reader};

/// Longest a version read (with its reconnect) may take before the waiting
/// requests are told the database is unreachable.
const READ_TIMEOUT: Duration = Duration::from_secs(5);

pub struct StockWatch {
    kind: Kind,
}

enum Kind {
    Sqlite(Mutex<rusqlite::Connection>),
    Postgres(Coalesced),
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
                let options = PgConnectOptions::from_str(db.url())
                    .context("parsing the database URL for the stock watch")?;
                Kind::Postgres(Coalesced::start(PgVersion {
                    options,
                    conn: None,
                })?)
            }
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
            Kind::Postgres(reads) => reads.read().await,
        }
    }
}

/// The `storefront_version` row through a connection of its own.
struct PgVersion {
    options: PgConnectOptions,
    conn: Option<PgConnection>,
}

impl PgVersion {
    async fn query(&mut self) -> anyhow::Result<u64> {
        let conn = match &mut self.conn {
            Some(conn) => conn,
            None => self.conn.insert(
                PgConnection::connect_with(&self.options)
                    .await
                    .context("connecting the stock watch")?,
            ),
        };
        let version: i64 =
            sqlx::query_scalar("select version from storefront_version where id = 1")
                .fetch_one(conn)
                .await
                .context("reading the storefront version")?;
        Ok(version as u64)
    }
}

impl Reader for PgVersion {
    async fn read(&mut self) -> anyhow::Result<u64> {
        let result = match tokio::time::timeout(READ_TIMEOUT, self.query()).await {
            Ok(result) => result,
            Err(_) => Err(anyhow::anyhow!("reading the storefront version timed out")),
        };
        if result.is_err() {
            // The connection may be broken or mid-exchange: start afresh.
            self.conn = None;
        }
        result
    }
}
