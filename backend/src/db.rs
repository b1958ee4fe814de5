//! The database: SQLite (embedded default) or PostgreSQL, through sqlx's Any
//! driver and one portable schema (see docs/ARCHITECTURE.md).

use anyhow::Context;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};
use std::str::FromStr;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A pool on one database and which kind it is.
#[derive(Clone, Debug)]
pub struct Db {
    pub pool: AnyPool,
    pub backend: Backend,
    url: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("unsupported database URL (use sqlite:… or postgres://…)")]
    UnsupportedUrl,
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl Db {
    /// Connects and, for SQLite, creates the file and its folder first.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Db, DbError> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(DbError::UnsupportedUrl);
        };
        if backend == Backend::Sqlite {
            create_sqlite_parent(url)?;
        }
        let options = AnyConnectOptions::from_str(url).context("parsing the database URL")?;
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL lets readers run beside the one writer; the busy
                        // timeout makes a second writer wait instead of failing.
                        conn.execute(
                            "pragma foreign_keys = on; pragma busy_timeout = 10000; \
                             pragma journal_mode = wal; pragma synchronous = normal;",
                        )
                        .await?;
                    }
                    Ok(())
                })
            })
            .connect_with(options)
            .await
            .context("connecting to the database")?;
        Ok(Db {
            pool,
            backend,
            url: url.to_owned(),
        })
    }

    /// Applies every pending migration. PostgreSQL serialises concurrent
    /// runs from several replicas with an advisory lock. A migration this
    /// build does not know (a newer version's, applied by a replica that
    /// started first) is left alone rather than refused: the old version
    /// keeps serving during a rolling upgrade and after a rollback, which is
    /// why migrations between releases are additive (docs/OPERATIONS.md).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        let mut migrator = sqlx::migrate!("../migrations");
        migrator.set_ignore_missing(true);
        migrator
            .run(&self.pool)
            .await
            .context("applying database migrations")
    }

    /// Starts a transaction. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`), waiting its turn through the busy timeout: a
    /// deferred transaction that reads first cannot upgrade its lock while
    /// another connection writes, and fails instead of waiting (background
    /// workers write all the time). PostgreSQL's default is right.
    pub async fn begin(&self) -> anyhow::Result<sqlx::Transaction<'static, sqlx::Any>> {
        let tx = match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        };
        tx.context("starting a transaction")
    }

    /// Locks one row until the transaction ends, so a check and the write
    /// that depends on it are one step when replicas run side by side on
    /// PostgreSQL. SQLite needs nothing: `begin` takes the write lock.
    pub async fn lock_row(
        &self,
        tx: &mut sqlx::Transaction<'static, sqlx::Any>,
        table: &'static str,
        id: impl AsRef<str>,
    ) -> anyhow::Result<()> {
        if self.backend == Backend::Postgres {
            sqlx::query(&format!("select id from {table} where id = $1 for update"))
                .bind(id.as_ref())
                .fetch_optional(&mut **tx)
                .await
                .with_context(|| format!("locking a row of {table}"))?;
        }
        Ok(())
    }

    /// A consistent copy of a SQLite database, taken while it serves
    /// (`VACUUM INTO` reads one snapshot; writers carry on). PostgreSQL is
    /// backed up with its own tools (docs/OPERATIONS.md).
    pub async fn backup_sqlite(&self, to: &std::path::Path) -> anyhow::Result<()> {
        if self.backend != Backend::Sqlite {
            anyhow::bail!(
                "this is PostgreSQL: back it up with pg_dump or continuous archiving \
                 (docs/OPERATIONS.md, \"Back-ups\")"
            );
        }
        if to.exists() {
            anyhow::bail!("{} exists already; back-ups never overwrite", to.display());
        }
        let target = to
            .to_str()
            .context("the back-up path is not valid UTF-8")?
            .to_owned();
        sqlx::query("vacuum into $1")
            .bind(target)
            .execute(&self.pool)
            .await
            .context("copying the database")?;
        Ok(())
    }

    /// Cheap round trip for readiness checks.
    pub async fn ping(&self) -> anyhow::Result<()> {
        sqlx::query("select 1")
            .execute(&self.pool)
            .await
            .context("pinging the database")?;
        Ok(())
    }

    pub fn url(&self) -> &str {
        &self.url
    }
}

/// The file of a `sqlite:` URL; `None` for in-memory databases.
pub fn sqlite_path(url: &str) -> Option<&str> {
    let path = url
        .trim_start_matches("sqlite:")
        .trim_start_matches("//")
        .split('?')
        .next()
        .unwrap_or("");
    (!path.is_empty() && !path.starts_with(":memory:")).then_some(path)
}

fn create_sqlite_parent(url: &str) -> Result<(), DbError> {
    let Some(path) = sqlite_path(url) else {
        return Ok(());
    };
    if let Some(parent) = std::path::Path::new(path).parent() {
        if !parent.as_os_str().is_empty() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating the database folder {}", parent.display()))?;
        }
    }
    Ok(())
}

/// Whether a failure was the database out of reach (no free connection in
/// time, the connection lost or refused) rather than a fault of ours: a
/// retry soon may work.
pub fn is_unavailable(error: &anyhow::Error) -> bool {
    error.chain().any(|e| {
        matches!(
            e.downcast_ref(),
            Some(
                sqlx::Error::PoolTimedOut
                    | sqlx::Error::PoolClosed
                    | sqlx::Error::Io(_)
                    | sqlx::Error::WorkerCrashed
            )
        )
    })
}

/// A new application-made id: time-ordered, so indexes stay compact.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

/// A newline-separated list column (add-ons, SSH keys), read as its items:
/// `#[sqlx(try_from = "Lines")]` on a `Vec<String>` field.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct Lines(String);

impl From<Lines> for Vec<String> {
    fn from(lines: Lines) -> Vec<String> {
        crate::orders::split_list(&lines.0)
    }
}

/// A nullable column of lines (the host keys a server reported): none is
/// an empty list.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct OptionalLines(Option<String>);

impl From<OptionalLines> for Vec<String> {
    fn from(lines: OptionalLines) -> Vec<String> {
        lines
            .0
            .map(|l| l.lines().map(str::to_owned).collect())
            .unwrap_or_default()
    }
}

/// A nullable column read only for whether it is set: the sealed root
/// secret (which the row must not carry further), `finished_at`,
/// `email_verified_at`.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct IsSet<T>(Option<T>);

impl<T> From<IsSet<T>> for bool {
    fn from(value: IsSet<T>) -> bool {
        value.0.is_some()
    }
}

/// An amount in euro cents, read as `Money`.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct EurCents(i64);

impl From<EurCents> for domain::Money {
    fn from(cents: EurCents) -> domain::Money {
        domain::Money::eur(cents.0)
    }
}

/// A 0/1 integer column read as a flag (`is_staff`).
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct Flag(i64);

impl From<Flag> for bool {
    fn from(value: Flag) -> bool {
        value.0 == 1
    }
}

/// A user's stored language; one this version does not offer reads as
/// the default rather than locking the user out.
#[derive(sqlx::Type)]
#[sqlx(transparent)]
pub(crate) struct PreferredLang(String);

impl From<PreferredLang> for domain::Lang {
    fn from(value: PreferredLang) -> domain::Lang {
        domain::Lang::from_code(&value.0).unwrap_or_default()
    }
}
