//! The HTML document around every page, and the pages every route may
//! answer with (404, 503, not allowed).

use domain::Lang;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags};

use crate::context::lang_of_path;
use crate::page::PageBody;
use crate::portal::forms::DeniedPage;
use crate::storefront::not_found::{ErrorPage, NotFound};

/// The document around every page. No scripts here: a page with an island
/// (the configurator) adds `/islands.js` itself, so every other storefront
/// page loads none. Leptos' `HydrationScripts` is not used: its loader is an
/// inline script, which the CSP refuses, and cached pages can't carry a
/// per-response nonce.
pub fn shell(options: LeptosOptions, body: PageBody) -> impl IntoView {
    let _ = options;
    provide_meta_context();
    let lang = use_context::<http::request::Parts>()
        .and_then(|parts| lang_of_path(parts.uri.path()))
        .unwrap_or_default();
    view! {
        <!DOCTYPE html>
        <html lang=lang.html_lang()>
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light" />
                <link rel="stylesheet" href="/pkg/gpu-storefront.css" />
                <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
                <MetaTags />
            </head>
            <body>
                {body.show()}
            </body>
        </html>
    }
}

/// The designed 404 page (its language from the path, else the visitor's).
pub fn not_found() -> PageBody {
    PageBody::new(|| view! { <NotFound /> }.into_any())
}

/// The translated "temporarily unavailable" page (503).
pub fn outage(lang: Lang) -> PageBody {
    PageBody::new(move || view! { <ErrorPage lang /> }.into_any())
}

/// "Not allowed" for a refused role or staff rule, on every route (never
/// the 404 text). `rest` is the address without its language, for the
/// language switcher.
pub fn denied(lang: Lang, rest: String) -> PageBody {
    PageBody::new(move || view! { <DeniedPage lang rest=rest.clone() /> }.into_any())
}
