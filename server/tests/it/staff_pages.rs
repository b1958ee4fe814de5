//! The staff area: a home linking every staff page (and each page linking
//! back), language switches that stay in the staff area, and finance
//! settling invoices by hand: a payment with its date and amount, void and
//! write-off confirmed with a reason, each stored, shown and audited, with
//! the customer named by its legal name.

use crate::common::{server_id, strip_tags, TestApp, TestDb};

on_both_databases!(
    the_staff_home_links_every_staff_page_and_refuses_everyone_else,
    the_language_switch_on_every_staff_page_stays_in_the_staff_area,
    marking_paid_takes_the_payment_date_and_amount_received,
    void_and_write_off_need_a_confirmation_and_a_reason,
);

/// 2026-11-30 00:53:20 UTC.
const START: i64 = 1_796_000_000;
/// The legal name on Acme's billing profile; the organization is "Acme".
const LEGAL_NAME: &str = "Acme Research GmbH";

/// An organization with invoiced servers, and a staff member.
struct Billed {
    app: TestApp,
    staff: reqwest::Client,
}

/// Acme (billed as Acme Research GmbH, a German consumer) runs `servers`
/// G-ADA servers, each invoiced €284.41 (€239.00 + 19% VAT).
async fn billed(db: TestDb, servers: usize) -> Billed {
    let app = TestApp::spawn_with_clock(db, backend::Clock::manual(START)).await;
    let owner = app.member("owner@acme.example", "Owner", "Acme").await;
    app.give_billing_profile(&owner, LEGAL_NAME, "DE", "ap@acme.example")
        .await;
    for n in 1..=servers {
        let name = format!("train-{n}");
        let page = app
            .place_order(&owner, "g-ada", "fra", &[("name", &name)])
            .await;
        app.wait_for_server(&owner, &server_id(page.location()))
            .await;
    }
    app.wait_for(&owner, "/en/billing", &format!("INV-2026-{servers:06}"))
        .await;
    let staff = app.staff("finance@host.example").await;
    Billed { app, staff }
}

/// The id of an open invoice on the finance page, by its number.
fn open_invoice_id(finance: &str, number: &str) -> String {
    finance
        .split(&format!("data-invoice=\"{number}\""))
        .nth(1)
        .and_then(|card| card.split("name=\"invoice\" value=\"").nth(1))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned()
}

