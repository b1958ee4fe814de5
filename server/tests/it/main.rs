//! The server's integration tests, in one test binary.
//!
//! Each file under `tests/` used to be a test crate of its own, and each of
//! those binaries linked the whole server (axum, Leptos, sqlx, the Stripe
//! client): 27 link steps of a large binary on every change, and 27
//! binaries in the target folder. As modules of this one crate they are
//! compiled and linked once, and `cargo test` runs them all in one process
//! (so nothing here may assume a process of its own: every test gets its
//! own database, temporary folder and ports).
//!
//! One area: `cargo test -p server --test it orders::`.

#[macro_use]
mod common;

mod account_lifecycle;
mod accounts;
mod api_access;
mod api_alerts;
mod api_billing;
mod api_catalog;
mod api_contract;
mod api_discovery;
mod api_docs;
mod api_events;
mod api_fuzz;
mod api_journey;
mod api_limits;
mod api_lists;
mod api_openapi;
mod api_orders;
mod api_tokens;
mod authorization;
mod billing;
mod billing_profile;
mod cancellation;
mod console;
mod console_bench;
mod contention;
mod crash;
mod failures;
mod fuzz;
mod invitations;
mod live_quote;
mod load_balanced;
mod mail_delivery;
mod maintenance;
mod navigation;
mod operations;
mod orders;
mod organizations;
mod outage;
mod page_cache;
mod power;
mod provisioning;
mod races;
mod redfish_console;
mod redfish_emulator;
mod redfish_fleet;
mod redfish_network;
mod redfish_telemetry;
mod redfish_tenants;
mod reinstall;
mod root_password;
mod security;
mod server_page;
mod snapshots;
mod staff_bmc;
mod staff_host_page;
mod staff_pages;
mod staff_support;
mod stock;
mod storefront;
mod storefront_copy;
mod storefront_frame;
mod stripe;
mod stripe_customers;
mod stripe_double;
mod stripe_dunning;
mod stripe_invoices;
mod stripe_payments;
mod stripe_terms;
mod stripe_webhooks;
mod support_lifecycle;
mod support_requests;
mod two_factor;
mod vat_ids;
