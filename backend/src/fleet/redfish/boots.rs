//! Installers and wipe images booted from virtual media, and what they
//! report. Each boot gets a random token; the media URL, the seed URL and
//! the report URL carry it (only its hash is stored). The seed (hostname,
//! SSH keys, root password) is sealed at rest and handed to the image
//! over HTTPS: never through the BMC, whose virtual media URLs end up in
//! its logs. The token dies with the boot's final report or its deadline.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::accounts::tokens;
use crate::db::new_id;
use crate::sealing::Sealer;
use crate::{Clock, Db};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Install,
    Wipe,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Install => "install",
            Purpose::Wipe => "wipe",
        }
    }
}

/// How far a booted image got, in the order it reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    /// Media inserted and the host reset; nothing heard yet.
    Booting,
    /// The image runs and has fetched its seed.
    Started,
    /// The system image is on the disk (a wipe image skips to `Done`).
    Imaged,
    /// The network is configured; the report carries the addresses.
    Network,
    /// SSH keys and the root password are installed; the report carries
    /// the host keys.
    Keys,
    /// Finished; the host boots from its disk.
    Done,
    Failed,
}

impl Phase {
    pub const ALL: [Phase; 7] = [
        Phase::Booting,
        Phase::Started,
        Phase::Imaged,
        Phase::Network,
        Phase::Keys,
        Phase::Done,
        Phase::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Booting => "booting",
            Phase::Started => "started",
            Phase::Imaged => "imaged",
            Phase::Network => "network",
            Phase::Keys => "keys",
            Phase::Done => "done",
            Phase::Failed => "failed",
        }
    }

    pub fn parse(raw: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.as_str() == raw)
    }
}

/// What the image needs to know, as `GET …/seed` returns it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Seed {
    pub purpose: String,
    pub image: String,
    pub hostname: String,
    pub ssh_keys: Vec<String>,
    pub root_password: Option<String>,
}

/// One boot as the Fleet follows it.
#[derive(Clone, Debug)]
pub struct Boot {
    pub id: String,
    pub purpose: String,
    pub image: String,
    pub phase: Phase,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub message: Option<String>,
    pub deadline: i64,
    pub finished: bool,
}

const COLUMNS: &str = "id, purpose, image, phase, ipv4, ipv6, message, deadline, finished_at";

fn from_row(row: &sqlx::any::AnyRow) -> anyhow::Result<Boot> {
    let phase: String = row.try_get("phase")?;
    Ok(Boot {
        id: row.try_get("id")?,
        purpose: row.try_get("purpose")?,
        image: row.try_get("image")?,
        phase: Phase::parse(&phase).context("stored boot phase")?,
        ipv4: row.try_get("ipv4")?,
        ipv6: row.try_get("ipv6")?,
        message: row.try_get("message")?,
        deadline: row.try_get("deadline")?,
        finished: row.try_get::<Option<i64>, _>("finished_at")?.is_some(),
    })
}

