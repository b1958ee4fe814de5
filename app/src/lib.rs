//! The Leptos application: routes, pages and components, rendered on the
//! server (`ssr`) and, for the portal later, hydrated in the browser.
//! Storefront pages ship no JavaScript and work without it.

pub mod context;
pub mod i18n;
pub mod portal;
pub mod shell;
pub mod storefront;

pub use shell::{shell, App};
