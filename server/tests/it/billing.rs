//! Offline billing through the portal: an invoice per server and term with
//! VAT by the EU rules, continuous numbers, credit notes set against the
//! next invoice, overdue servers suspended after the grace period and
//! restored on payment, the monthly CSV, and who may see any of it.

use crate::common::{self, strip_tags, TestApp, TestDb};

on_both_databases!(
    a_running_server_is_invoiced_each_term_with_vat_and_credit,
    the_billing_profile_sets_reverse_charge_and_refuses_bad_vat_ids,
    an_unpaid_invoice_suspends_the_server_after_the_grace_period_until_paid,
    a_rebuild_keeps_a_suspended_servers_network_cut,
    credit_without_a_server_left_is_refunded_by_transfer,
    a_paid_invoice_says_paid_on_with_nothing_due_in_both_languages,
    billing_members_get_invoice_and_credit_note_mail_in_their_language,
    the_csv_export_is_offered_unfiltered_with_periods_as_printed,
    every_country_the_storefront_measures_can_be_billed_outside_eu_vat,
);

/// 2026-11-30 00:53:20 UTC.
const START: i64 = 1_796_000_000;
const DAY: i64 = 86_400;

fn relogin_fields() -> [(&'static str, &'static str); 2] {
    [("email", "owner@a.example"), ("password", common::PASSWORD)]
}

