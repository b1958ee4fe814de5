//! Telemetry and health of a host read through its BMC (the Redfish
//! emulator): readings are kept, a BMC that hangs leaves the history, and
//! an uncorrectable memory error in the host's log marks it degraded.

use crate::common::redfish_bmc::{Emulator, FakeHost};
use crate::common::{TestApp, TestDb};
use backend::fleet::{Fleet, FleetError, Sample};
use backend::inventory::bmc::{self, BmcSettings, SerialConsole};
use backend::{Clock, Db};
use server::config::Config;

const START: i64 = 1_796_000_000;
const DAY: i64 = 86_400;

on_both_databases!(
    readings_are_kept_and_read_again_after_a_minute,
    a_hung_bmc_leaves_the_history_and_a_host_event,
    an_uncorrectable_memory_error_marks_the_host_degraded,
);

/// A host with two L40S behind an emulated BMC, and the Redfish Fleet.
struct Rack {
    app: TestApp,
    db: Db,
    clock: Clock,
    bmc: Emulator,
    fleet: backend::fleet::redfish::RedfishFleet,
    host: String,
    host_id: domain::HostId,
}

async fn rack(db: TestDb, bmc_timeout_secs: u64) -> Rack {
    let clock = Clock::manual(START);
    let app = TestApp::spawn_configured(db, clock.clone(), |c| c.run_workers = false).await;
    let db = Db::connect(&app.database_url, 2).await.expect("connecting");
    let added = backend::inventory::add_hosts(&db, &clock, "tyo", "g-l40s-x2", 1, "test")
        .await
        .expect("racking a host");
    let (host, host_id) = (added[0].name.clone(), added[0].id.clone());
    let bmc = Emulator::start(&[FakeHost {
        name: host.clone(),
        gpus: vec!["NVIDIA L40S".to_owned(); 2],
        secure_erase: false,
        ignores_graceful: false,
    }])
    .await;
    let sealer = backend::sealing::Sealer::development();
    let settings = BmcSettings {
        url: bmc.url.clone(),
        username: bmc.user.clone(),
        password: bmc.password.clone(),
        tls_verify: true,
        serial_console: SerialConsole::Ipmi,
        serial_command: String::new(),
        vnc_port: 5900,
    };
    bmc::set(&db, &sealer, &clock, &host, &settings, "test")
        .await
        .expect("giving the host its BMC");
    let mut config = Config::for_database(&app.database_url);
    config.fleet_bmc_timeout_secs = bmc_timeout_secs;
    let fleet = config
        .redfish_fleet(&db, &sealer, &clock)
        .expect("building the Redfish Fleet");
    Rack {
        app,
        db,
        clock,
        bmc,
        fleet,
        host,
        host_id,
    }
}

impl Rack {
    /// The last day, as the charts and Fleet health ask for it.
    async fn last_day(&self) -> Result<Vec<Sample>, FleetError> {
        let now = self.clock.now();
        self.fleet
            .telemetry(&self.host, 2, now - DAY, now, 60)
            .await
    }

    async fn stored_rows(&self) -> i64 {
        sqlx::query_scalar("select count(*) from host_readings where host_id = $1")
            .bind(&self.host_id)
            .fetch_one(&self.db.pool)
            .await
            .expect("counting readings")
    }

    async fn host_events(&self) -> Vec<String> {
        sqlx::query_scalar("select reason from host_events where host_id = $1 order by at")
            .bind(&self.host_id)
            .fetch_all(&self.db.pool)
            .await
            .expect("reading host events")
    }

    async fn degraded(&self) -> (Option<String>, Option<i64>) {
        sqlx::query_as("select degraded_reason, degraded_at from hosts where id = $1")
            .bind(&self.host_id)
            .fetch_one(&self.db.pool)
            .await
            .expect("reading the host")
    }
}

