//! What a page knows about the request it renders: the language, the
//! storefront facts the server read for it, and the site's public address.

use domain::latency::LatencyRow;
use domain::{Catalog, Lang, StockSnapshot};
use leptos::prelude::*;
use std::sync::Arc;

/// Everything the storefront shows that can change while we run: catalog,
/// stock and latency, read once for a request (or reused while unchanged).
#[derive(Clone, Debug, Default)]
pub struct StorefrontFacts {
    pub catalog: Arc<Catalog>,
    pub stock: StockSnapshot,
    pub latency: Arc<Vec<LatencyRow>>,
}

/// Deployment facts pages need: canonical URLs and whether estimates may be
/// shown in place of measurements.
#[derive(Clone, Debug)]
pub struct SiteInfo {
    /// `https://gpu.example.com`, without a trailing slash.
    pub base_url: String,
    pub development: bool,
    pub company: Company,
}

/// The company behind the site, from configuration (`SELLER_*`,
/// `SUPPORT_EMAIL`): the imprint, the legal pages and the support page show
/// it, so a deployment never publishes someone else's details.
#[derive(Clone, Debug, Default)]
pub struct Company {
    pub legal_name: String,
    /// One line, as on invoices.
    pub address: String,
    /// Where the company is registered, with its number.
    pub register: String,
    pub vat_id: String,
    /// Where customers write to support.
    pub support_email: String,
}

/// Placeholders for the moment stock was confirmed. The server replaces them
/// on every response, so a cached page still says when stock was checked.
pub const READ_AT_ISO: &str = "__STOCK_READ_AT_ISO__";
pub const READ_AT_TEXT: &str = "__STOCK_READ_AT_TEXT__";

/// The facts the server attached to this request.
pub fn use_facts() -> Option<Arc<StorefrontFacts>> {
    use_context::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Arc<StorefrontFacts>>().cloned())
}

pub fn use_site_info() -> SiteInfo {
    use_context::<SiteInfo>().unwrap_or(SiteInfo {
        base_url: String::new(),
        development: false,
        company: Company::default(),
    })
}

/// The language of a path such as `/en/configure`, if it has one.
pub fn lang_of_path(path: &str) -> Option<Lang> {
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    Lang::from_code(first)
}

/// Sets the HTTP status of the response being rendered.
pub fn set_status(status: u16) {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        if let Ok(code) = http::StatusCode::from_u16(status) {
            response.set_status(code);
        }
    }
    #[cfg(not(feature = "ssr"))]
    let _ = status;
}
