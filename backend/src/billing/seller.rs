//! Who issues the invoices: the hosting company's legal details and bank
//! account, printed on every invoice and used for the VAT rules.

use std::sync::Arc;

use super::vies::{DevelopmentRegistry, VatIdRegistry};

#[derive(Clone, Debug)]
pub struct Seller {
    pub name: String,
    pub address: String,
    /// ISO code of the country the company is established in.
    pub country: String,
    pub vat_id: String,
    pub iban: String,
    pub bic: String,
    /// Days between issue and due date of offline invoices.
    pub payment_terms_days: i64,
    /// Days a server stays past due before it is suspended.
    pub grace_days: i64,
    /// Where the seller confirms its customers' VAT IDs before invoicing
    /// them by reverse charge (VIES, or the development register).
    pub vat_ids: Arc<dyn VatIdRegistry>,
}

impl Seller {
    /// Clearly fictional details for development and tests.
    pub fn development() -> Seller {
        Seller {
            name: "Example GPU Hosting B.V. (development)".into(),
            address: "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".into(),
            country: "NL".into(),
            vat_id: "NL000000000B01".into(),
            iban: "NL00 TEST 0000 0000 00".into(),
            bic: "TESTNL2A".into(),
            payment_terms_days: 14,
            grace_days: 7,
            vat_ids: Arc::new(DevelopmentRegistry::new()),
        }
    }
}
