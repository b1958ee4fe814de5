//! Probe latency: median round trips from our probe cities to each site,
//! imported by an operator from CSV. Until the first import, development
//! shows estimates from great-circle distance, labelled as such.

pub mod probes;

use anyhow::Context;
use domain::latency::{LatencyRow, LatencySource};
use domain::{Catalog, Localized, SiteCode};
use sqlx::Row;

use crate::{Clock, Db};

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("line {line}: {problem}")]
    Line { line: usize, problem: String },
    #[error("the file has no measurements")]
    Empty,
    #[error(transparent)]
    Db(#[from] anyhow::Error),
}

/// One validated line of an import.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    pub city: String,
    pub country_code: String,
    pub site: SiteCode,
    pub median_tenth_ms: u32,
    pub measured_at: i64,
}

/// Parses `city,country,site,median_ms,measured_at` (a header line is
/// allowed). Every problem names its line; nothing is imported if any line
/// is bad.
pub fn parse_csv(text: &str, catalog: &Catalog, now: i64) -> Result<Vec<Measurement>, ImportError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty()
            || raw.starts_with('#')
            || (line == 1 && raw.to_ascii_lowercase().starts_with("city,"))
        {
            continue;
        }
        let bad = |problem: String| ImportError::Line { line, problem };
        let fields: Vec<&str> = raw.split(',').map(str::trim).collect();
        let [city, country, site, median, measured_at] = fields[..] else {
            return Err(bad(format!("expected 5 fields, found {}", fields.len())));
        };
        if city.is_empty() || city.chars().count() > 64 {
            return Err(bad("the city must have 1 to 64 characters".into()));
        }
        if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(bad(format!("{country:?} is not a two-letter country code")));
        }
        let site = SiteCode::parse(&site.to_ascii_lowercase())
            .filter(|s| catalog.site(s.as_str()).is_some())
            .ok_or_else(|| bad(format!("{site:?} is not one of our sites")))?;
        let median_tenth_ms = parse_tenths(median)
            .filter(|t| (1..=10_000).contains(t))
            .ok_or_else(|| {
                bad(format!(
                    "{median:?} is not a round trip between 0.1 and 1000 ms"
                ))
            })?;
        let measured_at = domain::time::parse_utc(measured_at)
            .ok_or_else(|| bad(format!("{measured_at:?} is not a date like 2026-11-30")))?;
        if measured_at > now + 86_400 {
            return Err(bad("the measurement date is in the future".into()));
        }
        out.push(Measurement {
            city: city.to_owned(),
            country_code: country.to_ascii_uppercase(),
            site,
            median_tenth_ms,
            measured_at,
        });
    }
    if out.is_empty() {
        return Err(ImportError::Empty);
    }
    Ok(out)
}

fn parse_tenths(raw: &str) -> Option<u32> {
    let (whole, frac) = raw.split_once('.').unwrap_or((raw, "0"));
    if whole.is_empty() || frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = whole.parse().ok()?;
    let first = frac.bytes().next().map_or(0, |b| u32::from(b - b'0'));
    whole.checked_mul(10)?.checked_add(first)
}

/// Stores measurements, replacing earlier ones for the same city and site,
/// all in one transaction.
pub async fn import(db: &Db, clock: &Clock, rows: &[Measurement]) -> anyhow::Result<usize> {
    let now = clock.now();
    let mut tx = db.begin().await.context("starting the import")?;
    for m in rows {
        sqlx::query(
            "insert into latency_measurements (city, country_code, site_code, median_tenth_ms, measured_at, imported_at) \
             values ($1, $2, $3, $4, $5, $6) \
             on conflict (city, site_code) do update set country_code = excluded.country_code, \
             median_tenth_ms = excluded.median_tenth_ms, measured_at = excluded.measured_at, \
             imported_at = excluded.imported_at",
        )
        .bind(&m.city)
        .bind(&m.country_code)
        .bind(m.site.as_str())
        .bind(i64::from(m.median_tenth_ms))
        .bind(m.measured_at)
        .bind(now)
        .execute(&mut *tx)
        .await
        .with_context(|| format!("storing {} → {}", m.city, m.site))?;
    }
    crate::inventory::notify_stock_changed(db, &mut tx).await?;
    tx.commit().await.context("committing the import")?;
    Ok(rows.len())
}

/// The imported measurements, by city then site order.
pub async fn measured(db: &Db) -> anyhow::Result<Vec<LatencyRow>> {
    let rows = sqlx::query(
        "select l.city, l.country_code, l.site_code, l.median_tenth_ms, l.measured_at \
         from latency_measurements l join sites s on s.code = l.site_code order by l.city, s.position",
    )
    .fetch_all(&db.pool)
    .await
    .context("loading latency measurements")?;
    rows.iter()
        .map(|r| -> anyhow::Result<LatencyRow> {
            let city: String = r.try_get("city")?;
            let site: String = r.try_get("site_code")?;
            // Probe cities have a Chinese name; any other city shows as imported.
            let zh = probes::find(&city).map_or_else(|| city.clone(), |p| p.zh.to_owned());
            Ok(LatencyRow {
                city: Localized::new(zh, city),
                country_code: r.try_get("country_code")?,
                site: SiteCode::parse(&site).context("stored site")?,
                median_tenth_ms: u32::try_from(r.try_get::<i64, _>("median_tenth_ms")?)
                    .context("median")?,
                measured_at: r.try_get("measured_at")?,
                source: LatencySource::Measured,
            })
        })
        .collect()
}

/// Distance-based estimates from every probe city to every site.
pub fn estimates(catalog: &Catalog, now: i64) -> Vec<LatencyRow> {
    let mut out = Vec::with_capacity(probes::PROBE_CITIES.len() * catalog.sites.len());
    for city in &probes::PROBE_CITIES {
        for site in &catalog.sites {
            let km = probes::distance_km(
                city.lat,
                city.lon,
                site.lat_e6 as f64 / 1e6,
                site.lon_e6 as f64 / 1e6,
            );
            out.push(LatencyRow {
                city: Localized::new(city.zh, city.en),
                country_code: city.country_code.to_owned(),
                site: site.code.clone(),
                median_tenth_ms: probes::estimated_rtt_tenth_ms(km),
                measured_at: now - now.rem_euclid(86_400),
                source: LatencySource::Estimated,
            });
        }
    }
    out
}
