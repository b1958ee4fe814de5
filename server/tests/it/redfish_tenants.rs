//! Between tenants, as bare-metal clouds do it: the host is forced off and
//! seen off before anything of ours boots on it, whatever its operating
//! system does with ACPI. The emulated host here runs a tenant's OS that
//! accepts graceful shutdowns and restarts and ignores them; the hostile
//! tenant also keeps everything its install's CD and seed held and
//! replays it against the wipe and the next tenant's install.

use crate::common::TestDb;
use crate::common::{server_id, strip_tags};
use crate::redfish_fleet::{fetch_seed, l40s, post_report, read_seed_area, rig, START};
use std::time::Duration;

on_both_databases!(
    a_host_whose_os_ignores_acpi_is_forced_off_before_each_boot,
    a_hostile_tenant_replaying_its_boot_secrets_reaches_neither_the_wipe_nor_the_next_tenant,
);

/// What the installed system's sshd reports as its ed25519 host key.
const HOST_KEY: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGRL3uC0nQqBSpcx0hTOnmA9L9YJ1dDQ1c3X0X8mEpVw root@next-tenant";

/// Installed and later wiped: each boot of ours starts with `ForceOff`
/// seen through (`Off`), then `On` with our media in the drive; no
/// graceful request is ever what a boot relies on.
async fn a_host_whose_os_ignores_acpi_is_forced_off_before_each_boot(db: TestDb) {
    let mut host = l40s("rf-hostile");
    host.ignores_graceful = true;
    // A customer's power off waits this long for ACPI before forcing.
    let rig = rig(db, &[host], |c| c.fleet_power_wait_secs = 15).await;
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
    let installer = rig.boot(&media).await;
    for phase in [
        serde_json::json!({ "phase": "started" }),
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.41", "ipv6": "2001:db8:41::2" }),
        serde_json::json!({ "phase": "keys", "host_keys": [HOST_KEY] }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&installer, phase).await, 200);
    }
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    // The key the installer reported is what the customer checks.
    let reported = backend::ssh_keys::parse(HOST_KEY).expect("a host key");
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await.body;
    assert!(page.contains(&reported.fingerprint), "{page}");

    // The customer powers it off: asked by ACPI, which their OS ignores,
    // then forced; shown off only once the BMC says so. Then on again.
    let base = format!("/en/servers/{id}");
    for (action, state, power) in [("power_off", "off", "Off"), ("power_on", "running", "On")] {
        let page = app
            .post_as(
                &owner,
                &format!("{base}/power"),
                &format!("{base}/power/{action}"),
                &[("confirm", "yes")],
                &[],
            )
            .await;
        assert_eq!(page.status, 303, "{action}: {}", page.body);
        // Off: 15 s for ACPI, then forced; each transition takes the
        // emulated BMC up to 11 s.
        let progress = app.wait_for_server_within(&owner, &id, 60).await;
        assert_eq!(progress["state"], state);
        assert_eq!(rig.bmc.power_state(0).await, power, "{action}");
    }
    let resets = rig.bmc.resets(0).await;
    assert_eq!(
        resets[2..],
        ["GracefulShutdown", "ForceOff", "On"],
        "{resets:?}"
    );

    // The rental ends: off again, forced, before the wipe image boots.
    let term_end = app.cancel_at_term_end(&owner, &id, "next-tenant").await;
    rig.clock.advance(term_end - START + 3600);
    let wipe = rig.media(0).await;
    assert_ne!(wipe, media);
    let mut after = Vec::new();
    for _ in 0..300 {
        after = rig.bmc.resets(0).await;
        if after.len() >= 7 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(after[5..], ["ForceOff", "On"], "{after:?}");
    assert!(
        !after[5..].iter().any(|r| r.starts_with("Graceful")),
        "nothing relies on the tenant's OS: {after:?}"
    );
    rig.finish().await;
}

