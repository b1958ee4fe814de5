//! Route fuzzing for the API: every route of `api::inventory()`, with no
//! token, the victim's own token, a read-only token and another
//! organization's token, gets malformed JSON (wrong types, nulls, deep
//! nesting, huge strings, non-UTF-8, wrong content types, a body over the
//! limit), garbage path ids and query parameters and odd headers. Nothing
//! may answer 5xx or drop the connection, every refusal is the JSON error
//! shape, and tokens without the right change nothing of the victim.

use crate::common::{self, strip_tags, TestApp, TestDb};
use serde_json::{json, Value};

on_both_databases!(every_api_route_survives_malformed_input);

const FIELDS: &[&str] = &[
    "name",
    "plan",
    "site",
    "image",
    "ssh_keys",
    "ssh_key_ids",
    "addons",
    "action",
    "at",
    "reason",
    "kind",
];

fn values() -> Vec<Value> {
    vec![
        json!(""),
        json!(-1),
        json!(1e308),
        json!(null),
        json!(true),
        json!(["a", 1, null]),
        json!({"nested": {"deeper": [1, 2, 3]}}),
        json!("'; drop table servers; --"),
        json!("<script>alert(1)</script>\"'><img src=x>"),
        json!("显卡 😀 \u{202e}\u{0}"),
        json!("x".repeat(5_000)),
    ]
}

/// Bodies one route gets: each value in every field, an empty object,
/// JSON that isn't an object, nesting past any parser's limit, bytes that
/// aren't UTF-8, a form body, and a body over the limit.
fn bodies() -> Vec<(&'static str, Vec<u8>)> {
    const JSON: &str = "application/json";
    let mut out: Vec<(&str, Vec<u8>)> = values()
        .into_iter()
        .map(|v| {
            let object: serde_json::Map<String, Value> = FIELDS
                .iter()
                .map(|f| ((*f).to_owned(), v.clone()))
                .collect();
            (JSON, Value::Object(object).to_string().into_bytes())
        })
        .collect();
    out.push((JSON, b"{}".to_vec()));
    out.push((JSON, b"[1, 2, 3]".to_vec()));
    out.push((JSON, "[".repeat(10_000).into_bytes()));
    out.push((JSON, b"{\"name\": \"\xff\xfe\"}".to_vec()));
    out.push((
        "application/x-www-form-urlencoded",
        b"name=x&plan=g-ada".to_vec(),
    ));
    out.push((JSON, vec![b' '; 3 * 1024 * 1024]));
    out
}

fn path_for(pattern: &str, case: usize, victim: &str) -> String {
    let garbage = [
        victim,
        "does-not-exist",
        "%27%3B--",
        "%F0%9F%98%80",
        "..%2F..%2Fetc",
    ];
    let nine = "9".repeat(300);
    let pick = |offset: usize| match (case + offset) % (garbage.len() + 1) {
        i if i < garbage.len() => garbage[i].to_owned(),
        _ => nine.clone(),
    };
    pattern
        .replace("{id}", &pick(0))
        .replace("{snapshot_id}", &pick(1))
}

/// The victim's server and orders as its owner's token reads them.
async fn victim_state(app: &TestApp, token: &str, server: &str) -> String {
    let s = app
        .api_get(&format!("/api/v1/servers/{server}"), token)
        .await
        .json();
    let snapshots = app
        .api_get(&format!("/api/v1/servers/{server}/snapshots"), token)
        .await
        .json();
    let orders = app.api_get("/api/v1/orders", token).await.json();
    let alerts = app.api_get("/api/v1/stock-alerts", token).await.json();
    format!(
        "name={} state={} cancel_at={} snapshots={} orders={} alerts={}",
        s["name"],
        s["state"],
        s["cancel_at"],
        snapshots["data"].as_array().map_or(0, Vec::len),
        orders["data"].as_array().map_or(0, Vec::len),
        alerts["data"].as_array().map_or(0, Vec::len),
    )
}