/// The row of a settled invoice on the finance page, as text.
fn settled_row(finance: &str, number: &str) -> String {
    let row = finance
        .split(&format!("data-settled=\"{number}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_default();
    format!("{row} {}", strip_tags(&format!("<x {row}")))
}

/// Where the page's language switch leads (attributes in any order).
fn switch_href(body: &str) -> String {
    let tag = body
        .split("<a ")
        .find(|tag| {
            tag.split('>')
                .next()
                .is_some_and(|t| t.contains("data-testid=\"lang-switch\""))
        })
        .unwrap_or_default();
    tag.split("href=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned()
}

async fn the_staff_home_links_every_staff_page_and_refuses_everyone_else(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@acme.example", "Owner", "Acme").await;
    let staff = app.staff("ops@host.example").await;

    let home = app.get_as(&staff, "/en/staff").await;
    assert_eq!(home.status, 200);
    // Every staff page without an id in its address, read from the routes.
    let pages: Vec<String> = server::startup::route_inventory()
        .into_iter()
        .filter(|(method, path)| {
            method == "GET" && path.starts_with("/{lang}/staff/") && !path[7..].contains('{')
        })
        .map(|(_, path)| path.replace("{lang}", "en"))
        .collect();
    assert!(pages.len() >= 5, "{pages:?}");
    for page in &pages {
        assert!(
            home.body.contains(&format!("href=\"{page}\"")),
            "the home links {page}"
        );
        // And every one of them links back home, in the staff menu.
        let body = app.get_as(&staff, page).await.body;
        let menu = body
            .split("class=\"portal-nav staff-nav\"")
            .nth(1)
            .and_then(|nav| nav.split("</nav>").next())
            .unwrap_or_default();
        assert!(menu.contains("href=\"/en/staff\""), "{page}: {menu}");
        assert!(
            menu.contains(&format!("href=\"{page}\" aria-current=\"page\"")),
            "{page} is current: {menu}"
        );
    }
    assert!(home.body.contains("href=\"/en/staff/hosts#maintenance\""));
    let text = strip_tags(&home.body);
    assert!(text.contains("Outbox (development)"), "{text}");
    assert!(
        text.contains("0 unpaid invoices (€0.00 to collect), 0 of them overdue."),
        "{text}"
    );
    assert!(text.contains("Free: "), "hosts by state: {text}");
    let zh = strip_tags(&app.get_as(&staff, "/zh/staff").await.body);
    assert!(zh.contains("员工首页"), "{zh}");
    assert!(
        zh.contains("0 张未付发票（待收 €0.00），其中 0 张逾期。"),
        "{zh}"
    );

    // Customers are not allowed in; visitors are asked to log in.
    assert_eq!(app.get_as(&owner, "/en/staff").await.status, 403);
    let visitor = app.get_as(&app.browser(), "/en/staff").await;
    assert!(visitor.location().starts_with("/en/login"));
    app.finish().await;
}

async fn the_language_switch_on_every_staff_page_stays_in_the_staff_area(db: TestDb) {
    let Billed { app, staff } = billed(db, 1).await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let invoice = open_invoice_id(&finance, "INV-2026-000001");
    assert!(!invoice.is_empty(), "{}", strip_tags(&finance));
    let pages = [
        "/staff".to_owned(),
        "/staff/hosts".to_owned(),
        "/staff/orders".to_owned(),
        "/staff/finance".to_owned(),
        "/staff/outbox".to_owned(),
        "/staff/audit".to_owned(),
        format!("/staff/finance/invoices/{invoice}"),
    ];
    for (lang, other) in [("en", "zh"), ("zh", "en")] {
        for rest in &pages {
            let page = app.get_as(&staff, &format!("/{lang}{rest}")).await;
            assert_eq!(page.status, 200, "/{lang}{rest}");
            assert_eq!(
                switch_href(&page.body),
                format!("/{other}{rest}"),
                "the switch on /{lang}{rest}"
            );
            assert!(
                page.body.contains(&format!("href=\"/{lang}/staff\"")),
                "/{lang}{rest} links the staff home"
            );
        }
    }

    // The home counts what needs a look: the server's host, its invoice.
    let home = strip_tags(&app.get_as(&staff, "/en/staff").await.body);
    assert!(home.contains("Allocated: 1"), "{home}");
    assert!(
        home.contains("1 unpaid invoice (€284.41 to collect), 0 of them overdue."),
        "{home}"
    );
    app.finish().await;
}

async fn marking_paid_takes_the_payment_date_and_amount_received(db: TestDb) {
    let Billed { app, staff } = billed(db, 1).await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    // Finance knows the customer by its legal name, not by an email.
    assert!(
        finance.contains(&format!("data-customer=\"{LEGAL_NAME}\"")),
        "{}",
        strip_tags(&finance)
    );
    assert!(!finance.contains("owner@acme.example"));
    assert!(!finance.contains("ap@acme.example"));
    let invoice = open_invoice_id(&finance, "INV-2026-000001");

    let pay = |lang: &'static str, fields: Vec<(&'static str, &'static str)>| {
        let (app, staff, invoice) = (&app, &staff, invoice.clone());
        async move {
            let mut form = vec![("invoice", invoice.as_str())];
            form.extend(fields);
            app.post_as(
                staff,
                &format!("/{lang}/staff/finance"),
                &format!("/{lang}/staff/finance/paid"),
                &form,
                &[],
            )
            .await
        }
    };
    let refusals = [
        (
            "en",
            vec![],
            "Enter the payment date as on the bank statement",
        ),
        ("zh", vec![], "请按银行流水填写付款日期"),
        (
            "en",
            vec![("paid_on", "2026-12-01"), ("amount", "284.41")],
            "The payment date can’t be after today.",
        ),
        (
            "en",
            vec![("paid_on", "2026-11-29"), ("amount", "284.41")],
            "The payment date can’t be before the invoice date.",
        ),
        (
            "zh",
            vec![("paid_on", "2026-11-29"), ("amount", "284.41")],
            "付款日期不能早于开票日期。",
        ),
        (
            "en",
            vec![("paid_on", "2026-11-30")],
            "Enter the amount received in euros",
        ),
        (
            "en",
            vec![("paid_on", "2026-11-30"), ("amount", "280")],
            "The amount received isn’t the amount due (€284.41).",
        ),
        (
            "zh",
            vec![("paid_on", "2026-11-30"), ("amount", "280")],
            "实收金额与应付金额（€284.41）不符。",
        ),
        (
            "en",
            vec![
                ("paid_on", "2026-11-30"),
                ("amount", "280"),
                ("amount_differs", "yes"),
            ],
            "Give the reason",
        ),
    ];
    for (lang, fields, error) in refusals {
        let page = pay(lang, fields.clone()).await;
        assert_eq!(page.status, 422, "{fields:?}");
        assert!(
            page.body.contains(error),
            "{fields:?}: {}",
            strip_tags(&page.body)
        );
        // The invoice's form opens again with what was typed.
        if let Some((_, amount)) = fields.iter().find(|(name, _)| *name == "amount") {
            assert!(page.body.contains(&format!("value=\"{amount}\"")));
        }
    }
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    assert!(
        finance.contains("data-invoice=\"INV-2026-000001\""),
        "still open"
    );

    // A bank fee was deducted: finance records what arrived, and why.
    let paid = pay(
        "en",
        vec![
            ("paid_on", "2026-11-30"),
            ("amount", "280.00"),
            ("amount_differs", "yes"),
            ("reason", "bank fee deducted"),
        ],
    )
    .await;
    assert_eq!(paid.location(), "/en/staff/finance?done=paid");
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    assert!(
        !finance.contains("data-invoice=\"INV-2026-000001\""),
        "settled"
    );
    let row = settled_row(&finance, "INV-2026-000001");
    for shown in [
        "data-status=\"paid\"",
        LEGAL_NAME,
        "2026-11-30",
        "€280.00 / €284.41",
        "bank fee deducted",
        "staff:finance@host.example",
    ] {
        assert!(row.contains(shown), "{shown}: {row}");
    }
    let zh = strip_tags(&app.get_as(&staff, "/zh/staff/finance").await.body);
    assert!(zh.contains("手动结清的发票"), "{zh}");
    let audit = app.get_as(&staff, "/en/staff/audit").await.body;
    assert!(
        audit.contains(
            "INV-2026-000001: €280.00 received on 2026-11-30 (€284.41 due); bank fee deducted"
        ),
        "{}",
        strip_tags(&audit)
    );
    // Once paid, it can't be paid again.
    let again = pay("en", vec![("paid_on", "2026-11-30"), ("amount", "284.41")]).await;
    assert_eq!(again.status, 404);
    app.finish().await;
}

async fn void_and_write_off_need_a_confirmation_and_a_reason(db: TestDb) {
    let Billed { app, staff } = billed(db, 2).await;
    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let first = open_invoice_id(&finance, "INV-2026-000001");
    let second = open_invoice_id(&finance, "INV-2026-000002");
    let close = |lang: &'static str,
                 action: &'static str,
                 invoice: String,
                 fields: Vec<(&'static str, &'static str)>| {
        let (app, staff) = (&app, &staff);
        async move {
            let mut form = vec![("invoice", invoice.as_str())];
            form.extend(fields);
            app.post_as(
                staff,
                &format!("/{lang}/staff/finance"),
                &format!("/{lang}/staff/finance/{action}"),
                &form,
                &[],
            )
            .await
        }
    };
    for action in ["void", "uncollectible"] {
        let refusals = [
            ("en", vec![("confirm", "yes")], "Give the reason"),
            (
                "zh",
                vec![("confirm", "yes"), ("reason", "  ")],
                "请填写原因",
            ),
            (
                "en",
                vec![("reason", "sent twice")],
                "Tick the confirmation",
            ),
            (
                "zh",
                vec![("reason", "sent twice")],
                "请勾选确认后再关闭发票。",
            ),
        ];
        for (lang, fields, error) in refusals {
            let page = close(lang, action, first.clone(), fields.clone()).await;
            assert_eq!(page.status, 422, "{action} {fields:?}");
            assert!(
                page.body.contains(error),
                "{action} {fields:?}: {}",
                strip_tags(&page.body)
            );
        }
    }

    let voided = close(
        "en",
        "void",
        first,
        vec![
            ("reason", "issued twice for one server"),
            ("confirm", "yes"),
        ],
    )
    .await;
    assert_eq!(voided.location(), "/en/staff/finance?done=closed");
    let written_off = close(
        "zh",
        "uncollectible",
        second,
        vec![("reason", "客户已破产"), ("confirm", "yes")],
    )
    .await;
    assert_eq!(written_off.location(), "/zh/staff/finance?done=closed");

    let finance = app.get_as(&staff, "/en/staff/finance").await.body;
    let void = settled_row(&finance, "INV-2026-000001");
    for shown in [
        "data-status=\"void\"",
        "Void",
        LEGAL_NAME,
        "issued twice for one server",
    ] {
        assert!(void.contains(shown), "{shown}: {void}");
    }
    let written_off = settled_row(&finance, "INV-2026-000002");
    for shown in ["data-status=\"uncollectible\"", "Written off", "客户已破产"] {
        assert!(written_off.contains(shown), "{shown}: {written_off}");
    }
    let audit = app.get_as(&staff, "/en/staff/audit").await.body;
    for detail in [
        "INV-2026-000001: €284.41 not collected; issued twice for one server",
        "INV-2026-000002: €284.41 not collected; 客户已破产",
    ] {
        assert!(audit.contains(detail), "{detail}: {}", strip_tags(&audit));
    }
    app.finish().await;
}
