//! Passwords: 8–128 characters, no composition rules, common and guessable
//! ones refused; argon2id (m=19456 KiB, t=2, p=1) computed off the async
//! runtime. Unknown accounts are checked against a dummy hash so timing
//! does not tell whether an email is registered.
//!
//! Each hash holds ~19 MiB for its duration. Hashes run at most
//! `max_in_flight()` at a time and the rest wait their turn, so a burst of
//! logins queues instead of taking the process's memory (and tokio's 512
//! blocking threads) down.

use anyhow::Context;
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::{Algorithm, Argon2, Params, Version};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use tokio::sync::Semaphore;

pub const MIN_CHARS: usize = 8;
pub const MAX_CHARS: usize = 128;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasswordProblem {
    TooShort,
    TooLong,
    /// In the lists of most-used passwords, or guessable from the email/name.
    TooCommon,
}

/// Checks a new password; `related` are words from the account (email, name).
pub fn check(password: &str, related: &[&str]) -> Result<(), PasswordProblem> {
    let chars = password.chars().count();
    if chars < MIN_CHARS {
        return Err(PasswordProblem::TooShort);
    }
    if chars > MAX_CHARS {
        return Err(PasswordProblem::TooLong);
    }
    // Score 0–1 means under a million guesses: a listed password, a keyboard
    // walk, a repeated word or the user's own details.
    let estimate = zxcvbn::zxcvbn(password, related);
    if u8::from(estimate.score()) < 2 {
        return Err(PasswordProblem::TooCommon);
    }
    Ok(())
}

fn hasher() -> Argon2<'static> {
    let params = Params::new(19_456, 2, 1, None).unwrap_or_default();
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// How many hashes may run at once: two per core, at least four (about
/// 19 MiB each, so 4 cores cap hashing at ~150 MiB).
pub fn max_in_flight() -> usize {
    std::thread::available_parallelism().map_or(4, |n| (n.get() * 2).max(4))
}

static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

/// The most hashes that ran at the same moment since the process started.
pub fn peak_in_flight() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Runs one argon2 computation on the blocking pool once a permit is free.
async fn limited<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    static PERMITS: OnceLock<Semaphore> = OnceLock::new();
    let _permit = PERMITS
        .get_or_init(|| Semaphore::new(max_in_flight()))
        .acquire()
        .await
        .context("the password hashing queue closed")?;
    tokio::task::spawn_blocking(move || {
        let now = IN_FLIGHT.fetch_add(1, Ordering::SeqCst) + 1;
        PEAK.fetch_max(now, Ordering::SeqCst);
        let result = work();
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
        result
    })
    .await
    .context("password hashing task")?
}

pub async fn hash(password: String) -> anyhow::Result<String> {
    limited(move || {
        let salt = SaltString::generate(&mut OsRng);
        hasher()
            .hash_password(password.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| anyhow::anyhow!("hashing a password: {e}"))
    })
    .await
}

/// Whether `password` matches `stored`; with no stored hash, spends the same
/// time on a dummy and answers false.
pub async fn verify(password: String, stored: Option<String>) -> anyhow::Result<bool> {
    limited(move || {
        let stored = stored.unwrap_or_else(|| dummy_hash().to_owned());
        let parsed = PasswordHash::new(&stored).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
        Ok(hasher()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok())
    })
    .await
}

fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| {
        let salt = SaltString::generate(&mut OsRng);
        hasher()
            .hash_password(b"not a real password, only for timing", &salt)
            .map(|h| h.to_string())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_and_commonness() {
        assert_eq!(check("short", &[]), Err(PasswordProblem::TooShort));
        assert_eq!(check(&"x".repeat(129), &[]), Err(PasswordProblem::TooLong));
        assert_eq!(check("password", &[]), Err(PasswordProblem::TooCommon));
        assert_eq!(check("12345678", &[]), Err(PasswordProblem::TooCommon));
        assert_eq!(check("qwertyuiop", &[]), Err(PasswordProblem::TooCommon));
        assert_eq!(
            check("ann.lee@example.com", &["ann.lee@example.com"]),
            Err(PasswordProblem::TooCommon)
        );
        // No composition rules: long lowercase phrases are fine.
        assert_eq!(check("violet kettle harbour", &[]), Ok(()));
        assert_eq!(check("显卡直通到我的实例里", &[]), Ok(()));
    }

    #[tokio::test]
    async fn hashes_verify() {
        let h = hash("violet kettle harbour".into())
            .await
            .unwrap_or_default();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("violet kettle harbour".into(), Some(h.clone()))
            .await
            .unwrap_or(false));
        assert!(!verify("violet kettle harbor".into(), Some(h))
            .await
            .unwrap_or(true));
        assert!(!verify("anything".into(), None).await.unwrap_or(true));
    }

    /// A burst of logins waits its turn instead of running every argon2
    /// computation at once (each holds ~19 MiB).
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_burst_of_logins_queues() {
        let burst = max_in_flight() * 4;
        let checks = (0..burst).map(|i| tokio::spawn(verify(format!("guess {i}"), None)));
        for check in checks {
            assert!(!check.await.expect("joined").expect("verified"));
        }
        assert!(peak_in_flight() >= 1);
        assert!(
            peak_in_flight() <= max_in_flight(),
            "{} hashes ran at once, limit {}",
            peak_in_flight(),
            max_in_flight()
        );
    }
}
