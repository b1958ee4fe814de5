//! Dunning with Stripe as it behaves: an invoice Stripe gave up on
//! (`uncollectible`) is still unpaid; Stripe cancelling after failed
//! retries suspends as the dunning mail promised rather than wiping; an
//! order we failed owes nothing.

use crate::common::{strip_tags, TestDb};
use crate::stripe::{
    deliver_all, env, eventually, now, paid_server, period_end_of, sign_in_again, stripe_app,
    stripe_app_with_clock,
};
use std::time::Duration;

on_both_databases!(
    an_invoice_given_up_on_is_unpaid_until_it_is_paid,
    stripe_giving_up_suspends_until_the_term_ends,
    a_failed_first_payment_leaves_no_invoice_to_pay,
);

/// The renewal fails and Stripe marks it uncollectible before our
/// dunning saw it open: the server still goes past due and is suspended
/// after the grace period. The first, paid invoice applied again
/// (reconciliation) restores nothing; paying what was overdue does.
async fn an_invoice_given_up_on_is_unpaid_until_it_is_paid(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    let page = format!("/en/servers/{server}");
    let end = period_end_of(&double, "sub_test_1");
    clock.advance(end - start + 60);
    double.set_now(clock.now());
    let events = double.renew("sub_test_1", clock.now(), false);
    let failed = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the failed invoice")
        .to_owned();
    // Events arrive in any order: Stripe's giving up first, then the
    // failed payment that led to it.
    let gave_up = double.mark_uncollectible(&failed, clock.now());
    deliver_all(&app, &gave_up, clock.now()).await;
    crate::stripe::stripe_events_applied(&app).await;
    deliver_all(&app, &events, clock.now()).await;
    clock.advance(60);
    sign_in_again(&app, &owner, "owner@a.example").await;
    eventually(&app, &owner, &page, "data-event=\"billing.past_due\"").await;

    clock.advance(15 * 86_400);
    double.set_now(clock.now());
    sign_in_again(&app, &owner, "owner@a.example").await;
    eventually(&app, &owner, &page, "data-event=\"billing.suspended\"").await;
    // Reconciliation applies every invoice again, the first, paid one
    // too: old news, which restores nothing.
    let (ok, out) = app.ops_env(&["stripe", "reconcile"], &env(&double));
    assert!(ok, "{out}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    let body = app.get_as(&owner, &page).await.body;
    assert!(
        !body.contains("data-event=\"billing.restored\""),
        "{}",
        strip_tags(&body)
    );
    deliver_all(&app, &double.pay_invoice(&failed, clock.now()), clock.now()).await;
    eventually(&app, &owner, &page, "data-event=\"billing.restored\"").await;
    app.finish().await;
}

/// Stripe's retries run out and its settings cancel the subscription: the
/// server is suspended now, its data kept, and it ends when the unpaid
/// term does, as the mails promised; it is not wiped at once.
async fn stripe_giving_up_suspends_until_the_term_ends(db: TestDb) {
    let start = now();
    let clock = backend::Clock::manual(start);
    let (app, double) = stripe_app_with_clock(db, clock.clone()).await;
    let (owner, _, server) = paid_server(&app, &double, "owner@a.example", "ams", start).await;
    app.wait_for_server(&owner, &server).await;
    let page = format!("/en/servers/{server}");
    let end = period_end_of(&double, "sub_test_1");
    clock.advance(end - start + 60);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.renew("sub_test_1", clock.now(), false),
        clock.now(),
    )
    .await;
    let term_end = period_end_of(&double, "sub_test_1");
    clock.advance(3 * 86_400);
    double.set_now(clock.now());
    deliver_all(
        &app,
        &double.give_up_at_stripe("sub_test_1", clock.now()),
        clock.now(),
    )
    .await;
    sign_in_again(&app, &owner, "owner@a.example").await;
    let body = eventually(&app, &owner, &page, "data-event=\"billing.suspended\"").await;
    let text = strip_tags(&body);
    assert!(
        text.contains(&domain::time::format_date(term_end)),
        "ends with the term: {text}"
    );
    assert!(
        !body.contains("data-event=\"cancelled\""),
        "not ended now: {text}"
    );
    let mail = app.last_mail("owner@a.example");
    assert!(
        mail.contains("suspended") && mail.contains("kept"),
        "{mail}"
    );
    assert!(
        !mail.contains("will be wiped and its hardware returns"),
        "{mail}"
    );
    app.finish().await;
}

/// A bank debit that fails ends the order; its first invoice, open at
/// Stripe, is voided: nobody owes it, and the billing page says so.
async fn a_failed_first_payment_leaves_no_invoice_to_pay(db: TestDb) {
    let (app, double) = stripe_app(db).await;
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let placed = app.place_order(&owner, "g-ada", "ams", &[]).await;
    assert_eq!(placed.status, 303, "{}", placed.body);
    deliver_all(&app, &double.pay_async("cs_test_1", now(), false), now()).await;
    let invoice = double.invoice_for_subscription("sub_test_1")[0]["id"]
        .as_str()
        .expect("the first invoice")
        .to_owned();
    for _ in 0..150 {
        if double
            .object(&invoice)
            .is_some_and(|i| i["status"] == "void")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        double.object(&invoice).expect("the invoice")["status"],
        "void"
    );
    deliver_all(&app, &double.take_events(), now()).await;
    let billing = eventually(&app, &owner, "/en/billing", "data-status=\"void\"").await;
    assert!(
        !billing.contains("data-status=\"open\""),
        "{}",
        strip_tags(&billing)
    );
    assert_eq!(double.out_of_shape(), Vec::<String>::new());
    app.finish().await;
}