async fn a_running_server_is_invoiced_each_term_with_vat_and_credit(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let billing = app.invite(&owner, "bill@a.example", "billing").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    app.running_server(&owner, &[("name", "billed")]).await;

    // The first term is invoiced as the server starts: G-ADA €239.00 with
    // German VAT for a consumer (19%).
    let body = app
        .wait_for(&billing, "/en/billing", "INV-2026-000001")
        .await;
    let text = strip_tags(&body);
    assert!(text.contains("€284.41"), "{text}");
    let invoice = body
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let doc = app
        .get_as(&billing, &format!("/en/invoices/{invoice}"))
        .await;
    let text = strip_tags(&doc.body);
    assert!(text.contains("G-ADA · Frankfurt · billed"), "{text}");
    assert!(text.contains("VAT 19%€45.41"), "{text}");
    assert!(
        text.contains("Germany"),
        "the country by its name, not its code: {text}"
    );
    assert!(
        text.contains("NL00 TEST 0000 0000 00"),
        "bank details to pay: {text}"
    );
    assert!(app
        .last_mail("owner@a.example")
        .contains("Invoice INV-2026-000001"));
    // The PDF: a real document, in either language.
    for lang in ["en", "zh"] {
        let pdf = billing
            .get(format!("{}/{lang}/invoices/{invoice}/pdf", app.base))
            .send()
            .await
            .expect("the PDF");
        assert_eq!(pdf.status().as_u16(), 200);
        assert_eq!(pdf.headers()["content-type"], "application/pdf");
        let disposition = pdf.headers()["content-disposition"]
            .to_str()
            .unwrap_or_default();
        assert!(
            disposition.ends_with(&format!("-{lang}.pdf\"")),
            "the file name carries the language: {disposition}"
        );
        let bytes = pdf.bytes().await.expect("PDF bytes");
        assert!(bytes.starts_with(b"%PDF-"));
        assert!(bytes.len() < 200_000, "{} bytes", bytes.len());
    }

    // Technical members see no money; another organization sees nothing.
    assert_eq!(app.get_as(&tech, "/en/billing").await.status, 403);
    assert_eq!(
        app.get_as(&tech, &format!("/en/invoices/{invoice}"))
            .await
            .status,
        403
    );
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    assert_eq!(
        app.get_as(&other, &format!("/en/invoices/{invoice}"))
            .await
            .status,
        404
    );

    // Finance issues a €50 credit note; the next term's invoice uses it.
    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await;
    assert!(
        strip_tags(&finance.body).contains("€239.00"),
        "revenue by plan"
    );
    let org_a = finance
        .body
        .split("<option value=\"")
        .skip(1)
        .find(|o| o.contains(">Org A<"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let bad = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/credit",
            &[("organization", &org_a), ("amount", "-5"), ("reason", "x")],
            &[],
        )
        .await;
    assert_eq!(bad.status, 422);
    let credited = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/credit",
            &[
                ("organization", &org_a),
                ("amount", "50"),
                ("reason", "goodwill"),
            ],
            &[],
        )
        .await;
    assert_eq!(credited.location(), "/en/staff/finance?done=credit");
    app.post_as(
        &staff,
        "/en/staff/finance",
        "/en/staff/finance/paid",
        &[
            ("invoice", &invoice),
            ("paid_on", "2026-11-30"),
            ("amount", "284.41"),
        ],
        &[],
    )
    .await;

    // A month later the second term is invoiced, numbered next, with the credit.
    clock.advance(31 * DAY);
    app.post_as(
        &billing,
        "/en/login",
        "/en/login",
        &[("email", "bill@a.example"), ("password", common::PASSWORD)],
        &[],
    )
    .await;
    let body = app
        .wait_for(&billing, "/en/billing", "INV-2026-000002")
        .await;
    let text = strip_tags(&body);
    assert!(
        text.contains("€224.91"),
        "284.41 less the 50.00 credit and its 19% VAT: {text}"
    );
    assert!(text.contains("CN-2026-000001"), "{text}");

    // The month's CSV for accounting.
    let csv = app
        .get_as(&billing, "/en/billing/export?month=2026-12")
        .await;
    assert_eq!(csv.headers["content-type"], "text/csv; charset=utf-8");
    assert!(csv.body.starts_with("number,issued,due,status"));
    assert!(
        csv.body.contains("INV-2026-000002,2026-12-"),
        "{}",
        csv.body
    );
    assert!(
        csv.body.contains(",284.41,59.50,224.91,EUR,"),
        "{}",
        csv.body
    );
    assert!(!csv.body.contains("INV-2026-000001"), "only that month");

    // Issued in error: finance voids it, and it is no longer due. (A month
    // on, the first staff session has ended.)
    let staff = app.staff("finance2@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let second = finance
        .split("name=\"invoice\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let voided = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/void",
            &[
                ("invoice", &second),
                ("reason", "issued in error"),
                ("confirm", "yes"),
            ],
            &[],
        )
        .await;
    assert_eq!(voided.location(), "/en/staff/finance?done=closed");
    let list = app.get_as(&billing, "/en/billing").await.body;
    assert!(
        list.contains("data-invoice=\"INV-2026-000002\" data-status=\"void\""),
        "{}",
        strip_tags(&list)
    );
    app.finish().await;
}

async fn the_billing_profile_sets_reverse_charge_and_refuses_bad_vat_ids(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let profile = |vat: &'static str| {
        [
            ("legal_name", "Beispiel GmbH"),
            ("address", "Hauptstraße 1"),
            ("postal_code", "10115"),
            ("city", "Berlin"),
            ("country", "DE"),
            ("vat_id", vat),
            ("billing_email", "ap@beispiel.example"),
        ]
    };
    let bad = app
        .post_as(
            &owner,
            "/en/billing",
            "/en/billing/profile",
            &profile("DE12345"),
            &[],
        )
        .await;
    assert_eq!(bad.status, 422);
    assert!(bad
        .body
        .contains("doesn’t have the format of the chosen country"));
    assert!(
        bad.body.contains("value=\"Beispiel GmbH\""),
        "what was typed stays"
    );
    let saved = app
        .post_as(
            &owner,
            "/en/billing",
            "/en/billing/profile",
            &profile("de 123 456 789"),
            &[],
        )
        .await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));
    let page = app.get_as(&owner, "/en/billing").await;
    assert!(page.body.contains("value=\"DE123456789\""), "normalised");

    // The order form now prices a German business with a VAT ID: reverse
    // charge, since we are established in the Netherlands.
    let form = app.get_as(&owner, "/en/order?plan=g-ada&site=fra").await;
    let text = strip_tags(&form.body);
    assert!(text.contains("VAT 0%: reverse charge"), "{text}");
    assert!(text.contains("Total per month€239.00"), "{text}");
    assert!(text.contains("Billed to"), "{text}");
    assert!(
        text.contains("Beispiel GmbH"),
        "the profile, read-only: {text}"
    );
    app.running_server(&owner, &[("name", "billed")]).await;
    // The placed order names the same treatment and the country by name.
    let orders = app.get_as(&owner, "/en/orders").await.body;
    let order = orders
        .split("href=\"/en/orders/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    for (lang, treatment, country) in [
        ("en", "VAT 0%: reverse charge", "Germany"),
        ("zh", "反向征收", "德国"),
    ] {
        let page = strip_tags(
            &app.get_as(&owner, &format!("/{lang}/orders/{order}"))
                .await
                .body,
        );
        assert!(page.contains(treatment), "{page}");
        assert!(page.contains(country), "{page}");
        assert!(!page.contains("outside the EU"), "{page}");
    }
    let body = app.wait_for(&owner, "/en/billing", "INV-").await;
    assert!(
        strip_tags(&body).contains("€239.00€239.00"),
        "no VAT: {}",
        strip_tags(&body)
    );
    let invoice = body
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default();
    let doc = strip_tags(
        &app.get_as(&owner, &format!("/en/invoices/{invoice}"))
            .await
            .body,
    );
    assert!(doc.contains("reverse charge"), "{doc}");
    assert!(doc.contains("Beispiel GmbH"), "{doc}");
    assert!(doc.contains("VAT DE123456789"), "{doc}");
    assert!(
        app.last_mail("ap@beispiel.example")
            .contains("Invoice INV-"),
        "billing email gets invoices"
    );
    // Chinese invoice page.
    let zh = app.get_as(&owner, &format!("/zh/invoices/{invoice}")).await;
    assert!(zh.body.contains("反向征收"));
    app.finish().await;
}

