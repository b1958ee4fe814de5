//! The 99.99% availability promise and its credits (docs/SLA.md).
//!
//! A server's monthly availability is the share of the month's minutes it
//! was up, leaving out maintenance windows the customer accepted. Below
//! 99.99% a credit of a share of that month's fee is owed, by the table in
//! [`credit_percent`], without the customer asking.

use serde::{Deserialize, Serialize};

/// A span of time, `[start, end)` in unix seconds.
pub type Span = (i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// Seconds of the month that count (the month less accepted maintenance).
    pub counted_secs: i64,
    /// Seconds of downtime outside accepted maintenance.
    pub down_secs: i64,
    /// Availability in millionths: 999_900 is 99.99%.
    pub ppm: i64,
}

/// Merges overlapping spans and clips them to `[from, to)`.
fn normalise(spans: &[Span], from: i64, to: i64) -> Vec<Span> {
    let mut clipped: Vec<Span> = spans
        .iter()
        .map(|(s, e)| ((*s).max(from), (*e).min(to)))
        .filter(|(s, e)| s < e)
        .collect();
    clipped.sort_unstable();
    let mut merged: Vec<Span> = Vec::new();
    for (s, e) in clipped {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    merged
}

fn total(spans: &[Span]) -> i64 {
    spans.iter().map(|(s, e)| e - s).sum()
}

/// Seconds of `a` that fall outside every span of `b` (both normalised).
fn outside(a: &[Span], b: &[Span]) -> i64 {
    a.iter()
        .map(|&(s, e)| {
            let covered: i64 = b
                .iter()
                .map(|&(bs, be)| (e.min(be) - s.max(bs)).max(0))
                .sum();
            (e - s) - covered
        })
        .sum()
}

/// Availability over `[from, to)` given downtime spans (an unfinished one
/// ends at `to`) and accepted maintenance windows.
pub fn availability(from: i64, to: i64, downtime: &[Span], maintenance: &[Span]) -> Availability {
    let maintenance = normalise(maintenance, from, to);
    let downtime = normalise(downtime, from, to);
    let counted_secs = (to - from) - total(&maintenance);
    let down_secs = outside(&downtime, &maintenance);
    let ppm = if counted_secs <= 0 {
        1_000_000
    } else {
        (counted_secs - down_secs) * 1_000_000 / counted_secs
    };
    Availability {
        counted_secs,
        down_secs,
        ppm,
    }
}

/// The share of the monthly fee credited for an availability.
pub fn credit_percent(ppm: i64) -> i64 {
    match ppm {
        p if p >= 999_900 => 0,
        p if p >= 999_000 => 10,
        p if p >= 990_000 => 25,
        p if p >= 950_000 => 50,
        _ => 100,
    }
}

/// The credit in cents for a month's fee (net, ex VAT), rounded half up.
pub fn credit_cents(monthly_fee_cents: i64, ppm: i64) -> i64 {
    (monthly_fee_cents * credit_percent(ppm) + 50) / 100
}

/// Availability as people read it: 999_768 → "99.9768%".
pub fn format_ppm(ppm: i64) -> String {
    format!("{}.{:04}%", ppm / 10_000, ppm % 10_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// November 2026: 30 days.
    const FROM: i64 = 1_793_491_200;
    const TO: i64 = FROM + 30 * 86_400;
    const MIN: i64 = 60;

    #[test]
    fn a_month_without_downtime_owes_nothing() {
        let a = availability(FROM, TO, &[], &[]);
        assert_eq!(a.ppm, 1_000_000);
        assert_eq!(credit_cents(74_900, a.ppm), 0);
    }

    #[test]
    fn four_minutes_stay_within_the_promise_five_do_not() {
        // 99.99% of 30 days is 4.32 minutes.
        let four = availability(FROM, TO, &[(FROM + 3600, FROM + 3600 + 4 * MIN)], &[]);
        assert_eq!(credit_cents(74_900, four.ppm), 0);
        let five = availability(FROM, TO, &[(FROM + 3600, FROM + 3600 + 5 * MIN)], &[]);
        assert_eq!(five.ppm, 999_884);
        // 10% of €749.00.
        assert_eq!(credit_cents(74_900, five.ppm), 7_490);
    }

    #[test]
    fn accepted_maintenance_does_not_count() {
        // Three hours of a card swap inside an accepted window, and ten
        // minutes that overran it.
        let window = (FROM + 86_400, FROM + 86_400 + 3 * 3600);
        let down = (FROM + 86_400, FROM + 86_400 + 3 * 3600 + 10 * MIN);
        let a = availability(FROM, TO, &[down], &[window]);
        assert_eq!(a.down_secs, 10 * MIN);
        assert_eq!(a.counted_secs, 30 * 86_400 - 3 * 3600);
        assert_eq!(credit_percent(a.ppm), 10);
        assert_eq!(credit_cents(142_000, a.ppm), 14_200);
        // The same hours without the window: 3 h 10 min down, 99.56%.
        let b = availability(FROM, TO, &[down], &[]);
        assert_eq!(b.ppm, 995_601);
        assert_eq!(credit_cents(23_900, b.ppm), 5_975);
    }

    #[test]
    fn overlapping_and_unfinished_downtime_is_counted_once_and_clipped() {
        // Two reports of the same outage, and one still going at month end.
        let spans = [
            (FROM + 1000, FROM + 1000 + 30 * MIN),
            (FROM + 1000 + 10 * MIN, FROM + 1000 + 40 * MIN),
            (TO - 2 * 86_400, TO + 86_400),
        ];
        let a = availability(FROM, TO, &spans, &[]);
        assert_eq!(a.down_secs, 40 * MIN + 2 * 86_400);
        // 93.24% available: the whole fee is credited.
        assert_eq!(credit_percent(a.ppm), 100);
        assert_eq!(credit_cents(23_900, a.ppm), 23_900);
    }

    #[test]
    fn the_credit_table() {
        assert_eq!(credit_percent(999_900), 0);
        assert_eq!(credit_percent(999_899), 10);
        assert_eq!(credit_percent(999_000), 10);
        assert_eq!(credit_percent(998_999), 25);
        assert_eq!(credit_percent(990_000), 25);
        assert_eq!(credit_percent(989_999), 50);
        assert_eq!(credit_percent(950_000), 50);
        assert_eq!(credit_percent(949_999), 100);
        // Half a cent rounds up.
        assert_eq!(credit_cents(23_905, 999_000), 2_391);
    }
}
