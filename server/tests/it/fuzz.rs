//! Route fuzzing: every route of `route_inventory()`, in both languages, as
//! an anonymous visitor and as each kind of member, gets malformed input
//! (missing, duplicated and oversized fields, a body over the limit,
//! non-UTF-8, wrong content types, huge and negative numbers, unknown and
//! other organizations' ids, unicode and SQL/HTML metacharacters). Nothing
//! may answer 5xx or drop the connection (a panic), and callers without the
//! right change nothing of the victim organization. A new route is fuzzed
//! without anyone writing a row for it.

use crate::common::{server_id, strip_tags, TestApp, TestDb};

on_both_databases!(every_route_survives_malformed_input);

/// Values put into every field, query parameter and path parameter.
fn values() -> Vec<String> {
    vec![
        String::new(),
        "-1".into(),
        "99999999999999999999999999".into(),
        "1e308".into(),
        "NaN".into(),
        "'; drop table users; --".into(),
        "<script>alert(1)</script>\"'><img src=x>".into(),
        "显卡 😀 \u{202e}\u{0}".into(),
        "../../etc/passwd%00".into(),
        "x".repeat(5_000),
    ]
}

/// Field names the application's forms use; unknown ones are ignored.
const FIELDS: &[&str] = &[
    "name",
    "email",
    "password",
    "current",
    "new_password",
    "code",
    "role",
    "user",
    "state",
    "reason",
    "at",
    "confirm",
    "confirm_name",
    "plan",
    "site",
    "image",
    "country",
    "addons",
    "keys",
    "new_key",
    "key",
    "invoice",
    "token",
    "id",
    "intent",
    "idempotency_key",
    "company",
    "lang",
    "vat_id",
    "legal_name",
    "address",
    "city",
    "postcode",
    "snapshot",
    "start",
    "end",
    "month",
    "status",
    "kind",
    "organization",
    "required",
    "count",
    "from",
    "to",
    "fingerprint",
    "window",
    "csrf",
];

/// What a path parameter becomes: the victim's real id (for `{id}`), then
/// garbage, rotating per request.
fn path_for(pattern: &str, lang: &str, case: usize, victim_server: &str) -> String {
    let garbage = [
        victim_server.to_owned(),
        "does-not-exist".to_owned(),
        "%27%3B--".to_owned(),
        "%F0%9F%98%80".to_owned(),
        "9".repeat(300),
        "..%2F..%2Fetc".to_owned(),
    ];
    let pick = |offset: usize| garbage[(case + offset) % garbage.len()].clone();
    pattern
        .replace("{lang}", lang)
        .replace("{id}", &pick(0))
        .replace(
            "{action}",
            &["rename", "cancel", "nope", "delete"][case % 4].replace("nope", &pick(1)),
        )
        .replace("{kind}", ["serial", "graphical", "x"][case % 3])
}

struct Caller {
    label: &'static str,
    browser: reqwest::Client,
    /// Whether it may change the victim organization's servers or members.
    may_change_victim: bool,
    /// Large bodies are sent by a couple of callers only (they cost time
    /// and test the same limit).
    large: bool,
}

/// What must not change when someone without the right fuzzes: the
/// victim's server, members, keys and orders as its owner sees them.
async fn victim_state(app: &TestApp, owner: &reqwest::Client, server: &str) -> String {
    let progress = app
        .get_as(owner, &format!("/en/servers/{server}/progress"))
        .await
        .body;
    let progress: serde_json::Value = serde_json::from_str(&progress).unwrap_or_default();
    let servers = strip_tags(&app.get_as(owner, "/en/servers").await.body);
    let members = app.get_as(owner, "/en/members").await.body;
    let keys = app.get_as(owner, "/en/keys").await.body;
    let orders = app.get_as(owner, "/en/orders").await.body;
    format!(
        "state={} name={} members={} required={} keys={} orders={}",
        progress["state"],
        servers.contains("victim-1"),
        members.matches("data-user=").count(),
        members.contains("requires two-factor"),
        keys.matches("SHA256:").count(),
        orders.matches("href=\"/en/orders/").count(),
    )
}

async fn send(
    app: &TestApp,
    caller: &Caller,
    method: &str,
    path: &str,
    body: Option<(&str, Vec<u8>)>,
) -> (u16, String) {
    let url = format!("{}{path}", app.base);
    let mut request = if method == "POST" {
        caller.browser.post(&url)
    } else {
        caller.browser.get(&url)
    };
    // Past the CSRF check, so the handlers themselves get the input.
    request = request.header("sec-fetch-site", "same-origin");
    if let Some((content_type, bytes)) = body {
        request = request.header("content-type", content_type).body(bytes);
    }
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            let text = response.text().await.unwrap_or_default();
            (status, text)
        }
        Err(error) => (0, format!("connection failed (a panic?): {error}")),
    }
}

fn form(pairs: &[(&str, &str)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, value) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(name);
        out.push('=');
        out.push_str(&urlencode(value));
    }
    out.into_bytes()
}

