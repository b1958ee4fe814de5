//! Types shared by the browser and the server: languages, money, the catalog
//! (plans and sites), stock and a server's states. No I/O here: the backend loads these from the
//! database and the app renders them.

pub mod catalog;
pub mod host;
pub mod id;
pub mod invoice;
pub mod lang;
pub mod latency;
pub mod money;
#[macro_use]
mod named;
pub mod order;
pub mod role;
pub mod server;
pub mod sla;
pub mod stock;
pub mod support;
pub mod time;
pub mod vat;

pub use catalog::{Addon, Catalog, Localized, Plan, PlanId, Site, SiteCode};
pub use id::{HostId, InvoiceId, OrderId, OrganizationId, ServerId, SnapshotId, UserId};
pub use lang::Lang;
pub use latency::{LatencyRow, LatencySource};
pub use money::Money;
pub use order::{OsImage, Quote, VatTreatment};
pub use role::Role;
pub use stock::{StockLevel, StockSnapshot};
