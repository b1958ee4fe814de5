//! What a script composes an order from without the portal: the sites,
//! images and add-ons (public, cacheable, the storefront's facts), its
//! creator's SSH keys, and a quote with VAT and the stock of the moment.

use crate::common::api::create_token;
use crate::common::{TestApp, TestDb};
use serde_json::{json, Value};

on_both_databases!(
    sites_images_and_add_ons_are_the_catalogs,
    a_quote_prices_with_vat_and_says_whether_a_host_is_free,
    ssh_keys_are_their_creators_and_orders_name_them,
);

// Generated with `ssh-keygen -t ed25519 -C demo@example`.
const KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPDkijbeHwy3mV+5q/FLfrqSX8S7QEee6M83GSKNTRT7 demo@example";
const FINGERPRINT: &str = "SHA256:";

fn ids<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    list["data"]
        .as_array()
        .expect("data")
        .iter()
        .filter_map(|item| item[field].as_str())
        .collect()
}

async fn sites_images_and_add_ons_are_the_catalogs(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let sites = app.api("GET", "/api/v1/sites", None, None, &[]).await;
    assert_eq!(sites.status, 200, "{}", sites.body);
    let sites_json = sites.json();
    let codes = ids(&sites_json, "code");
    assert_eq!(codes.len(), 8, "{codes:?}");
    assert!(
        codes.contains(&"fra") && codes.contains(&"lax"),
        "{codes:?}"
    );
    let fra = &sites_json["data"][codes.iter().position(|c| *c == "fra").unwrap_or(0)];
    assert_eq!(fra["city"]["en"], "Frankfurt");
    assert_eq!(fra["city"]["zh"], "法兰克福");
    assert_eq!(fra["country_code"], "DE");
    // The storefront names every site the API lists.
    let storefront = app.get("/en").await.body;
    for site in sites_json["data"].as_array().into_iter().flatten() {
        let city = site["city"]["en"].as_str().unwrap_or_default();
        assert!(storefront.contains(city), "{city}");
    }
    // Cacheable and revalidated as the plans are.
    let etag = sites.header("etag");
    assert!(etag.starts_with("W/\""), "{etag}");
    let again = app
        .api(
            "GET",
            "/api/v1/sites",
            None,
            None,
            &[("if-none-match", &etag)],
        )
        .await;
    assert_eq!(again.status, 304);

    let images = app.api("GET", "/api/v1/images", None, None, &[]).await;
    assert_eq!(images.status, 200, "{}", images.body);
    let images = images.json();
    assert_eq!(
        ids(&images, "id"),
        ["ubuntu-24.04", "debian-13", "rocky-9", "rescue"]
    );
    let defaults: Vec<&Value> = images["data"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|i| i["default"] == true)
        .collect();
    assert_eq!(defaults.len(), 1);
    assert_eq!(defaults[0]["id"], "ubuntu-24.04");
    assert_eq!(
        images["data"][3]["name"]["zh"],
        "不安装系统（启动救援系统）"
    );

    let addons = app.api("GET", "/api/v1/add-ons", None, None, &[]).await;
    assert_eq!(addons.status, 200, "{}", addons.body);
    let addons = addons.json();
    assert!(ids(&addons, "id").contains(&"offsite-backup"));
    let backup = addons["data"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["id"] == "offsite-backup")
        .cloned()
        .unwrap_or_default();
    assert_eq!(backup["name"]["en"], "Off-site nightly backup");
    assert_eq!(backup["name"]["zh"], "节点外每晚备份");
    assert!(
        backup["prices"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|p| p["plan"] == "g-ada" && p["price_cents"] == 1500 && p["currency"] == "EUR"),
        "{backup}"
    );
    app.finish().await;
}

