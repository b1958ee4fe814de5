//! Reverse charge is checked, not assumed: a VAT ID is confirmed with VIES
//! when the billing profile is saved and again before an offline invoice.
//! Only a confirmed ID from another EU country is reverse charged; an
//! unregistered one, or one VIES could not check yet, pays VAT and the
//! customer is told why. The development register answers from
//! `backend/fixtures/vies.txt`; the EU's service is played by a double
//! whose answers a test changes.

use crate::common::vies_double::{Reply, ViesDouble};
use crate::common::{self, strip_tags, TestApp, TestDb, PASSWORD};
use backend::billing::vies::{VatIdRegistry, VatIdStatus, ViesRegistry};
use serde_json::json;
use std::time::Duration;

on_both_databases!(
    a_confirmed_vat_id_from_another_eu_country_is_reverse_charged,
    an_unregistered_vat_id_is_saved_marked_and_pays_vat,
    while_vies_cannot_be_reached_the_vat_id_is_unchecked_and_pays_vat,
    an_unchecked_vat_id_is_confirmed_once_vies_answers,
    a_renewal_after_the_vat_id_lapsed_charges_vat_and_mails_owners_and_billing,
    what_vies_says_is_read_before_the_order_not_after,
);

/// 2026-11-30 00:53:20 UTC.
const START: i64 = 1_796_000_000;
const DAY: i64 = 86_400;

/// The EU implementation reads VIES's answers, and every failure to get
/// one (a member state down, an HTTP error, a time-out) is "unavailable",
/// never a verdict on the number.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_eu_registry_reads_vies_and_treats_every_failure_as_unavailable() {
    let double = ViesDouble::start().await;
    double.set("DE123456789", Reply::Valid(Some("BEISPIEL GMBH")));
    double.set("DE811111111", Reply::Valid(None));
    double.set("IT11111111111", Reply::NoAnswer("MS_UNAVAILABLE"));
    double.set("FR12345678901", Reply::NoAnswer("MS_MAX_CONCURRENT_REQ"));
    double.set("DE222222222", Reply::Status(500));
    double.set("DE333333333", Reply::Slow(Duration::from_secs(3)));
    let registry =
        ViesRegistry::with_timeout(&double.url, Duration::from_millis(500)).expect("a VIES client");

    assert_eq!(
        registry.check("DE", "123456789").await.ok(),
        Some(VatIdStatus::Valid {
            name: Some("BEISPIEL GMBH".into())
        })
    );
    assert_eq!(
        double.asked.lock().expect("requests")[0],
        json!({ "countryCode": "DE", "vatNumber": "123456789" }),
        "the prefix goes in countryCode, the rest in vatNumber"
    );
    assert_eq!(
        registry.check("DE", "811111111").await.ok(),
        Some(VatIdStatus::Valid { name: None }),
        "\"---\" is a name kept private"
    );
    assert_eq!(
        registry.check("DE", "999999999").await.ok(),
        Some(VatIdStatus::Invalid)
    );
    for (country, number) in [
        ("IT", "11111111111"),
        ("FR", "12345678901"),
        ("DE", "222222222"),
        ("DE", "333333333"),
    ] {
        let started = std::time::Instant::now();
        let answer = registry.check(country, number).await;
        assert!(answer.is_err(), "{country}{number}: {answer:?}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "the time-out holds"
        );
    }
    // Nobody listening at all.
    let closed = ViesRegistry::new("http://127.0.0.1:9/rest-api").expect("a client");
    assert!(closed.check("DE", "123456789").await.is_err());
}

/// A billing profile with this VAT ID, as a German business.
async fn save_profile(app: &TestApp, browser: &reqwest::Client, vat_id: &str) -> common::Page {
    let fields = [
        ("legal_name", "Beispiel GmbH"),
        ("address", "Hauptstraße 1"),
        ("postal_code", "10115"),
        ("city", "Berlin"),
        ("country", "DE"),
        ("vat_id", vat_id),
        ("billing_email", "ap@beispiel.example"),
    ];
    app.post_as(browser, "/en/billing", "/en/billing/profile", &fields, &[])
        .await
}

/// The text of the billing page's VAT ID status, in a language.
async fn vat_status(app: &TestApp, browser: &reqwest::Client, lang: &str) -> String {
    let body = app.get_as(browser, &format!("/{lang}/billing")).await.body;
    let at = body
        .find("data-testid=\"vat-status\"")
        .unwrap_or_else(|| panic!("no VAT ID status: {}", strip_tags(&body)));
    let end = at + body[at..].find("</p>").unwrap_or(0);
    strip_tags(&format!("<p {}", &body[at..end]))
}

