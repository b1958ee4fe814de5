//! The OpenAPI 3.1 document, generated from the handlers' annotations
//! (utoipa), served at `/api/v1/openapi.json`. A test compares its paths,
//! methods and scopes with the route table, so the two cannot drift.

use axum::response::{IntoResponse, Response};
use axum::Json;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

use super::choices::*;
use super::error::ErrorBody;
use super::ApiRoute;

mod common;

pub fn routes() -> Vec<ApiRoute> {
    vec![ApiRoute::get("/api/v1/openapi.json", None, document)]
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "GPU servers API",
        version = "1",
        description = "Dedicated GPU servers: plans, stock, orders, servers, snapshots and invoices. \
            Human documentation: /en/docs/api (English), /zh/docs/api (中文)."
    ),
    paths(document),
    components(schemas(
        ErrorBody,
        ServerStateChoice,
        BillingStateChoice,
        SnapshotStateChoice,
        OrderStateChoice,
        InvoiceStateChoice,
        VatKindChoice,
        DeliveryStateChoice,
        WindowStateChoice,
        ImageChoice,
        PowerActionChoice,
        CancelReasonChoice,
        ConsoleKindChoice,
        LangChoice,
        PlanChoice,
        SiteChoice,
        ServerNameChoice,
        SnapshotNameChoice
    )),
    modifiers(&BearerTokens),
    tags(
        (name = "catalog", description = "Plans, sites, images, add-ons, stock and latency: public, cacheable"),
        (name = "servers", description = "Servers, power, snapshots, cancellation, consoles"),
        (name = "orders", description = "Quotes, placing and listing orders"),
        (name = "billing", description = "Invoices and credit notes"),
        (name = "alerts", description = "Stock alerts"),
        (name = "account", description = "The token creator's SSH keys"),
        (name = "events", description = "The event feed and signed webhooks"),
    )
)]
pub struct ApiDoc;

/// The bearer scheme every token route names, with its scopes.
struct BearerTokens;

impl Modify for BearerTokens {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The document: this module's part and each capability's (`Doc` in
/// each module lists its own handlers), with what every operation shares
/// (`common.rs`), built once.
pub fn full() -> &'static serde_json::Value {
    static DOCUMENT: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    DOCUMENT.get_or_init(|| {
        use super::{alerts, billing, console, discovery, feed, orders, public, servers};
        use super::{events, snapshots, ssh_keys, stock, webhooks};
        let mut document = ApiDoc::openapi();
        for part in [
            public::Doc::openapi(),
            discovery::Doc::openapi(),
            stock::Doc::openapi(),
            feed::Doc::openapi(),
            servers::Doc::openapi(),
            snapshots::Doc::openapi(),
            console::Doc::openapi(),
            orders::Doc::openapi(),
            billing::Doc::openapi(),
            alerts::Doc::openapi(),
            ssh_keys::Doc::openapi(),
            events::Doc::openapi(),
            webhooks::Doc::openapi(),
        ] {
            document.merge(part);
        }
        let mut document = serde_json::to_value(document).expect("the document is JSON");
        common::complete(&mut document);
        document
    })
}

/// This document.
#[utoipa::path(
    get,
    path = "/api/v1/openapi.json",
    tag = "catalog",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json"))
)]
pub async fn document() -> Response {
    let mut response = Json(full()).into_response();
    response.headers_mut().insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("public, max-age=300"),
    );
    response
}
