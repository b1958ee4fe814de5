//! The Stripe customer and the keys of our requests, as Stripe holds
//! them: the customer (whose name, address, VAT ID and reverse charge
//! Stripe prints on the invoices it sends) follows the billing profile;
//! an Idempotency-Key names one request body, so a retry after a lost
//! answer is either the same request or a new key.

use crate::common::stripe_double::StripeDouble;
use crate::common::{strip_tags, TestDb};
use crate::stripe::{deliver_all, now, paid_server, stripe_app, stripe_app_with_clock};
use serde_json::Value;

on_both_databases!(
    a_lost_checkout_answer_is_asked_again_under_a_key_of_its_own,
    the_stripe_customer_follows_the_billing_profile,
);

/// Stripe opened the Checkout Session but every answer to it was lost.
/// Six minutes later the customer pays again: the hold was extended, so
/// the session asked for now ends later, a different request, which must
/// not reuse the first one's key (Stripe refuses that: idempotency_error).
/// The first session, never shown to anyone, expires without taking the
/// order's hold with it.
async fn a_lost_checkout_answer_is_asked_again_under_a_key_of_its_own(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    double.lose_answers("/v1/checkout/sessions", 10);
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    // The order stands; its page says the payment could not start.
    let location = placed.location().to_owned();
    let order = location
        .strip_prefix("/en/orders/")
        .and_then(|rest| rest.strip_suffix("?checkout=unavailable"))
        .unwrap_or_else(|| panic!("{location}: {}", strip_tags(&placed.body)))
        .to_owned();
    let page = app.get_as(&owner, &location).await.body;
    assert!(
        strip_tags(&page).contains("Stripe could not be reached"),
        "{}",
        strip_tags(&page)
    );
    assert!(double.object("cs_test_1").is_some(), "Stripe made it");
    double.lose_answers("/v1/checkout/sessions", 0);

    clock.advance(6 * 60);
    double.set_now(clock.now());
    let page = format!("/en/orders/{order}");
    let paid = app
        .post_as(&owner, &page, &format!("{page}/pay"), &[], &[])
        .await;
    assert_eq!(
        paid.location(),
        "https://checkout.stripe.test/pay/cs_test_2",
        "{}",
        strip_tags(&paid.body)
    );
    let sessions = double.calls("/v1/checkout/sessions");
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert_ne!(sessions[0]["expires_at"], sessions[1]["expires_at"]);
    assert_eq!(double.created("customer"), 1, "one customer, found again");

    // The lost session runs out first: the order still holds its host,
    // and the session the customer was sent to provisions the server.
    let first_expires = double.object("cs_test_1").expect("the first session")["expires_at"]
        .as_i64()
        .expect("its end");
    clock.advance(first_expires - clock.now() + 1);
    double.set_now(clock.now());
    deliver_all(&app, &double.expire("cs_test_1", clock.now()), clock.now()).await;
    deliver_all(&app, &double.pay("cs_test_2", clock.now()), clock.now()).await;
    let (_, server) = app.newest_order_server(&owner).await;
    app.wait_for_server(&owner, &server).await;
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}

/// The customer is created with nothing but our organization's id, then
/// brought up to the profile; every later profile change (and VIES's
/// verdict) reaches Stripe: name, address, the VAT ID, and reverse charge
/// with its legal wording on the invoices Stripe renders.
async fn the_stripe_customer_follows_the_billing_profile(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", now()).await;
    app.wait_for_server(&owner, &server).await;
    let created = double.calls("/v1/customers");
    assert!(
        created[0].keys().all(|k| k.starts_with("metadata[")),
        "created from our id alone: {created:?}"
    );
    let customer = double.object("cus_test_1").expect("the customer");
    assert_eq!(customer["name"], "Org A");
    assert_eq!(customer["tax_exempt"], "none");

    // A VAT ID VIES confirms, from Germany, billed from the Netherlands.
    let profile = |vat_id: &'static str| {
        [
            ("legal_name", "Beispiel GmbH"),
            ("address", "Hauptstraße 1"),
            ("postal_code", "10115"),
            ("city", "Berlin"),
            ("country", "DE"),
            ("vat_id", vat_id),
            ("billing_email", "ap@beispiel.example"),
        ]
    };
    let saved = app
        .post_as(
            &owner,
            "/en/billing",
            "/en/billing/profile",
            &profile("DE123456789"),
            &[],
        )
        .await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));
    let customer = customer_when(&double, |d| {
        d.object("cus_test_1")
            .is_some_and(|c| c["tax_exempt"] == "reverse")
            && tax_ids(d) == ["DE123456789"]
    })
    .await;
    assert_eq!(customer["name"], "Beispiel GmbH");
    assert_eq!(customer["email"], "ap@beispiel.example");
    assert_eq!(customer["address"]["city"], "Berlin");
    let footer = customer["invoice_settings"]["footer"]
        .as_str()
        .unwrap_or_default();
    assert!(
        footer.contains("Reverse charge") && footer.contains("反向征收"),
        "{footer}"
    );
    assert_eq!(tax_ids(&double), ["DE123456789"]);

    // The next invoice Stripe renders names the buyer's VAT ID, and the
    // mirror keeps it.
    deliver_all(&app, &double.renew("sub_test_1", now(), true), now()).await;
    let invoice = double.invoice_for_subscription("sub_test_1")[0].clone();
    assert_eq!(invoice["customer_tax_exempt"], "reverse");
    assert_eq!(invoice["customer_tax_ids"][0]["value"], "DE123456789");
    let number = invoice["number"].as_str().unwrap_or_default().to_owned();
    let billing = crate::stripe::eventually(&app, &owner, "/en/billing", &number).await;
    let id = billing
        .split("href=\"/en/invoices/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .expect("the newest invoice's page")
        .to_owned();
    let page = app.get_as(&owner, &format!("/en/invoices/{id}")).await.body;
    assert!(
        strip_tags(&page).contains("DE123456789"),
        "{}",
        strip_tags(&page)
    );

    // The VAT ID removed: VAT again, no tax id left at Stripe.
    let saved = app
        .post_as(
            &owner,
            "/en/billing",
            "/en/billing/profile",
            &profile(""),
            &[],
        )
        .await;
    assert!(saved.location().starts_with("/en/billing?done=profile"));
    let customer = customer_when(&double, |d| {
        d.object("cus_test_1")
            .is_some_and(|c| c["tax_exempt"] == "none")
            && tax_ids(d).is_empty()
    })
    .await;
    assert!(customer["invoice_settings"]["footer"].is_null());
    assert!(tax_ids(&double).is_empty());
    assert_eq!(double.created("customer"), 1);
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}

/// The customer once `wanted` holds of the double (the update is a job).
async fn customer_when(double: &StripeDouble, wanted: impl Fn(&StripeDouble) -> bool) -> Value {
    for _ in 0..150 {
        if wanted(double) {
            return double.object("cus_test_1").expect("the customer");
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!(
        "the customer never changed: {} {:?}",
        double.object("cus_test_1").unwrap_or_default(),
        tax_ids(double)
    );
}

/// The customer's tax ids' values.
fn tax_ids(double: &StripeDouble) -> Vec<String> {
    double
        .tax_ids_of("cus_test_1")
        .iter()
        .filter_map(|t| t["value"].as_str().map(str::to_owned))
        .collect()
}
