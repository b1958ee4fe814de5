//! Installers and wipe images booted from virtual media, and what they
//! report. One secret per purpose, so a secret seen where it should not
//! be moves nothing else:
//! - the **media token**, in the virtual-media URL the BMC is given (and
//!   keeps in its logs), reads the boot media and nothing else;
//! - the **seed secret**, written into the media's seed area (so only what
//!   booted from that media has it), fetches the seed (hostname, SSH keys,
//!   root password) once, and only after the boot was proven: the host
//!   seen `Off`, then `On` with our media inserted;
//! - the **report key**, inside the seed, signs every report
//!   (HMAC-SHA256 of the body), so neither token posts one.
//!
//! Only the two tokens' hashes are stored; the seed (with the report key)
//! and the seed secret are sealed at rest. Everything dies with the boot's
//! final report or its deadline.

use anyhow::Context;
use domain::HostId;
use serde::{Deserialize, Serialize};
use sqlx::{FromRow, Row};

use crate::accounts::tokens;
use crate::db::new_id;
use crate::inventory::bmc;
use crate::sealing::Sealer;
use crate::{Clock, Db};

/// The header a report's signature travels in: `sha256=<hex>`, the
/// HMAC-SHA256 of the request body under the seed's `report_key`.
pub const SIGNATURE_HEADER: &str = "x-boot-signature";

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
    /// The key (64 hex characters) the image signs its reports with; set
    /// by [`start`]. Seeds of boots older than it have none.
    #[serde(default)]
    pub report_key: String,
}

/// How a stored phase is read back (`#[sqlx(try_from = "String")]`).
impl TryFrom<String> for Phase {
    type Error = String;

    fn try_from(raw: String) -> Result<Phase, String> {
        Phase::parse(&raw).ok_or_else(|| format!("stored boot phase {raw:?}"))
    }
}

/// A boot just started: its id (in the seed and report URLs) and the
/// media token (in the media URL), which is never stored.
#[derive(Debug)]
pub struct Started {
    pub id: String,
    pub media_token: String,
}

/// One boot as the Fleet follows it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Boot {
    pub id: String,
    pub purpose: String,
    pub image: String,
    #[sqlx(try_from = "String")]
    pub phase: Phase,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub message: Option<String>,
    pub deadline: i64,
    #[sqlx(rename = "finished_at", try_from = "crate::db::IsSet<i64>")]
    pub finished: bool,
}

const COLUMNS: &str = "id, purpose, image, phase, ipv4, ipv6, message, deadline, finished_at";

/// The host's newest boot, of any purpose.
pub(super) async fn latest(db: &Db, host_id: &HostId) -> anyhow::Result<Option<Boot>> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from fleet_boots where host_id = $1 \
         order by started_at desc, id desc limit 1"
    ))
    .bind(host_id)
    .fetch_optional(&db.pool)
    .await
    .context("reading the host's boot")
}

/// The newest boot of one install (its installer may have finished before
/// the job looked: a finished boot still answers).
pub(super) async fn of_install(
    db: &Db,
    host_id: &HostId,
    install_key: &str,
) -> anyhow::Result<Option<Boot>> {
    sqlx::query_as(&format!(
        "select {COLUMNS} from fleet_boots where host_id = $1 and install_key = $2 \
         order by started_at desc, id desc limit 1"
    ))
    .bind(host_id)
    .bind(install_key)
    .fetch_optional(&db.pool)
    .await
    .context("reading the install's boot")
}

