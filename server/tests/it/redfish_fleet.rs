//! The production Fleet against a Redfish BMC emulator (sushy-tools):
//! racking a host with its BMC, checking it, installing a customer's
//! server through virtual media with the installer's reports played by
//! the test, wiping it through the wipe image on cancellation, and BMCs
//! that time out, refuse the password or answer an error.

use crate::common::redfish_bmc::{Emulator, FakeHost};
use crate::common::{server_id, strip_tags, TempDir, TestApp, TestDb};
use server::config::FleetKind;
use std::time::Duration;

on_both_databases!(
    a_racked_host_is_installed_through_virtual_media_and_wiped_by_the_wipe_image,
    a_bmc_with_secure_erase_wipes_the_drives_without_booting_an_image,
    an_installer_that_never_reports_moves_the_server_to_another_host,
    a_bmc_that_refuses_or_fails_leaves_a_host_event_and_no_lost_job,
    a_bmc_pointing_elsewhere_is_not_followed,
);

pub(crate) const START: i64 = 1_796_000_000;

/// Where the seed area sits in the test images (a 2 KiB sector).
const SEED_AT: usize = 16 * 2048;

/// A store with a 64 KiB "installer" and wipe image, each with its
/// seed area, as an operator builds them.
fn image_store() -> TempDir {
    let dir = TempDir::new();
    for name in ["debian-13", "ubuntu-24.04", "wipe"] {
        let mut image = vec![0x55u8; 64 * 1024];
        image[SEED_AT..SEED_AT + 8].copy_from_slice(b"GPUSEED1");
        for byte in &mut image[SEED_AT + 8..SEED_AT + 4096] {
            *byte = 0;
        }
        std::fs::write(format!("{}/{name}.iso", dir.path), image).expect("writing an image");
    }
    dir
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

pub(crate) struct Rig {
    pub(crate) app: TestApp,
    pub(crate) bmc: Emulator,
    pub(crate) clock: backend::Clock,
    _images: TempDir,
    _secrets: TempDir,
    password_file: String,
}

/// An app on the Redfish Fleet whose only free G-L40S hosts in Frankfurt
/// are the emulator's, racked through `server hosts add` with their BMC.
pub(crate) async fn rig(
    db: TestDb,
    hosts: &[FakeHost],
    adjust: impl FnOnce(&mut server::config::Config),
) -> Rig {
    let bmc = Emulator::start(hosts).await;
    let images = image_store();
    let port = free_port();
    let clock = backend::Clock::manual(START);
    let image_dir = images.path.clone();
    let app = TestApp::spawn_configured(db, clock.clone(), |c| {
        c.fleet = FleetKind::Redfish;
        c.listen_addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        c.fleet_callback_url = Some(format!("http://127.0.0.1:{port}"));
        c.fleet_image_dir = image_dir.into();
        c.fleet_power_wait_secs = 30;
        c.fleet_bmc_timeout_secs = 3;
        adjust(c);
    })
    .await;
    // The simulated demo hosts cannot boot anything here: out of stock.
    for name in app.host_names("fra", "g-l40s", "free") {
        app.ops_ok(&["hosts", "set", &name, "maintenance"]);
    }
    let secrets = TempDir::new();
    let password_file = format!("{}/bmc-password", secrets.path);
    std::fs::write(&password_file, format!("{}\n", bmc.password)).expect("password file");
    Rig {
        app,
        bmc,
        clock,
        _images: images,
        _secrets: secrets,
        password_file,
    }
}

impl Rig {
    pub(crate) async fn finish(self) {
        self.app.finish().await;
    }

    pub(crate) fn rack(&self, plan: &str) -> (bool, String) {
        self.app.ops_env(
            &[
                "hosts",
                "add",
                "--site",
                "fra",
                "--plan",
                plan,
                "--bmc-url",
                &self.bmc.url,
                "--bmc-user",
                &self.bmc.user,
                "--bmc-password-file",
                &self.password_file,
            ],
            &[],
        )
    }

    /// The media URL the BMC was given for system `n`, once it has one.
    pub(crate) async fn media(&self, n: usize) -> String {
        // Up to a minute: the host is forced off first, which sushy's
        // emulator applies after 1–11 s.
        for _ in 0..600 {
            if let Some(url) = self.bmc.inserted_media(n).await {
                return url;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the BMC was never given boot media");
    }

    /// The image that booted from `media`, as a real installer starts: it
    /// reads the seed area from its boot medium and fetches its seed once
    /// with the seed secret found there (asking again while the Fleet has
    /// not yet seen the boot).
    pub(crate) async fn boot(&self, media: &str) -> Installer {
        let area = read_seed_area(&self.app, media).await;
        for _ in 0..300 {
            let (status, seed) = fetch_seed(&self.app, &area).await;
            match status {
                200 => return Installer { area, seed },
                409 => tokio::time::sleep(Duration::from_millis(100)).await,
                other => panic!("the seed answered {other}: {seed}"),
            }
        }
        panic!("the boot was never proven");
    }

    /// Posts `body` as `installer`'s report, signed with its report key.
    pub(crate) async fn report(&self, installer: &Installer, body: serde_json::Value) -> u16 {
        let key = installer.seed["report_key"].as_str().unwrap_or_default();
        post_report(&self.app, &installer.area, key, &body).await
    }
}

/// What booted from our media knows: the seed area's JSON and its seed.
pub(crate) struct Installer {
    pub(crate) area: serde_json::Value,
    pub(crate) seed: serde_json::Value,
}

/// The seed area of the media at `url`, read in a range as the booted
/// image reads its CD (and a BMC serves it).
pub(crate) async fn read_seed_area(app: &TestApp, url: &str) -> serde_json::Value {
    let area = app
        .client
        .get(url)
        .header("range", format!("bytes={SEED_AT}-{}", SEED_AT + 4095))
        .send()
        .await
        .expect("reading the media");
    assert_eq!(area.status().as_u16(), 206);
    let area = area.bytes().await.expect("bytes");
    assert_eq!(&area[..8], b"GPUSEED1");
    let json = area[8..].split(|b| *b == 0).next().unwrap_or_default();
    serde_json::from_slice(json).expect("the seed area's JSON")
}

/// `GET` the seed named in `area` with its seed secret: (status, body).
pub(crate) async fn fetch_seed(
    app: &TestApp,
    area: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let response = app
        .client
        .get(area["seed"].as_str().expect("a seed URL"))
        .bearer_auth(area["seed_secret"].as_str().expect("a seed secret"))
        .send()
        .await
        .expect("fetching the seed");
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    (
        status,
        serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
    )
}

/// Posts `body` to the report URL in `area`, signed with `key` (hex).
pub(crate) async fn post_report(
    app: &TestApp,
    area: &serde_json::Value,
    key: &str,
    body: &serde_json::Value,
) -> u16 {
    use hmac::{Hmac, Mac};
    let body = body.to_string();
    let key: Vec<u8> = (0..key.len() / 2)
        .map(|i| u8::from_str_radix(&key[2 * i..2 * i + 2], 16).expect("a hex key"))
        .collect();
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(&key).expect("any key length");
    mac.update(body.as_bytes());
    let signature: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    app.client
        .post(area["report"].as_str().expect("a report URL"))
        .header("content-type", "application/json")
        .header("x-boot-signature", format!("sha256={signature}"))
        .body(body)
        .send()
        .await
        .expect("reporting")
        .status()
        .as_u16()
}

pub(crate) fn l40s(name: &str) -> FakeHost {
    FakeHost {
        name: name.to_owned(),
        gpus: vec!["NVIDIA L40S".to_owned()],
        secure_erase: false,
        ignores_graceful: false,
    }
}

async fn a_racked_host_is_installed_through_virtual_media_and_wiped_by_the_wipe_image(db: TestDb) {
    let rig = rig(db, &[l40s("rf-1")], |_| {}).await;
    let app = &rig.app;
    let (ok, out) = rig.rack("g-l40s");
    assert!(ok, "{out}");
    assert!(out.contains("GPUs     NVIDIA L40S"), "{out}");
    assert!(out.contains("is in stock (free)"), "{out}");
    let host = app.host_names("fra", "g-l40s", "free");
    assert_eq!(host.len(), 1, "only the checked host sells");

    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s", "fra", &[("name", "train-fra-01")])
        .await;
    let id = server_id(page.location());

    // The BMC got a per-boot media URL of ours, fetched it (sushy
    // downloads the image when it is inserted) and boots from it once.
    let media = rig.media(0).await;
    assert!(
        media.starts_with(&format!("{}/fleet/media/", app.base)) && media.ends_with("/boot.iso"),
        "{media}"
    );
    let whole = app.client.get(&media).send().await.expect("whole image");
    assert_eq!(whole.status().as_u16(), 200);
    assert_eq!(whole.bytes().await.expect("bytes").len(), 64 * 1024);
    // What the booted image reads from its CD: the seed area, filled in
    // for this boot, naming the seed and report URLs and the seed secret.
    let area = read_seed_area(app, &media).await;
    let token = media.split('/').rev().nth(1).expect("the media token");
    assert!(
        !area.to_string().contains(token),
        "the media token is not a seed secret"
    );
    // The media token fetches nothing but the media.
    let by_token = app
        .client
        .get(area["seed"].as_str().unwrap_or_default())
        .bearer_auth(token)
        .send()
        .await
        .expect("seed with the media token");
    assert_eq!(by_token.status().as_u16(), 404);

    // The installer fetches its seed once the Fleet saw the host boot:
    // hostname, (no SSH key given) the root password, the report key.
    let installer = rig.boot(&media).await;
    let seed = &installer.seed;
    assert_eq!(seed["hostname"], "train-fra-01");
    assert_eq!(seed["purpose"], "install");
    assert!(seed["root_password"]
        .as_str()
        .is_some_and(|p| p.len() >= 16));
    assert_eq!(seed["report_key"].as_str().map(str::len), Some(64));
    // Once: a second fetch, even with the secret, gets nothing.
    assert_eq!(fetch_seed(app, &installer.area).await.0, 404);

    // It reports its phases, signed; the server follows them.
    for phase in ["started", "imaged"] {
        assert_eq!(
            rig.report(&installer, serde_json::json!({ "phase": phase }))
                .await,
            200
        );
    }
    // Unsigned, or signed with either token, a report moves nothing.
    let network =
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.40", "ipv6": "2001:db8:40::2" });
    for key in [
        token,
        installer.area["seed_secret"].as_str().unwrap_or_default(),
        "",
    ] {
        assert_eq!(post_report(app, &installer.area, key, &network).await, 404);
    }
    // A phase may not go back, and the network phase carries addresses.
    assert_eq!(
        rig.report(&installer, serde_json::json!({ "phase": "started" }))
            .await,
        422
    );
    assert_eq!(
        rig.report(&installer, serde_json::json!({ "phase": "network" }))
            .await,
        422
    );
    assert_eq!(rig.report(&installer, network).await, 200);
    let keys = serde_json::json!({ "phase": "keys", "host_keys": ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostKeyOfTrainFra01 root@train-fra-01"] });
    assert_eq!(rig.report(&installer, keys).await, 200);
    assert_eq!(
        rig.report(&installer, serde_json::json!({ "phase": "done" }))
            .await,
        200
    );

    let done = app.wait_for_server(&owner, &id).await;
    assert_eq!(done["state"], "running");
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await.body;
    assert!(
        strip_tags(&page).contains("203.0.113.40"),
        "the reported address"
    );
    // Snapshots and root password resets need the operator's host agent:
    // the page says so instead of offering them, and the forms refuse.
    assert!(page.contains("data-testid=\"root-reset-not-offered\""));
    let page = app
        .get_as(&owner, &format!("/en/servers/{id}/snapshots"))
        .await
        .body;
    assert!(page.contains("data-testid=\"snapshots-not-offered\""));
    assert!(
        !page.contains(&format!(
            "method=\"post\" action=\"/en/servers/{id}/snapshots\""
        )),
        "no take form"
    );
    let zh = app
        .get_as(&owner, &format!("/zh/servers/{id}/snapshots"))
        .await
        .body;
    assert!(zh.contains("快照代理"), "in Chinese too");
    let base = format!("/en/servers/{id}");
    let refused = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/snapshots"),
            &[("name", "before-driver")],
            &[],
        )
        .await;
    assert_eq!(refused.status, 409);
    assert!(strip_tags(&refused.body).contains("snapshot agent"));
    // Spent: the media, the seed and the reports end with the final report.
    assert_eq!(fetch_seed(app, &installer.area).await.0, 404);
    assert_eq!(
        rig.report(&installer, serde_json::json!({ "phase": "done" }))
            .await,
        404
    );
    let spent = app.client.get(&media).send().await.expect("media again");
    assert_eq!(spent.status().as_u16(), 404);
    assert_eq!(rig.bmc.inserted_media(0).await, None, "media ejected");
    assert_eq!(rig.bmc.power_state(0).await, "On");

    // Cancelled at the end of its term: the wipe image boots (this BMC
    // offers no SecureErase), and only its success frees the host.
    let term_end = app.cancel_at_term_end(&owner, &id, "train-fra-01").await;
    rig.clock.advance(term_end - START + 3600);
    let wipe = rig.media(0).await;
    assert_ne!(wipe, media);
    let wiper = rig.boot(&wipe).await;
    assert_eq!(wiper.seed["purpose"], "wipe");
    assert_eq!(wiper.seed["root_password"], serde_json::Value::Null);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        app.host_names("fra", "g-l40s", "free").is_empty(),
        "not free before the wipe reported"
    );
    assert_eq!(
        rig.report(&wiper, serde_json::json!({ "phase": "done" }))
            .await,
        200
    );
    let mut freed = Vec::new();
    for _ in 0..200 {
        freed = app.host_names("fra", "g-l40s", "free");
        if !freed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(freed, host, "back in stock after the wipe");
    rig.finish().await;
}

async fn an_installer_that_never_reports_moves_the_server_to_another_host(db: TestDb) {
    let rig = rig(db, &[l40s("rf-1")], |_| {}).await;
    let app = &rig.app;
    assert!(rig.rack("g-l40s").0);
    // A second host with a BMC of its own (a BMC manages one machine).
    let other = Emulator::start(&[l40s("rf-2")]).await;
    let other_password = format!("{}/other-password", rig._secrets.path);
    std::fs::write(&other_password, &other.password).expect("password file");
    app.ops_ok(&[
        "hosts",
        "add",
        "--site",
        "fra",
        "--plan",
        "g-l40s",
        "--bmc-url",
        &other.url,
        "--bmc-user",
        &other.user,
        "--bmc-password-file",
        &other_password,
    ]);
    assert_eq!(app.host_names("fra", "g-l40s", "free").len(), 2);

    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app.place_order(&owner, "g-l40s", "fra", &[]).await;
    let id = server_id(page.location());
    // Whichever host was taken first boots the installer; it stays silent.
    let (first, _silent, second) = loop {
        if let Some(url) = rig.bmc.inserted_media(0).await {
            break (url, &rig.bmc, &other);
        }
        if let Some(url) = other.inserted_media(0).await {
            break (url, &other, &rig.bmc);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Past the install limit (45 minutes by default): a host fault, and
    // the server starts again on the other host.
    rig.clock.advance(46 * 60);
    // sushy's emulator takes 1–11 s for each power change (ForceOff, then
    // On), and the worker notices the fault on its next pass: up to a minute.
    let mut moved = None;
    for _ in 0..600 {
        moved = second.inserted_media(0).await;
        if moved.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let moved = rig
        .boot(&moved.expect("the installer boots on the other host"))
        .await;
    for body in [
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.41", "ipv6": "2001:db8:41::2" }),
        serde_json::json!({ "phase": "keys" }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&moved, body).await, 200);
    }
    // Signed in again: the session idled out while the clock moved.
    let fields = [
        ("email", "owner@a.example"),
        ("password", crate::common::PASSWORD),
    ];
    app.post_as(&owner, "/en/login", "/en/login", &fields, &[])
        .await;
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    let page = app.get_as(&owner, &format!("/en/servers/{id}")).await.body;
    assert!(
        strip_tags(&page).contains("203.0.113.41"),
        "{}",
        strip_tags(&page)
    );
    // The silent host is out of service with the reason in its history,
    // and its boot's token died with it.
    let failed = app.host_names("fra", "g-l40s", "failed");
    assert_eq!(failed.len(), 1);
    let history = app.ops_ok(&["hosts", "history", &failed[0]]);
    assert!(
        history.contains("did not report imaged in time"),
        "{history}"
    );
    let media = app.client.get(&first).send().await.expect("media");
    assert_eq!(media.status().as_u16(), 404);
    rig.finish().await;
}

async fn a_bmc_that_refuses_or_fails_leaves_a_host_event_and_no_lost_job(db: TestDb) {
    let rig = rig(db, &[l40s("rf-1")], |_| {}).await;
    let app = &rig.app;
    // A wrong password: the check says 401 and the host stays out of stock.
    std::fs::write(&rig.password_file, "not-the-password\n").expect("password file");
    let (ok, out) = rig.rack("g-l40s");
    assert!(!ok, "{out}");
    assert!(out.contains("401"), "{out}");
    assert!(!out.contains("not-the-password"), "{out}");
    let name = app
        .host_names("fra", "g-l40s", "maintenance")
        .into_iter()
        .find(|n| app.ops_ok(&["hosts", "history", n]).contains("401"))
        .expect("the racked host, with the refusal in its history");
    let (ok, out) = app.ops(&["hosts", "set", &name, "free"]);
    assert!(!ok && out.contains("has not passed its check"), "{out}");

    // The right password, and the check passes.
    std::fs::write(&rig.password_file, format!("{}\n", rig.bmc.password)).expect("password file");
    app.ops_ok(&[
        "hosts",
        "bmc",
        &name,
        "--bmc-url",
        &rig.bmc.url,
        "--bmc-user",
        &rig.bmc.user,
        "--bmc-password-file",
        &rig.password_file,
    ]);
    assert!(app
        .ops_ok(&["hosts", "check", &name])
        .contains("matches its plan"));
    app.ops_ok(&["hosts", "set", &name, "free"]);
    // Power through the BMC: the command returns once the state shows
    // (the emulator, like a BMC, acts seconds after it accepts).
    assert!(app
        .ops_ok(&["hosts", "power", &name, "on"])
        .contains("power On"));
    assert_eq!(rig.bmc.power_state(0).await, "On");
    assert!(app
        .ops_ok(&["hosts", "power", &name, "off"])
        .contains("power Off"));
    assert_eq!(rig.bmc.power_state(0).await, "Off");

    // A BMC that hangs: the check gives up after the time-out (3 s here)
    // and says so in the history.
    rig.bmc.fault("hang").await;
    let (ok, out) = app.ops_env(
        &["hosts", "check", &name],
        &[("FLEET_BMC_TIMEOUT_SECS", "3")],
    );
    assert!(!ok && out.contains("did not answer within 3 s"), "{out}");
    rig.bmc.fault("none").await;

    // A BMC that answers an action with a Redfish error: the install
    // cannot start there, the history quotes the BMC, and the order ends
    // failed (nothing charged) instead of waiting forever.
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    rig.bmc.fault("error").await;
    let page = app.place_order(&owner, "g-l40s", "fra", &[]).await;
    let id = server_id(page.location());
    let mut state = serde_json::Value::Null;
    for _ in 0..300 {
        let progress = app
            .get_as(&owner, &format!("/en/servers/{id}/progress"))
            .await
            .body;
        state = serde_json::from_str(&progress).unwrap_or_default();
        if state["state"] == "failed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(state["state"], "failed", "{state}");
    let history = app.ops_ok(&["hosts", "history", &name]);
    assert!(history.contains("BMC: the BMC answered 400"), "{history}");
    // The BMC's words are for staff; the customer reads our own, in
    // their language.
    for (lang, fault) in [("en", "Hardware fault found"), ("zh", "发现硬件故障")] {
        let page = app
            .get_as(&owner, &format!("/{lang}/servers/{id}"))
            .await
            .body;
        assert!(page.contains(fault), "{page}");
        assert!(!page.contains("injected by the test"), "{page}");
        assert!(!page.contains("the BMC answered"), "{page}");
    }
    rig.finish().await;
}

/// A BMC's answers are untrusted: a redirect to another origin, or a
/// reset target there, is refused before a request (with our
/// credentials) goes anywhere else.
async fn a_bmc_pointing_elsewhere_is_not_followed(db: TestDb) {
    let rig = rig(db, &[l40s("rf-1")], |_| {}).await;
    let app = &rig.app;
    let (ok, out) = rig.rack("g-l40s");
    assert!(ok, "{out}");
    let name = app.host_names("fra", "g-l40s", "free").remove(0);
    rig.bmc.fault("redirect").await;
    let (ok, out) = app.ops(&["hosts", "check", &name]);
    assert!(!ok && out.contains("307"), "{out}");
    rig.bmc.fault("foreign").await;
    // A power cycle always posts a reset, whatever the state.
    let (ok, out) = app.ops(&["hosts", "power", &name, "cycle"]);
    assert!(!ok && out.contains("pointed outside itself"), "{out}");
    rig.bmc.fault("none").await;
    assert_eq!(
        rig.bmc.requests_elsewhere().await,
        (0, 0),
        "nothing left the BMC"
    );
    assert!(app
        .ops_ok(&["hosts", "power", &name, "off"])
        .contains("power Off"));
    rig.finish().await;
}

async fn a_bmc_with_secure_erase_wipes_the_drives_without_booting_an_image(db: TestDb) {
    let host = FakeHost {
        secure_erase: true,
        ignores_graceful: false,
        ..l40s("rf-1")
    };
    let rig = rig(db, &[host], |_| {}).await;
    let app = &rig.app;
    assert!(rig.rack("g-l40s").0);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-l40s", "fra", &[("name", "erase-me")])
        .await;
    let id = server_id(page.location());
    let installer = rig.boot(&rig.media(0).await).await;
    // The install erased the drive first (the erase step).
    assert!(rig.bmc.drive_erased(0).await);
    for body in [
        serde_json::json!({ "phase": "imaged" }),
        serde_json::json!({ "phase": "network", "ipv4": "203.0.113.42", "ipv6": "2001:db8:42::2" }),
        serde_json::json!({ "phase": "keys" }),
        serde_json::json!({ "phase": "done" }),
    ] {
        assert_eq!(rig.report(&installer, body).await, 200);
    }
    assert_eq!(app.wait_for_server(&owner, &id).await["state"], "running");
    let term_end = app.cancel_at_term_end(&owner, &id, "erase-me").await;
    rig.clock.advance(term_end - START + 3600);
    // Wiped by the drives' own erase: free again with no image booted.
    let mut freed = Vec::new();
    for _ in 0..300 {
        freed = app.host_names("fra", "g-l40s", "free");
        if !freed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(freed.len(), 1, "back in stock");
    assert_eq!(rig.bmc.inserted_media(0).await, None, "no wipe image");
    let history = app.ops_ok(&["hosts", "history", &freed[0]]);
    assert!(history.contains("SecureErase completed"), "{history}");
    rig.finish().await;
}