/// The first tenant's OS ignores ACPI and keeps what its install left
/// behind: the CD's seed area (boot id, seed secret, URLs), the media URL
/// and the seed's report key. It replays all of it while the wipe runs
/// and again while the next tenant installs: nothing is handed out,
/// nothing it posts counts, the host returns to stock only on the wipe
/// image's own signed report, and the next tenant sees only the addresses
/// its own installer reported.
async fn a_hostile_tenant_replaying_its_boot_secrets_reaches_neither_the_wipe_nor_the_next_tenant(
    db: TestDb,
) {
    let mut host = l40s("rf-hostile");
    host.ignores_graceful = true;
    let rig = rig(db, &[host], |_| {}).await;
    let app = &rig.app;
    assert!(rig.rack("g-l40s").0);
    let first = app.member("first@a.example", "First", "Org A").await;
    let page = app
        .place_order(&first, "g-l40s", "fra", &[("name", "first-tenant")])
        .await;
    let first_id = server_id(page.location());
    let old_media = rig.media(0).await;
    let old = rig.boot(&old_media).await;
    let old_key = old.seed["report_key"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    for phase in [
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.66", "ipv6": "2001:db8:66::2" }),
        serde_json::json!({ "phase": "keys" }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&old, phase).await, 200);
    }
    assert_eq!(
        app.wait_for_server(&first, &first_id).await["state"],
        "running"
    );

    // The rental ends; the wipe image boots. The old tenant replays what
    // it kept against its own boot and against the wipe's.
    let term_end = app
        .cancel_at_term_end(&first, &first_id, "first-tenant")
        .await;
    rig.clock.advance(term_end - START + 3600);
    let wipe_media = rig.media(0).await;
    assert_ne!(wipe_media, old_media);
    let wipe_area = read_seed_area(app, &wipe_media).await;
    let replayed = app.client.get(&old_media).send().await.expect("old media");
    assert_eq!(
        replayed.status().as_u16(),
        404,
        "the old media token is spent"
    );
    assert_eq!(
        fetch_seed(app, &old.area).await.0,
        404,
        "the old seed is spent"
    );
    let mut forged = wipe_area.clone();
    forged["seed_secret"] = old.area["seed_secret"].clone();
    assert_eq!(fetch_seed(app, &forged).await.0, 404, "the wipe's seed");
    let done = serde_json::json!({ "phase": "done" });
    assert_eq!(post_report(app, &wipe_area, &old_key, &done).await, 404);
    assert_eq!(post_report(app, &old.area, &old_key, &done).await, 404);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        app.host_names("fra", "g-l40s", "free").is_empty(),
        "a forged wipe report returns nothing to stock"
    );
    // The wipe image itself: its seed (the forgery did not spend it), its
    // signed report, and only then the host is free.
    let wiper = rig.boot(&wipe_media).await;
    assert_eq!(rig.report(&wiper, done.clone()).await, 200);
    let mut free = Vec::new();
    for _ in 0..300 {
        free = app.host_names("fra", "g-l40s", "free");
        if !free.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(free.len(), 1, "back in stock after the verified wipe");
    let history = app.ops_ok(&["hosts", "history", &free[0]]);
    assert!(
        history
            .contains("a seed request without the boot's seed secret of the wipe boot was refused"),
        "{history}"
    );

    // The next tenant installs on the same host. The old tenant tries
    // the new boot with its old secret and key, before and after the
    // installer fetched the seed, and posts its own addresses.
    let next = app.member("next@b.example", "Next", "Org B").await;
    let page = app
        .place_order(&next, "g-l40s", "fra", &[("name", "next-tenant")])
        .await;
    let next_id = server_id(page.location());
    let new_media = rig.media(0).await;
    let new_area = read_seed_area(app, &new_media).await;
    let mut forged = new_area.clone();
    forged["seed_secret"] = old.area["seed_secret"].clone();
    let (status, body) = fetch_seed(app, &forged).await;
    assert_eq!(status, 404, "{body}");
    let stolen =
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.66", "ipv6": "2001:db8:66::2" });
    assert_eq!(post_report(app, &new_area, &old_key, &stolen).await, 404);
    let installer = rig.boot(&new_media).await;
    let password = installer.seed["root_password"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(password.len() >= 16);
    let (status, body) = fetch_seed(app, &forged).await;
    assert_eq!(status, 404);
    assert!(!body.to_string().contains(&password), "no seed leaks");
    for phase in [serde_json::json!({ "phase": "imaged" }), stolen.clone()] {
        assert_eq!(post_report(app, &new_area, &old_key, &phase).await, 404);
    }
    for phase in [
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.77", "ipv6": "2001:db8:77::2" }),
        serde_json::json!({ "phase": "keys" }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&installer, phase).await, 200);
    }
    assert_eq!(
        app.wait_for_server(&next, &next_id).await["state"],
        "running"
    );
    let page = strip_tags(
        &app.get_as(&next, &format!("/en/servers/{next_id}"))
            .await
            .body,
    );
    assert!(page.contains("203.0.113.77"), "{page}");
    assert!(
        !page.contains("203.0.113.66"),
        "nothing the old tenant posted"
    );
    rig.finish().await;
}
