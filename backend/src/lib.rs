//! Server-side capabilities: the database, the catalog, inventory and stock,
//! probe latency, accounts, orders, servers, the fleet, billing and jobs. No HTML and no HTTP types live here; the app and the server
//! call these functions and map their errors.

pub mod accounts;
pub mod api_tokens;
pub mod audit;
pub mod billing;
pub mod catalog;
pub mod clock;
pub mod console;
pub mod csv;
pub mod db;
pub mod demo;
pub mod events;
pub mod fleet;
pub mod housekeeping;
pub mod idempotency;
pub mod inventory;
pub mod jobs;
pub mod latency;
pub mod mail;
pub mod orders;
pub mod organizations;
pub mod rate_limit;
pub mod sealing;
pub mod servers;
pub mod sessions;
pub mod ssh_keys;
pub mod staff;
pub mod stock_alerts;
pub mod stock_history;
pub mod stock_watch;
pub mod support;
pub mod webhooks;
pub mod worker;

pub use clock::Clock;
pub use db::{Backend, Db};