/// The SSH host keys the install's boot reported (its `keys` phase).
pub(super) async fn host_keys_of_install(
    db: &Db,
    host_id: &HostId,
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
/// a time), and the new one's media token is returned, once. The seed
/// gets its report key here.
pub(super) async fn start(
    db: &Db,
    sealer: &Sealer,
    host_id: &HostId,
    install_key: Option<&str>,
    mut seed: Seed,
    now: i64,
    deadline: i64,
) -> anyhow::Result<Started> {
    let media_token = tokens::random_token()?;
    let seed_secret = tokens::random_token()?;
    seed.report_key = tokens::random_token()?;
    let sealed = sealer.seal(&serde_json::to_string(&seed).context("seed as JSON")?)?;
    let id = new_id();
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
         started_at, deadline, install_key, seed_secret_hash, sealed_seed_secret) \
         values ($1, $2, $3, $4, $5, $6, 'booting', $7, $8, $9, $10, $11)",
    )
    .bind(&id)
    .bind(host_id)
    .bind(&seed.purpose)
    .bind(&seed.image)
    .bind(tokens::hash(&media_token))
    .bind(sealed)
    .bind(now)
    .bind(deadline)
    .bind(install_key)
    .bind(tokens::hash(&seed_secret))
    .bind(sealer.seal(&seed_secret)?)
    .execute(&mut *tx)
    .await
    .context("recording the boot")?;
    tx.commit().await.context("committing the boot")?;
    Ok(Started { id, media_token })
}

