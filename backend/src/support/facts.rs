//! The facts staff need beside a hardware request, attached as an internal
//! system message when it is opened: the server's latest readings since
//! delivery (never a previous tenant's) and its health. Plain text for
//! staff, in English like the rest of the staff tools' data.

use anyhow::Context;
use domain::ServerId;
use std::fmt::Write;

use super::writes::{self, Author};
use crate::fleet::Fleet;
use crate::servers::{self, ServerState};
use crate::{Clock, Db};

/// Attaches the facts of the request's server, if it names one. The HTTP
/// layer calls it after [`super::open`] (which stays free of the Fleet); a
/// Fleet that cannot answer leaves a line saying so, not a failed request.
pub async fn attach_server_facts(
    db: &Db,
    clock: &Clock,
    fleet: &dyn Fleet,
    id: &str,
) -> anyhow::Result<()> {
    let server_id: Option<Option<ServerId>> =
        sqlx::query_scalar("select server_id from support_requests where id = $1")
            .bind(id)
            .fetch_optional(&db.pool)
            .await
            .context("reading the request's server")?;
    let Some(server_id) = server_id.flatten() else {
        return Ok(());
    };
    let Some(server) = servers::get_any(db, &server_id).await? else {
        return Ok(());
    };
    let now = clock.now();
    let mut text = format!(
        "Server {} ({}, {}, host {}), state {}.\n",
        server.name,
        server.plan_id.as_str(),
        server.site_code.as_str(),
        server.host_name.as_deref().unwrap_or("none"),
        server.state.as_str()
    );
    match readings(db, fleet, &server, now).await {
        Ok(Some(lines)) => text.push_str(&lines),
        Ok(None) => text.push_str("No telemetry: the server is not running.\n"),
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), server = %server.id, "telemetry for a support request failed");
            text.push_str("Telemetry unavailable right now.\n");
        }
    }
    match servers::maintenance::degraded(db, &server.id).await? {
        Some(reason) => writeln!(text, "Host degraded: {reason}.")?,
        None => text.push_str("Host healthy.\n"),
    }
    let windows = servers::maintenance::windows(db, &server.id).await?;
    if windows.is_empty() {
        text.push_str("No maintenance windows.\n");
    }
    for w in windows {
        writeln!(
            text,
            "Maintenance {} – {} ({}, proposed by {}).",
            domain::time::format_datetime(w.starts_at),
            domain::time::format_datetime(w.ends_at),
            w.state,
            w.proposed_by
        )?;
    }
    let mut tx = db.begin().await?;
    let system = Author {
        kind: domain::support::AuthorKind::System,
        user_id: None,
        name: "system",
    };
    writes::add_message(&mut tx, id, &system, true, text.trim_end(), now).await?;
    tx.commit().await.context("committing the server facts")?;
    Ok(())
}

/// The latest reading per card and the counters since delivery.
async fn readings(
    db: &Db,
    fleet: &dyn Fleet,
    server: &servers::Server,
    now: i64,
) -> anyhow::Result<Option<String>> {
    let (Some(host), ServerState::Running) = (&server.host_name, server.state) else {
        return Ok(None);
    };
    let cards: i64 = sqlx::query_scalar("select gpu_count from plans where id = $1")
        .bind(server.plan_id.as_str())
        .fetch_one(&db.pool)
        .await
        .context("reading the plan's cards")?;
    let cards = u32::try_from(cards).unwrap_or(1);
    let t = servers::telemetry::since_delivery(db, fleet, server, host, cards, now, 900).await?;
    let mut text = String::new();
    let Some(last) = t.samples.last() else {
        return Ok(Some("No readings since delivery yet.\n".to_owned()));
    };
    writeln!(
        text,
        "Latest reading {} (delivered {}):",
        domain::time::format_datetime(last.at),
        domain::time::format_datetime(t.delivered_at)
    )?;
    for card in 0..cards as usize {
        let (ecc, ecc_24h) = t.ecc.get(card).copied().unwrap_or((0, 0));
        writeln!(
            text,
            "GPU {card}: {} °C, {} MHz, {ecc} corrected ECC errors since delivery ({ecc_24h} in 24 h).",
            last.gpu_temp_c.get(card).copied().unwrap_or(0),
            last.sm_clock_mhz.get(card).copied().unwrap_or(0),
        )?;
    }
    writeln!(
        text,
        "Traffic this month since delivery: {:.1} GB.",
        t.traffic_bytes as f64 / 1e9
    )?;
    Ok(Some(text))
}
