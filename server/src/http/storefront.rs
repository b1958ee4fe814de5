//! The public storefront pages, rendered by Leptos and served from the page
//! cache (`page_cache.rs`): no session, no handler of their own.

use super::routes::{Access, Route};

pub fn routes() -> Vec<Route> {
    vec![
        Route::page("/{lang}", Access::Storefront),
        Route::page("/{lang}/configure", Access::Storefront),
        // The footer's pages: the same for everyone, so cached like the rest.
        Route::page("/{lang}/support", Access::Storefront),
        Route::page("/{lang}/terms", Access::Storefront),
        Route::page("/{lang}/privacy", Access::Storefront),
        Route::page("/{lang}/imprint", Access::Storefront),
        Route::page("/{lang}/docs/api", Access::Storefront),
    ]
}
