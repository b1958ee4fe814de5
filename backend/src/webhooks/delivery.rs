//! Sending queued deliveries: any replica claims a due one (a lease, so two
//! never send it at once), signs it the way Stripe signs its webhooks
//! (`Gpu-Signature: t=<unix time>,v1=<HMAC-SHA256 of "t.body" in hex>`,
//! a second `v1` while a rolled secret overlaps), POSTs it and records the
//! answer. Anything but 2xx within the timeout is retried with backoff; the
//! last try fails the delivery. An endpoint that resolves to a private,
//! loopback or link-local address is refused unless the deployment allows
//! it (development, tests), and redirects are not followed: a webhook
//! cannot be used to reach inside the data centre.

use anyhow::Context;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use sqlx::Row;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

use crate::sealing::Sealer;
use crate::{Clock, Db};

/// Seconds to wait after the n-th failed try; after the last, the
/// delivery has failed (about a day and a half of trying in all).
const BACKOFF: [i64; 7] = [60, 300, 1_800, 7_200, 18_000, 36_000, 86_400];

/// Deliveries one pass sends (at once).
const PER_PASS: i64 = 20;

/// How long an endpoint has to answer.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The start of an answer's body kept to show.
const KEPT: usize = 1_000;

/// What sending needs from the deployment.
#[derive(Clone)]
pub struct Sending {
    pub sealer: Sealer,
    /// Private and loopback addresses allowed (development and tests).
    pub allow_private: bool,
}

/// `t=…,v1=…[,v1=…]` for `body` sent at `at`, with each secret.
pub fn sign(secrets: &[String], at: i64, body: &str) -> String {
    let mut header = format!("t={at}");
    for secret in secrets {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
            continue;
        };
        mac.update(format!("{at}.{body}").as_bytes());
        let digest = mac.finalize().into_bytes();
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        header.push_str(&format!(",v1={hex}"));
    }
    header
}

/// Whether an address is one a webhook may reach from outside: not
/// loopback, private, link-local, shared (CGNAT), unspecified, multicast
/// or documentation space.
fn public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let [a, b, ..] = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || (a == 100 && (64..128).contains(&b))
                || a == 0)
        }
        IpAddr::V6(v6) => {
            let segments = v6.segments();
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (segments[0] & 0xfe00) == 0xfc00
                || (segments[0] & 0xffc0) == 0xfe80
                || v6
                    .to_ipv4_mapped()
                    .is_some_and(|v4| !public(IpAddr::V4(v4))))
        }
    }
}

/// The answer to one try: the status and the start of the body, or why
/// there was none.
struct Tried {
    status: Option<u16>,
    body: Option<String>,
    error: Option<String>,
}

async fn send(
    url: &str,
    signature: &str,
    delivery_id: &str,
    body: &str,
    allow_private: bool,
) -> Tried {
    let failed = |error: String| Tried {
        status: None,
        body: None,
        error: Some(error),
    };
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return failed("the URL does not parse".into());
    };
    let Some(host) = parsed.host_str().map(str::to_owned) else {
        return failed("the URL has no host".into());
    };
    let port = parsed.port_or_known_default().unwrap_or(443);
    // Resolved once here and pinned: the address checked is the address
    // connected to (no second lookup that could answer differently).
    let addresses: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), port)).await {
        Ok(found) => found.collect(),
        Err(error) => return failed(format!("the host does not resolve: {error}")),
    };
    let Some(address) = addresses
        .into_iter()
        .find(|a| allow_private || public(a.ip()))
    else {
        return failed("the host resolves only to private addresses".into());
    };
    let client = reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .resolve(&host, address)
        .user_agent("gpu-webhooks/1")
        .build();
    let client = match client {
        Ok(client) => client,
        Err(error) => return failed(format!("no HTTP client: {error}")),
    };
    let answer = client
        .post(parsed)
        .header("content-type", "application/json")
        .header("gpu-signature", signature)
        .header("gpu-delivery", delivery_id)
        .body(body.to_owned())
        .send()
        .await;
    match answer {
        Ok(response) => {
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            Tried {
                status: Some(status),
                body: Some(text.chars().take(KEPT).collect()),
                error: None,
            }
        }
        Err(error) if error.is_timeout() => failed("no answer within 10 s".into()),
        Err(error) => failed(format!("could not connect: {error}")),
    }
}

