//! The catalog as stored: plans and sites in display order.

use anyhow::Context;
use domain::money::Currency;
use domain::{Addon, Catalog, Localized, Money, Plan, PlanId, Site, SiteCode};
use sqlx::Row;

use crate::Db;

pub async fn load(db: &Db) -> anyhow::Result<Catalog> {
    let plans = sqlx::query(
        "select id, name, tagline_zh, tagline_en, dedicated_cores, memory_gb, nvme_tb, gpu_model, \
         gpu_count, vram_gb_per_card, port_gbit, monthly_price_cents, currency, most_popular \
         from plans order by position",
    )
    .fetch_all(&db.pool)
    .await
    .context("loading plans")?
    .iter()
    .map(|r| -> anyhow::Result<Plan> {
        let id: String = r.try_get("id")?;
        let currency: String = r.try_get("currency")?;
        Ok(Plan {
            id: PlanId::parse(&id).with_context(|| format!("bad plan id {id:?}"))?,
            name: r.try_get("name")?,
            tagline: Localized::new(
                r.try_get::<String, _>("tagline_zh")?,
                r.try_get::<String, _>("tagline_en")?,
            ),
            dedicated_cores: r.try_get::<i64, _>("dedicated_cores")? as u32,
            memory_gb: r.try_get::<i64, _>("memory_gb")? as u32,
            nvme_tb: r.try_get::<i64, _>("nvme_tb")? as u32,
            gpu_model: r.try_get("gpu_model")?,
            gpu_count: r.try_get::<i64, _>("gpu_count")? as u32,
            vram_gb_per_card: r.try_get::<i64, _>("vram_gb_per_card")? as u32,
            port_gbit: r.try_get::<i64, _>("port_gbit")? as u32,
            monthly_price: Money {
                cents: r.try_get("monthly_price_cents")?,
                currency: Currency::parse(&currency)
                    .with_context(|| format!("bad currency {currency:?}"))?,
            },
            most_popular: r.try_get::<i64, _>("most_popular")? == 1,
        })
    })
    .collect::<anyhow::Result<Vec<_>>>()?;

    let sites = sqlx::query(
        "select code, city_zh, city_en, country_code, country_zh, country_en, note_zh, note_en, \
         typical_use_zh, typical_use_en, lat_e6, lon_e6 from sites order by position",
    )
    .fetch_all(&db.pool)
    .await
    .context("loading sites")?
    .iter()
    .map(|r| -> anyhow::Result<Site> {
        let code: String = r.try_get("code")?;
        let text = |zh: &str, en: &str| -> anyhow::Result<Localized> {
            Ok(Localized::new(
                r.try_get::<String, _>(zh)?,
                r.try_get::<String, _>(en)?,
            ))
        };
        Ok(Site {
            code: SiteCode::parse(&code).with_context(|| format!("bad site code {code:?}"))?,
            city: text("city_zh", "city_en")?,
            country_code: r.try_get("country_code")?,
            country: text("country_zh", "country_en")?,
            note: text("note_zh", "note_en")?,
            typical_use: text("typical_use_zh", "typical_use_en")?,
            lat_e6: r.try_get("lat_e6")?,
            lon_e6: r.try_get("lon_e6")?,
        })
    })
    .collect::<anyhow::Result<Vec<_>>>()?;

    let addons = load_addons(db).await?;
    Ok(Catalog {
        plans,
        sites,
        addons,
    })
}

async fn load_addons(db: &Db) -> anyhow::Result<Vec<Addon>> {
    let prices = sqlx::query(
        "select addon_id, plan_id, monthly_price_cents, currency from addon_prices \
         order by addon_id, plan_id",
    )
    .fetch_all(&db.pool)
    .await
    .context("loading add-on prices")?;
    let rows = sqlx::query(
        "select id, name_zh, name_en, description_zh, description_en from addons order by position",
    )
    .fetch_all(&db.pool)
    .await
    .context("loading add-ons")?;
    rows.iter()
        .map(|r| -> anyhow::Result<Addon> {
            let id: String = r.try_get("id")?;
            let prices = prices
                .iter()
                .filter(|p| p.try_get::<String, _>("addon_id").ok().as_deref() == Some(&id))
                .map(|p| -> anyhow::Result<(PlanId, Money)> {
                    let plan: String = p.try_get("plan_id")?;
                    let currency: String = p.try_get("currency")?;
                    Ok((
                        PlanId::parse(&plan).with_context(|| format!("bad plan id {plan:?}"))?,
                        Money {
                            cents: p.try_get("monthly_price_cents")?,
                            currency: Currency::parse(&currency)
                                .with_context(|| format!("bad currency {currency:?}"))?,
                        },
                    ))
                })
                .collect::<anyhow::Result<_>>()?;
            Ok(Addon {
                id,
                name: Localized::new(
                    r.try_get::<String, _>("name_zh")?,
                    r.try_get::<String, _>("name_en")?,
                ),
                description: Localized::new(
                    r.try_get::<String, _>("description_zh")?,
                    r.try_get::<String, _>("description_en")?,
                ),
                prices,
            })
        })
        .collect()
}
