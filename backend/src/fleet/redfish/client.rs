//! A Redfish client for one BMC: JSON over HTTPS with Basic
//! authentication (every BMC vendor accepts it; sessions would save a
//! login per request, but our requests are rare), a time-out on every
//! request, and Redfish's error body turned into a message an operator
//! can act on.
//!
//! A BMC's answers are untrusted input (the host's tenant may have
//! reached its BMC): only same-origin, relative links (`/redfish/v1/…`)
//! are followed and redirects never are, so a link or a redirect cannot
//! send our credentials, or our actions, anywhere else.

use std::time::Duration;

use serde_json::Value;

use crate::fleet::FleetError;

/// How to reach one BMC.
#[derive(Clone)]
pub struct BmcAccess {
    /// The BMC's base URL: `https://10.20.0.15` (the service root is
    /// `/redfish/v1` under it).
    pub url: String,
    pub username: String,
    pub password: String,
    /// Check the BMC's certificate against the CA bundle; off only for a
    /// host an operator marked as having a self-signed BMC.
    pub tls_verify: bool,
}

impl std::fmt::Debug for BmcAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BmcAccess")
            .field("url", &self.url)
            .field("username", &self.username)
            .field("tls_verify", &self.tls_verify)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BmcError {
    #[error("the BMC did not answer within {0} s")]
    Timeout(u64),
    #[error("the BMC refused the user name or password (401)")]
    Unauthorized,
    #[error("the BMC answered {status}: {message}")]
    Redfish { status: u16, message: String },
    #[error("the BMC cannot be reached: {0}")]
    Unreachable(String),
    #[error("the BMC's answer is not what Redfish promises: {0}")]
    Malformed(String),
}

impl BmcError {
    /// A BMC that is slow or unreachable may be back in a minute; one
    /// that refuses our credentials or an action needs an operator, so the
    /// work moves to another host.
    pub fn into_fleet(self, host: &str) -> FleetError {
        match self {
            BmcError::Timeout(_) | BmcError::Unreachable(_) => {
                FleetError::Unavailable(format!("{host}: {self}"))
            }
            _ => FleetError::HostFault(format!("{host}: {self}")),
        }
    }
}

/// The two HTTP clients every BMC request goes through: one checking
/// certificates (against the operator's CA bundle when one is given), one
/// for hosts marked as having a self-signed BMC.
#[derive(Clone)]
pub struct BmcClients {
    verified: reqwest::Client,
    self_signed: reqwest::Client,
    timeout: Duration,
}

impl BmcClients {
    /// `ca_bundle`: PEM certificates that sign the BMCs' certificates
    /// (the operator's internal CA); without it, the public web PKI.
    pub fn new(ca_bundle: Option<&[u8]>, timeout: Duration) -> anyhow::Result<BmcClients> {
        let base = || {
            reqwest::Client::builder()
                .timeout(timeout)
                .connect_timeout(timeout.min(Duration::from_secs(10)))
                .user_agent("gpu-storefront-fleet")
                .redirect(reqwest::redirect::Policy::none())
        };
        let mut verified = base();
        if let Some(pem) = ca_bundle {
            verified = verified.tls_built_in_root_certs(false);
            for cert in reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| anyhow::anyhow!("the BMC CA bundle is not PEM: {e}"))?
            {
                verified = verified.add_root_certificate(cert);
            }
        }
        Ok(BmcClients {
            verified: verified.build()?,
            self_signed: base().danger_accept_invalid_certs(true).build()?,
            timeout,
        })
    }

    pub fn connect<'a>(&'a self, access: &'a BmcAccess) -> Bmc<'a> {
        Bmc {
            http: if access.tls_verify {
                &self.verified
            } else {
                &self.self_signed
            },
            access,
            timeout: self.timeout,
        }
    }
}

/// One BMC, ready for requests.
pub struct Bmc<'a> {
    http: &'a reqwest::Client,
    access: &'a BmcAccess,
    timeout: Duration,
}

impl Bmc<'_> {
    fn url(&self, path: &str) -> Result<String, BmcError> {
        let base = self.access.url.trim_end_matches('/');
        Ok(format!("{base}{}", same_origin(path)?))
    }

    pub async fn get(&self, path: &str) -> Result<Value, BmcError> {
        let request = self.http.get(self.url(path)?);
        self.send(request).await
    }

    /// Posts an action; an empty answer (204) is `Value::Null`.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, BmcError> {
        let request = self.http.post(self.url(path)?).json(body);
        self.send(request).await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Result<Value, BmcError> {
        let request = self.http.patch(self.url(path)?).json(body);
        self.send(request).await
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Result<Value, BmcError> {
        let response = request
            .basic_auth(&self.access.username, Some(&self.access.password))
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| self.transport(e))?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| self.transport(e))?;
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(BmcError::Unauthorized);
        }
        if !status.is_success() {
            return Err(BmcError::Redfish {
                status: status.as_u16(),
                message: error_message(&body),
            });
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&body).map_err(|e| BmcError::Malformed(e.to_string()))
    }

    fn transport(&self, error: reqwest::Error) -> BmcError {
        if error.is_timeout() {
            BmcError::Timeout(self.timeout.as_secs())
        } else {
            // The chain says why (refused, TLS, DNS) without the URL's
            // credentials: reqwest never puts Basic auth in the URL.
            let mut reason = error.to_string();
            let mut source = std::error::Error::source(&error);
            while let Some(cause) = source {
                reason = format!("{reason}: {cause}");
                source = cause.source();
            }
            BmcError::Unreachable(reason)
        }
    }
}

