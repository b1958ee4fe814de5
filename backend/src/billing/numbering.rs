//! Continuous document numbers per series and year: INV-2026-000001,
//! CN-2026-000001. The counter moves in the transaction that issues the
//! document, so a rolled-back invoice leaves no gap.

use anyhow::Context;
use sqlx::{Any, Transaction};

pub async fn next(tx: &mut Transaction<'_, Any>, prefix: &str, at: i64) -> anyhow::Result<String> {
    let (year, _, _) = domain::time::civil_from_days(at.div_euclid(86_400));
    let series = format!("{prefix}-{year}");
    sqlx::query(
        "insert into document_counters (series, next_number) values ($1, 1) \
         on conflict (series) do nothing",
    )
    .bind(&series)
    .execute(&mut **tx)
    .await
    .context("starting a number series")?;
    let number: i64 = sqlx::query_scalar(
        "update document_counters set next_number = next_number + 1 where series = $1 \
         returning next_number - 1",
    )
    .bind(&series)
    .fetch_one(&mut **tx)
    .await
    .context("taking the next number")?;
    Ok(format!("{series}-{number:06}"))
}