async fn an_unpaid_invoice_suspends_the_server_after_the_grace_period_until_paid(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    app.give_billing_profile(&owner, "Org A", "NL", "owner@a.example")
        .await;
    let id = app.running_server(&owner, &[("name", "billed")]).await;
    app.wait_for(&owner, "/en/billing", "INV-2026-000001").await;

    // Due in 14 days; a day later the server is past due and the owner told.
    clock.advance(15 * DAY);
    app.post_as(&owner, "/en/login", "/en/login", &relogin_fields(), &[])
        .await;
    let server = format!("/en/servers/{id}");
    app.wait_for(&owner, &server, "data-event=\"billing.past_due\"")
        .await;
    assert!(app
        .last_mail("owner@a.example")
        .contains("Payment overdue: server billed"));
    let billing = app.get_as(&owner, "/en/billing").await;
    assert!(strip_tags(&billing.body).contains("Overdue"));

    // Seven days of grace, then suspension (data kept).
    clock.advance(8 * DAY);
    app.post_as(&owner, "/en/login", "/en/login", &relogin_fields(), &[])
        .await;
    app.wait_for(&owner, &server, "data-event=\"billing.suspended\"")
        .await;
    assert!(app
        .last_mail("owner@a.example")
        .contains("Server billed is suspended"));
    // A script sees it too.
    let token = crate::common::api::create_token(&app, &owner, "ci", &["read"]).await;
    let api_server = format!("/api/v1/servers/{id}");
    let suspended = app.api_get(&api_server, &token).await.json();
    assert_eq!(suspended["billing_state"], "suspended", "{suspended}");
    assert_eq!(suspended["state"], "running");

    // Finance records the transfer: the server is restored.
    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await;
    let invoice = finance
        .body
        .split("name=\"invoice\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let paid = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/paid",
            &[
                ("invoice", &invoice),
                ("paid_on", "2026-12-20"),
                ("amount", "289.19"),
            ],
            &[],
        )
        .await;
    assert_eq!(paid.location(), "/en/staff/finance?done=paid");
    // The customer gets a receipt.
    let receipt = app
        .wait_for_mail("owner@a.example", "Payment received for invoice INV-")
        .await;
    assert!(
        receipt.contains("We received €289.19 on 2026-12-20 for invoice INV-"),
        "{receipt}"
    );
    let again = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/paid",
            &[
                ("invoice", &invoice),
                ("paid_on", "2026-12-20"),
                ("amount", "289.19"),
            ],
            &[],
        )
        .await;
    assert_eq!(again.status, 404, "paid once");
    let void = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/void",
            &[
                ("invoice", &invoice),
                ("reason", "issued in error"),
                ("confirm", "yes"),
            ],
            &[],
        )
        .await;
    assert_eq!(void.status, 404, "a paid invoice can't be voided");
    app.wait_for(&owner, &server, "data-event=\"billing.restored\"")
        .await;
    let restored = app.api_get(&api_server, &token).await.json();
    assert_eq!(restored["billing_state"], "active", "{restored}");
    let doc = app.get_as(&owner, &format!("/en/invoices/{invoice}")).await;
    assert!(strip_tags(&doc.body).contains("Paid on"));
    app.finish().await;
}

