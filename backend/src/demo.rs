//! Demo inventory for development: a realistic spread of free, scarce and
//! sold-out combinations, so every storefront state can be seen offline.
//! Seeded only on first start (no hosts yet) and never in production.

use anyhow::Context;

use crate::inventory::{self, HostState};
use crate::{Clock, Db};

/// (site, plan, hosts racked, of which in maintenance). Los Angeles runs out
/// of L40S often, as the seed page says; Dallas has the most room.
const DEMO: &[(&str, &str, u32, u32)] = &[
    ("ams", "g-ada", 6, 0),
    ("ams", "g-l40s", 4, 1),
    ("ams", "g-l40s-x2", 2, 0),
    ("fra", "g-ada", 8, 0),
    ("fra", "g-l40s", 10, 1),
    ("fra", "g-l40s-x2", 4, 0),
    ("lon", "g-ada", 4, 0),
    ("lon", "g-l40s", 2, 0),
    ("lon", "g-l40s-x2", 1, 1),
    ("nyc", "g-ada", 5, 0),
    ("nyc", "g-l40s", 5, 0),
    ("nyc", "g-l40s-x2", 2, 0),
    ("dal", "g-ada", 9, 0),
    ("dal", "g-l40s", 12, 0),
    ("dal", "g-l40s-x2", 6, 0),
    ("lax", "g-ada", 3, 0),
    ("lax", "g-l40s", 1, 1),
    ("sin", "g-ada", 4, 0),
    ("sin", "g-l40s", 3, 0),
    ("sin", "g-l40s-x2", 1, 0),
    ("tyo", "g-ada", 4, 0),
    ("tyo", "g-l40s", 2, 0),
];

/// Seeds the demo inventory if the database has no hosts at all. Returns
/// how many hosts were added.
pub async fn seed_if_empty(db: &Db, clock: &Clock) -> anyhow::Result<usize> {
    let hosts: i64 = sqlx::query_scalar("select count(*) from hosts")
        .fetch_one(&db.pool)
        .await
        .context("counting hosts")?;
    if hosts > 0 {
        return Ok(0);
    }
    let mut added = 0;
    for &(site, plan, count, in_maintenance) in DEMO {
        let hosts = inventory::add_hosts(db, clock, site, plan, count, "demo").await?;
        for host in hosts.iter().take(in_maintenance as usize) {
            inventory::set_state(
                db,
                clock,
                &host.name,
                HostState::Maintenance,
                "demo",
                "demo: burn-in",
            )
            .await?;
        }
        added += hosts.len();
    }
    Ok(added)
}
