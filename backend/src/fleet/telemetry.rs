//! What a host reports about itself: per card, the GPU temperature, the
//! SM clock and the corrected ECC error count; per host, the traffic sent
//! this month (the fair-use allowance is 250 TB a month).

/// The fair-use traffic allowance per server and month, in bytes.
pub const FAIR_USE_BYTES: i64 = 250_000_000_000_000;

/// One reading of all cards and the host's traffic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub at: i64,
    /// Per card, °C.
    pub gpu_temp_c: Vec<i64>,
    /// Per card, MHz.
    pub sm_clock_mhz: Vec<i64>,
    /// Per card, corrected ECC errors since the card was installed.
    pub ecc_corrected: Vec<i64>,
    /// Bytes sent since the start of the calendar month (UTC).
    pub traffic_month_bytes: i64,
}

/// Refuses a range no chart asks for: backwards, a step of zero or less,
/// or more than 10,000 readings.
pub fn check_range(from: i64, to: i64, step: i64) -> Result<(), super::FleetError> {
    if step <= 0 || to < from || (to - from) / step > 10_000 {
        return Err(super::FleetError::Unavailable(
            "unreasonable telemetry range".into(),
        ));
    }
    Ok(())
}
