//! VIES, the EU's register of VAT numbers, behind an interface: reverse
//! charge needs a VAT ID the register confirms, not one that merely has the
//! country's format. [`ViesRegistry`] asks the EU's service;
//! [`DevelopmentRegistry`] answers from a fixture, offline.

mod development;
mod eu;

pub use development::DevelopmentRegistry;
pub use eu::{ViesRegistry, EU_BASE_URL};

use async_trait::async_trait;

/// What the register says about a VAT ID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VatIdStatus {
    /// Registered; `name` is the business's registered name where the
    /// member state discloses it.
    Valid { name: Option<String> },
    /// Not registered (or no longer).
    Invalid,
}

/// The register gave no answer (the EU service or the member state's
/// system is down, busy or slow). Says nothing about the VAT ID.
#[derive(Debug, thiserror::Error)]
#[error("VIES did not answer: {0}")]
pub struct RegistryUnavailable(pub String);

#[async_trait]
pub trait VatIdRegistry: std::fmt::Debug + Send + Sync {
    /// `country` is the VAT prefix (`DE`; `EL` for Greece) and `number`
    /// what follows it (`123456789`).
    async fn check(&self, country: &str, number: &str) -> Result<VatIdStatus, RegistryUnavailable>;
}

/// Asks the register about a VAT ID as [`domain::vat::parse_vat_id`]
/// normalises it (`DE123456789`).
pub async fn check_vat_id(
    registry: &dyn VatIdRegistry,
    vat_id: &str,
) -> Result<VatIdStatus, RegistryUnavailable> {
    match (vat_id.get(..2), vat_id.get(2..)) {
        (Some(country), Some(number)) if !number.is_empty() => {
            registry.check(country, number).await
        }
        _ => Ok(VatIdStatus::Invalid),
    }
}