async fn every_api_route_survives_malformed_input(db: TestDb) {
    let app = TestApp::spawn_configured(db, backend::Clock::system(), |c| {
        // Thousands of requests per token: the limit is tested elsewhere.
        c.api_rate_limit = 1_000_000;
    })
    .await;
    let owner = app.member("victim@a.example", "Victim", "Victim Ltd").await;
    let placed = app
        .place_order(&owner, "g-ada", "fra", &[("name", "victim-1")])
        .await;
    let victim = common::server_id(placed.location());
    app.wait_for_server(&owner, &victim).await;
    let all = ["read", "servers:write", "billing:read"];
    let own = common::api::create_token(&app, &owner, "own", &all).await;
    let read_only = common::api::create_token(&app, &owner, "ro", &["read"]).await;
    let attacker = app.member("mallory@b.example", "Mallory", "B Ltd").await;
    let foreign = common::api::create_token(&app, &attacker, "b", &all).await;
    // (label, token, may change the victim)
    let callers = [
        ("no token", None, false),
        ("other organization", Some(foreign.as_str()), false),
        ("read only", Some(read_only.as_str()), false),
        ("owner", Some(own.as_str()), true),
    ];
    let routes = server::http::api::inventory();
    let before = victim_state(&app, &own, &victim).await;
    // Fuzzing has a connection pool of its own: a connection the server
    // closes after refusing an unread body must not be reused by the
    // checks of the victim's state.
    let fuzzing = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client");
    let (mut failures, mut requests) = (Vec::new(), 0usize);
    for (label, token, may_change) in callers {
        for (method, pattern, _) in &routes {
            let cases: Vec<Option<(&str, Vec<u8>)>> = if method == "GET" {
                values().into_iter().map(|_| None).collect()
            } else {
                bodies().into_iter().map(Some).collect()
            };
            for (case, body) in cases.into_iter().enumerate() {
                let mut path = path_for(pattern, case, &victim);
                // Query values are cut to 1,000 bytes: a URL of many
                // kilobytes is refused by the client before it is sent.
                let value = values()[case % values().len()].to_string();
                let value: String = value
                    .bytes()
                    .take(1_000)
                    .map(|b| format!("%{b:02X}"))
                    .collect();
                let query: Vec<String> = ["plan", "site", "cursor", "limit", "lang"]
                    .iter()
                    .map(|f| format!("{f}={value}"))
                    .collect();
                path = format!("{path}?{}", query.join("&"));
                let method = reqwest::Method::from_bytes(method.as_bytes()).expect("method");
                // A refusal (401, 404…) answered before a large body is read
                // may close the connection while the client still sends:
                // no crash if the server then serves on.
                let over_limit = body.as_ref().is_some_and(|(_, b)| b.len() > 16 * 1024);
                let send = || {
                    let mut request =
                        fuzzing.request(method.clone(), format!("{}{path}", app.base));
                    if let Some(token) = token {
                        request = request.bearer_auth(token);
                    }
                    request = request
                        .header("idempotency-key", ["", "k", &"k".repeat(500)][case % 3])
                        .header("accept-language", ["zh", "xx;q=bad", "en-GB"][case % 3])
                        .header("if-none-match", ["*", "W/\"nope\"", "\"\""][case % 3]);
                    if let Some((content_type, bytes)) = &body {
                        request = request
                            .header("content-type", *content_type)
                            .body(bytes.clone());
                    }
                    answer(request)
                };
                requests += 1;
                let (mut status, mut text, mut json) = send().await;
                // A pooled connection the server closed after its previous
                // answer fails on reuse: that is the client's race, so a
                // fresh attempt decides.
                // Under a loaded CI machine a 503 ("unavailable, retry") is
                // the documented transient answer, not a crash: retry too.
                for _ in 0..3 {
                    if status != 0 && status != 503 {
                        break;
                    }
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                    (status, text, json) = send().await;
                }
                if over_limit && status == 0 && app.get("/healthz").await.status == 200 {
                    continue;
                }
                if status == 0 || status >= 500 {
                    failures.push(format!(
                        "{label} {method} {path:.120} -> {status}: {:.300}",
                        strip_tags(&text)
                    ));
                } else if status >= 400 && !json {
                    failures.push(format!(
                        "{label} {method} {path:.120} -> {status} not JSON: {text:.200}"
                    ));
                }
            }
        }
        if !may_change {
            let after = victim_state(&app, &own, &victim).await;
            assert_eq!(after, before, "fuzzing as {label} changed the victim");
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {requests} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(requests > routes.len() * callers.len() * 5, "{requests}");
    println!(
        "fuzzed {} API routes × {} callers: {requests} requests, none 5xx",
        routes.len(),
        callers.len()
    );
    app.finish().await;
}

/// Sends a request: (status, body, whether the body is JSON); status 0 when
/// the connection failed.
async fn answer(request: reqwest::RequestBuilder) -> (u16, String, bool) {
    let (method, uri) = request
        .try_clone()
        .and_then(|r| r.build().ok())
        .map(|r| (r.method().to_string(), r.url().path().to_owned()))
        .unwrap_or_default();
    match request.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            let headers = r.headers().clone();
            let json = r.headers().get("content-type").is_some_and(|v| {
                let v = v.as_bytes();
                v.starts_with(b"application/json") || v.starts_with(b"application/problem+json")
            });
            let text = r.text().await.unwrap_or_default();
            // Every answer, even to nonsense, is one the document describes.
            crate::common::contract::check(&method, &uri, status, &headers, &text);
            (status, text, json)
        }
        Err(error) => (0, format!("connection failed (a panic?): {error}"), false),
    }
}