/// A suspended server whose host fails is rebuilt on another host; the
/// install brings that host's network up, and the server must not get it
/// back unpaid: the network follows the billing state, not the job.
async fn a_rebuild_keeps_a_suspended_servers_network_cut(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    app.give_billing_profile(&owner, "Org A", "NL", "owner@a.example")
        .await;
    let id = app.running_server(&owner, &[("name", "billed")]).await;
    app.wait_for(&owner, "/en/billing", "INV-2026-000001").await;
    let server = format!("/en/servers/{id}");
    clock.advance(15 * DAY);
    app.post_as(&owner, "/en/login", "/en/login", &relogin_fields(), &[])
        .await;
    app.wait_for(&owner, &server, "data-event=\"billing.past_due\"")
        .await;
    clock.advance(8 * DAY);
    app.post_as(&owner, "/en/login", "/en/login", &relogin_fields(), &[])
        .await;
    let page = app
        .wait_for(&owner, &server, "data-event=\"network.cut\"")
        .await;
    assert!(strip_tags(&page).contains("Public network cut"));

    let host = app.host_names("fra", "g-ada", "allocated");
    assert_eq!(host.len(), 1, "{host:?}");
    let staff = app.staff("ops@host.example").await;
    let set = app
        .post_as(
            &staff,
            "/en/staff/hosts",
            "/en/staff/hosts/set",
            &[
                ("name", &host[0]),
                ("state", "failed"),
                ("reason", "PSU failed"),
            ],
            &[],
        )
        .await;
    assert_eq!(set.location(), "/en/staff/hosts?done=1");
    let page = app
        .wait_for(&owner, &server, "data-event=\"rebuilt\"")
        .await;
    assert_eq!(
        page.matches("data-event=\"network.cut\"").count(),
        2,
        "the new host's network is cut too"
    );
    assert!(!page.contains("data-event=\"network.restored\""));
    app.finish().await;
}

/// Credit of a customer who has no server (left) has no invoice to go
/// against: finance sees it as a refund due, transfers it and marks it.
async fn credit_without_a_server_left_is_refunded_by_transfer(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.member("owner@a.example", "Owner", "Org A").await;
    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let org = finance
        .split("<option value=\"")
        .skip(1)
        .find(|o| o.contains(">Org A<"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let credited = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/credit",
            &[
                ("organization", &org),
                ("amount", "74.90"),
                ("reason", "SLA"),
            ],
            &[],
        )
        .await;
    assert_eq!(credited.location(), "/en/staff/finance?done=credit");
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let due = finance
        .split("data-refund-due=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    assert!(due.starts_with("CN-"), "{}", strip_tags(&finance));
    assert!(strip_tags(&finance).contains("€74.90"));
    let zh = app.get_as(&staff, "/zh/staff/finance").await.body;
    assert!(zh.contains("待退款"), "translated");
    let marked = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/refunded",
            &[("credit_note", &due)],
            &[],
        )
        .await;
    assert_eq!(marked.location(), "/en/staff/finance?done=refunded");
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    assert!(!finance.contains("data-refund-due="), "paid out");
    // Twice is a 404, not a second payment.
    let again = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/refunded",
            &[("credit_note", &due)],
            &[],
        )
        .await;
    assert_eq!(again.status, 404);
    app.finish().await;
}

