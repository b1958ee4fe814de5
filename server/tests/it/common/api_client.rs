//! Calling the API as a script does: no cookie jar, a bearer token, JSON.

use super::TestApp;

pub struct Answer {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// The error code of an error answer (empty if none).
    pub fn code(&self) -> String {
        serde_json::from_str::<serde_json::Value>(&self.body)
            .ok()
            .and_then(|v| v["code"].as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    }
}

impl TestApp {
    /// `method path` with an optional bearer token, JSON body and headers.
    pub async fn api(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&serde_json::Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        self.api_with(&self.client, method, path, token, body, headers)
            .await
    }

    /// The same through a given client (a signed-in browser, say).
    pub async fn api_with(
        &self,
        client: &reqwest::Client,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&serde_json::Value>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let method_name = method;
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("a method");
        let mut request = client.request(method, format!("{}{path}", self.base));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("sending the API request");
        let answer = Answer {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.expect("reading the API answer"),
        };
        super::contract::check(
            method_name,
            path,
            answer.status,
            &answer.headers,
            &answer.body,
        );
        answer
    }

    pub async fn api_get(&self, path: &str, token: &str) -> Answer {
        self.api("GET", path, Some(token), None, &[]).await
    }

    /// `POST path` with a token and an optional JSON body, no extra headers.
    pub async fn api_post(
        &self,
        path: &str,
        token: &str,
        body: Option<&serde_json::Value>,
    ) -> Answer {
        self.api("POST", path, Some(token), body, &[]).await
    }
}
