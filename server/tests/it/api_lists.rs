//! Lists as scripts page them: filtered and cut in the database, with the
//! next page's address in `Link`; labels set on servers and selected by;
//! every token `GET` revalidated with its `ETag` (a 304 while nothing
//! changed).

use crate::common::api::create_token;
use crate::common::{self, TestApp, TestDb};
use serde_json::{json, Value};

on_both_databases!(
    servers_are_labelled_filtered_and_paged_in_the_database,
    polling_with_an_etag_costs_a_304_until_something_changes,
);

fn names(list: &Value) -> Vec<String> {
    list["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str().map(str::to_owned))
        .collect()
}

async fn servers_are_labelled_filtered_and_paged_in_the_database(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let mut ids = Vec::new();
    for (plan, site, name) in [
        ("g-ada", "fra", "alpha"),
        ("g-ada", "ams", "beta"),
        ("g-l40s", "fra", "gamma"),
    ] {
        let placed = app.place_order(&owner, plan, site, &[("name", name)]).await;
        let id = common::server_id(placed.location());
        app.wait_for_server(&owner, &id).await;
        ids.push(id);
    }
    let token = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    let patch = |id: &str, body: Value| {
        let (app, token) = (&app, token.clone());
        let path = format!("/api/v1/servers/{id}");
        async move {
            app.api("PATCH", &path, Some(&token), Some(&body), &[])
                .await
        }
    };
    let labelled = patch(
        &ids[0],
        json!({ "labels": { "env": "prod", "team": "ml" } }),
    )
    .await;
    assert_eq!(labelled.status, 200, "{}", labelled.body);
    assert_eq!(
        labelled.json()["labels"],
        json!({ "env": "prod", "team": "ml" })
    );
    // Name and labels in one request.
    let both = patch(
        &ids[1],
        json!({ "name": "beta-2", "labels": { "env": "dev" } }),
    )
    .await;
    assert_eq!(both.status, 200, "{}", both.body);
    assert_eq!(both.json()["name"], "beta-2");
    assert_eq!(both.json()["labels"], json!({ "env": "dev" }));
    // A label that breaks the rules changes nothing, not even the name.
    let refused = patch(
        &ids[1],
        json!({ "name": "beta-3", "labels": { "Env": "x" } }),
    )
    .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.code(), "invalid");
    assert_eq!(refused.json()["field"], "labels.Env");
    let too_many: serde_json::Map<String, Value> =
        (0..17).map(|i| (format!("k{i}"), json!("v"))).collect();
    let refused = patch(&ids[1], json!({ "labels": too_many })).await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    let unchanged = app
        .api_get(&format!("/api/v1/servers/{}", ids[1]), &token)
        .await
        .json();
    assert_eq!(unchanged["name"], "beta-2");
    assert_eq!(unchanged["labels"], json!({ "env": "dev" }));
    // Nothing to change is no change.
    let nothing = patch(&ids[2], json!({})).await;
    assert_eq!(nothing.status, 200, "{}", nothing.body);
    assert_eq!(nothing.json()["labels"], json!({}));

    let list = |query: &str| {
        let (app, token) = (&app, token.clone());
        let path = format!("/api/v1/servers{query}");
        async move { app.api_get(&path, &token).await }
    };
    let all = list("").await;
    assert_eq!(names(&all.json()), ["gamma", "beta-2", "alpha"]);
    assert_eq!(all.json()["data"][2]["labels"]["team"], "ml");
    for (query, want) in [
        ("?label=env=prod", vec!["alpha"]),
        ("?label=env", vec!["beta-2", "alpha"]),
        ("?label=env,team=ml", vec!["alpha"]),
        ("?label=team=vision", vec![]),
        ("?site=fra", vec!["gamma", "alpha"]),
        ("?plan=g-ada&site=ams", vec!["beta-2"]),
        ("?state=running", vec!["gamma", "beta-2", "alpha"]),
        ("?state=restoring", vec![]),
    ] {
        let answer = list(query).await;
        assert_eq!(answer.status, 200, "{query}: {}", answer.body);
        assert_eq!(names(&answer.json()), want, "{query}");
    }
    for query in [
        "?state=asleep",
        "?label=Env",
        "?label=a,b,c,d,e,f",
        "?limit=0",
    ] {
        let answer = list(query).await;
        assert_eq!(answer.status, 400, "{query}: {}", answer.body);
    }

    // Page by page, following `Link` (filters kept), to the end.
    let first = list("?limit=1&site=fra").await;
    assert_eq!(names(&first.json()), ["gamma"]);
    let link = first.header("link");
    let next = link
        .strip_prefix("<https://gpu.example.com")
        .and_then(|rest| rest.strip_suffix(">; rel=\"next\""))
        .unwrap_or_else(|| panic!("Link: {link}"))
        .to_owned();
    assert!(
        next.contains("site=fra") && next.contains("limit=1"),
        "{next}"
    );
    let second = app.api_get(&next, &token).await;
    assert_eq!(names(&second.json()), ["alpha"]);
    assert_eq!(second.json()["next_cursor"], Value::Null);
    assert_eq!(second.header("link"), "", "no page after the last");
    let bad_cursor = list("?cursor=zz").await;
    assert_eq!(bad_cursor.code(), "invalid_cursor");

    // Orders are filtered and paged the same way.
    let orders = app.api_get("/api/v1/orders?plan=g-ada", &token).await;
    assert_eq!(orders.status, 200, "{}", orders.body);
    let plans: Vec<&str> = orders.json()["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o["plan"].as_str())
        .map(|p| if p == "g-ada" { "g-ada" } else { "other" })
        .collect();
    assert_eq!(plans, ["g-ada", "g-ada"]);
    let paged = app
        .api_get("/api/v1/orders?limit=2&state=fulfilled", &token)
        .await;
    assert_eq!(paged.json()["data"].as_array().map(Vec::len), Some(2));
    assert!(
        paged.header("link").contains("state=fulfilled"),
        "{}",
        paged.header("link")
    );
    let bogus = app.api_get("/api/v1/orders?state=lost", &token).await;
    assert_eq!(bogus.status, 400);

    // The owner's audit log says who labelled what.
    let audit = app.get_as(&owner, "/en/audit").await;
    assert!(
        audit.body.contains("changed a server’s labels"),
        "{}",
        audit.body
    );
    app.finish().await;
}

async fn polling_with_an_etag_costs_a_304_until_something_changes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app.owner_with_running_server(&[("name", "polled")]).await;
    let token = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    let path = format!("/api/v1/servers/{id}");
    let first = app.api_get(&path, &token).await;
    assert_eq!(first.status, 200);
    let etag = first.header("etag");
    assert!(etag.starts_with("W/\""), "{etag}");
    assert_eq!(first.header("cache-control"), "private, no-cache");
    let same = app
        .api(
            "GET",
            &path,
            Some(&token),
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(same.status, 304, "{}", same.body);
    assert!(same.body.is_empty());
    assert_eq!(same.header("etag"), etag);
    // Still counted against the token's limit, and still named.
    assert!(!same.header("x-ratelimit-remaining").is_empty());
    assert!(!same.header("x-request-id").is_empty());
    let renamed = app
        .api(
            "PATCH",
            &path,
            Some(&token),
            Some(&json!({ "name": "polled-2" })),
            &[],
        )
        .await;
    assert_eq!(renamed.status, 200);
    let changed = app
        .api(
            "GET",
            &path,
            Some(&token),
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(changed.status, 200);
    assert_ne!(changed.header("etag"), etag);
    assert_eq!(changed.json()["name"], "polled-2");
    // Lists too.
    let list = app.api_get("/api/v1/servers", &token).await;
    let list_etag = list.header("etag");
    let again = app
        .api(
            "GET",
            "/api/v1/servers",
            Some(&token),
            None,
            &[("if-none-match", &list_etag)],
        )
        .await;
    assert_eq!(again.status, 304);
    app.finish().await;
}