/// The order form's summary for G-ADA in Frankfurt.
async fn order_summary(app: &TestApp, browser: &reqwest::Client) -> String {
    let body = app
        .get_as(browser, "/en/order?plan=g-ada&site=fra")
        .await
        .body;
    let at = body.find("id=\"order-summary\"").expect("a summary");
    let end = at + body[at..].find("</div>").unwrap_or(0);
    strip_tags(&format!("<div {}", &body[at..end]))
}

/// Places an order and answers the total the order records.
async fn order_total(app: &TestApp, browser: &reqwest::Client, name: &str) -> String {
    let page = app
        .place_order(browser, "g-ada", "fra", &[("name", name)])
        .await;
    assert_eq!(page.status, 303, "{}", strip_tags(&page.body));
    let (order, _) = app.newest_order_server(browser).await;
    let body = app
        .get_as(browser, &format!("/en/orders/{order}"))
        .await
        .body;
    body.split("data-testid=\"order-total\">")
        .nth(1)
        .and_then(|r| r.split('<').next())
        .unwrap_or_default()
        .to_owned()
}

async fn a_confirmed_vat_id_from_another_eu_country_is_reverse_charged(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let saved = save_profile(&app, &owner, "DE 123 456 789").await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));

    let en = vat_status(&app, &owner, "en").await;
    assert!(en.starts_with("Confirmed in VIES."), "{en}");
    assert!(en.contains("VIES confirmed DE123456789 on "), "{en}");
    assert!(en.contains("Registered to Beispiel GmbH."), "{en}");
    assert!(
        en.contains("Invoices are reverse charged (0% VAT)."),
        "{en}"
    );
    let zh = vat_status(&app, &owner, "zh").await;
    assert!(
        zh.contains("VIES 已确认") && zh.contains("登记名称：Beispiel GmbH"),
        "{zh}"
    );

    let summary = order_summary(&app, &owner).await;
    assert!(summary.contains("VAT 0%: reverse charge"), "{summary}");
    assert!(summary.contains("Total per month€239.00"), "{summary}");
    assert!(!summary.contains("VAT is charged"), "{summary}");
    assert_eq!(order_total(&app, &owner, "rc-1").await, "€239.00");
    app.finish().await;
}

async fn an_unregistered_vat_id_is_saved_marked_and_pays_vat(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // Well-formed, but one digit off the registered DE123456789.
    let saved = save_profile(&app, &owner, "DE123456780").await;
    assert!(
        saved.location().starts_with("/en/billing?done=profile"),
        "saved all the same: {}",
        strip_tags(&saved.body)
    );
    let page = app.get_as(&owner, "/en/billing").await.body;
    assert!(
        page.contains("value=\"DE123456780\""),
        "nothing typed is lost"
    );
    assert!(page.contains("value=\"Beispiel GmbH\""));

    let en = vat_status(&app, &owner, "en").await;
    assert!(en.starts_with("Not registered in VIES."), "{en}");
    assert!(
        en.contains("DE123456780 is not registered in VIES, the EU’s register of VAT numbers."),
        "{en}"
    );
    assert!(
        en.contains("VAT is charged at the rate for Germany until the VAT ID is corrected."),
        "{en}"
    );
    let zh = vat_status(&app, &owner, "zh").await;
    assert!(zh.contains("增值税号 DE123456780 未在 VIES"), "{zh}");
    assert!(
        zh.contains("在更正增值税号之前，将按德国的税率收取增值税。"),
        "{zh}"
    );

    // German VAT (19%) on the order, and the summary says why.
    let summary = order_summary(&app, &owner).await;
    assert!(summary.contains("VAT 19%€45.41"), "{summary}");
    assert!(summary.contains("Total per month€284.41"), "{summary}");
    assert!(
        summary.contains("VAT is charged: your VAT ID DE123456780 is not registered in VIES."),
        "{summary}"
    );
    assert_eq!(order_total(&app, &owner, "vat-1").await, "€284.41");

    // Corrected, it is confirmed and reverse charged from then on.
    save_profile(&app, &owner, "DE123456789").await;
    let en = vat_status(&app, &owner, "en").await;
    assert!(en.starts_with("Confirmed in VIES."), "{en}");
    let summary = order_summary(&app, &owner).await;
    assert!(summary.contains("Total per month€239.00"), "{summary}");
    app.finish().await;
}

async fn while_vies_cannot_be_reached_the_vat_id_is_unchecked_and_pays_vat(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    // The fixture's German ID whose member state does not answer.
    let saved = save_profile(&app, &owner, "DE111111111").await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));

    let en = vat_status(&app, &owner, "en").await;
    assert!(en.starts_with("Not yet checked."), "{en}");
    assert!(
        en.contains("VIES could not be reached to check DE111111111."),
        "{en}"
    );
    assert!(
        en.contains("VAT is charged at the rate for Germany until the check succeeds; it is retried automatically."),
        "{en}"
    );
    let zh = vat_status(&app, &owner, "zh").await;
    assert!(zh.contains("尚未核实"), "{zh}");
    assert!(
        zh.contains("核实成功之前，将按德国的税率收取增值税；系统会自动重试。"),
        "{zh}"
    );

    let summary = order_summary(&app, &owner).await;
    assert!(summary.contains("VAT 19%€45.41"), "{summary}");
    assert!(
        summary.contains("VIES could not be reached to check your VAT ID DE111111111."),
        "{summary}"
    );
    assert_eq!(order_total(&app, &owner, "wait-1").await, "€284.41");
    app.finish().await;
}

