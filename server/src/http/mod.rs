//! HTTP concerns outside Leptos pages.

pub mod api;
pub mod auth;
pub mod fleet_boots;
pub mod headers;
pub mod health;
pub mod input;
pub mod lang;
pub mod once;
pub mod page;
pub mod page_cache;
pub mod routes;
pub mod seo;
pub mod session_store;
pub mod storefront;
pub mod stripe;
