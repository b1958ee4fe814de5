//! The public storefront: what the line is, what it costs, where it is in
//! stock, and the start of ordering. Server-rendered; no JavaScript needed.

pub mod api_docs;
pub mod configure;
pub mod home;
pub mod latency;
pub mod layout;
pub mod legal;
pub mod not_found;
pub mod plans;
pub mod quote;
pub mod sections;
pub mod seo;
pub mod sites;
pub mod stock;
pub mod support;

use domain::Lang;

/// The URL of a storefront page in a language: `/en` or `/en/configure?…`.
/// `rest` is empty for the home page or starts with `/`.
pub fn href(lang: Lang, rest: &str) -> String {
    format!("/{}{}", lang.code(), rest)
}

/// `/configure?plan=…&site=…` for a plan and, optionally, a site.
pub fn configure_rest(plan: &str, site: Option<&str>) -> String {
    match site {
        Some(site) => format!("/configure?plan={plan}&site={site}"),
        None => format!("/configure?plan={plan}"),
    }
}
