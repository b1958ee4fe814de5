//! The billing profile comes before the first order: an owner is sent to
//! it and back to the same plan and site, a technical member is told whom
//! to ask; an order never changes it; and invoices bill it as it was when
//! they were issued, on the page and in the PDF.

use crate::common::billing_profile::pdf_text;
use crate::common::{self, strip_tags, TestApp, TestDb};

on_both_databases!(
    the_first_order_waits_for_the_billing_profile_and_keeps_the_choice,
    an_order_never_changes_the_billing_profile,
    invoices_bill_the_profile_as_it_was_when_issued,
);

/// 2026-11-30 00:53:20 UTC.
const START: i64 = 1_796_000_000;

fn profile<'a>(legal_name: &'a str, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut fields = vec![
        ("legal_name", legal_name),
        ("address", "Hauptstraße 5"),
        ("postal_code", "80331"),
        ("city", "München"),
        ("country", "DE"),
        ("vat_id", ""),
        ("billing_email", "ap@beispiel.example"),
    ];
    fields.extend_from_slice(extra);
    fields
}

/// The country codes selected in a page's `<option>`s.
fn selected_countries(body: &str) -> Vec<String> {
    body.split("<option value=\"")
        .skip(1)
        .filter_map(|o| {
            let (code, rest) = o.split_once('"')?;
            let tag = rest.split('>').next()?;
            (code.len() == 2 && tag.contains("selected")).then(|| code.to_owned())
        })
        .collect()
}

