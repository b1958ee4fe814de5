//! The public storefront pages, rendered by Leptos and served from the page
//! cache (`page_cache.rs`): no session; they need no data of their own.

use app::storefront::api_docs::ApiDocsPage;
use app::storefront::configure::ConfigurePage;
use app::storefront::home::HomePage;
use app::storefront::legal::{ImprintPage, PrivacyPage, TermsPage};
use app::storefront::support::SupportPage;

use super::routes::{shows, Access, Route};

pub fn routes() -> Vec<Route> {
    vec![
        Route::page("/{lang}", Access::Storefront, shows!(HomePage)),
        Route::page(
            "/{lang}/configure",
            Access::Storefront,
            shows!(ConfigurePage),
        ),
        // The footer's pages: the same for everyone, so cached like the rest.
        Route::page("/{lang}/support", Access::Storefront, shows!(SupportPage)),
        Route::page("/{lang}/terms", Access::Storefront, shows!(TermsPage)),
        Route::page("/{lang}/privacy", Access::Storefront, shows!(PrivacyPage)),
        Route::page("/{lang}/imprint", Access::Storefront, shows!(ImprintPage)),
        Route::page("/{lang}/docs/api", Access::Storefront, shows!(ApiDocsPage)),
    ]
}
