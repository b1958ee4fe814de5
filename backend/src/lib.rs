//! Server-side capabilities: the database, the catalog, inventory and stock,
//! probe latency. No HTML and no HTTP types live here; the app and the server
//! call these functions and map their errors.

pub mod accounts;
pub mod audit;
pub mod catalog;
pub mod clock;
pub mod db;
pub mod demo;
pub mod inventory;
pub mod latency;
pub mod mail;
pub mod organizations;
pub mod rate_limit;
pub mod sealing;
pub mod sessions;
pub mod staff;
pub mod stock_watch;

pub use clock::Clock;
pub use db::{Backend, Db};
