//! Calls to Stripe through async-stripe's client, at the API version the
//! crate was generated for (`stripe_shared::version::VERSION`), with our
//! own Idempotency-Keys and retries.
//!
//! async-stripe retries only with keys it makes up per call, so a retry
//! after a restart (or on another replica) would be a new request to
//! Stripe. We send every creating call once per attempt with the key of
//! the *intent* it carries out ([`Intent`]), and retry transient failures
//! here with backoff: network errors, time-outs, 409 (a concurrent request
//! with the same key), 429 and 5xx. Other answers are final.

use std::time::Duration;

use stripe::{
    ApiErrorsType, Client, ClientBuilder, IdempotencyKey, RequestStrategy, StripeError,
    StripeRequest,
};

/// The API version every request and our webhook endpoint use.
pub fn api_version() -> &'static str {
    stripe_shared::version::VERSION.as_str()
}

/// How many times a transient failure is retried, and the first pause.
const RETRIES: u32 = 4;
const FIRST_PAUSE: Duration = Duration::from_millis(250);

#[derive(Clone)]
pub struct StripeClient {
    inner: Client,
    base: String,
    /// Pauses between retries; tests shorten them.
    first_pause: Duration,
}

impl std::fmt::Debug for StripeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret key never reaches a log.
        f.debug_struct("StripeClient")
            .field("base", &self.base)
            .finish()
    }
}

/// Why a call to Stripe did not succeed, as callers need to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum StripeFailure {
    /// The object does not exist (deleted at Stripe, or never ours).
    #[error("Stripe has no such object: {0}")]
    NotFound(String),
    /// Stripe refused the request; retrying it unchanged cannot help.
    #[error("Stripe refused the request ({kind}): {message}")]
    Refused { kind: String, message: String },
    /// Stripe could not be reached or kept failing; try again later.
    #[error("Stripe is unavailable: {0}")]
    Unavailable(String),
}

impl StripeClient {
    pub fn new(base: &str, secret_key: &str) -> anyhow::Result<StripeClient> {
        // async-stripe appends `v1/...` to the base.
        let base = format!("{}/", base.trim_end_matches('/'));
        let inner = ClientBuilder::new(secret_key)
            .url(base.clone())
            .timeout(Duration::from_secs(30))
            .request_strategy(RequestStrategy::Once)
            .build()
            .map_err(|e| anyhow::anyhow!("building the Stripe client: {e}"))?;
        Ok(StripeClient {
            inner,
            base,
            first_pause: FIRST_PAUSE,
        })
    }

    /// Shorter pauses between retries (tests against a local double).
    pub fn with_first_pause(mut self, pause: Duration) -> StripeClient {
        self.first_pause = pause;
        self
    }

    /// Sends a request carrying out `intent` (None for reads), retrying
    /// transient failures with the same key.
    pub async fn send<R>(
        &self,
        request: &R,
        intent: Option<&Intent>,
    ) -> Result<R::Output, StripeFailure>
    where
        R: StripeRequest,
        R::Output: miniserde::Deserialize,
    {
        let strategy = match intent {
            Some(intent) => {
                RequestStrategy::Idempotent(IdempotencyKey::new(&intent.key).map_err(|e| {
                    StripeFailure::Refused {
                        kind: "idempotency_key".to_owned(),
                        message: e.to_string(),
                    }
                })?)
            }
            None => RequestStrategy::Once,
        };
        let mut pause = self.first_pause;
        let mut attempt = 0;
        loop {
            let customized = request.customize().request_strategy(strategy.clone());
            let failure = match customized.send(&self.inner).await {
                Ok(output) => return Ok(output),
                Err(error) => classify(error),
            };
            attempt += 1;
            match failure {
                Classified::Final(failure) => return Err(failure),
                Classified::Transient(message) if attempt > RETRIES => {
                    return Err(StripeFailure::Unavailable(message))
                }
                Classified::Transient(message) => {
                    tracing::warn!(attempt, %message, "Stripe call failed, retrying");
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
            }
        }
    }
}

enum Classified {
    Final(StripeFailure),
    Transient(String),
}

fn classify(error: StripeError) -> Classified {
    match error {
        StripeError::Stripe(api, status) => {
            let message = api.message.clone().unwrap_or_default();
            match status {
                404 => Classified::Final(StripeFailure::NotFound(message)),
                409 | 429 | 500..=599 => Classified::Transient(format!("{status}: {message}")),
                _ => Classified::Final(StripeFailure::Refused {
                    kind: match api.type_ {
                        ApiErrorsType::IdempotencyError => "idempotency_error".to_owned(),
                        other => other.as_str().to_owned(),
                    },
                    message,
                }),
            }
        }
        StripeError::ClientError(message) => Classified::Transient(message),
        StripeError::Timeout => Classified::Transient("timed out".to_owned()),
        StripeError::JSONDeserialize(message) => {
            // An answer we cannot read is a bug or a version mismatch:
            // retrying it unchanged would read the same.
            Classified::Final(StripeFailure::Refused {
                kind: "unreadable_answer".to_owned(),
                message,
            })
        }
        StripeError::ConfigError(message) => Classified::Final(StripeFailure::Refused {
            kind: "configuration".to_owned(),
            message,
        }),
    }
}

/// One thing a user (or the system) decided to do at Stripe. Its key is
/// the same for every retry of that decision and different for the next
/// decision, even when the next one asks for the same thing (cancel,
/// revoke, cancel again).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    key: String,
}

impl Intent {
    /// `what` names the decision from our own ids (`checkout-ORDER`,
    /// `cancel-SUB-ACTION`); the caller makes it unique per decision.
    pub fn new(what: impl Into<String>) -> Intent {
        Intent { key: what.into() }
    }

    /// A decision made now, by a user or the system: a fresh key.
    pub fn fresh(what: &str) -> Intent {
        Intent::new(format!("{what}-{}", crate::db::new_id()))
    }

    pub fn as_str(&self) -> &str {
        &self.key
    }
}