/// Records that the boot is proven: the Fleet saw the host `Off`, then
/// `On` with our media inserted, so what asks for the seed from now on
/// booted from that media. Until then the seed is refused.
pub(super) async fn prove(db: &Db, boot_id: &str, now: i64) -> anyhow::Result<()> {
    sqlx::query("update fleet_boots set proven_at = $1 where id = $2 and finished_at is null")
        .bind(now)
        .bind(boot_id)
        .execute(&db.pool)
        .await
        .context("recording the boot's proof")?;
    Ok(())
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

/// The boot a media token belongs to while it is good (unfinished, before
/// its deadline), with the seed secret its media carries. This is all a
/// media token opens: a BMC reads boot media in many small ranges.
pub async fn media_by_token(
    db: &Db,
    sealer: &Sealer,
    token: &str,
    now: i64,
) -> anyhow::Result<Option<(Boot, String)>> {
    // A token is 64 hex characters; anything else is not looked up.
    if !is_token(token) {
        return Ok(None);
    }
    let row = sqlx::query(&format!(
        "select {COLUMNS}, sealed_seed_secret from fleet_boots \
         where token_hash = $1 and finished_at is null and deadline > $2"
    ))
    .bind(tokens::hash(token))
    .bind(now)
    .fetch_optional(&db.pool)
    .await
    .context("reading a boot by its media token")?;
    let Some(row) = row else { return Ok(None) };
    // Boots from before seed secrets have no media to serve.
    let Some(sealed) = row.try_get::<Option<String>, _>("sealed_seed_secret")? else {
        return Ok(None);
    };
    Ok(Some((Boot::from_row(&row)?, sealer.open(&sealed)?)))
}

fn is_token(token: &str) -> bool {
    token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A live boot by its id, with its sealed seed and what its secrets allow.
struct Live {
    boot: Boot,
    host_id: HostId,
    sealed_seed: String,
    seed_secret_hash: Option<String>,
    proven: bool,
    seed_fetched: bool,
}

async fn live(db: &Db, boot_id: &str, now: i64) -> anyhow::Result<Option<Live>> {
    if uuid::Uuid::parse_str(boot_id).is_err() {
        return Ok(None);
    }
    let row = sqlx::query(&format!(
        "select {COLUMNS}, host_id, sealed_seed, seed_secret_hash, proven_at, seed_fetched_at \
         from fleet_boots where id = $1 and finished_at is null and deadline > $2"
    ))
    .bind(boot_id)
    .bind(now)
    .fetch_optional(&db.pool)
    .await
    .context("reading a boot")?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(Live {
        boot: Boot::from_row(&row)?,
        host_id: row.try_get("host_id")?,
        sealed_seed: row.try_get("sealed_seed")?,
        seed_secret_hash: row.try_get("seed_secret_hash")?,
        proven: row.try_get::<Option<i64>, _>("proven_at")?.is_some(),
        seed_fetched: row.try_get::<Option<i64>, _>("seed_fetched_at")?.is_some(),
    }))
}

#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// Unknown boot, wrong secret, spent or expired: one answer for all.
    #[error("no such boot")]
    NoBoot,
    /// The Fleet has not yet seen the host boot from our media; the image
    /// asks again in a few seconds.
    #[error("the boot is not proven yet")]
    NotProven,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Hands out the boot's seed, once, to the holder of the seed secret
/// after the boot was proven. A refused attempt on a live boot (a wrong
/// secret, a second fetch) goes into the host's history for staff.
pub async fn take_seed(
    db: &Db,
    sealer: &Sealer,
    clock: &Clock,
    boot_id: &str,
    secret: &str,
) -> Result<Seed, SeedError> {
    let now = clock.now();
    let Some(live) = live(db, boot_id, now).await? else {
        return Err(SeedError::NoBoot);
    };
    let right = live
        .seed_secret_hash
        .as_deref()
        .is_some_and(|hash| is_token(secret) && tokens::hash(secret) == hash);
    if !right || live.seed_fetched {
        let why = if right {
            "a second request for the seed"
        } else {
            "a seed request without the boot's seed secret"
        };
        let reason = format!("{why} of the {} boot was refused", live.boot.purpose);
        bmc::event(db, clock, &live.host_id, &reason).await?;
        return Err(SeedError::NoBoot);
    }
    if !live.proven {
        return Err(SeedError::NotProven);
    }
    let taken = sqlx::query(
        "update fleet_boots set seed_fetched_at = $1 \
         where id = $2 and seed_fetched_at is null and finished_at is null",
    )
    .bind(now)
    .bind(boot_id)
    .execute(&db.pool)
    .await
    .context("recording the seed's fetch")?;
    if taken.rows_affected() != 1 {
        return Err(SeedError::NoBoot);
    }
    let seed = serde_json::from_str(&sealer.open(&live.sealed_seed)?).context("stored seed")?;
    Ok(seed)
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
    /// Unknown, spent or expired boot, or a bad signature: one answer.
    #[error("no such boot")]
    NoBoot,
    #[error("{0}")]
    Invalid(&'static str),
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// Whether `signature` (`sha256=<hex>`) is the HMAC-SHA256 of `body` under
/// the seed's report key.
fn signed(seed: &Seed, signature: Option<&str>, body: &[u8]) -> bool {
    use hmac::{Hmac, Mac};
    let Some(hex) = signature.and_then(|s| s.trim().strip_prefix("sha256=")) else {
        return false;
    };
    let Some(given) = unhex(hex) else {
        return false;
    };
    let Some(key) = unhex(&seed.report_key).filter(|k| k.len() == 32) else {
        return false;
    };
    let Ok(mut mac) = Hmac::<sha2::Sha256>::new_from_slice(&key) else {
        return false;
    };
    mac.update(body);
    mac.verify_slice(&given).is_ok()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Records a report, signed with the seed's report key (so only the image
/// that fetched the seed can post one). Phases only move forward (a
/// repeated report of the same phase is accepted and changes nothing);
/// `done` and `failed` end the boot. The jobs waiting on the host are
/// woken at once.
pub async fn report(
    db: &Db,
    sealer: &Sealer,
    clock: &Clock,
    boot_id: &str,
    signature: Option<&str>,
    body: &[u8],
) -> Result<Phase, ReportError> {
    let now = clock.now();
    let live = live(db, boot_id, now).await?.ok_or(ReportError::NoBoot)?;
    if !live.seed_fetched {
        return Err(ReportError::NoBoot);
    }
    let seed: Seed =
        serde_json::from_str(&sealer.open(&live.sealed_seed)?).context("stored seed")?;
    if !signed(&seed, signature, body) {
        return Err(ReportError::NoBoot);
    }
    let boot = live.boot;
    let report: Report =
        serde_json::from_slice(body).map_err(|_| ReportError::Invalid("expected a JSON report"))?;
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
    let host_id: HostId = sqlx::query_scalar(
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