/// The first invoice of a running server of Org A: (its id, the list).
async fn first_invoice(app: &TestApp, owner: &reqwest::Client) -> (String, String) {
    app.running_server(owner, &[("name", "billed")]).await;
    let list = app.wait_for(owner, "/en/billing", "INV-2026-000001").await;
    let id = list
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_default()
        .to_owned();
    (id, list)
}

/// The text of an invoice's row in a billing list.
fn invoice_row(list: &str, number: &str) -> String {
    let row = list
        .split(&format!("data-invoice=\"{number}\""))
        .nth(1)
        .and_then(|r| r.split("</tr>").next())
        .unwrap_or_default();
    strip_tags(&format!("<x {row}"))
}

async fn a_paid_invoice_says_paid_on_with_nothing_due_in_both_languages(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let (invoice, list) = first_invoice(&app, &owner).await;
    // Open: the amount due and its due date.
    let open = invoice_row(&list, "INV-2026-000001");
    assert!(open.contains("2026-12-14"), "due date: {open}");
    assert!(open.contains("€284.41€284.41Open"), "{open}");

    let staff = app.staff("finance@host.example").await;
    let paid = app
        .post_as(
            &staff,
            "/en/staff/finance",
            "/en/staff/finance/paid",
            &[
                ("invoice", &invoice),
                ("paid_on", "2026-11-30"),
                ("amount", "284.41"),
            ],
            &[],
        )
        .await;
    assert_eq!(paid.status, 303, "{}", strip_tags(&paid.body));
    for (lang, status) in [("en", "Paid on 2026-11-30"), ("zh", "已于 2026-11-30 付款")] {
        let list = app.get_as(&owner, &format!("/{lang}/billing")).await.body;
        let row = invoice_row(&list, "INV-2026-000001");
        assert!(
            row.contains(&format!("€284.41€0.00{status}")),
            "{lang}: {row}"
        );
        let page = app
            .get_as(&owner, &format!("/{lang}/invoices/{invoice}"))
            .await
            .body;
        let text = strip_tags(&page);
        assert!(text.contains(status), "{lang}: {text}");
        assert!(text.contains("-€284.41"), "{lang}: {text}");
        let due = page
            .split("data-testid=\"invoice-due\"")
            .nth(1)
            .and_then(|r| r.split_once('>'))
            .and_then(|(_, r)| r.split('<').next());
        assert_eq!(due, Some("€0.00"), "{lang}: {page}");
        let pdf = owner
            .get(format!("{}/{lang}/invoices/{invoice}/pdf", app.base))
            .send()
            .await
            .expect("the PDF")
            .bytes()
            .await
            .expect("PDF bytes");
        let pdf = common::billing_profile::pdf_text(&pdf);
        assert!(pdf.contains(status), "{lang}: {pdf}");
        assert!(pdf.contains("€0.00"), "{lang}: {pdf}");
        assert!(!pdf.contains("IBAN"), "nothing to transfer: {pdf}");
    }
    app.finish().await;
}

