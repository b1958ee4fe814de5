//! Round-trip times from our probe cities to each site.

use crate::{Localized, SiteCode};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LatencySource {
    /// Imported from the probes by an operator.
    Measured,
    /// Derived from great-circle distance; shown only until measurements exist.
    Estimated,
}

/// The median round trip from one probe city to one site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyRow {
    pub city: Localized,
    pub country_code: String,
    pub site: SiteCode,
    /// Tenths of a millisecond, so 12.4 ms is 124.
    pub median_tenth_ms: u32,
    /// Unix seconds of the measurement (or of the estimate).
    pub measured_at: i64,
    pub source: LatencySource,
}
