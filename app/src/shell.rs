//! The HTML document and the route table.

use domain::Lang;
use leptos::prelude::*;
use leptos_meta::{provide_meta_context, MetaTags};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use crate::context::lang_of_path;
use crate::portal::{
    account::AccountPage, audit::AuditPage, login::LoginPage, members, recovery, signup::SignupPage,
};
use crate::storefront::{
    configure::ConfigurePage,
    home::HomePage,
    not_found::{ErrorPage, NotFound},
};

/// The document around every page. No scripts here: a page with an island
/// (the configurator) adds `/islands.js` itself, so every other storefront
/// page loads none. Leptos' `HydrationScripts` is not used: its loader is an
/// inline script, which the CSP refuses, and cached pages can't carry a
/// per-response nonce.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let _ = options;
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
                <App />
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    if crate::portal::from_parts::<crate::portal::Outage>().is_some() {
        let lang = use_context::<http::request::Parts>()
            .and_then(|parts| lang_of_path(parts.uri.path()))
            .unwrap_or_default();
        return view! { <ErrorPage lang /> }.into_any();
    }
    // A refused role or staff rule is "not allowed" on every route, also
    // where a page has no denied state of its own (never the 404 text).
    if crate::portal::from_parts::<crate::portal::Denied>().is_some() {
        let path = use_context::<http::request::Parts>()
            .map(|parts| parts.uri.path().to_owned())
            .unwrap_or_default();
        let lang = lang_of_path(&path).unwrap_or_default();
        let rest = path.get(3..).unwrap_or_default().to_owned();
        return view! { <crate::portal::forms::DeniedPage lang rest /> }.into_any();
    }
    view! {
        <Router>
            <Routes fallback=|| view! { <NotFound /> }>
                <Route path=path!("/:lang") view=HomePage />
                <Route path=path!("/:lang/configure") view=ConfigurePage />
                <Route path=path!("/:lang/support") view=crate::storefront::support::SupportPage />
                <Route path=path!("/:lang/terms") view=crate::storefront::legal::TermsPage />
                <Route path=path!("/:lang/privacy") view=crate::storefront::legal::PrivacyPage />
                <Route path=path!("/:lang/imprint") view=crate::storefront::legal::ImprintPage />
                <Route path=path!("/:lang/docs/api") view=crate::storefront::api_docs::ApiDocsPage />
                <Route path=path!("/:lang/login") view=LoginPage />
                <Route path=path!("/:lang/signup") view=SignupPage />
                <Route path=path!("/:lang/verify") view=recovery::VerifyPage />
                <Route path=path!("/:lang/forgot") view=recovery::ForgotPage />
                <Route path=path!("/:lang/reset") view=recovery::ResetPage />
                <Route path=path!("/:lang/account") view=AccountPage />
                <Route path=path!("/:lang/members") view=members::MembersPage />
                <Route path=path!("/:lang/invite") view=members::InvitePage />
                <Route path=path!("/:lang/audit") view=AuditPage />
                <Route path=path!("/:lang/staff") view=crate::portal::staff_home::StaffHomePage />
                <Route path=path!("/:lang/account/2fa") view=crate::portal::two_factor::TwoFactorPage />
                <Route path=path!("/:lang/login/code") view=crate::portal::two_factor::LoginCodePage />
                <Route path=path!("/:lang/email") view=crate::portal::email::ConfirmEmailPage />
                <Route path=path!("/:lang/staff/outbox") view=crate::portal::staff::OutboxPage />
                <Route path=path!("/:lang/staff/audit") view=AuditPage />
                <Route path=path!("/:lang/order") view=crate::portal::order::OrderPage />
                <Route path=path!("/:lang/orders") view=crate::portal::orders::OrdersPage />
                <Route path=path!("/:lang/orders/:id") view=crate::portal::orders::OrderDetailPage />
                <Route path=path!("/:lang/servers") view=crate::portal::servers::ServersPage />
                <Route path=path!("/:lang/servers/:id") view=crate::portal::servers::ServerDetailPage />
                <Route path=path!("/:lang/servers/:id/console/:kind") view=crate::portal::console::ConsolePage />
                <Route path=path!("/:lang/keys") view=crate::portal::keys::KeysPage />
                <Route path=path!("/:lang/tokens") view=crate::portal::tokens::TokensPage />
                <Route path=path!("/:lang/support/requests") view=crate::portal::support::list::SupportListPage />
                <Route path=path!("/:lang/support/requests/new") view=crate::portal::support::new::NewRequestPage />
                <Route path=path!("/:lang/support/requests/:id") view=crate::portal::support::thread::SupportThreadPage />
                <Route path=path!("/:lang/alerts/unsubscribe") view=crate::portal::alerts::UnsubscribePage />
                <Route path=path!("/:lang/staff/hosts") view=crate::portal::inventory::InventoryPage />
                <Route path=path!("/:lang/staff/hosts/:name") view=crate::portal::host_page::HostPage />
                <Route path=path!("/:lang/staff/orders") view=crate::portal::inventory::StaffOrdersPage />
                <Route path=path!("/:lang/staff/support") view=crate::portal::staff_support::StaffSupportQueuePage />
                <Route path=path!("/:lang/staff/support/:id") view=crate::portal::staff_support::StaffSupportThreadPage />
                <Route path=path!("/:lang/billing") view=crate::portal::billing::BillingPage />
                <Route path=path!("/:lang/billing/profile") view=crate::portal::billing_profile::BillingProfilePage />
                <Route path=path!("/:lang/invoices/:id") view=crate::portal::invoice::InvoicePage />
                <Route path=path!("/:lang/staff/finance") view=crate::portal::finance::FinancePage />
                <Route path=path!("/:lang/staff/finance/invoices/:id") view=crate::portal::invoice::InvoicePage />
            </Routes>
        </Router>
    }
    .into_any()
}

/// The language named by the `:lang` route parameter; `None` for anything
/// else, which pages answer with the 404 page.
pub fn route_lang() -> Option<Lang> {
    let params = leptos_router::hooks::use_params_map();
    params.with_untracked(|p| p.get("lang").and_then(|code| Lang::from_code(&code)))
}