async fn billing_members_get_invoice_and_credit_note_mail_in_their_language(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    app.chinese_billing_member(&owner, "bill@a.example").await;
    let tech = app.invite(&owner, "tech@a.example", "technical").await;
    drop(tech);
    first_invoice(&app, &owner).await;
    let zh = app
        .wait_for_mail("bill@a.example", "发票 INV-2026-000001")
        .await;
    assert!(zh.contains("应付金额 €284.41"), "{zh}");
    assert!(app
        .last_mail("owner@a.example")
        .contains("Invoice INV-2026-000001"));
    assert!(
        !app.last_mail("tech@a.example").contains("INV-2026-000001"),
        "technical members see no money"
    );

    let staff = app.staff("finance@host.example").await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let org_a = finance
        .split("<option value=\"")
        .skip(1)
        .find(|o| o.contains(">Org A<"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let fields = [
        ("organization", org_a.as_str()),
        ("amount", "50"),
        ("reason", "goodwill"),
    ];
    app.post_as(
        &staff,
        "/en/staff/finance",
        "/en/staff/finance/credit",
        &fields,
        &[],
    )
    .await;
    let zh = app
        .wait_for_mail("bill@a.example", "贷项通知单 CN-2026-000001")
        .await;
    assert!(zh.contains("€50.00") && zh.contains("goodwill"), "{zh}");
    let en = app.last_mail("owner@a.example");
    assert!(en.contains("Credit note CN-2026-000001"), "{en}");
    assert!(en.contains("€50.00"), "{en}");
    app.finish().await;
}

async fn the_csv_export_is_offered_unfiltered_with_periods_as_printed(db: TestDb) {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let (invoice, list) = first_invoice(&app, &owner).await;
    // Without a filter the link exports everything listed.
    assert!(
        list.contains("href=\"/en/billing/export\" data-testid=\"export-csv\""),
        "{}",
        strip_tags(&list)
    );
    assert!(strip_tags(&list).contains("Export all invoices as CSV"));
    let zh = app.get_as(&owner, "/zh/billing").await.body;
    assert!(strip_tags(&zh).contains("导出全部发票（CSV）"));
    let filtered = app.get_as(&owner, "/en/billing?month=2026-11").await.body;
    assert!(filtered.contains("href=\"/en/billing/export?month=2026-11\""));

    // The period as the invoice page prints it: first and last day.
    let page = strip_tags(
        &app.get_as(&owner, &format!("/en/invoices/{invoice}"))
            .await
            .body,
    );
    let printed = page
        .split("Service period")
        .nth(1)
        .map(|p| p.chars().take(23).collect::<String>())
        .unwrap_or_default();
    let (first, last) = printed.split_once(" – ").unwrap_or_default();
    assert_eq!(first, "2026-11-30", "{page}");
    assert_eq!(last, "2026-12-29", "the day before the next term: {page}");
    let response = owner
        .get(format!("{}/en/billing/export", app.base))
        .send()
        .await
        .expect("the CSV");
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers()["content-disposition"],
        "attachment; filename=\"invoices.csv\""
    );
    let csv = response.text().await.expect("CSV text");
    let mut lines = csv.lines();
    let header = lines.next().unwrap_or_default();
    assert!(header.contains(",period_start,period_end,"), "{header}");
    let row = lines.next().unwrap_or_default();
    assert!(row.starts_with("INV-2026-000001,"), "{csv}");
    assert!(row.contains(&format!(",{first},{last},")), "{row}");
    app.finish().await;
}

/// The storefront shows latency from Brazil, Mexico, the UAE, Türkiye,
/// South Africa, Thailand and Indonesia: a customer there can give it as
/// their billing country, and pays no EU VAT (a service exported).
async fn every_country_the_storefront_measures_can_be_billed_outside_eu_vat(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let form = app.get_as(&owner, "/en/billing/profile").await.body;
    for (code, name) in [
        ("BR", "Brazil"),
        ("MX", "Mexico"),
        ("AE", "United Arab Emirates"),
        ("TR", "Türkiye"),
        ("ZA", "South Africa"),
        ("TH", "Thailand"),
        ("ID", "Indonesia"),
    ] {
        assert!(
            form.contains(&format!("<option value=\"{code}\">{name}</option>")),
            "{code} is offered: {form}"
        );
    }
    let zh = app.get_as(&owner, "/zh/billing/profile").await.body;
    assert!(zh.contains(">巴西</option>"), "{zh}");

    app.give_billing_profile(&owner, "Org A Ltda", "BR", "owner@a.example")
        .await;
    for (lang, rule) in [
        ("en", "No EU VAT: a service exported outside the EU"),
        ("zh", "不收欧盟增值税：向欧盟以外出口的服务"),
    ] {
        let order = strip_tags(
            &app.get_as(&owner, &format!("/{lang}/order?plan=g-ada&site=fra"))
                .await
                .body,
        );
        assert!(order.contains(rule), "{order}");
    }
    let order = strip_tags(
        &app.get_as(&owner, "/en/order?plan=g-ada&site=fra")
            .await
            .body,
    );
    assert!(order.contains("Total per month€239.00"), "{order}");
    app.finish().await;
}
