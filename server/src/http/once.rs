//! A secret shown once, after a redirect (post/redirect/get). A form whose
//! answer is a secret (a new API token, a server's root password) puts it
//! in the session, sealed with the deployment's key, and redirects to its
//! page; that page takes it out and shows it. A reload of the page finds
//! nothing and submits nothing, so it cannot create a second token, and
//! the secret is never in an address, a log line or, in clear, the session
//! store.

use axum::response::Response;
use backend::sealing::Sealer;
use http::header::{HeaderValue, CACHE_CONTROL};
use serde::de::DeserializeOwned;
use serde::Serialize;
use tower_sessions::Session;

fn key(name: &str) -> String {
    format!("once.{name}")
}

/// Keeps `value` for the next page that asks for `name`.
pub async fn stash<T: Serialize>(
    session: &Session,
    sealer: &Sealer,
    name: &str,
    value: &T,
) -> anyhow::Result<()> {
    let sealed = sealer.seal(&serde_json::to_string(value)?)?;
    session.insert(&key(name), sealed).await?;
    Ok(())
}

/// The page that shows what `take` gave: `shown` says whether it holds a
/// secret, which no cache may then keep.
pub fn answer(mut response: Response, shown: bool) -> Response {
    if shown {
        response
            .headers_mut()
            .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// What `stash` kept under `name`, once; `None` after that, or if it
/// cannot be read (the log says why; the page then shows no secret).
pub async fn take<T: DeserializeOwned>(
    session: &Session,
    sealer: &Sealer,
    name: &str,
) -> Option<T> {
    let sealed = match session.remove::<String>(&key(name)).await {
        Ok(sealed) => sealed?,
        Err(error) => {
            tracing::error!(%error, "reading a one-time value from the session failed");
            return None;
        }
    };
    let opened = sealer
        .open(&sealed)
        .and_then(|plain| Ok(serde_json::from_str(&plain)?));
    opened
        .inspect_err(
            |error| tracing::error!(error = %format!("{error:#}"), "a one-time value did not open"),
        )
        .ok()
}