/// Sends the deliveries that are due; answers how many were tried.
pub async fn deliver_due(db: &Db, clock: &Clock, sending: &Sending) -> anyhow::Result<usize> {
    let now = clock.now();
    let due: Vec<String> = sqlx::query_scalar(
        "select id from webhook_deliveries where state = 'pending' and next_attempt_at <= $1 \
         and (lease_until is null or lease_until < $1) order by next_attempt_at, id limit $2",
    )
    .bind(now)
    .bind(PER_PASS)
    .fetch_all(&db.pool)
    .await
    .context("finding due deliveries")?;
    let mut claimed = Vec::new();
    for id in due {
        let taken = sqlx::query(
            "update webhook_deliveries set lease_until = $1 where id = $2 and state = 'pending' \
             and (lease_until is null or lease_until < $3)",
        )
        .bind(now + 60)
        .bind(&id)
        .bind(now)
        .execute(&db.pool)
        .await
        .context("claiming a delivery")?;
        if taken.rows_affected() == 1 {
            claimed.push(id);
        }
    }
    let tried = claimed.len();
    // At once: one slow endpoint does not hold up the others.
    let mut sends = tokio::task::JoinSet::new();
    for id in claimed {
        let (db, clock, sending) = (db.clone(), clock.clone(), sending.clone());
        sends.spawn(async move { attempt(&db, &clock, &sending, &id).await });
    }
    while let Some(result) = sends.join_next().await {
        if let Ok(Err(error)) = result {
            tracing::error!(error = %format!("{error:#}"), "a webhook delivery failed to record");
        }
    }
    Ok(tried)
}

async fn attempt(db: &Db, clock: &Clock, sending: &Sending, id: &str) -> anyhow::Result<()> {
    let row = sqlx::query(
        "select d.payload, d.attempts, e.url, e.secret, e.previous_secret, e.previous_until, \
         e.enabled from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id \
         where d.id = $1",
    )
    .bind(id)
    .fetch_one(&db.pool)
    .await
    .context("reading the delivery")?;
    let now = clock.now();
    let attempts = row.try_get::<i64, _>("attempts")? + 1;
    let paused = row.try_get::<i64, _>("enabled")? == 0;
    let tried = if !paused {
        let mut secrets = vec![sending.sealer.open(&row.try_get::<String, _>("secret")?)?];
        let previous: Option<String> = row.try_get("previous_secret")?;
        let until: Option<i64> = row.try_get("previous_until")?;
        if let (Some(previous), Some(until)) = (previous, until) {
            if now < until {
                secrets.push(sending.sealer.open(&previous)?);
            }
        }
        let body: String = row.try_get("payload")?;
        let url: String = row.try_get("url")?;
        let signature = sign(&secrets, now, &body);
        send(&url, &signature, id, &body, sending.allow_private).await
    } else {
        Tried {
            status: None,
            body: None,
            error: Some("the endpoint is turned off".into()),
        }
    };
    let succeeded = tried.status.is_some_and(|s| (200..300).contains(&s));
    let (state, next) = match BACKOFF.get(attempts as usize - 1) {
        _ if succeeded => ("succeeded", now),
        // A paused endpoint's delivery fails at once: nothing is retried.
        Some(wait) if !paused => ("pending", now + wait),
        _ => ("failed", now),
    };
    sqlx::query(
        "update webhook_deliveries set state = $1, attempts = $2, next_attempt_at = $3, \
         lease_until = null, last_status = $4, last_response = $5, last_error = $6, \
         delivered_at = $7 where id = $8",
    )
    .bind(state)
    .bind(attempts)
    .bind(next)
    .bind(tried.status.map(i64::from))
    .bind(tried.body)
    .bind(tried.error)
    .bind(succeeded.then_some(now))
    .bind(id)
    .execute(&db.pool)
    .await
    .context("recording the delivery")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_hmac_of_time_and_body_per_secret() {
        // As `printf '1700000000.{}' | openssl dgst -sha256 -hmac whsec_a` prints it.
        let header = sign(&["whsec_a".into()], 1_700_000_000, "{}");
        assert_eq!(
            header,
            "t=1700000000,v1=04339dc4f01d6541e8d3b7e4bd93cd2d4f680ccb28592270900b08e49cc09e57"
        );
        let two = sign(&["whsec_a".into(), "whsec_b".into()], 1_700_000_000, "{}");
        assert_eq!(two.matches(",v1=").count(), 2);
        assert!(two.starts_with(&header));
    }

    #[test]
    fn only_public_addresses_are_reached() {
        for private in [
            "127.0.0.1",
            "10.1.2.3",
            "192.168.0.1",
            "172.16.5.4",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            assert!(!public(private.parse().expect("an address")), "{private}");
        }
        for open in ["8.8.8.8", "2a01:4f8::1", "203.0.114.1"] {
            assert!(public(open.parse().expect("an address")), "{open}");
        }
    }
}