async fn an_unchecked_vat_id_is_confirmed_once_vies_answers(db: TestDb) {
    let vies = ViesDouble::start().await;
    vies.set("DE123456789", Reply::NoAnswer("MS_UNAVAILABLE"));
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_configured(db, clock.clone(), |config| {
        config.vies = Some(server::config::ViesChoice::Eu);
        config.vies_url = vies.url.clone();
    })
    .await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    save_profile(&app, &owner, "DE123456789").await;
    assert!(vat_status(&app, &owner, "en")
        .await
        .starts_with("Not yet checked."));
    assert!(order_summary(&app, &owner)
        .await
        .contains("Total per month€284.41"));

    // VIES is back; the retry five minutes on confirms the ID by itself.
    vies.set("DE123456789", Reply::Valid(Some("BEISPIEL GMBH")));
    let asked = vies.asked();
    clock.advance(301);
    app.wait_for(&owner, "/en/billing", "data-vat-status=\"valid\"")
        .await;
    assert_eq!(vies.asked(), asked + 1, "asked once");
    assert!(vat_status(&app, &owner, "en")
        .await
        .contains("Registered to BEISPIEL GMBH."));
    assert!(order_summary(&app, &owner)
        .await
        .contains("Total per month€239.00"));
    app.finish().await;
}

