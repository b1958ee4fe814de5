//! `sitemap.xml` and `robots.txt`, with language alternates.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use domain::Lang;
use std::fmt::Write;
use std::sync::Arc;

use crate::startup::AppState;

pub async fn sitemap(State(state): State<Arc<AppState>>) -> Response {
    let base = state.config.public_base_url.trim_end_matches('/');
    let catalog = match state.facts.current().await {
        Ok(v) => v.facts.catalog.clone(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "sitemap: reading the catalog failed");
            return http::StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let mut pages = vec![String::new()];
    pages.extend(
        app::storefront::legal::PAGES
            .iter()
            .map(|p| (*p).to_owned()),
    );
    pages.push(app::storefront::api_docs::REST.to_owned());
    pages.extend(
        catalog
            .plans
            .iter()
            .map(|p| format!("/configure?plan={}", p.id)),
    );
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    for rest in &pages {
        for lang in Lang::ALL {
            let _ = write!(
                xml,
                "<url><loc>{}</loc>",
                escape(&format!("{base}/{}{rest}", lang.code()))
            );
            for alt in Lang::ALL {
                let _ = write!(
                    xml,
                    "<xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{}\"/>",
                    alt.html_lang(),
                    escape(&format!("{base}/{}{rest}", alt.code()))
                );
            }
            let default = if rest.is_empty() {
                format!("{base}/")
            } else {
                format!("{base}/zh{rest}")
            };
            let _ = writeln!(
                xml,
                "<xhtml:link rel=\"alternate\" hreflang=\"x-default\" href=\"{}\"/></url>",
                escape(&default)
            );
        }
    }
    xml.push_str("</urlset>\n");
    (
        [(http::header::CONTENT_TYPE, "application/xml; charset=utf-8")],
        xml,
    )
        .into_response()
}

pub async fn robots(State(state): State<Arc<AppState>>) -> Response {
    let base = state.config.public_base_url.trim_end_matches('/');
    let body =
        format!("User-agent: *\nAllow: /\nDisallow: /metrics\n\nSitemap: {base}/sitemap.xml\n");
    (
        [(http::header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        body,
    )
        .into_response()
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