/// `path` when it names a resource on the BMC itself: `/redfish/v1…`, with
/// no scheme or host (`http://…`, `//host/…`), no climbing out (`..`), no
/// query, fragment, backslash, blank or control character. Anything else
/// a BMC sends as a link or an action target is refused.
fn same_origin(path: &str) -> Result<&str, BmcError> {
    let plain = path.starts_with("/redfish/v1")
        && !path.contains("//")
        && !path.split('/').any(|segment| segment == "..")
        && !path
            .chars()
            .any(|c| matches!(c, '?' | '#' | '\\' | '@') || c.is_whitespace() || c.is_control());
    if plain {
        Ok(path)
    } else {
        let shown: String = path.chars().take(120).collect();
        Err(BmcError::Malformed(format!(
            "it pointed outside itself ({shown:?}); only its own /redfish/v1 paths are followed"
        )))
    }
}

/// The sentence in a Redfish error body (`error.message`, then each
/// `@Message.ExtendedInfo` message), or the start of whatever came back.
fn error_message(body: &[u8]) -> String {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        let text = String::from_utf8_lossy(body);
        return text.chars().take(200).collect::<String>().trim().to_owned();
    };
    let error = &value["error"];
    let mut parts: Vec<String> = Vec::new();
    if let Some(message) = error["message"].as_str() {
        parts.push(message.to_owned());
    }
    if let Some(infos) = error["@Message.ExtendedInfo"].as_array() {
        for info in infos {
            let id = info["MessageId"].as_str().unwrap_or_default();
            let message = info["Message"].as_str().unwrap_or_default();
            match (id.is_empty(), message.is_empty()) {
                (false, false) => parts.push(format!("{message} ({id})")),
                (true, false) => parts.push(message.to_owned()),
                (false, true) => parts.push(id.to_owned()),
                (true, true) => {}
            }
        }
    }
    if parts.is_empty() {
        return "no error message".to_owned();
    }
    parts.join("; ")
}

/// The `@odata.id` of a link member.
pub fn link(value: &Value) -> Option<&str> {
    value["@odata.id"].as_str()
}

/// The links of a collection's members.
pub fn members(collection: &Value) -> Vec<String> {
    collection["Members"]
        .as_array()
        .map(|m| m.iter().filter_map(link).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Where an action of a resource is posted (`#ComputerSystem.Reset`).
pub fn action_target<'v>(resource: &'v Value, action: &str) -> Option<&'v str> {
    resource["Actions"][action]["target"].as_str()
}

#[cfg(test)]
mod tests {
    use super::{error_message, same_origin};

    #[test]
    fn only_the_bmcs_own_paths_are_followed() {
        for ok in [
            "/redfish/v1",
            "/redfish/v1/Systems/1",
            "/redfish/v1/Systems/1/Actions/ComputerSystem.Reset",
        ] {
            assert_eq!(same_origin(ok).ok(), Some(ok));
        }
        for refused in [
            "https://attacker.example/redfish/v1/Systems/1",
            "http://127.0.0.1:8000/redfish/v1",
            "//attacker.example/redfish/v1",
            "/redfish/v1//attacker.example",
            "/redfish/v1/../../fixture",
            "/redfish/v1/Systems/1?x=1",
            "/redfish/v1/Systems/1#frag",
            "/redfish/v1\\..\\x",
            "/redfish/v1/Systems/1 x",
            "/other/path",
            "Systems/1",
            "",
        ] {
            assert!(same_origin(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn a_redfish_error_body_becomes_one_sentence() {
        let body = br#"{"error": {"code": "Base.1.0.GeneralError", "message": "A general error has occurred.",
            "@Message.ExtendedInfo": [{"MessageId": "Base.1.0.PropertyValueNotInList", "Message": "The value Sideways for ResetType is not in the list."}]}}"#;
        assert_eq!(
            error_message(body),
            "A general error has occurred.; The value Sideways for ResetType is not in the list. (Base.1.0.PropertyValueNotInList)"
        );
        assert_eq!(
            error_message(b"<html>Bad gateway</html>"),
            "<html>Bad gateway</html>"
        );
    }
}
