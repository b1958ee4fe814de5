//! The EU's VIES service through its REST API:
//! `POST {base}/check-vat-number` with `{"countryCode", "vatNumber"}`.
//!
//! The answer is read as the Commission documents it and as it is seen in
//! the wild: `valid` (bool), `name` (`"---"` where the member state keeps
//! names private) and `userError` (`VALID`, `INVALID`, or why there is no
//! answer: `MS_UNAVAILABLE`, `TIMEOUT`, `SERVICE_UNAVAILABLE`,
//! `MS_MAX_CONCURRENT_REQ`, …). Failures may instead come as
//! `{"actionSucceed": false, "errorWrappers": [{"error": "…"}]}`, with or
//! without an HTTP error status. Only `INVALID_INPUT` among the errors says
//! something about the number (VIES refuses it); every other error, an
//! HTTP failure, a time-out or an unreadable answer is "unavailable".

use async_trait::async_trait;
use serde::Deserialize;
use std::time::Duration;

use super::{RegistryUnavailable, VatIdRegistry, VatIdStatus};

/// Where the EU serves the REST API.
pub const EU_BASE_URL: &str = "https://ec.europa.eu/taxation_customs/vies/rest-api";
/// A profile form waits for the answer; VIES's own limit per member state
/// is longer, but a customer should not.
pub const TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
pub struct ViesRegistry {
    http: reqwest::Client,
    endpoint: String,
}

impl ViesRegistry {
    /// `base_url` is [`EU_BASE_URL`] in production (a double in tests).
    pub fn new(base_url: &str) -> anyhow::Result<ViesRegistry> {
        ViesRegistry::with_timeout(base_url, TIMEOUT)
    }

    pub fn with_timeout(base_url: &str, timeout: Duration) -> anyhow::Result<ViesRegistry> {
        use anyhow::Context;
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .context("building the VIES client")?;
        Ok(ViesRegistry {
            http,
            endpoint: format!("{}/check-vat-number", base_url.trim_end_matches('/')),
        })
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Answer {
    valid: Option<bool>,
    name: Option<String>,
    user_error: Option<String>,
    error_wrappers: Vec<ErrorWrapper>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorWrapper {
    error: String,
}

#[async_trait]
impl VatIdRegistry for ViesRegistry {
    async fn check(&self, country: &str, number: &str) -> Result<VatIdStatus, RegistryUnavailable> {
        let response = self
            .http
            .post(&self.endpoint)
            .json(&serde_json::json!({ "countryCode": country, "vatNumber": number }))
            .send()
            .await
            .map_err(|e| RegistryUnavailable(format!("{country}: {e}")))?;
        let status = response.status().as_u16();
        let body = response
            .text()
            .await
            .map_err(|e| RegistryUnavailable(format!("{country}: reading the answer: {e}")))?;
        read_answer(status, &body).map_err(|why| RegistryUnavailable(format!("{country}: {why}")))
    }
}

/// The register's answer from an HTTP status and body; `Err` says why
/// there is none.
fn read_answer(status: u16, body: &str) -> Result<VatIdStatus, String> {
    let answer: Option<Answer> = serde_json::from_str(body).ok();
    let errors: Vec<&str> = answer
        .iter()
        .flat_map(|a| a.error_wrappers.iter().map(|w| w.error.as_str()))
        .chain(answer.as_ref().and_then(|a| a.user_error.as_deref()))
        .filter(|e| !matches!(*e, "VALID" | "INVALID"))
        .collect();
    if errors.contains(&"INVALID_INPUT") {
        return Ok(VatIdStatus::Invalid);
    }
    if !errors.is_empty() {
        return Err(errors.join(", "));
    }
    if !(200..300).contains(&status) {
        return Err(format!("HTTP {status}"));
    }
    let Some(answer) = answer else {
        return Err("an answer that is not VIES's JSON".into());
    };
    match (answer.valid, answer.user_error.as_deref()) {
        (Some(true), None | Some("VALID")) => Ok(VatIdStatus::Valid {
            name: answer
                .name
                .map(|n| n.trim().to_owned())
                .filter(|n| !n.is_empty() && n != "---"),
        }),
        (Some(false), None | Some("INVALID")) => Ok(VatIdStatus::Invalid),
        (valid, user_error) => Err(format!(
            "a contradictory answer (valid {valid:?}, userError {user_error:?})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_as_vies_gives_them() {
        assert_eq!(
            read_answer(
                200,
                r#"{"countryCode":"DE","vatNumber":"123456789","valid":true,"name":"---","userError":"VALID"}"#
            ),
            Ok(VatIdStatus::Valid { name: None })
        );
        assert_eq!(
            read_answer(200, r#"{"valid":true,"name":" Voorbeeld B.V. "}"#),
            Ok(VatIdStatus::Valid {
                name: Some("Voorbeeld B.V.".into())
            })
        );
        assert_eq!(
            read_answer(200, r#"{"valid":false,"userError":"INVALID"}"#),
            Ok(VatIdStatus::Invalid)
        );
        assert_eq!(
            read_answer(
                400,
                r#"{"actionSucceed":false,"errorWrappers":[{"error":"INVALID_INPUT"}]}"#
            ),
            Ok(VatIdStatus::Invalid)
        );
        for unavailable in [
            (200, r#"{"valid":false,"userError":"MS_UNAVAILABLE"}"#),
            (
                200,
                r#"{"valid":false,"userError":"MS_MAX_CONCURRENT_REQ"}"#,
            ),
            (
                500,
                r#"{"actionSucceed":false,"errorWrappers":[{"error":"SERVICE_UNAVAILABLE"}]}"#,
            ),
            (500, "<html>Internal Server Error</html>"),
            (200, "<html>maintenance</html>"),
            (200, r#"{"valid":true,"userError":"INVALID"}"#),
        ] {
            assert!(
                read_answer(unavailable.0, unavailable.1).is_err(),
                "{unavailable:?}"
            );
        }
    }
}
