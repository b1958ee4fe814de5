//! Calendar arithmetic for unix seconds (UTC), without a date library: the
//! product only needs dates and minutes.

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `2026-11-30`.
pub fn format_date(unix: i64) -> String {
    let (y, m, d) = civil_from_days(unix.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `2026-11-30 14:05:09 UTC`.
pub fn format_datetime(unix: i64) -> String {
    let secs = unix.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02}:{:02} UTC",
        format_date(unix),
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// `2026-11-30T14:05:09Z`, for `<time datetime>` and schema.org.
pub fn format_iso(unix: i64) -> String {
    let secs = unix.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        format_date(unix),
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Parses `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SSZ` (also with a space) as UTC.
pub fn parse_utc(raw: &str) -> Option<i64> {
    let raw = raw.trim();
    let (date, time) = match raw.find(['T', ' ']) {
        Some(i) => (&raw[..i], Some(raw[i + 1..].trim_end_matches('Z'))),
        None => (raw, None),
    };
    let mut parts = date.split('-');
    let year: i64 = parts.next()?.parse().ok()?;
    let month: u32 = parts.next()?.parse().ok()?;
    let day: u32 = parts.next()?.parse().ok()?;
    if parts.next().is_some()
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
    {
        return None;
    }
    let mut seconds = 0;
    if let Some(time) = time {
        let mut hms = time.split(':');
        let h: i64 = hms.next()?.parse().ok()?;
        let m: i64 = hms.next()?.parse().ok()?;
        let s: i64 = hms.next().unwrap_or("0").parse().ok()?;
        if hms.next().is_some()
            || !(0..24).contains(&h)
            || !(0..60).contains(&m)
            || !(0..60).contains(&s)
        {
            return None;
        }
        seconds = h * 3600 + m * 60 + s;
    }
    Some(days_from_civil(year, month, day) * 86_400 + seconds)
}

/// The same time of day `months` calendar months later; a day that the
/// target month lacks (31 January + 1) becomes its last day (28/29 February),
/// as monthly terms are billed.
pub fn add_months(unix: i64, months: u32) -> i64 {
    let days = unix.div_euclid(86_400);
    let seconds = unix.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let index = year * 12 + i64::from(month - 1) + i64::from(months);
    let (year, month) = (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32);
    let day = day.min(days_in_month(year, month));
    days_from_civil(year, month, day) * 86_400 + seconds
}

/// The first boundary of a monthly term anchored at `anchor` (the start of
/// the first term) that lies after `after`. Counting from the anchor keeps
/// its day: a term begun on 31 January renews on 28 February, then 31 March
/// (stepping from the previous renewal would stay on the 28th for good).
pub fn next_term_boundary(anchor: i64, after: i64) -> i64 {
    let (y1, m1, _) = civil_from_days(anchor.div_euclid(86_400));
    let (y2, m2, _) = civil_from_days(after.div_euclid(86_400));
    let apart = (y2 * 12 + i64::from(m2)) - (y1 * 12 + i64::from(m1));
    let mut n = u32::try_from(apart.max(0)).unwrap_or(0);
    while add_months(anchor, n) <= after {
        n += 1;
    }
    add_months(anchor, n)
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_dates() {
        assert_eq!(parse_utc("1970-01-01"), Some(0));
        assert_eq!(parse_utc("2026-11-30T14:05:09Z"), Some(1_796_047_509));
        assert_eq!(format_datetime(1_796_047_509), "2026-11-30 14:05:09 UTC");
        assert_eq!(
            format_date(parse_utc("2024-02-29").unwrap_or_default()),
            "2024-02-29"
        );
        assert_eq!(parse_utc("2023-02-29"), None);
        assert_eq!(parse_utc("2026-13-01"), None);
        assert_eq!(parse_utc("yesterday"), None);
    }

    #[test]
    fn monthly_terms_keep_the_day_or_end_the_month() {
        let at = |s| parse_utc(s).unwrap_or_default();
        assert_eq!(
            add_months(at("2026-11-30T10:00:00Z"), 1),
            at("2026-12-30T10:00:00Z")
        );
        assert_eq!(add_months(at("2026-12-15"), 1), at("2027-01-15"));
        assert_eq!(add_months(at("2027-01-31"), 1), at("2027-02-28"));
        assert_eq!(add_months(at("2028-01-31"), 1), at("2028-02-29"));
        assert_eq!(add_months(at("2026-03-31"), 3), at("2026-06-30"));
    }

    #[test]
    fn terms_keep_the_anchor_day() {
        let at = |s: &str| parse_utc(s).unwrap_or_default();
        let anchor = at("2027-01-31T09:00:00Z");
        let feb = next_term_boundary(anchor, anchor);
        assert_eq!(feb, at("2027-02-28T09:00:00Z"));
        let mar = next_term_boundary(anchor, feb);
        assert_eq!(mar, at("2027-03-31T09:00:00Z"), "not the 28th for good");
        assert_eq!(next_term_boundary(anchor, mar), at("2027-04-30T09:00:00Z"));
        assert_eq!(
            next_term_boundary(anchor, at("2027-04-30T09:00:00Z")),
            at("2027-05-31T09:00:00Z")
        );
        // Between boundaries: the next one.
        assert_eq!(next_term_boundary(anchor, at("2027-03-01")), mar);
    }
}
