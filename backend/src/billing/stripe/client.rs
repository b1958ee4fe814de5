//! A small Stripe API client: form-encoded POSTs with an Idempotency-Key,
//! GETs, against a configurable base URL (Stripe, or a test double). It
//! reads only the fields we use from Stripe's documented objects, so newer
//! API versions that add fields change nothing here.

use anyhow::Context;
use serde_json::Value;
use std::time::Duration;

#[derive(Clone)]
pub struct StripeClient {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl std::fmt::Debug for StripeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret key never reaches a log.
        f.debug_struct("StripeClient")
            .field("base", &self.base)
            .finish()
    }
}

impl StripeClient {
    pub fn new(base: &str, secret_key: &str) -> anyhow::Result<StripeClient> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(30))
            .build()
            .context("building the Stripe HTTP client")?;
        Ok(StripeClient {
            http,
            base: base.trim_end_matches('/').to_owned(),
            key: secret_key.to_owned(),
        })
    }

    /// POST `path` with form fields. The same idempotency key always yields
    /// Stripe's first answer, so a retried call creates nothing twice.
    pub async fn post(
        &self,
        path: &str,
        form: &[(String, String)],
        idempotency_key: &str,
    ) -> anyhow::Result<Value> {
        let response = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .header("Idempotency-Key", idempotency_key)
            .header("Stripe-Version", "2023-10-16")
            .form(form)
            .send()
            .await
            .with_context(|| format!("calling Stripe POST {path}"))?;
        read(response, path).await
    }

    pub async fn get(&self, path: &str, query: &[(&str, &str)]) -> anyhow::Result<Value> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .header("Stripe-Version", "2023-10-16")
            .query(query)
            .send()
            .await
            .with_context(|| format!("calling Stripe GET {path}"))?;
        read(response, path).await
    }
}

async fn read(response: reqwest::Response, path: &str) -> anyhow::Result<Value> {
    let status = response.status();
    let body: Value = response
        .json()
        .await
        .with_context(|| format!("reading Stripe's answer to {path}"))?;
    if !status.is_success() {
        let message = body["error"]["message"].as_str().unwrap_or("no message");
        anyhow::bail!("Stripe answered {status} to {path}: {message}");
    }
    Ok(body)
}

/// A string field of a Stripe object, or an error naming it.
pub fn text(object: &Value, field: &str) -> anyhow::Result<String> {
    object[field]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("Stripe object without {field}"))
}