/// The host's newest boot, of any purpose.
pub(super) async fn latest(db: &Db, host_id: &str) -> anyhow::Result<Option<Boot>> {
    let row = sqlx::query(&format!(
        "select {COLUMNS} from fleet_boots where host_id = $1 \
         order by started_at desc, id desc limit 1"
    ))
    .bind(host_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the host's boot")?;
    row.as_ref().map(from_row).transpose()
}

/// The newest boot of one install (its installer may have finished before
/// the job looked: a finished boot still answers).
pub(super) async fn of_install(
    db: &Db,
    host_id: &str,
    install_key: &str,
) -> anyhow::Result<Option<Boot>> {
    let row = sqlx::query(&format!(
        "select {COLUMNS} from fleet_boots where host_id = $1 and install_key = $2 \
         order by started_at desc, id desc limit 1"
    ))
    .bind(host_id)
    .bind(install_key)
    .fetch_optional(&db.pool)
    .await
    .context("reading the install's boot")?;
    row.as_ref().map(from_row).transpose()
}

/// The SSH host keys the install's boot reported (its `keys` phase).
pub(super) async fn host_keys_of_install(
    db: &Db,
    host_id: &str,
    install_key: &str,
) -> anyhow::Result<Vec<String>> {
    let keys: Option<Option<String>> = sqlx::query_scalar(
        "select host_keys from fleet_boots where host_id = $1 and install_key = $2 \
         order by started_at desc, id desc limit 1",
    )
    .bind(host_id)
    .bind(install_key)
    .fetch_optional(&db.pool)
    .await
    .context("reading the install's host keys")?;
    Ok(keys
        .flatten()
        .map(|k| k.lines().map(str::to_owned).collect())
        .unwrap_or_default())
}

/// Starts a boot: any unfinished one of the host is abandoned (one runs at
/// a time), and the new one's token is returned, once.
pub(super) async fn start(
    db: &Db,
    sealer: &Sealer,
    host_id: &str,
    install_key: Option<&str>,
    seed: &Seed,
    now: i64,
    deadline: i64,
) -> anyhow::Result<String> {
    let token = tokens::random_token()?;
    let sealed = sealer.seal(&serde_json::to_string(seed).context("seed as JSON")?)?;
    let mut tx = db.begin().await.context("starting a transaction")?;
    sqlx::query(
        "update fleet_boots set phase = 'failed', message = 'abandoned for a new boot', \
         finished_at = $1 where host_id = $2 and finished_at is null",
    )
    .bind(now)
    .bind(host_id)
    .execute(&mut *tx)
    .await
    .context("abandoning the last boot")?;
    sqlx::query(
        "insert into fleet_boots (id, host_id, purpose, image, token_hash, sealed_seed, phase, \
         started_at, deadline, install_key) values ($1, $2, $3, $4, $5, $6, 'booting', $7, $8, $9)",
    )
    .bind(new_id())
    .bind(host_id)
    .bind(&seed.purpose)
    .bind(&seed.image)
    .bind(tokens::hash(&token))
    .bind(sealed)
    .bind(now)
    .bind(deadline)
    .bind(install_key)
    .execute(&mut *tx)
    .await
    .context("recording the boot")?;
    tx.commit().await.context("committing the boot")?;
    Ok(token)
}

/// Ends a boot that ran out of time or whose media could not be given.
pub(super) async fn give_up(db: &Db, boot_id: &str, why: &str, now: i64) -> anyhow::Result<()> {
    sqlx::query(
        "update fleet_boots set phase = 'failed', message = $1, finished_at = $2 \
         where id = $3 and finished_at is null",
    )
    .bind(why)
    .bind(now)
    .bind(boot_id)
    .execute(&db.pool)
    .await
    .context("ending the boot")?;
    Ok(())
}

/// The boot a token belongs to while the token is good: unfinished and
/// before its deadline. The seed comes opened.
pub async fn by_token(
    db: &Db,
    sealer: &Sealer,
    token: &str,
    now: i64,
) -> anyhow::Result<Option<(Boot, Seed)>> {
    let Some((boot, sealed)) = live(db, token, now).await? else {
        return Ok(None);
    };
    let seed = serde_json::from_str(&sealer.open(&sealed)?).context("stored seed")?;
    Ok(Some((boot, seed)))
}

/// The boot a token belongs to while the token is good, without opening
/// its seed: a BMC reads boot media in many small ranges.
pub async fn boot_by_token(db: &Db, token: &str, now: i64) -> anyhow::Result<Option<Boot>> {
    Ok(live(db, token, now).await?.map(|(boot, _)| boot))
}

/// An unfinished boot before its deadline, with its sealed seed.
async fn live(db: &Db, token: &str, now: i64) -> anyhow::Result<Option<(Boot, String)>> {
    // A token is 64 hex characters; anything else is not looked up.
    if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let row = sqlx::query(&format!(
        "select {COLUMNS}, sealed_seed from fleet_boots \
         where token_hash = $1 and finished_at is null and deadline > $2"
    ))
    .bind(tokens::hash(token))
    .bind(now)
    .fetch_optional(&db.pool)
    .await
    .context("reading a boot by its token")?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some((from_row(&row)?, row.try_get("sealed_seed")?)))
}

