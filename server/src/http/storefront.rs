//! The public storefront pages, rendered by Leptos and served from the page
//! cache (`page_cache.rs`): no session; they need no data of their own.

use app::storefront::api_docs::ApiDocsPage;
use app::storefront::configure::ConfigurePage;
use app::storefront::home::HomePage;
use app::storefront::legal::{ImprintPage, PrivacyPage, TermsPage};
use app::storefront::support::SupportPage;
use leptos::prelude::*;

use super::routes::{Access, Route};

pub fn routes() -> Vec<Route> {
    vec![
        Route::page("/{lang}", Access::Storefront, |lang| {
            view! { <HomePage lang /> }.into_any()
        }),
        Route::page("/{lang}/configure", Access::Storefront, |lang| {
            view! { <ConfigurePage lang /> }.into_any()
        }),
        // The footer's pages: the same for everyone, so cached like the rest.
        Route::page("/{lang}/support", Access::Storefront, |lang| {
            view! { <SupportPage lang /> }.into_any()
        }),
        Route::page("/{lang}/terms", Access::Storefront, |lang| {
            view! { <TermsPage lang /> }.into_any()
        }),
        Route::page("/{lang}/privacy", Access::Storefront, |lang| {
            view! { <PrivacyPage lang /> }.into_any()
        }),
        Route::page("/{lang}/imprint", Access::Storefront, |lang| {
            view! { <ImprintPage lang /> }.into_any()
        }),
        Route::page("/{lang}/docs/api", Access::Storefront, |lang| {
            view! { <ApiDocsPage lang /> }.into_any()
        }),
    ]
}