async fn a_quote_prices_with_vat_and_says_whether_a_host_is_free(db: TestDb) {
    let app = TestApp::spawn(db).await;
    // A German consumer: 19 % VAT.
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let token = create_token(&app, &owner, "ci", &["read"]).await;
    let quote = |body: Value| {
        let app = &app;
        let token = token.clone();
        async move {
            app.api("POST", "/api/v1/quotes", Some(&token), Some(&body), &[])
                .await
        }
    };
    let priced = quote(json!({
        "plan": "g-l40s", "site": "fra", "addons": ["offsite-backup", "offsite-backup"]
    }))
    .await;
    assert_eq!(priced.status, 200, "{}", priced.body);
    let q = priced.json();
    assert_eq!(q["currency"], "EUR");
    assert_eq!(
        q["lines"][0],
        json!({"kind": "plan", "id": "g-l40s", "amount_cents": 74900})
    );
    assert_eq!(q["lines"][1]["id"], "offsite-backup");
    assert_eq!(
        q["lines"].as_array().map(Vec::len),
        Some(2),
        "an add-on once"
    );
    let addon = q["lines"][1]["amount_cents"].as_i64().unwrap_or_default();
    let net = 74900 + addon;
    assert_eq!(q["net_cents"], net);
    assert_eq!(q["vat"]["country"], "DE");
    assert_eq!(q["vat"]["kind"], "charged");
    assert_eq!(q["vat"]["rate_bp"], 1900);
    let vat = (net * 1900 + 5000) / 10000;
    assert_eq!(q["vat"]["amount_cents"], vat);
    assert_eq!(q["total_cents"], net + vat);
    assert_eq!(q["available_now"], true);
    assert!(q.get("sites_with_stock").is_none(), "{q}");

    // Los Angeles has no G-L40S×2: the quote says where there is one.
    let lax = quote(json!({ "plan": "g-l40s-x2", "site": "lax" }))
        .await
        .json();
    assert_eq!(lax["available_now"], false, "{lax}");
    let with_stock: Vec<&str> = lax["sites_with_stock"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    assert!(with_stock.contains(&"fra") && !with_stock.contains(&"lax"));
    // A quote holds nothing: the storefront still shows Frankfurt's stock.
    let no_site = quote(json!({ "plan": "g-ada" })).await.json();
    assert_eq!(no_site["available_now"], Value::Null);
    assert_eq!(no_site["site"], Value::Null);

    for (body, field) in [
        (json!({ "plan": "g-nope" }), "plan"),
        (json!({ "plan": "g-ada", "site": "xyz" }), "site"),
        (
            json!({ "plan": "g-ada", "addons": ["gold-plating"] }),
            "addons[0]",
        ),
    ] {
        let refused = quote(body).await;
        assert_eq!(refused.status, 422, "{}", refused.body);
        assert_eq!(refused.code(), "unknown_choice");
        assert_eq!(refused.json()["field"], field);
    }
    let extra = quote(json!({ "plan": "g-ada", "coupon": "FREE" })).await;
    assert_eq!(extra.status, 422, "{}", extra.body);
    assert_eq!(extra.json()["field"], "coupon");

    // An organization without a billing profile gets the net price only.
    let other = app.signed_up("new@b.example", "New", "Org B").await;
    let other_token = create_token(&app, &other, "ci", &["read"]).await;
    let net_only = app
        .api(
            "POST",
            "/api/v1/quotes",
            Some(&other_token),
            Some(&json!({ "plan": "g-ada" })),
            &[],
        )
        .await;
    assert_eq!(net_only.status, 200, "{}", net_only.body);
    let net_only = net_only.json();
    assert_eq!(net_only["net_cents"], 23900);
    assert_eq!(net_only["vat"], Value::Null);
    assert_eq!(net_only["total_cents"], Value::Null);

    let anonymous = app
        .api(
            "POST",
            "/api/v1/quotes",
            None,
            Some(&json!({ "plan": "g-ada" })),
            &[],
        )
        .await;
    assert_eq!(anonymous.status, 401);
    app.finish().await;
}

async fn ssh_keys_are_their_creators_and_orders_name_them(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let token = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    let reader = create_token(&app, &owner, "reader", &["read"]).await;
    let tech_token = create_token(&app, &tech, "tech", &["read", "servers:write"]).await;
    let new_key = json!({ "public_key": KEY, "name": "laptop" });

    let read_only = app
        .api(
            "POST",
            "/api/v1/ssh-keys",
            Some(&reader),
            Some(&new_key),
            &[],
        )
        .await;
    assert_eq!(read_only.status, 403, "{}", read_only.body);
    assert_eq!(read_only.json()["scope"], "servers:write");

    let added = app
        .api(
            "POST",
            "/api/v1/ssh-keys",
            Some(&token),
            Some(&new_key),
            &[],
        )
        .await;
    assert_eq!(added.status, 201, "{}", added.body);
    let key = added.json();
    let id = key["id"].as_str().unwrap_or_default().to_owned();
    assert_eq!(key["name"], "laptop");
    assert!(key["fingerprint"]
        .as_str()
        .unwrap_or_default()
        .starts_with(FINGERPRINT));
    assert_eq!(
        added.header("location"),
        format!("https://gpu.example.com/api/v1/ssh-keys/{id}")
    );
    assert_eq!(key["url"], added.header("location").as_str());
    // The same key again is the same key, whatever its name.
    let again = app
        .api(
            "POST",
            "/api/v1/ssh-keys",
            Some(&token),
            Some(&json!({ "public_key": KEY })),
            &[],
        )
        .await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.json()["id"], id.as_str());
    // The portal's keys page shows it.
    let page = app.get_as(&owner, "/en/keys").await;
    assert!(page.body.contains("laptop"), "{}", page.body);

    let bad = app
        .api(
            "POST",
            "/api/v1/ssh-keys",
            Some(&token),
            Some(&json!({ "public_key": "ssh-ed25519 not-base64" })),
            &[],
        )
        .await;
    assert_eq!(bad.status, 422, "{}", bad.body);
    assert_eq!(bad.code(), "bad_ssh_key");
    assert_eq!(bad.json()["field"], "public_key");

    let list = app.api_get("/api/v1/ssh-keys", &reader).await;
    assert_eq!(list.status, 200, "{}", list.body);
    assert_eq!(ids(&list.json(), "id"), [id.as_str()]);
    let one = app
        .api_get(&format!("/api/v1/ssh-keys/{id}"), &reader)
        .await;
    assert_eq!(one.status, 200, "{}", one.body);
    assert_eq!(
        one.json()["public_key"],
        KEY.trim_end_matches(" demo@example")
    );

    // Another member's token sees none of them and deletes none.
    let theirs = app.api_get("/api/v1/ssh-keys", &tech_token).await;
    assert_eq!(theirs.json()["data"], json!([]));
    let not_theirs = app
        .api_get(&format!("/api/v1/ssh-keys/{id}"), &tech_token)
        .await;
    assert_eq!(not_theirs.status, 404);
    let delete_theirs = app
        .api(
            "DELETE",
            &format!("/api/v1/ssh-keys/{id}"),
            Some(&tech_token),
            None,
            &[],
        )
        .await;
    assert_eq!(delete_theirs.status, 404);

    // An order names the saved key by id; the server gets it.
    let order = json!({
        "plan": "g-l40s", "site": "fra", "name": "keyed-1", "ssh_key_ids": [id]
    });
    let placed = app
        .api(
            "POST",
            "/api/v1/orders",
            Some(&token),
            Some(&order),
            &[("idempotency-key", "keyed-order-1")],
        )
        .await;
    assert_eq!(placed.status, 201, "{}", placed.body);
    let unknown = json!({
        "plan": "g-l40s", "site": "fra", "name": "keyed-2", "ssh_key_ids": ["nope"]
    });
    let refused = app
        .api(
            "POST",
            "/api/v1/orders",
            Some(&token),
            Some(&unknown),
            &[("idempotency-key", "keyed-order-2")],
        )
        .await;
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.json()["field"], "ssh_key_ids");

    let deleted = app
        .api(
            "DELETE",
            &format!("/api/v1/ssh-keys/{id}"),
            Some(&token),
            None,
            &[],
        )
        .await;
    assert_eq!(deleted.status, 204, "{}", deleted.body);
    let gone = app.api_get(&format!("/api/v1/ssh-keys/{id}"), &token).await;
    assert_eq!(gone.status, 404);
    app.finish().await;
}