fn urlencode(value: &str) -> String {
    value
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The bodies one POST route gets: every field set to each value, the
/// fields twice, no fields, bytes that are not UTF-8, JSON instead of a
/// form, and (for large callers) a 1 MB field and a body over the limit.
fn bodies(large: bool) -> Vec<(&'static str, Vec<u8>)> {
    const FORM: &str = "application/x-www-form-urlencoded";
    let mut out = Vec::new();
    for value in values() {
        let pairs: Vec<(&str, &str)> = FIELDS.iter().map(|f| (*f, value.as_str())).collect();
        out.push((FORM, form(&pairs)));
    }
    let twice: Vec<(&str, &str)> = FIELDS.iter().flat_map(|f| [(*f, "1"), (*f, "2")]).collect();
    out.push((FORM, form(&twice)));
    out.push((FORM, Vec::new()));
    out.push((FORM, b"name=\xff\xfe\xfd&email=\xc3\x28&code=\x80".to_vec()));
    out.push((
        "application/json",
        br#"{"name": "x", "email": [1, 2]}"#.to_vec(),
    ));
    out.push(("text/plain", b"hello".to_vec()));
    if large {
        let big = "y".repeat(1_000_000);
        let pairs: Vec<(&str, &str)> = ["name", "email", "reason", "new_key"]
            .iter()
            .map(|f| (*f, big.as_str()))
            .collect();
        out.push((FORM, form(&pairs)));
        out.push((FORM, vec![b'a'; 3 * 1024 * 1024]));
    }
    out
}

async fn every_route_survives_malformed_input(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("victim@a.example", "Victim", "Victim Ltd").await;
    let placed = app
        .place_order(&owner, "g-ada", "fra", &[("name", "victim-1")])
        .await;
    let victim_server = server_id(placed.location());
    app.wait_for_server(&owner, &victim_server).await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let billing = app.invite(&owner, "bill@a.example", "billing").await;
    let other = app.member("attacker@b.example", "Mallory", "B Ltd").await;
    let staff = app.staff("ops@host.example").await;
    let callers = [
        Caller {
            label: "anonymous",
            browser: app.browser(),
            may_change_victim: false,
            large: true,
        },
        Caller {
            label: "other organization",
            browser: other,
            may_change_victim: false,
            large: false,
        },
        Caller {
            label: "billing",
            browser: billing,
            may_change_victim: false,
            large: false,
        },
        Caller {
            label: "technical",
            browser: tech,
            may_change_victim: true,
            large: false,
        },
        Caller {
            label: "staff",
            browser: staff,
            may_change_victim: true,
            large: false,
        },
        Caller {
            label: "owner",
            browser: owner.clone(),
            may_change_victim: true,
            large: true,
        },
    ];
    // Routes that end the caller's own session or account are fuzzed like
    // the rest, except by the callers whose session the test goes on using.
    let ends_session = ["/{lang}/logout", "/{lang}/account/delete"];
    let routes = server::startup::route_inventory();
    let before = victim_state(&app, &owner, &victim_server).await;
    let mut failures = Vec::new();
    let mut requests = 0usize;
    for caller in &callers {
        for (method, pattern) in &routes {
            if ends_session.contains(&pattern.as_str()) && caller.label != "anonymous" {
                continue;
            }
            let cases: Vec<Option<(&str, Vec<u8>)>> = if method == "POST" {
                bodies(caller.large).into_iter().map(Some).collect()
            } else {
                values().into_iter().map(|_| None).collect()
            };
            for (case, body) in cases.into_iter().enumerate() {
                let lang = ["zh", "en"][case % 2];
                let mut path = path_for(pattern, lang, case, &victim_server);
                if method == "GET" {
                    let value = urlencode(&values()[case % values().len()]);
                    let query: Vec<String> = [
                        "plan", "site", "month", "status", "done", "token", "at", "page",
                    ]
                    .iter()
                    .map(|f| format!("{f}={value}"))
                    .collect();
                    path = format!("{path}?{}", query.join("&"));
                }
                let over_limit = body
                    .as_ref()
                    .is_some_and(|(_, b)| b.len() > 2 * 1024 * 1024);
                let (status, text) = send(&app, caller, method, &path, body).await;
                requests += 1;
                // Over the body limit the server answers 413 without reading
                // the rest, and may close the connection while the client
                // is still sending: that is no crash if it then serves on.
                if over_limit && status == 0 {
                    let alive = app.get("/healthz").await;
                    if alive.status == 200 {
                        continue;
                    }
                }
                if status == 0 || status >= 500 {
                    failures.push(format!(
                        "{} {method} {path:.120} -> {status}: {:.300}",
                        caller.label,
                        strip_tags(&text)
                    ));
                }
            }
        }
        if !caller.may_change_victim {
            let after = victim_state(&app, &owner, &victim_server).await;
            assert_eq!(
                after, before,
                "fuzzing as {} changed the victim",
                caller.label
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {requests} requests failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Every route was reached.
    assert!(requests > routes.len() * callers.len() * 5, "{requests}");
    println!(
        "fuzzed {} routes × {} callers: {requests} requests, none 5xx",
        routes.len(),
        callers.len()
    );
    app.finish().await;
}
