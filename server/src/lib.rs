//! The axum server: configuration, start-up, routes outside Leptos (health,
//! metrics, sitemap), the storefront page cache, security headers and the
//! operators' subcommands.

pub mod config;
pub mod facts;
pub mod http;
pub mod mailer;
pub mod metrics;
pub mod ops;
pub mod pages;
pub mod startup;
pub mod telemetry;
pub mod worker;
