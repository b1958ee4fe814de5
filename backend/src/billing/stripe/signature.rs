//! Stripe webhook signatures: `Stripe-Signature: t=…,v1=…[,v1=…]`, each
//! v1 an HMAC-SHA256 of "{t}.{raw body}" under the endpoint's secret. Any
//! v1 may match (secrets roll); the timestamp must be within the tolerance
//! so a captured request can't be replayed later.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Stripe's default tolerance.
pub const TOLERANCE_SECS: i64 = 300;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("no usable Stripe-Signature header")]
    Malformed,
    #[error("the signature is older or newer than the tolerance")]
    Stale,
    #[error("no signature matches")]
    Mismatch,
}

/// The HMAC of a signed payload: `"{t}.{body}"` under the secret.
fn mac(secret: &str, timestamp: i64, body: &[u8]) -> Result<Hmac<Sha256>, SignatureError> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).map_err(|_| SignatureError::Malformed)?;
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(mac)
}

/// The `v1` signature Stripe would send (for tests and tooling).
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> Result<String, SignatureError> {
    Ok(mac(secret, timestamp, body)?
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

pub fn verify(secret: &str, header: &str, body: &[u8], now: i64) -> Result<(), SignatureError> {
    let mut timestamp = None;
    let mut candidates = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => timestamp = t.parse::<i64>().ok(),
            Some(("v1", sig)) => candidates.push(sig),
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if candidates.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if (now - timestamp).abs() > TOLERANCE_SECS {
        return Err(SignatureError::Stale);
    }
    let mac = mac(secret, timestamp, body)?;
    let matches = candidates
        .iter()
        .any(|sig| decode_hex(sig).is_some_and(|bytes| mac.clone().verify_slice(&bytes).is_ok()));
    if matches {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

fn decode_hex(raw: &str) -> Option<Vec<u8>> {
    if !raw.len().is_multiple_of(2) {
        return None;
    }
    (0..raw.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(raw.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stripe's published test vector.
    const EXPECTED: &str = "d5c04c1c13ec96960852a6f2b1afa81473a2ca347633e735cc5879bbac6400b3";
    const BODY: &[u8] = br#"{"id":"evt_test"}"#;

    #[test]
    fn matches_stripes_test_vector() {
        assert_eq!(
            sign("whsec_abc", 1_700_000_000, BODY).as_deref(),
            Ok(EXPECTED)
        );
        let header = format!("t=1700000000,v1={EXPECTED}");
        assert_eq!(verify("whsec_abc", &header, BODY, 1_700_000_100), Ok(()));
    }

    #[test]
    fn any_v1_may_match() {
        let header = format!("t=1700000000,v1=00ff,v0=abc,v1={EXPECTED}");
        assert_eq!(verify("whsec_abc", &header, BODY, 1_700_000_000), Ok(()));
    }

    #[test]
    fn refuses_tampered_stale_and_malformed() {
        let header = format!("t=1700000000,v1={EXPECTED}");
        assert_eq!(
            verify(
                "whsec_abc",
                &header,
                br#"{"id":"evt_tampered"}"#,
                1_700_000_000
            ),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("whsec_other", &header, BODY, 1_700_000_000),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("whsec_abc", &header, BODY, 1_700_000_301),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify("whsec_abc", &header, BODY, 1_699_999_699),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify("whsec_abc", "v1=abc", BODY, 1_700_000_000),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify("whsec_abc", "t=1700000000", BODY, 1_700_000_000),
            Err(SignatureError::Malformed)
        );
    }
}
