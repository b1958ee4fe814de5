//! Billing: how a placed order gets paid. [`InvoiceBilling`] (bank transfer
//! against a monthly invoice) is the embedded default and accepts the
//! order at once; the Stripe implementation sends the customer to Stripe
//! Checkout and confirms from its webhook.

pub mod credit;
pub mod dunning;
pub mod finance;
pub mod invoices;
mod numbering;
pub mod pdf;
pub mod profile;
pub mod renewal;
mod seller;
pub mod settlement;
pub mod sla;
pub mod stripe;
pub mod vat_ids;
pub mod vies;

pub use seller::Seller;

use async_trait::async_trait;
use domain::OrderId;

use crate::orders::{self, Order};
use crate::{Clock, Db};

/// What the order step does next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Checkout {
    /// The order is accepted; provisioning has been queued.
    Confirmed(Box<Order>),
    /// The customer pays elsewhere first (a Stripe Checkout page).
    Redirect(String),
}

#[async_trait]
pub trait Billing: Send + Sync {
    /// Stored on the order: `invoice` or `stripe`.
    fn method(&self) -> &'static str;

    /// `return_to` is the public base URL the customer comes back to after
    /// paying elsewhere (`https://…`; the order page in the customer's
    /// language is appended).
    async fn checkout(
        &self,
        db: &Db,
        clock: &Clock,
        order_id: &OrderId,
        return_to: &str,
    ) -> anyhow::Result<Checkout>;
}

/// Offline billing: the order is accepted when placed and paid by bank
/// transfer against the invoice that follows, so the hold becomes an
/// allocation straight away.
pub struct InvoiceBilling;

#[async_trait]
impl Billing for InvoiceBilling {
    fn method(&self) -> &'static str {
        "invoice"
    }

    async fn checkout(
        &self,
        db: &Db,
        clock: &Clock,
        order_id: &OrderId,
        _return_to: &str,
    ) -> anyhow::Result<Checkout> {
        let order = orders::confirm(db, clock, order_id).await?;
        Ok(Checkout::Confirmed(Box::new(order)))
    }
}
