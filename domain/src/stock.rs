//! Stock as the storefront shows it. Stock is never a counter: it is the
//! number of hosts of a plan at a site that are free right now.

use crate::{PlanId, SiteCode};
use serde::{Deserialize, Serialize};

/// What a visitor is told about one plan at one site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StockLevel {
    InStock,
    /// Only this many left (1 or 2): worth saying so.
    Few(u32),
    SoldOut,
}

impl StockLevel {
    /// The threshold at and under which we say "only N left".
    pub const FEW: u32 = 2;

    pub fn from_free(free: u32) -> StockLevel {
        match free {
            0 => StockLevel::SoldOut,
            n if n <= Self::FEW => StockLevel::Few(n),
            _ => StockLevel::InStock,
        }
    }

    pub fn available(self) -> bool {
        !matches!(self, StockLevel::SoldOut)
    }

    /// A stable token for CSS classes and tests: `in-stock`, `few`, `sold-out`.
    pub fn token(self) -> &'static str {
        match self {
            StockLevel::InStock => "in-stock",
            StockLevel::Few(_) => "few",
            StockLevel::SoldOut => "sold-out",
        }
    }
}

/// Free hosts per site and plan, read at one instant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct StockSnapshot {
    /// Unix seconds when the hosts were counted.
    pub read_at: i64,
    /// Only combinations with at least one free host appear.
    pub free: Vec<(SiteCode, PlanId, u32)>,
    /// Unix seconds when an expiring hold will return a host by itself, so a
    /// copy of this snapshot must not be trusted past it.
    pub valid_until: Option<i64>,
}

impl StockSnapshot {
    pub fn free_count(&self, site: &SiteCode, plan: &PlanId) -> u32 {
        self.free
            .iter()
            .find(|(s, p, _)| s == site && p == plan)
            .map_or(0, |(_, _, n)| *n)
    }

    pub fn level(&self, site: &SiteCode, plan: &PlanId) -> StockLevel {
        StockLevel::from_free(self.free_count(site, plan))
    }

    /// Free hosts of a plan summed over all sites.
    pub fn plan_total(&self, plan: &PlanId) -> u32 {
        self.free
            .iter()
            .filter(|(_, p, _)| p == plan)
            .map(|(_, _, n)| n)
            .sum()
    }

    /// Whether two snapshots tell a visitor the same thing (the read time aside).
    pub fn same_stock(&self, other: &StockSnapshot) -> bool {
        self.free == other.free && self.valid_until == other.valid_until
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_free_hosts() {
        assert_eq!(StockLevel::from_free(0), StockLevel::SoldOut);
        assert_eq!(StockLevel::from_free(1), StockLevel::Few(1));
        assert_eq!(StockLevel::from_free(2), StockLevel::Few(2));
        assert_eq!(StockLevel::from_free(3), StockLevel::InStock);
    }
}
