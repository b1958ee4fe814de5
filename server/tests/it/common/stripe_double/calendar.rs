//! Calendar months, the way Stripe bills them: a monthly period ends on
//! the anchor's day of the month at the anchor's time of day, or on the
//! last day of a shorter month (Jan 31 → Feb 28 → Mar 31). UTC throughout.

const DAY: i64 = 86_400;

/// The instant `n` calendar months after `t`, clamped to the end of a
/// shorter month.
pub fn months_after(t: i64, n: i64) -> i64 {
    let (days, time_of_day) = (t.div_euclid(DAY), t.rem_euclid(DAY));
    let (year, month, day) = civil_from_days(days);
    let months = year * 12 + (month - 1) + n;
    let (year, month) = (months.div_euclid(12), months.rem_euclid(12) + 1);
    let day = day.min(days_in_month(year, month));
    days_from_civil(year, month, day) * DAY + time_of_day
}

/// The end of a monthly period starting at `t`.
pub fn month_after(t: i64) -> i64 {
    months_after(t, 1)
}

/// The end of the period that starts at `start`, for a subscription whose
/// billing cycle is anchored at `anchor`: the first anchor month after it.
pub fn period_end(anchor: i64, start: i64) -> i64 {
    let mut n = 1;
    loop {
        let end = months_after(anchor, n);
        if end > start {
            return end;
        }
        n += 1;
    }
}

/// Unix time of a UTC date and time.
pub fn timestamp(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> i64 {
    days_from_civil(year, month, day) * DAY + hour * 3600 + minute * 60 + second
}

/// The UTC (year, month, day) of a unix time.
pub fn date(t: i64) -> (i64, i64, i64) {
    civil_from_days(t.div_euclid(DAY))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's civil-date algorithms (days since 1970-01-01).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let shifted_month = (month + 9) % 12;
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400;
    (if month <= 2 { year + 1 } else { year }, month, day)
}
