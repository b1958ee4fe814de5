//! Between tenants, as bare-metal clouds do it: the host is forced off and
//! seen off before anything of ours boots on it, whatever its operating
//! system does with ACPI. The emulated host here runs a tenant's OS that
//! accepts graceful shutdowns and restarts and ignores them.

use crate::common::server_id;
use crate::common::TestDb;
use crate::redfish_fleet::{l40s, rig, START};
use std::time::Duration;

on_both_databases!(a_host_whose_os_ignores_acpi_is_forced_off_before_each_boot);

/// What the installed system's sshd reports as its ed25519 host key.
const HOST_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGRL3uC0nQqBSpcx0hTOnmA9L9YJ1dDQ1c3X0X8mEpVw root@next-tenant";

/// Installed and later wiped: each boot of ours starts with `ForceOff`
/// seen through (`Off`), then `On` with our media in the drive; no
/// graceful request is ever what a boot relies on.
async fn a_host_whose_os_ignores_acpi_is_forced_off_before_each_boot(db: TestDb) {
    let mut host = l40s("rf-hostile");
    host.ignores_graceful = true;
    let rig = rig(db, &[host], |_| {}).await;
    let app = &rig.app;
    assert_eq!(rig.bmc.power_state(0).await, "On", "the tenant's OS runs");
    let (ok, out) = rig.rack("g-l40s");
    assert!(ok, "{out}");
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s", "fra", &[("name", "next-tenant")])
        .await;
    let id = server_id(page.location());
    let media = rig.media(0).await;
    let mut resets = Vec::new();
    for _ in 0..300 {
        resets = rig.bmc.resets(0).await;
        if resets.iter().any(|r| r == "On") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(resets, ["ForceOff", "On"], "forced off, then booted");
    for phase in [
        serde_json::json!({ "phase": "started" }),
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.41", "ipv6": "2001:db8:41::2" }),
        serde_json::json!({ "phase": "keys", "host_keys": [HOST_KEY] }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&media, phase).await, 200);
    }
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    // The key the installer reported is what the customer checks.
    let reported = backend::ssh_keys::parse(HOST_KEY).expect("a host key");
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await.body;
    assert!(page.contains(&reported.fingerprint), "{page}");

    // The rental ends: off again, forced, before the wipe image boots.
    let term_end = app.cancel_at_term_end(&owner, &id, "next-tenant").await;
    rig.clock.advance(term_end - START + 3600);
    let wipe = rig.media(0).await;
    assert_ne!(wipe, media);
    let mut after = Vec::new();
    for _ in 0..300 {
        after = rig.bmc.resets(0).await;
        if after.len() >= 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(after[2..], ["ForceOff", "On"], "{after:?}");
    assert!(
        !after.iter().any(|r| r.starts_with("Graceful")),
        "nothing relies on the tenant's OS: {after:?}"
    );
    rig.finish().await;
}
