//! HTTP concerns outside Leptos pages.

pub mod auth;
pub mod headers;
pub mod health;
pub mod lang;
pub mod members;
pub mod page_cache;
pub mod portal;
pub mod seo;
pub mod session_store;
pub mod staff;
pub mod two_factor;
