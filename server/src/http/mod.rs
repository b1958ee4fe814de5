//! HTTP concerns outside Leptos pages.

pub mod access;
pub mod alerts;
pub mod auth;
pub mod billing;
pub mod console;
pub mod finance;
pub mod headers;
pub mod health;
pub mod input;
pub mod inventory;
pub mod invoice_pdf;
pub mod keys;
pub mod lang;
pub mod members;
pub mod orders;
pub mod page_cache;
pub mod portal;
pub mod seo;
pub mod servers;
pub mod session_store;
pub mod staff;
pub mod stripe;
pub mod two_factor;