async fn the_first_order_waits_for_the_billing_profile_and_keeps_the_choice(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.signed_up("owner@a.example", "Owner", "Acme GmbH").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    let back = "/en/billing/profile?plan=g-ada&site=fra";

    // The order form sends an owner to the billing profile first; an
    // order posted anyway (an old tab) goes there too and makes nothing.
    let page = app.get_as(&owner, "/en/order?plan=g-ada&site=fra").await;
    assert_eq!((page.status, page.location()), (303, back));
    let csrf = common::csrf_token(&app.get_as(&owner, "/en/billing").await.body);
    let posted = app
        .post_order(&owner, "g-ada", "fra", "first-try", &csrf, &[])
        .await;
    assert_eq!((posted.status, posted.location()), (303, back));
    let orders = app.get_as(&owner, "/en/orders").await.body;
    assert_eq!(orders.matches("data-order=").count(), 0, "nothing ordered");

    // The profile starts from sign-up (the company, the user's address)
    // and says why it comes first, in both languages.
    for (lang, why) in [("en", "Before your first order"), ("zh", "首次下单前")] {
        let page = app
            .get_as(
                &owner,
                &format!("/{lang}/billing/profile?plan=g-ada&site=fra"),
            )
            .await;
        assert_eq!(page.status, 200);
        assert!(page.body.contains(why), "{}", strip_tags(&page.body));
        assert!(page.body.contains("value=\"Acme GmbH\""));
        assert!(page.body.contains("value=\"owner@a.example\""));
        assert!(page.body.contains("name=\"plan\" value=\"g-ada\""));
    }

    // A technical member may not give it: the form says whom to ask, and
    // placing is refused in words.
    for (lang, ask) in [
        (
            "en",
            "an owner or billing member fills in its billing profile",
        ),
        ("zh", "需由贵组织的所有者或账务成员填写账单资料"),
    ] {
        let form = app
            .get_as(&tech, &format!("/{lang}/order?plan=g-ada&site=fra"))
            .await;
        assert_eq!(form.status, 200);
        assert!(form.body.contains(ask), "{}", strip_tags(&form.body));
        assert!(!form.body.contains("data-testid=\"change-billing\""));
    }
    let refused = app.place_order(&tech, "g-ada", "fra", &[]).await;
    assert_eq!(refused.status, 409);
    assert!(refused
        .body
        .contains("Fill in your organization’s billing profile first"));

    // A refused profile keeps the way back to the order.
    let bad = app
        .post_as(
            &owner,
            back,
            "/en/billing/profile",
            &profile("", &[("plan", "g-ada"), ("site", "fra")]),
            &[],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(bad.body.contains("name=\"site\" value=\"fra\""));

    // Saved, it continues to the same order, billed read-only.
    let saved = app
        .post_as(
            &owner,
            back,
            "/en/billing/profile",
            &profile("Acme GmbH", &[("plan", "g-ada"), ("site", "fra")]),
            &[],
        )
        .await;
    assert_eq!(saved.location(), "/en/order?plan=g-ada&site=fra");
    let form = app.get_as(&owner, saved.location()).await;
    let text = strip_tags(&form.body);
    for shown in [
        "Billed to",
        "Acme GmbH",
        "Hauptstraße 5",
        "80331 München",
        "Germany",
    ] {
        assert!(text.contains(shown), "{shown}: {text}");
    }
    assert!(text.contains("VAT 19%€45.41"), "{text}");
    assert!(form.body.contains("data-testid=\"change-billing\""));
    assert!(form.body.contains("href=\"/en/billing/profile?plan=g-ada"));
    assert!(
        !form.body.contains("name=\"country\""),
        "no country to choose"
    );
    let tech_form = app.get_as(&tech, "/en/order?plan=g-ada&site=fra").await;
    assert!(strip_tags(&tech_form.body).contains("Owners and billing members can change it."));
    let zh = app.get_as(&owner, "/zh/order?plan=g-ada&site=fra").await;
    assert!(zh.body.contains("购买方") && zh.body.contains("修改账单资料"));

    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    assert!(placed.location().starts_with("/en/servers/"));
    app.finish().await;
}

async fn an_order_never_changes_the_billing_profile(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    assert_eq!(
        selected_countries(&app.get_as(&owner, "/en/billing").await.body),
        ["DE"]
    );
    // A form that still sends a country (a page from before) is billed
    // as the profile says, and the profile stays as it was.
    let placed = app
        .place_order(&owner, "g-ada", "fra", &[("country", "NL")])
        .await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    let orders = strip_tags(&app.get_as(&owner, "/en/orders").await.body);
    assert!(orders.contains("€284.41"), "German VAT: {orders}");
    assert!(!orders.contains("€289.19"), "not Dutch VAT: {orders}");
    let billing = app.get_as(&owner, "/en/billing").await.body;
    assert_eq!(selected_countries(&billing), ["DE"]);
    assert!(billing.contains("value=\"Org A\""));
    let form = app.get_as(&owner, "/en/order?plan=g-ada&site=ams").await;
    assert!(strip_tags(&form.body).contains("Germany"));
    app.finish().await;
}

async fn invoices_bill_the_profile_as_it_was_when_issued(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let owner = app
        .signed_up("owner@a.example", "Owner", "Beispiel GmbH")
        .await;
    let billing = app.invite(&owner, "bill@a.example", "billing").await;
    // A billing member may give the profile.
    let saved = app
        .post_as(
            &billing,
            "/en/billing/profile",
            "/en/billing/profile",
            &profile("Beispiel GmbH", &[]),
            &[],
        )
        .await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));
    let placed = app.place_order(&owner, "g-ada", "fra", &[]).await;
    let server = common::server_id(placed.location());
    app.wait_for_server(&owner, &server).await;
    let list = app
        .wait_for(&billing, "/en/billing", "INV-2026-000001")
        .await;
    let invoice = list
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();

    // A later change applies to later invoices: this one keeps the
    // customer it was issued to.
    app.post_as(
        &billing,
        "/en/billing/profile",
        "/en/billing/profile",
        &profile("Neuer Name AG", &[]),
        &[],
    )
    .await;
    for lang in ["en", "zh"] {
        let page = app
            .get_as(&billing, &format!("/{lang}/invoices/{invoice}"))
            .await;
        let text = strip_tags(&page.body);
        let pdf = billing
            .get(format!("{}/{lang}/invoices/{invoice}/pdf", app.base))
            .send()
            .await
            .expect("the PDF")
            .bytes()
            .await
            .expect("PDF bytes");
        let pdf = pdf_text(&pdf);
        for doc in [&text, &pdf] {
            // The country by its name in the reader's language.
            let country = if lang == "en" { "Germany" } else { "德国" };
            for line in ["Beispiel GmbH", "Hauptstraße 5", "80331 München", country] {
                assert!(doc.contains(line), "{lang} {line}: {doc}");
            }
            assert!(!doc.contains("Neuer Name AG"), "{doc}");
            assert!(!doc.contains("owner@a.example"), "{doc}");
        }
    }
    app.finish().await;
}