/// What a booted image reports (`POST …/report`).
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Report {
    pub phase: String,
    #[serde(default)]
    pub ipv4: Option<String>,
    #[serde(default)]
    pub ipv6: Option<String>,
    /// The new system's SSH host keys (`ssh-ed25519 AAAA…`).
    #[serde(default)]
    pub host_keys: Vec<String>,
    /// Why it failed, or what it is doing.
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Unknown, spent or expired token: the same answer for all three.
    #[error("no such boot")]
    NoBoot,
    #[error("{0}")]
    Invalid(&'static str),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Records a report. Phases only move forward (a repeated report of the
/// same phase is accepted and changes nothing); `done` and `failed` spend
/// the token. The jobs waiting on the host are woken at once.
pub async fn report(
    db: &Db,
    sealer: &Sealer,
    clock: &Clock,
    token: &str,
    report: &Report,
) -> Result<Phase, ReportError> {
    let now = clock.now();
    let (boot, _) = by_token(db, sealer, token, now)
        .await?
        .ok_or(ReportError::NoBoot)?;
    let phase = Phase::parse(&report.phase).ok_or(ReportError::Invalid("unknown phase"))?;
    if phase == Phase::Booting || (phase < boot.phase && phase != Phase::Failed) {
        return Err(ReportError::Invalid("a phase may only move forward"));
    }
    if phase == Phase::Network && (report.ipv4.is_none() || report.ipv6.is_none()) {
        return Err(ReportError::Invalid(
            "the network phase reports ipv4 and ipv6",
        ));
    }
    let valid_ip = |ip: &Option<String>, v6: bool| {
        ip.as_deref()
            .is_none_or(|ip| match ip.parse::<std::net::IpAddr>() {
                Ok(addr) => addr.is_ipv6() == v6,
                Err(_) => false,
            })
    };
    if !valid_ip(&report.ipv4, false) || !valid_ip(&report.ipv6, true) {
        return Err(ReportError::Invalid(
            "ipv4 and ipv6 must be addresses of their kind",
        ));
    }
    if report.host_keys.len() > 8
        || report
            .host_keys
            .iter()
            .any(|k| k.len() > 1024 || !k.starts_with("ssh-") && !k.starts_with("ecdsa-"))
    {
        return Err(ReportError::Invalid("host_keys are OpenSSH public keys"));
    }
    let message = report.message.as_deref().map(|m| {
        m.chars()
            .filter(|c| !c.is_control())
            .take(500)
            .collect::<String>()
    });
    let host_id: String = sqlx::query_scalar(
        "update fleet_boots set phase = $1, ipv4 = coalesce($2, ipv4), ipv6 = coalesce($3, ipv6), \
         host_keys = coalesce($4, host_keys), message = coalesce($5, message), reported_at = $6, \
         finished_at = $7 where id = $8 and finished_at is null returning host_id",
    )
    .bind(phase.as_str())
    .bind(&report.ipv4)
    .bind(&report.ipv6)
    .bind((!report.host_keys.is_empty()).then(|| report.host_keys.join("\n")))
    .bind(message)
    .bind(now)
    .bind(matches!(phase, Phase::Done | Phase::Failed).then_some(now))
    .bind(&boot.id)
    .fetch_optional(&db.pool)
    .await
    .context("recording the report")?
    .ok_or(ReportError::NoBoot)?;
    // The waiting provisioning or wipe job looks now, not at its next
    // poll; one running at this moment looks again when it ends.
    sqlx::query(
        "update jobs set run_at = case when run_at > $1 then $1 else run_at end, woken = 1 \
         where state = 'queued' and kind in ('provision', 'rebuild', 'wipe') \
         and subject_id in (select id from servers where host_id = $2)",
    )
    .bind(now)
    .bind(&host_id)
    .execute(&db.pool)
    .await
    .context("waking the host's jobs")?;
    Ok(phase)
}
