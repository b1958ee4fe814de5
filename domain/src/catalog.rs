//! The catalog: the three plans of the line and the eight sites that host
//! them. The facts come from the storefront seed and live in the database.

use crate::{Lang, Money};
use serde::{Deserialize, Serialize};

/// Text that exists in both languages; the catalog stores both.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Localized {
    pub zh: String,
    pub en: String,
}

impl Localized {
    pub fn new(zh: impl Into<String>, en: impl Into<String>) -> Self {
        Localized {
            zh: zh.into(),
            en: en.into(),
        }
    }

    pub fn get(&self, lang: Lang) -> &str {
        match lang {
            Lang::Zh => &self.zh,
            Lang::En => &self.en,
        }
    }
}

/// A plan's stable identifier, used in URLs and the database: `g-ada`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PlanId(String);

impl PlanId {
    /// Accepts lowercase identifiers of a sane length; anything else is not a
    /// plan (the catalog decides whether it exists).
    pub fn parse(raw: &str) -> Option<PlanId> {
        let ok = (1..=32).contains(&raw.len())
            && raw
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        ok.then(|| PlanId(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

crate::text_column!(PlanId, |v| v.as_str(), PlanId::parse);

impl AsRef<str> for PlanId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for PlanId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A site's three-letter code, used in URLs and host names: `fra`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SiteCode(String);

impl SiteCode {
    pub fn parse(raw: &str) -> Option<SiteCode> {
        let ok = raw.len() == 3 && raw.bytes().all(|b| b.is_ascii_lowercase());
        ok.then(|| SiteCode(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

crate::text_column!(SiteCode, |v| v.as_str(), SiteCode::parse);

impl AsRef<str> for SiteCode {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SiteCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub id: PlanId,
    /// The product name as sold: `G-L40S×2`.
    pub name: String,
    pub tagline: Localized,
    pub dedicated_cores: u32,
    pub memory_gb: u32,
    pub nvme_tb: u32,
    pub gpu_model: String,
    pub gpu_count: u32,
    /// Memory of one card; the plan's total is `gpu_count × vram_gb_per_card`.
    pub vram_gb_per_card: u32,
    pub port_gbit: u32,
    /// Monthly price, excluding VAT.
    pub monthly_price: Money,
    pub most_popular: bool,
}

impl Plan {
    pub fn total_vram_gb(&self) -> u32 {
        self.gpu_count * self.vram_gb_per_card
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Site {
    pub code: SiteCode,
    pub city: Localized,
    /// ISO 3166-1 alpha-2.
    pub country_code: String,
    pub country: Localized,
    pub note: Localized,
    pub typical_use: Localized,
    /// Position in micro-degrees, for distance-based latency estimates.
    pub lat_e6: i64,
    pub lon_e6: i64,
}

/// Everything the storefront sells, in display order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Catalog {
    pub plans: Vec<Plan>,
    pub sites: Vec<Site>,
    pub addons: Vec<Addon>,
}

/// An optional extra billed monthly with a server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Addon {
    /// Stable id: `offsite-backup`, `os-hardening`.
    pub id: String,
    pub name: Localized,
    pub description: Localized,
    /// Monthly price ex VAT for each plan it can be added to.
    pub prices: Vec<(PlanId, Money)>,
}

impl Addon {
    pub fn price_for(&self, plan: &PlanId) -> Option<Money> {
        self.prices.iter().find(|(p, _)| p == plan).map(|(_, m)| *m)
    }
}

impl Catalog {
    pub fn plan(&self, id: impl AsRef<str>) -> Option<&Plan> {
        let id = id.as_ref();
        self.plans.iter().find(|p| p.id.as_str() == id)
    }

    pub fn site(&self, code: impl AsRef<str>) -> Option<&Site> {
        let code = code.as_ref();
        self.sites.iter().find(|s| s.code.as_str() == code)
    }

    pub fn addon(&self, id: &str) -> Option<&Addon> {
        self.addons.iter().find(|a| a.id == id)
    }
}
