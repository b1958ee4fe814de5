//! Invoices and credit notes through the API: listed a page at a time,
//! read with their lines, the PDF as the portal offers it, only with
//! `billing:read`, and never another organization's.

use crate::common::api::create_token;
use crate::common::{TestApp, TestDb};
use serde_json::json;

on_both_databases!(a_billing_token_reads_invoices_pdfs_and_credit_notes);

async fn a_billing_token_reads_invoices_pdfs_and_credit_notes(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let books = app.invite(&owner, "books@a.example", "billing").await;
    let write = create_token(&app, &owner, "ci", &["read", "servers:write"]).await;
    let billing = create_token(&app, &books, "books", &["billing:read"]).await;
    // Two servers: each is invoiced once it runs.
    for name in ["inv-1", "inv-2"] {
        let order = json!({ "plan": "g-ada", "site": "ams", "name": name });
        let placed = app
            .api(
                "POST",
                "/api/v1/orders",
                Some(&write),
                Some(&order),
                &[("idempotency-key", name)],
            )
            .await;
        assert_eq!(placed.status, 201, "{}", placed.body);
        let server = placed.json()["server_id"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        app.wait_for_server(&owner, &server).await;
    }
    let mut invoices = serde_json::Value::Null;
    for _ in 0..100 {
        let list = app.api_get("/api/v1/invoices", &billing).await;
        assert_eq!(list.status, 200, "{}", list.body);
        invoices = list.json();
        if invoices["data"].as_array().map(Vec::len) == Some(2) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let data = invoices["data"].as_array().expect("invoices");
    assert_eq!(data.len(), 2, "both first invoices: {invoices}");
    let newest = &data[0];
    let id = newest["id"].as_str().expect("an id").to_owned();
    assert_eq!(newest["state"], "open");
    assert_eq!(newest["currency"], "EUR");
    assert!(newest["number"].as_str().is_some_and(|n| !n.is_empty()));
    assert!(newest["total_cents"].as_i64().unwrap_or_default() > 0);
    assert_eq!(newest["amount_due_cents"], newest["total_cents"]);
    assert_eq!(
        newest["pdf_url"],
        format!("https://gpu.example.com/api/v1/invoices/{id}/pdf")
    );
    assert!(newest.get("lines").is_none(), "lines only on the invoice");

    // A page at a time.
    let first = app
        .api_get("/api/v1/invoices?limit=1", &billing)
        .await
        .json();
    assert_eq!(first["data"][0]["id"], id.as_str());
    let cursor = first["next_cursor"]
        .as_str()
        .expect("a next page")
        .to_owned();
    let second = app
        .api_get(
            &format!("/api/v1/invoices?limit=1&cursor={cursor}"),
            &billing,
        )
        .await
        .json();
    assert_eq!(second["data"][0]["id"], data[1]["id"]);
    assert_eq!(second["next_cursor"], serde_json::Value::Null);
    // Filtered by state in the database; a draft is never listed.
    let count = |body: &serde_json::Value| body["data"].as_array().map_or(0, Vec::len);
    let open = app
        .api_get("/api/v1/invoices?state=open", &billing)
        .await
        .json();
    assert_eq!(count(&open), 2, "{open}");
    let paid = app
        .api_get("/api/v1/invoices?state=paid", &billing)
        .await
        .json();
    assert_eq!(count(&paid), 0, "{paid}");
    let draft = app.api_get("/api/v1/invoices?state=draft", &billing).await;
    assert_eq!(draft.status, 400, "{}", draft.body);
    let bad = app
        .api_get("/api/v1/invoices?cursor=not-a-cursor", &billing)
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);

    // One invoice with its lines, in the caller's language.
    let path = format!("/api/v1/invoices/{id}");
    let zh = app
        .api(
            "GET",
            &path,
            Some(&billing),
            None,
            &[("accept-language", "zh")],
        )
        .await;
    assert_eq!(zh.status, 200, "{}", zh.body);
    let invoice = zh.json();
    let line = &invoice["lines"][0];
    assert!(
        line["amount_cents"].as_i64().unwrap_or_default() > 0,
        "{invoice}"
    );
    assert_eq!(line["plan"], "g-ada");
    let en = app.api_get(&path, &billing).await.json();
    assert_ne!(
        en["lines"][0]["description"], line["description"],
        "{invoice}"
    );

    let pdf = app.api_get(&format!("{path}/pdf"), &billing).await;
    assert_eq!(pdf.status, 200, "{}", pdf.body);
    assert_eq!(pdf.header("content-type"), "application/pdf");
    assert!(pdf.body.starts_with("%PDF"));

    let credits = app.api_get("/api/v1/credit-notes", &billing).await;
    assert_eq!(credits.status, 200, "{}", credits.body);
    assert_eq!(credits.json(), json!({ "data": [], "next_cursor": null }));

    // The owner's token with billing:read too; without it, 403.
    let owner_books = create_token(&app, &owner, "owner-books", &["billing:read"]).await;
    assert_eq!(app.api_get(&path, &owner_books).await.status, 200);
    for denied in [
        "/api/v1/invoices".to_owned(),
        path.clone(),
        format!("{path}/pdf"),
        "/api/v1/credit-notes".to_owned(),
    ] {
        let answer = app.api_get(&denied, &write).await;
        assert_eq!(answer.status, 403, "{denied}: {}", answer.body);
        assert_eq!(answer.code(), "insufficient_scope");
    }

    // Another organization's invoice is not found.
    let stranger = app.member("owner@b.example", "Owner B", "Org B").await;
    let theirs = create_token(&app, &stranger, "b", &["billing:read"]).await;
    for hidden in [path.clone(), format!("{path}/pdf")] {
        let answer = app.api_get(&hidden, &theirs).await;
        assert_eq!(answer.status, 404, "{hidden}: {}", answer.body);
        assert_eq!(answer.code(), "not_found");
    }
    let none = app.api_get("/api/v1/invoices", &theirs).await.json();
    assert_eq!(none["data"], json!([]));
    app.finish().await;
}
