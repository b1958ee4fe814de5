//! The authorization matrix: every route of the application, requested by
//! each kind of caller, gets exactly the answer in its row. A route without
//! a row fails the test, so new routes must say who may use them.
//!
//! Callers: anonymous; `other` (owner of another organization); technical,
//! billing and owner members of organization A; staff (no organization).

use crate::common::{self, TestApp, TestDb};
use std::collections::BTreeSet;

on_both_databases!(every_route_answers_each_caller_as_its_row_says);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Want {
    /// 200 with the page.
    Ok,
    /// 303 to a path starting with this.
    Redirect(&'static str),
    Status(u16),
}

use Want::{Ok, Redirect, Status};

const LOGIN: Want = Redirect("/en/login");
const DENIED: Want = Status(403);
const ACCOUNT: Want = Redirect("/en/account");

/// (method, route pattern, concrete path, form fields, [anonymous, other, technical, billing, owner, staff]).
/// Field values may name `{tech}` (A's technical member), `{org_a}` and `{caller}`;
/// paths may name `{order_a}`, `{server_a}` and `{invoice_a}` (A's owner's order)
/// and `{support_a}` (a billing support request of A's owner).
type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
    [Want; 6],
);

#[rustfmt::skip]
const ROWS: &[Row] = &[
    ("GET", "/{lang}", "/en", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    (
        "GET",
        "/{lang}/configure",
        "/en/configure?plan=g-ada&site=fra",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    // Storefront frame (issue 16): the footer's pages, cached for everyone.
    ("GET", "/{lang}/support", "/en/support", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    ("GET", "/{lang}/terms", "/en/terms", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    ("GET", "/{lang}/privacy", "/en/privacy", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    ("GET", "/{lang}/imprint", "/en/imprint", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    // The API's documentation (issue 14): a storefront page.
    ("GET", "/{lang}/docs/api", "/en/docs/api", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    (
        "GET",
        "/{lang}/login",
        "/en/login",
        &[],
        // Signed in, "Log in" leads to the account (issue 16, storefront frame).
        [Ok, ACCOUNT, ACCOUNT, ACCOUNT, ACCOUNT, ACCOUNT],
    ),
    (
        "GET",
        "/{lang}/signup",
        "/en/signup",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/verify",
        "/en/verify?token=x",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/forgot",
        "/en/forgot",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/reset",
        "/en/reset?token=x",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/invite",
        "/en/invite?token=x",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/account",
        "/en/account",
        &[],
        [LOGIN, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "GET",
        "/{lang}/members",
        "/en/members",
        &[],
        [LOGIN, Ok, DENIED, DENIED, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/audit",
        "/en/audit",
        &[],
        [LOGIN, Ok, DENIED, DENIED, Ok, DENIED],
    ),
    // The log as CSV, with the page's filters: owners only.
    ("GET", "/{lang}/audit/export", "/en/audit/export", &[], [LOGIN, Ok, DENIED, DENIED, Ok, DENIED]),
    ("GET", "/{lang}/staff", "/en/staff", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    ("GET", "/{lang}/staff/outbox", "/en/staff/outbox", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    ("GET", "/{lang}/account/2fa", "/en/account/2fa", &[], [LOGIN, Ok, Ok, Ok, Ok, Ok]),
    ("POST", "/{lang}/account/2fa", "/en/account/2fa", &[("code", "000000")], [LOGIN, Status(401), Status(401), Status(401), Status(401), Status(401)]),
    ("POST", "/{lang}/account/2fa/disable", "/en/account/2fa/disable", &[("password", "wrong wrong wrong"), ("code", "000000")], [LOGIN, Status(401), Status(401), Status(401), Status(401), Status(401)]),
    // Without a password step just passed, the code step sends to the login.
    ("GET", "/{lang}/login/code", "/en/login/code", &[], [LOGIN; 6]),
    ("POST", "/{lang}/login/code", "/en/login/code", &[("code", "000000")], [LOGIN; 6]),
    ("GET", "/{lang}/email", "/en/email?token=x", &[], [Ok, Ok, Ok, Ok, Ok, Ok]),
    ("POST", "/{lang}/email", "/en/email", &[("token", "nope")], [Status(422); 6]),
    ("POST", "/{lang}/account/email", "/en/account/email", &[("email", "new@x.example"), ("current", "wrong wrong wrong")], [LOGIN, Status(401), Status(401), Status(401), Status(401), Status(401)]),
    ("POST", "/{lang}/account/delete", "/en/account/delete", &[("current", "wrong wrong wrong")], [LOGIN, Status(401), Status(401), Status(401), Status(401), Status(401)]),
    ("GET", "/{lang}/staff/audit", "/en/staff/audit", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    // Acting on organization A's technical member: `other` is refused
    // because that member is not in their organization.
    (
        "POST",
        "/{lang}/members/{action}",
        "/en/members/role",
        &[("user_id", "{tech}"), ("role", "technical")],
        [
            LOGIN,
            Status(404),
            DENIED,
            DENIED,
            Redirect("/en/members?done=role"),
            DENIED,
        ],
    ),
    (
        "POST",
        "/{lang}/account/organization",
        "/en/account/organization",
        &[("organization", "{org_a}")],
        [
            LOGIN,
            DENIED,
            Redirect("/en/account"),
            Redirect("/en/account"),
            Redirect("/en/account"),
            DENIED,
        ],
    ),
    (
        "POST",
        "/{lang}/account/password",
        "/en/account/password",
        &[
            ("current", "wrong wrong wrong"),
            ("password", "amber lantern meadow"),
            ("repeat", "amber lantern meadow"),
        ],
        [LOGIN, Status(401), Status(401), Status(401), Status(401), Status(401)],
    ),
    (
        "POST",
        "/{lang}/invite",
        "/en/invite",
        &[("token", "nope")],
        [LOGIN, Status(422), Status(422), Status(422), Status(422), Status(422)],
    ),
    (
        "POST",
        "/{lang}/signup",
        "/en/signup",
        &[("name", "X"), ("email", "bad-{caller}"), ("password", "x")],
        [Status(422); 6],
    ),
    (
        "POST",
        "/{lang}/login",
        "/en/login",
        &[
            ("email", "nobody-{caller}@example.com"),
            ("password", "wrong wrong wrong"),
        ],
        [Status(401); 6],
    ),
    (
        "POST",
        "/{lang}/verify",
        "/en/verify",
        &[("token", "nope")],
        [Status(422); 6],
    ),
    (
        "POST",
        "/{lang}/forgot",
        "/en/forgot",
        &[("email", "nobody-{caller}@example.com")],
        [Redirect("/en/forgot?sent=1"); 6],
    ),
    (
        "POST",
        "/{lang}/reset",
        "/en/reset",
        &[("token", "nope"), ("password", "amber lantern meadow")],
        [Status(422); 6],
    ),
    (
        "GET",
        "/{lang}/order",
        "/en/order?plan=g-ada&site=fra",
        &[],
        [LOGIN, Ok, Ok, DENIED, Ok, DENIED],
    ),
    (
        "POST",
        "/{lang}/order",
        "/en/order",
        &[("intent", "update"), ("plan", "g-ada"), ("site", "fra"), ("country", "NL")],
        [LOGIN, Ok, Ok, DENIED, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/orders",
        "/en/orders",
        &[],
        [LOGIN, Ok, Ok, Ok, Ok, DENIED],
    ),
    // Placed by A's owner: technical members see only their own orders.
    (
        "GET",
        "/{lang}/orders/{id}",
        "/en/orders/{order_a}",
        &[],
        [LOGIN, Status(404), Status(404), Ok, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/servers",
        "/en/servers",
        &[],
        [LOGIN, Ok, Ok, DENIED, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/servers/{id}",
        "/en/servers/{server_a}",
        &[],
        [LOGIN, Status(404), Ok, DENIED, Ok, DENIED],
    ),
    // The server page's tabs: each its own address, the same access.
    ("GET", "/{lang}/servers/{id}/graphs", "/en/servers/{server_a}/graphs", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    ("GET", "/{lang}/servers/{id}/snapshots", "/en/servers/{server_a}/snapshots", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    ("GET", "/{lang}/servers/{id}/console", "/en/servers/{server_a}/console", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    ("GET", "/{lang}/servers/{id}/power", "/en/servers/{server_a}/power", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    ("GET", "/{lang}/servers/{id}/cancellation", "/en/servers/{server_a}/cancellation", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    (
        "GET",
        "/{lang}/servers/{id}/progress",
        "/en/servers/{server_a}/progress",
        &[],
        [LOGIN, Status(404), Ok, DENIED, Ok, DENIED],
    ),
    (
        "POST",
        "/{lang}/servers/{id}/rename",
        "/en/servers/{server_a}/rename",
        &[("name", "renamed-by-{caller}")],
        [
            LOGIN,
            Status(404),
            Redirect("/en/servers/"),
            DENIED,
            Redirect("/en/servers/"),
            DENIED,
        ],
    ),
    // The root password, once (technical takes it; the owner then sees the
    // page without it).
    // The password waits for the server's page (post/redirect/get); the
    // reveal's address opened as a page leads there too.
    ("POST", "/{lang}/servers/{id}/reveal", "/en/servers/{server_a}/reveal", &[], [LOGIN, Status(404), Redirect("/en/servers/"), DENIED, Redirect("/en/servers/"), DENIED]),
    ("GET", "/{lang}/servers/{id}/reveal", "/en/servers/{server_a}/reveal", &[], [LOGIN, Status(404), Redirect("/en/servers/"), DENIED, Redirect("/en/servers/"), DENIED]),
    // Unconfirmed: the server page again with the error; another
    // organization's server is not found even then.
    ("POST", "/{lang}/servers/{id}/power/reboot", "/en/servers/{server_a}/power/reboot", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/power/power_cycle", "/en/servers/{server_a}/power/power_cycle", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/power/power_off", "/en/servers/{server_a}/power/power_off", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/power/power_on", "/en/servers/{server_a}/power/power_on", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    // A reinstall without the name typed: the page again with the error.
    ("POST", "/{lang}/servers/{id}/reinstall", "/en/servers/{server_a}/reinstall", &[("image", "debian-13")], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    // Root password reset (issue 17): the server's team only; unconfirmed is 422.
    ("POST", "/{lang}/servers/{id}/root-password", "/en/servers/{server_a}/root-password", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/cancellation", "/en/servers/{server_a}/cancellation", &[], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    // Nothing scheduled: nothing to take back.
    ("POST", "/{lang}/servers/{id}/cancellation/revoke", "/en/servers/{server_a}/cancellation/revoke", &[], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    ("POST", "/{lang}/servers/{id}/snapshots", "/en/servers/{server_a}/snapshots", &[("name", "")], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/snapshots/restore", "/en/servers/{server_a}/snapshots/restore", &[("snapshot", "nope")], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    ("POST", "/{lang}/servers/{id}/snapshots/delete", "/en/servers/{server_a}/snapshots/delete", &[("snapshot", "nope")], [LOGIN, Status(404), Status(422), DENIED, Status(422), DENIED]),
    // The snapshots' states for the tab's script: 404 for another
    // organization's server.
    ("GET", "/{lang}/servers/{id}/snapshots/progress", "/en/servers/{server_a}/snapshots/progress", &[], [LOGIN, Status(404), Ok, DENIED, Ok, DENIED]),
    ("POST", "/{lang}/servers/{id}/maintenance-accept", "/en/servers/{server_a}/maintenance-accept", &[("window", "nope")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    ("POST", "/{lang}/servers/{id}/maintenance-propose", "/en/servers/{server_a}/maintenance-propose", &[("window", "nope"), ("at", "2030-01-01 10:00")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    (
        "GET",
        "/{lang}/servers/{id}/console/{kind}",
        "/en/servers/{server_a}/console/serial",
        &[],
        [LOGIN, Status(404), Ok, DENIED, Ok, DENIED],
    ),
    // A console ticket (JSON): A's technical members only.
    (
        "POST",
        "/{lang}/servers/{id}/console/{kind}",
        "/en/servers/{server_a}/console/vnc",
        &[],
        [LOGIN, Status(404), Ok, DENIED, Ok, DENIED],
    ),
    // The tunnel itself: without a ticket and an Origin, nobody.
    (
        "GET",
        "/{lang}/servers/{id}/console/{kind}/ws",
        "/en/servers/{server_a}/console/vnc/ws",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, DENIED],
    ),
    (
        "GET",
        "/{lang}/keys",
        "/en/keys",
        &[],
        [LOGIN, Ok, Ok, DENIED, Ok, DENIED],
    ),
    (
        "POST",
        "/{lang}/keys/add",
        "/en/keys/add",
        &[("public_key", "not a key")],
        [LOGIN, Status(422), Status(422), DENIED, Status(422), DENIED],
    ),
    // Keys are the user's own: another's id is not found.
    ("POST", "/{lang}/keys/delete", "/en/keys/delete", &[("id", "nope")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    // API tokens (issue 14): every member, within their own organization.
    ("GET", "/{lang}/tokens", "/en/tokens", &[], [LOGIN, Ok, Ok, Ok, Ok, DENIED]),
    // Creating redirects to the page that shows the secret once; billing
    // may not give `read`.
    (
        "POST",
        "/{lang}/tokens",
        "/en/tokens",
        &[("name", "matrix {caller}"), ("scope", "read"), ("expires", "30")],
        [LOGIN, Redirect("/en/tokens"), Redirect("/en/tokens"), Status(422), Redirect("/en/tokens"), DENIED],
    ),
    // An unknown token, or another organization's, is not found.
    (
        "POST",
        "/{lang}/tokens/revoke",
        "/en/tokens/revoke",
        &[("id", "nope"), ("confirm", "yes")],
        [LOGIN, Status(404), Status(404), Status(404), Status(404), DENIED],
    ),
    // Webhooks (issue 29): owners and technical members; another
    // organization's endpoint (or none) is not found.
    ("GET", "/{lang}/webhooks", "/en/webhooks", &[], [LOGIN, Ok, Ok, DENIED, Ok, DENIED]),
    (
        "POST",
        "/{lang}/webhooks",
        "/en/webhooks",
        &[("url", "ftp://not.example/"), ("events", "server.*")],
        [LOGIN, Status(422), Status(422), DENIED, Status(422), DENIED],
    ),
    ("POST", "/{lang}/webhooks/ping", "/en/webhooks/ping", &[("id", "nope")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    ("POST", "/{lang}/webhooks/roll", "/en/webhooks/roll", &[("id", "nope")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    ("POST", "/{lang}/webhooks/toggle", "/en/webhooks/toggle", &[("id", "nope")], [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED]),
    (
        "POST",
        "/{lang}/webhooks/delete",
        "/en/webhooks/delete",
        &[("id", "nope"), ("confirm", "yes")],
        [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED],
    ),
    (
        "POST",
        "/{lang}/webhooks/resend",
        "/en/webhooks/resend",
        &[("id", "nope"), ("delivery", "nope")],
        [LOGIN, Status(404), Status(404), DENIED, Status(404), DENIED],
    ),
    // Support requests (issue 15): every member, within the categories
    // their role sees. `{support_a}` is a billing request of A's owner: a
    // technical member doesn't see it, nor does another organization.
    ("GET", "/{lang}/support/requests", "/en/support/requests", &[], [LOGIN, Ok, Ok, Ok, Ok, DENIED]),
    ("GET", "/{lang}/support/requests/new", "/en/support/requests/new?category=scaling", &[], [LOGIN, Ok, Ok, Ok, Ok, DENIED]),
    (
        "POST",
        "/{lang}/support/requests",
        "/en/support/requests",
        &[("category", "account"), ("subject", "matrix {caller}"), ("body", "hello")],
        [LOGIN, Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), DENIED],
    ),
    ("GET", "/{lang}/support/requests/{id}", "/en/support/requests/{support_a}", &[], [LOGIN, Status(404), Status(404), Ok, Ok, DENIED]),
    (
        "POST",
        "/{lang}/support/requests/{id}/reply",
        "/en/support/requests/{support_a}/reply",
        &[("body", "matrix reply from {caller}")],
        [LOGIN, Status(404), Status(404), Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), DENIED],
    ),
    (
        "POST",
        "/{lang}/support/requests/{id}/close",
        "/en/support/requests/{support_a}/close",
        &[("confirm", "yes")],
        [LOGIN, Status(404), Status(404), Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), DENIED],
    ),
    (
        "POST",
        "/{lang}/support/requests/{id}/reopen",
        "/en/support/requests/{support_a}/reopen",
        &[],
        [LOGIN, Status(404), Status(404), Redirect("/en/support/requests/"), Redirect("/en/support/requests/"), DENIED],
    ),
    // Staff support (issue 15): staff only, for every organization's
    // requests; members are refused whatever the request.
    ("GET", "/{lang}/staff/support", "/en/staff/support?state=open&category=billing", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    ("GET", "/{lang}/staff/support/{id}", "/en/staff/support/{support_a}", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    ("POST", "/{lang}/staff/support/{id}/reply", "/en/staff/support/{support_a}/reply", &[("body", " ")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(422)]),
    ("POST", "/{lang}/staff/support/{id}/note", "/en/staff/support/no-such-request/note", &[("body", "matrix note")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/support/{id}/assign", "/en/staff/support/{support_a}/assign", &[("to", "")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Redirect("/en/staff/support/")]),
    ("POST", "/{lang}/staff/support/{id}/close", "/en/staff/support/no-such-request/close", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    // Anyone may ask for a stock alert and use an unsubscribe link.
    (
        "POST",
        "/{lang}/alerts",
        "/en/alerts",
        &[("email", "alert-{caller}@example.com"), ("plan", "g-l40s-x2"), ("site", "tyo")],
        [Redirect("/en/configure?plan=g-l40s-x2&site=tyo&alert=1"); 6],
    ),
    (
        "GET",
        "/{lang}/alerts/unsubscribe",
        "/en/alerts/unsubscribe?token=x",
        &[],
        [Ok, Ok, Ok, Ok, Ok, Ok],
    ),
    (
        "POST",
        "/{lang}/alerts/unsubscribe",
        "/en/alerts/unsubscribe",
        &[("token", "nope")],
        [Redirect("/en/alerts/unsubscribe?done=0"); 6],
    ),
    (
        "GET",
        "/{lang}/staff/hosts",
        "/en/staff/hosts",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok],
    ),
    // Staff forms on the hosts page: refused for want of a real host (or a
    // count), so nothing changes.
    ("POST", "/{lang}/staff/hosts/add", "/en/staff/hosts/add", &[("site", "fra"), ("plan", "g-ada"), ("count", "0")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(422)]),
    ("POST", "/{lang}/staff/hosts/set", "/en/staff/hosts/set", &[("name", "no-such-host"), ("state", "free")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/hosts/degrade", "/en/staff/hosts/degrade", &[("name", "no-such-host"), ("reason", "fan")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/hosts/propose", "/en/staff/hosts/propose", &[("name", "no-such-host"), ("at", "2030-01-01 10:00"), ("hours", "2")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/hosts/confirm", "/en/staff/hosts/confirm", &[("window", "nope")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(409)]),
    // Hosts' BMCs (issue 18): no such host, so no BMC is set or read.
    ("POST", "/{lang}/staff/hosts/bmc", "/en/staff/hosts/bmc", &[("host", "no-such-host"), ("url", "https://10.20.0.15"), ("user", "fleet"), ("password", "pw")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/hosts/check", "/en/staff/hosts/check", &[("host", "no-such-host")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(409)]),
    // A host's own page with its history (issue 18): a host of the demo
    // inventory, which every test app racks.
    ("GET", "/{lang}/staff/hosts/{name}", "/en/staff/hosts/ams-g-ada-001", &[], [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok]),
    (
        "GET",
        "/{lang}/staff/orders",
        "/en/staff/orders",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok],
    ),
    (
        "GET",
        "/{lang}/billing",
        "/en/billing",
        &[],
        [LOGIN, Ok, DENIED, Ok, Ok, DENIED],
    ),
    // Billing profile (issue 17): its own page, before the first order.
    (
        "GET",
        "/{lang}/billing/profile",
        "/en/billing/profile",
        &[],
        [LOGIN, Ok, DENIED, Ok, Ok, DENIED],
    ),
    (
        "POST",
        "/{lang}/billing/profile",
        "/en/billing/profile",
        &[("legal_name", ""), ("country", "DE")],
        [LOGIN, Status(422), DENIED, Status(422), Status(422), DENIED],
    ),
    (
        "GET",
        "/{lang}/billing/export",
        "/en/billing/export?month=2026-11",
        &[],
        [LOGIN, Ok, DENIED, Ok, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/invoices/{id}",
        "/en/invoices/{invoice_a}",
        &[],
        [LOGIN, Status(404), DENIED, Ok, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/staff/finance",
        "/en/staff/finance",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok],
    ),
    // Finance forms: no such invoice or credit note, or no amount.
    // Staff finance: settling needs the payment's date and amount, or a confirmed reason.
    ("POST", "/{lang}/staff/finance/paid", "/en/staff/finance/paid", &[("invoice", "no-such-invoice"), ("paid_on", "2026-01-02"), ("amount", "10")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/finance/void", "/en/staff/finance/void", &[("invoice", "no-such-invoice"), ("reason", "error"), ("confirm", "yes")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/finance/uncollectible", "/en/staff/finance/uncollectible", &[("invoice", "no-such-invoice"), ("reason", "bankrupt"), ("confirm", "yes")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/finance/refunded", "/en/staff/finance/refunded", &[("credit_note", "no-such-note")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(404)]),
    ("POST", "/{lang}/staff/finance/credit", "/en/staff/finance/credit", &[("organization", "{org_a}"), ("amount", "0"), ("reason", "goodwill")], [LOGIN, DENIED, DENIED, DENIED, DENIED, Status(422)]),
    (
        "GET",
        "/{lang}/staff/finance/invoices/{id}",
        "/en/staff/finance/invoices/{invoice_a}",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok],
    ),
    (
        "POST",
        "/{lang}/billing/portal",
        "/en/billing/portal",
        &[],
        [
            LOGIN,
            Redirect("/en/billing"),
            DENIED,
            Redirect("/en/billing"),
            Redirect("/en/billing"),
            DENIED,
        ],
    ),
    // Already paid: back to the order.
    (
        "POST",
        "/{lang}/orders/{id}/pay",
        "/en/orders/{order_a}/pay",
        &[],
        [
            LOGIN,
            Status(404),
            Redirect("/en/orders/"),
            DENIED,
            Redirect("/en/orders/"),
            DENIED,
        ],
    ),
    (
        "GET",
        "/{lang}/invoices/{id}/pdf",
        "/en/invoices/{invoice_a}/pdf",
        &[],
        [LOGIN, Status(404), DENIED, Ok, Ok, DENIED],
    ),
    (
        "GET",
        "/{lang}/staff/finance/invoices/{id}/pdf",
        "/en/staff/finance/invoices/{invoice_a}/pdf",
        &[],
        [LOGIN, DENIED, DENIED, DENIED, DENIED, Ok],
    ),
    // Organization and navigation (issue 17): signing up from an
    // invitation; a used or unknown link is refused for everyone alike.
    (
        "POST",
        "/{lang}/invite/signup",
        "/en/invite/signup",
        &[("token", "nope"), ("name", "N"), ("password", "amber lantern meadow")],
        [Status(422); 6],
    ),
    // The islands' server functions (issue 16): the configurator's quote is
    // public; the order quote only for roles that may order, priced for
    // the caller's own organization (staff have none). Called as the
    // browser does, same-origin (see the loop below).
    (
        "POST",
        "/api/quote",
        "/api/quote",
        &[("lang", "En"), ("plan", "g-ada"), ("site", "fra")],
        [Ok; 6],
    ),
    (
        "POST",
        "/api/order-quote",
        "/api/order-quote",
        &[("lang", "En"), ("plan", "g-ada"), ("site", "fra")],
        [DENIED, Ok, Ok, DENIED, Ok, DENIED],
    ),
    // Last: it ends the sessions.
    (
        "POST",
        "/{lang}/logout",
        "/en/logout",
        &[],
        [Redirect("/en/login?done=logout"); 6],
    ),
];

async fn every_route_answers_each_caller_as_its_row_says(db: TestDb) {
    let routes: BTreeSet<(String, String)> =
        server::startup::route_inventory().into_iter().collect();
    let rows: BTreeSet<(String, String)> = ROWS
        .iter()
        .map(|r| (r.0.to_owned(), r.1.to_owned()))
        .collect();
    let missing: Vec<_> = routes.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&routes).collect();
    assert!(
        missing.is_empty(),
        "routes without a row in the authorization matrix: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "rows for routes that no longer exist: {stale:?}"
    );

    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@a.example", "Owner A", "Org A").await;
    let other = app.member("owner@b.example", "Owner B", "Org B").await;
    let joined = [
        app.invite(&owner, "tech@a.example", "technical").await,
        app.invite(&owner, "bill@a.example", "billing").await,
    ];
    let members = app.get_as(&owner, "/en/members").await.body;
    let tech_id = {
        let at = members
            .find("data-member=\"tech@a.example\"")
            .expect("tech row");
        let rest = &members[at..];
        let v = &rest[rest.find("name=\"user_id\" value=\"").expect("id") + 22..];
        v.split('"').next().unwrap_or_default().to_owned()
    };
    let account = app.get_as(&joined[0], "/en/account").await.body;
    let org_a = account
        .split("<option value=\"")
        .skip(1)
        .find(|o| o.contains("\" selected"))
        .and_then(|o| o.split('"').next())
        .unwrap_or_default()
        .to_owned();
    let staff = app.staff("ops@host.example").await;
    // An order and its server in organization A, placed by its owner.
    let placed = app
        .place_order(&owner, "g-ada", "ams", &[("name", "a-box")])
        .await;
    let server_a = common::server_id(placed.location());
    let server_page = app
        .get_as(&owner, &format!("/en/servers/{server_a}"))
        .await
        .body;
    let order_a = server_page
        .split("href=\"/en/orders/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned();
    assert!(!order_a.is_empty() && !server_a.is_empty());
    // Its first invoice, issued once the server runs.
    app.wait_for_server(&owner, &server_a).await;
    let mut invoice_a = String::new();
    for _ in 0..100 {
        let billing = app.get_as(&owner, "/en/billing").await.body;
        if let Some(id) = billing
            .split("href=\"/en/invoices/")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
        {
            invoice_a = id.to_owned();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(!invoice_a.is_empty(), "the first invoice");
    // A billing support request of A's owner.
    let opened = app
        .post_as(
            &owner,
            "/en/support/requests/new",
            "/en/support/requests",
            &[
                ("category", "billing"),
                ("subject", "Matrix invoice"),
                ("body", "hello"),
            ],
            &[],
        )
        .await;
    let support_a = opened
        .location()
        .trim_start_matches("/en/support/requests/")
        .split('?')
        .next()
        .unwrap_or_default()
        .to_owned();
    assert!(!support_a.is_empty(), "{}", opened.body);
    let callers = [
        app.browser(),
        other,
        joined[0].clone(),
        joined[1].clone(),
        owner,
        staff,
    ];
    let names = [
        "anonymous",
        "other",
        "technical",
        "billing",
        "owner",
        "staff",
    ];
    assert_eq!(callers.len(), ROWS[0].4.len(), "one caller per column");

    // `other` sees its own organization, never A's.
    let seen = app.get_as(&callers[1], "/en/members").await.body;
    assert!(seen.contains("owner@b.example") && !seen.contains("tech@a.example"));
    let seen = app.get_as(&callers[1], "/en/audit").await.body;
    assert!(!seen.contains("owner@a.example") && !seen.contains("tech@a.example"));

    // Staff see every organization's trail.
    let all = app.get_as(&callers[5], "/en/staff/audit").await.body;
    assert!(
        all.contains("owner@a.example")
            && all.contains("owner@b.example")
            && all.contains("staff.created")
    );

    let mut failures = Vec::new();
    for (method, _, path, fields, wants) in ROWS {
        let path = &path
            .replace("{order_a}", &order_a)
            .replace("{server_a}", &server_a)
            .replace("{invoice_a}", &invoice_a)
            .replace("{support_a}", &support_a);
        for (i, caller) in callers.iter().enumerate() {
            let fields: Vec<(&str, String)> = fields
                .iter()
                .map(|(k, v)| {
                    (
                        *k,
                        v.replace("{tech}", &tech_id)
                            .replace("{org_a}", &org_a)
                            .replace("{caller}", names[i]),
                    )
                })
                .collect();
            let page = if *method == "GET" {
                app.get_as(caller, path).await
            } else {
                let refs: Vec<(&str, &str)> =
                    fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
                // Server functions answer only same-origin calls, as a
                // browser's fetch makes them.
                let same_origin = [
                    ("origin", app.base.as_str()),
                    ("sec-fetch-site", "same-origin"),
                ];
                let headers: &[(&str, &str)] = if path.starts_with("/api/") {
                    &same_origin
                } else {
                    &[]
                };
                app.post_as(caller, "/en/login", path, &refs, headers).await
            };
            let got = match page.status {
                200 => Ok,
                303 => Redirect(""),
                s => Status(s),
            };
            let matches = match wants[i] {
                Redirect(prefix) => got == Redirect("") && page.location().starts_with(prefix),
                want => got == want,
            };
            if !matches {
                failures.push(format!(
                    "{method} {path} as {}: wanted {:?}, got {} {}",
                    names[i],
                    wants[i],
                    page.status,
                    page.location()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    app.finish().await;
}