async fn readings_are_kept_and_read_again_after_a_minute(db: TestDb) {
    let rack = rack(db, 10).await;
    rack.bmc.set_gpu(0, 0, 71, 2400).await;
    rack.bmc.set_gpu(0, 1, 65, 2100).await;
    rack.bmc.set_power_watts(0, 900).await;
    let first = rack.last_day().await.expect("telemetry");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(first[0].at, START);
    assert_eq!(first[0].gpu_temp_c, vec![71, 65]);
    assert_eq!(first[0].sm_clock_mhz, vec![2400, 2100]);
    assert_eq!(first[0].ecc_corrected, vec![0, 0]);
    assert_eq!(first[0].traffic_month_bytes, 0);
    let watts: i64 =
        sqlx::query_scalar("select max(power_watts) from host_readings where host_id = $1")
            .bind(&rack.host_id)
            .fetch_one(&rack.db.pool)
            .await
            .expect("reading power");
    assert_eq!(watts, 900);

    // Within a minute the BMC is not asked again.
    rack.bmc.set_gpu(0, 0, 90, 1800).await;
    rack.bmc
        .add_log_entry(
            0,
            "Memory.1.0.CorrectableMemoryError",
            "Correctable ECC error on DIMM A1",
            "Warning",
        )
        .await;
    rack.clock.advance(30);
    let again = rack.last_day().await.expect("telemetry");
    assert_eq!(again, first);
    assert_eq!(rack.stored_rows().await, 2);

    // A minute on, it is; the corrected error counts on both cards (a
    // DIMM serves the whole host).
    rack.clock.advance(31);
    let later = rack.last_day().await.expect("telemetry");
    assert_eq!(later.len(), 2, "{later:?}");
    assert_eq!(later[1].at, START + 61);
    assert_eq!(later[1].gpu_temp_c, vec![90, 65]);
    assert_eq!(later[1].sm_clock_mhz, vec![1800, 2100]);
    assert_eq!(later[1].ecc_corrected, vec![1, 1]);
    assert_eq!(rack.stored_rows().await, 4);

    // The counters at a past moment: the reading nearest to it.
    let at_start = rack
        .fleet
        .telemetry(&rack.host, 2, START + 10, START + 10, 1)
        .await
        .expect("telemetry");
    assert_eq!(at_start, first);
    // Charts asking for one point an hour get the first and the last.
    let now = rack.clock.now();
    let hourly = rack
        .fleet
        .telemetry(&rack.host, 2, now - DAY, now, 3600)
        .await
        .expect("telemetry");
    assert_eq!(hourly, later);

    // An error the BMC ties to one GPU (an Xid) counts for that card.
    rack.bmc
        .add_gpu_log_entry(
            0,
            1,
            "",
            "NVRM: Xid (PCI:0000:3b:00): 92, High single-bit ECC error rate",
            "Warning",
        )
        .await;
    rack.clock.advance(61);
    let xid = rack.last_day().await.expect("telemetry");
    assert_eq!(xid.len(), 3, "{xid:?}");
    assert_eq!(xid[2].ecc_corrected, vec![1, 2]);
    assert!(rack.degraded().await.0.is_none());
    rack.app.finish().await;
}

async fn a_hung_bmc_leaves_the_history_and_a_host_event(db: TestDb) {
    let rack = rack(db, 1).await;
    // With nothing read yet, the time-out is the answer.
    rack.bmc.fault("hang").await;
    let error = rack
        .last_day()
        .await
        .expect_err("a hung BMC and no history");
    assert!(matches!(error, FleetError::Unavailable(_)), "{error:?}");
    rack.bmc.fault("none").await;
    rack.bmc.set_gpu(0, 1, 77, 2300).await;
    let read = rack.last_day().await.expect("telemetry");
    assert_eq!(read.len(), 1);

    rack.bmc.fault("hang").await;
    rack.clock.advance(300);
    let kept = rack.last_day().await.expect("the history, BMC or not");
    rack.bmc.fault("none").await;
    assert_eq!(kept, read);
    assert_eq!(kept[0].gpu_temp_c, vec![35, 77]);
    let events = rack.host_events().await;
    let timeouts = events
        .iter()
        .filter(|e| e.contains("did not answer within 1 s"))
        .count();
    assert_eq!(timeouts, 2, "{events:?}");
    rack.app.finish().await;
}

async fn an_uncorrectable_memory_error_marks_the_host_degraded(db: TestDb) {
    let rack = rack(db, 10).await;
    rack.last_day().await.expect("telemetry");
    assert_eq!(rack.degraded().await, (None, None));

    rack.bmc
        .add_log_entry(
            0,
            "Memory.1.0.UncorrectableMemoryError",
            "Uncorrectable ECC error on DIMM B2",
            "Critical",
        )
        .await;
    rack.clock.advance(61);
    rack.last_day().await.expect("telemetry");
    let (reason, at) = rack.degraded().await;
    let reason = reason.expect("the host is degraded");
    assert!(
        reason.contains("Uncorrectable ECC error on DIMM B2"),
        "{reason}"
    );
    assert_eq!(at, Some(START + 61));

    // The same error read again changes nothing.
    rack.clock.advance(61);
    rack.last_day().await.expect("telemetry");
    assert_eq!(rack.degraded().await, (Some(reason), Some(START + 61)));
    let events = rack.host_events().await;
    let noted = events.iter().filter(|e| e.contains("DIMM B2")).count();
    assert_eq!(noted, 1, "{events:?}");
    rack.app.finish().await;
}