/// Signs up `email` in Chinese and joins the owner's organization as a
/// billing member.
async fn chinese_billing_member(app: &TestApp, owner: &reqwest::Client, email: &str) {
    app.post_as(
        owner,
        "/en/members",
        "/en/members/invite",
        &[("email", email), ("role", "billing")],
        &[],
    )
    .await;
    let invitation = app.mailed_link(email);
    let browser = app.browser();
    let fields = [
        ("name", "账务"),
        ("email", email),
        ("password", PASSWORD),
        ("company", ""),
        ("lang", "zh"),
    ];
    let page = app
        .post_as(&browser, "/zh/signup", "/zh/signup", &fields, &[])
        .await;
    assert_eq!(page.location(), "/zh/signup?sent=1", "{}", page.body);
    let link = app.mailed_link(email);
    let token = link.split("token=").nth(1).unwrap_or_default().to_owned();
    app.post_as(&browser, &link, "/zh/verify", &[("token", &token)], &[])
        .await;
    let page = app
        .post_as(
            &browser,
            "/zh/login",
            "/zh/login",
            &[("email", email), ("password", PASSWORD)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/zh/servers");
    let token = invitation
        .split("token=")
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let page = app
        .post_as(
            &browser,
            &invitation,
            "/zh/invite",
            &[("token", &token)],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/zh/account?done=joined", "{email} joins");
}

async fn a_renewal_after_the_vat_id_lapsed_charges_vat_and_mails_owners_and_billing(db: TestDb) {
    let vies = ViesDouble::start().await;
    vies.set("DE123456789", Reply::Valid(Some("BEISPIEL GMBH")));
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_configured(db, clock.clone(), |config| {
        config.vies = Some(server::config::ViesChoice::Eu);
        config.vies_url = vies.url.clone();
    })
    .await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    chinese_billing_member(&app, &owner, "zhang@a.example").await;
    save_profile(&app, &owner, "DE123456789").await;

    // The first term, invoiced as the server starts: reverse charged.
    let page = app
        .place_order(&owner, "g-ada", "fra", &[("name", "billed")])
        .await;
    let server = common::server_id(page.location());
    app.wait_for_server(&owner, &server).await;
    let body = app.wait_for(&owner, "/en/billing", "INV-2026-000001").await;
    assert!(
        strip_tags(&body).contains("€239.00€239.00"),
        "{}",
        strip_tags(&body)
    );
    let asked = vies.asked();

    // The business deregisters. The renewal a month on asks VIES again
    // before invoicing and charges German VAT.
    vies.set("DE123456789", Reply::Invalid);
    clock.advance(31 * DAY);
    let owner = app.browser();
    app.post_as(
        &owner,
        "/en/login",
        "/en/login",
        &[("email", "owner@a.example"), ("password", PASSWORD)],
        &[],
    )
    .await;
    let body = app.wait_for(&owner, "/en/billing", "INV-2026-000002").await;
    let text = strip_tags(&body);
    assert!(text.contains("€284.41"), "239.00 + 19% VAT: {text}");
    assert!(vies.asked() > asked, "re-checked before the invoice");
    let second = body
        .split("data-invoice=\"INV-2026-000002\"")
        .nth(1)
        .and_then(|r| r.split("href=\"/en/invoices/").nth(1))
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let doc = strip_tags(
        &app.get_as(&owner, &format!("/en/invoices/{second}"))
            .await
            .body,
    );
    assert!(doc.contains("VAT 19%€45.41"), "{doc}");
    assert!(!doc.contains("reverse charge"), "{doc}");
    assert!(vat_status(&app, &owner, "en")
        .await
        .starts_with("Not registered in VIES."));

    // Owners and billing members are told, each in their language.
    let mail = app
        .wait_for_mail(
            "owner@a.example",
            "VAT ID DE123456789 is not registered in VIES",
        )
        .await;
    assert!(
        mail.contains("from now on, invoices include VAT at the rate for Germany"),
        "{mail}"
    );
    let mail = app
        .wait_for_mail("zhang@a.example", "增值税号 DE123456789 未在 VIES 中登记")
        .await;
    assert!(mail.contains("将按德国的税率收取增值税"), "{mail}");
    app.finish().await;
}

/// Saving the profile on the way to an order checks the VAT ID there and
/// then: a registered name that is not the legal name, or an ID VIES does
/// not confirm, is shown on the profile page before the order, and the
/// order form repeats it; a clean answer goes straight on to the order.
async fn what_vies_says_is_read_before_the_order_not_after(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let on_the_way = |legal_name: &'static str, vat_id: &'static str| {
        [
            ("legal_name", legal_name),
            ("address", "Hauptstraße 1"),
            ("postal_code", "10115"),
            ("city", "Berlin"),
            ("country", "DE"),
            ("vat_id", vat_id),
            ("billing_email", "ap@beispiel.example"),
            ("plan", "g-ada"),
            ("site", "fra"),
        ]
    };
    let profile_page = "/en/billing/profile?plan=g-ada&site=fra";

    // VIES registers DE123456789 to "Beispiel GmbH".
    let saved = app
        .post_as(
            &owner,
            profile_page,
            "/en/billing/profile",
            &on_the_way("Beispiel Holding AG", "DE123456789"),
            &[],
        )
        .await;
    assert_eq!(saved.status, 303, "{}", strip_tags(&saved.body));
    assert_eq!(
        saved.location(),
        "/en/billing/profile?plan=g-ada&site=fra&check=vat#vat-status"
    );
    let page = app.follow(&owner, saved).await;
    let text = strip_tags(&page.body);
    assert!(
        text.contains("Before you go on to your order, read what VIES says"),
        "{text}"
    );
    assert!(
        text.contains("VIES registers it to Beispiel GmbH, not to the legal name above"),
        "{text}"
    );
    let status_tag = page
        .body
        .split("data-testid=\"vat-status\"")
        .nth(1)
        .and_then(|rest| rest.split('>').next())
        .unwrap_or_default();
    assert!(
        !status_tag.contains("notice-ok"),
        "a differing name is not shown as all well: {status_tag}"
    );
    assert!(
        page.body
            .contains("href=\"/en/order?plan=g-ada&amp;site=fra\""),
        "the way on to the order: {}",
        page.body
    );
    let zh = strip_tags(
        &app.get_as(&owner, "/zh/billing/profile?plan=g-ada&site=fra&check=vat")
            .await
            .body,
    );
    assert!(zh.contains("VIES 中登记的名称是 Beispiel GmbH"), "{zh}");
    assert!(zh.contains("继续下单"), "{zh}");
    let summary = order_summary(&app, &owner).await;
    assert!(
        summary.contains(
            "VIES registers your VAT ID DE123456789 to Beispiel GmbH, not to the legal name"
        ),
        "{summary}"
    );
    assert!(summary.contains("VAT 0%: reverse charge"), "{summary}");

    // An ID VIES does not know: the same stop before the order.
    let saved = app
        .post_as(
            &owner,
            profile_page,
            "/en/billing/profile",
            &on_the_way("Beispiel GmbH", "DE123456780"),
            &[],
        )
        .await;
    assert!(
        saved.location().ends_with("&check=vat#vat-status"),
        "{}",
        saved.location()
    );

    // The legal name as registered (VIES's capitals don't matter): on to
    // the order, and no word about the name there.
    let saved = app
        .post_as(
            &owner,
            profile_page,
            "/en/billing/profile",
            &on_the_way("BEISPIEL GMBH", "DE123456789"),
            &[],
        )
        .await;
    assert_eq!(saved.location(), "/en/order?plan=g-ada&site=fra");
    let summary = order_summary(&app, &owner).await;
    assert!(!summary.contains("VIES registers"), "{summary}");
    app.finish().await;
}
