//! Secrets kept at rest (TOTP keys) are sealed with AES-256-GCM under the
//! deployment's `SECRET_KEY`, so a copy of the database alone opens nothing.
//! Stored as `v1:<nonce hex>:<ciphertext hex>`.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use anyhow::Context;

#[derive(Clone)]
pub struct Sealer {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer([redacted])")
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> anyhow::Result<Vec<u8>> {
    anyhow::ensure!(text.len().is_multiple_of(2), "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).context("not hex"))
        .collect()
}

impl Sealer {
    /// A key of 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`.
    pub fn from_hex(key: &str) -> anyhow::Result<Sealer> {
        let bytes = unhex(key.trim()).context("SECRET_KEY must be 64 hex characters")?;
        anyhow::ensure!(
            bytes.len() == 32,
            "SECRET_KEY must be 64 hex characters (32 bytes)"
        );
        Ok(Sealer {
            cipher: Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(&bytes)),
        })
    }

    /// Development only: a fixed, public key. Production refuses to start
    /// without `SECRET_KEY`.
    pub fn development() -> Sealer {
        Sealer {
            cipher: Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(
                b"development key, not a secret!!!",
            )),
        }
    }

    pub fn seal(&self, plain: &str) -> anyhow::Result<String> {
        let mut nonce = [0u8; 12];
        getrandom::getrandom(&mut nonce).map_err(|e| anyhow::anyhow!("no randomness: {e}"))?;
        let sealed = self
            .cipher
            .encrypt(Nonce::from_slice(&nonce), plain.as_bytes())
            .map_err(|_| anyhow::anyhow!("sealing failed"))?;
        Ok(format!("v1:{}:{}", hex(&nonce), hex(&sealed)))
    }

    pub fn open(&self, sealed: &str) -> anyhow::Result<String> {
        let mut parts = sealed.splitn(3, ':');
        let (Some("v1"), Some(nonce), Some(data)) = (parts.next(), parts.next(), parts.next())
        else {
            anyhow::bail!("not a sealed value");
        };
        let nonce = unhex(nonce)?;
        anyhow::ensure!(nonce.len() == 12, "bad nonce");
        let plain = self
            .cipher
            .decrypt(Nonce::from_slice(&nonce), unhex(data)?.as_slice())
            .map_err(|_| anyhow::anyhow!("the sealed value does not open with this SECRET_KEY"))?;
        String::from_utf8(plain).context("sealed value is not text")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_and_opens_only_with_the_key() {
        let key = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
        let sealer = Sealer::from_hex(key).unwrap_or_else(|_| Sealer::development());
        let sealed = sealer.seal("JBSWY3DPEHPK3PXP").unwrap_or_default();
        assert!(sealed.starts_with("v1:") && !sealed.contains("JBSWY3DPEHPK3PXP"));
        assert_eq!(
            sealer.open(&sealed).ok().as_deref(),
            Some("JBSWY3DPEHPK3PXP")
        );
        assert_ne!(
            sealer.seal("same").ok(),
            sealer.seal("same").ok(),
            "fresh nonce each time"
        );
        assert!(
            Sealer::development().open(&sealed).is_err(),
            "another key opens nothing"
        );
        assert!(Sealer::from_hex("abc").is_err());
        assert!(sealer.open("JBSWY3DPEHPK3PXP").is_err());
    }
}
