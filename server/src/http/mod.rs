//! HTTP concerns outside Leptos pages.

pub mod headers;
pub mod health;
pub mod lang;
pub mod page_cache;
pub mod seo;
