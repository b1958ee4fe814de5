//! The API page's reference tables: scopes, error codes and every
//! endpoint, in the order of the contract (`/api/v1/openapi.json` is the
//! machine-readable twin).

use leptos::prelude::*;

use super::prose;
use crate::i18n::api_docs::ApiDocs;

/// A table that scrolls sideways inside its own box on a phone.
fn scrolling(
    label: &'static str,
    class: &'static str,
    head: AnyView,
    rows: AnyView,
) -> impl IntoView {
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=label>
            <table class=class>
                <thead>{head}</thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

#[component]
pub fn ScopesTable(t: &'static ApiDocs) -> impl IntoView {
    let rows = [
        ("read", &t.scope_read),
        ("servers:write", &t.scope_servers_write),
        ("billing:read", &t.scope_billing_read),
    ]
    .into_iter()
    .map(|(scope, s)| {
        view! {
            <tr>
                <th scope="row"><code>{scope}</code></th>
                <td>{s.allows}</td>
                <td>{s.granted_by}</td>
            </tr>
        }
    })
    .collect_view();
    let head = view! {
        <tr>
            <th scope="col">{t.col_scope}</th>
            <th scope="col">{t.col_allows}</th>
            <th scope="col">{t.col_granted_by}</th>
        </tr>
    };
    scrolling(
        t.scopes_heading,
        "api-table",
        head.into_any(),
        rows.into_any(),
    )
}

#[component]
pub fn ErrorsTable(t: &'static ApiDocs) -> impl IntoView {
    let e = &t.errors;
    let rows = [
        (400, "bad_request", e.bad_request),
        (400, "malformed_body", e.malformed_body),
        (400, "invalid_cursor", e.invalid_cursor),
        (400, "idempotency_key_required", e.idempotency_key_required),
        (401, "unauthorized", e.unauthorized),
        (401, "token_expired", e.token_expired),
        (401, "token_revoked", e.token_revoked),
        (401, "token_creator_lost_role", e.token_creator_lost_role),
        (403, "insufficient_scope", e.insufficient_scope),
        (404, "not_found", e.not_found),
        (405, "method_not_allowed", e.method_not_allowed),
        (409, "conflict", e.conflict),
        (409, "busy", e.busy),
        (409, "idempotency_key_in_use", e.idempotency_key_in_use),
        (409, "not_cancellable", e.not_cancellable),
        (409, "console_unavailable", e.console_unavailable),
        (413, "too_large", e.too_large),
        (415, "unsupported_media_type", e.unsupported_media_type),
        (422, "invalid", e.invalid),
        (422, "invalid_name", e.invalid_name),
        (422, "idempotency_key_reused", e.idempotency_key_reused),
        (422, "unknown_choice", e.unknown_choice),
        (422, "bad_ssh_key", e.bad_ssh_key),
        (422, "sold_out", e.sold_out),
        (422, "no_billing_profile", e.no_billing_profile),
        (422, "daily_order_limit", e.daily_order_limit),
        (422, "snapshot_quota_full", e.snapshot_quota_full),
        (422, "snapshots_not_offered", e.snapshots_not_offered),
        (
            422,
            "root_password_reset_not_offered",
            e.root_password_reset_not_offered,
        ),
        (429, "rate_limited", e.rate_limited),
        (500, "internal", e.internal),
        (503, "unavailable", e.unavailable),
    ]
    .into_iter()
    .map(|(status, code, meaning)| {
        view! {
            <tr id=format!("error-{code}")>
                <td>{status}</td>
                <th scope="row"><code>{code}</code></th>
                <td>{prose(meaning)}</td>
            </tr>
        }
    })
    .collect_view();
    let head = view! {
        <tr>
            <th scope="col">{t.col_status}</th>
            <th scope="col">{t.col_code}</th>
            <th scope="col">{t.col_meaning}</th>
        </tr>
    };
    scrolling(
        t.errors_heading,
        "api-table",
        head.into_any(),
        rows.into_any(),
    )
}

#[component]
pub fn EndpointsTable(t: &'static ApiDocs) -> impl IntoView {
    let n = &t.endpoints;
    const WRITE: Option<&str> = Some("servers:write");
    const READ: Option<&str> = Some("read");
    const BILLING: Option<&str> = Some("billing:read");
    let rows = [
        ("GET", "/plans", None, n.plans),
        ("GET", "/stock", None, n.stock),
        ("GET", "/stock/feed.atom", None, n.stock_feed),
        ("GET", "/sites", None, n.sites),
        ("GET", "/images", None, n.images),
        ("GET", "/add-ons", None, n.addons),
        ("GET", "/latency", None, n.latency),
        ("GET", "/openapi.json", None, n.openapi),
        ("GET", "/servers", READ, n.servers),
        ("GET", "/servers/{id}", READ, n.server),
        ("GET", "/servers/{id}/snapshots", READ, n.snapshots),
        (
            "GET",
            "/servers/{id}/snapshots/{snapshot_id}",
            READ,
            n.snapshot,
        ),
        ("GET", "/orders", READ, n.orders),
        ("GET", "/orders/{id}", READ, n.order),
        ("POST", "/quotes", READ, n.quote),
        ("GET", "/ssh-keys", READ, n.ssh_keys),
        ("GET", "/ssh-keys/{id}", READ, n.ssh_key),
        ("POST", "/ssh-keys", WRITE, n.ssh_key_add),
        ("DELETE", "/ssh-keys/{id}", WRITE, n.ssh_key_delete),
        ("GET", "/stock-alerts", READ, n.stock_alerts),
        ("GET", "/stock-alerts/{id}", READ, n.stock_alert),
        ("POST", "/stock-alerts", WRITE, n.stock_alert_create),
        ("DELETE", "/stock-alerts/{id}", WRITE, n.stock_alert_delete),
        ("POST", "/orders", WRITE, n.order_create),
        ("PATCH", "/servers/{id}", WRITE, n.server_rename),
        ("POST", "/servers/{id}/power", WRITE, n.server_power),
        ("POST", "/servers/{id}/reinstall", WRITE, n.server_reinstall),
        (
            "POST",
            "/servers/{id}/root-password",
            WRITE,
            n.root_password_reset,
        ),
        (
            "POST",
            "/servers/{id}/root-password/take",
            WRITE,
            n.root_password_take,
        ),
        ("POST", "/servers/{id}/snapshots", WRITE, n.snapshot_take),
        (
            "POST",
            "/servers/{id}/snapshots/{snapshot_id}/restore",
            WRITE,
            n.snapshot_restore,
        ),
        (
            "DELETE",
            "/servers/{id}/snapshots/{snapshot_id}",
            WRITE,
            n.snapshot_delete,
        ),
        (
            "POST",
            "/servers/{id}/cancellation",
            WRITE,
            n.cancellation_schedule,
        ),
        (
            "DELETE",
            "/servers/{id}/cancellation",
            WRITE,
            n.cancellation_revoke,
        ),
        (
            "POST",
            "/servers/{id}/console-tickets",
            WRITE,
            n.console_ticket,
        ),
        ("GET", "/invoices", BILLING, n.invoices),
        ("GET", "/invoices/{id}", BILLING, n.invoice),
        ("GET", "/invoices/{id}/pdf", BILLING, n.invoice_pdf),
        ("GET", "/credit-notes", BILLING, n.credit_notes),
        ("GET", "/events", READ, n.events),
        ("GET", "/webhooks", READ, n.webhooks),
        ("POST", "/webhooks", WRITE, n.webhook_create),
        ("GET", "/webhooks/{id}", READ, n.webhook),
        ("PATCH", "/webhooks/{id}", WRITE, n.webhook_update),
        ("DELETE", "/webhooks/{id}", WRITE, n.webhook_delete),
        ("POST", "/webhooks/{id}/secret", WRITE, n.webhook_secret),
        ("POST", "/webhooks/{id}/ping", WRITE, n.webhook_ping),
        (
            "GET",
            "/webhooks/{id}/deliveries",
            READ,
            n.webhook_deliveries,
        ),
        (
            "POST",
            "/webhooks/{id}/deliveries/{delivery_id}/resend",
            WRITE,
            n.webhook_resend,
        ),
    ]
    .into_iter()
    .map(|(method, path, scope, what)| {
        let scope = match scope {
            Some(scope) => view! { <code>{scope}</code> }.into_any(),
            None => t.scope_public.into_any(),
        };
        view! {
            <tr>
                <td><code>{method}</code></td>
                <th scope="row"><code>{path}</code></th>
                <td>{scope}</td>
                <td>{prose(what)}</td>
            </tr>
        }
    })
    .collect_view();
    let head = view! {
        <tr>
            <th scope="col">{t.col_method}</th>
            <th scope="col">{t.col_path}</th>
            <th scope="col">{t.col_scope}</th>
            <th scope="col">{t.col_what}</th>
        </tr>
    };
    scrolling(
        t.endpoints_heading,
        "api-table api-endpoints",
        head.into_any(),
        rows.into_any(),
    )
}
