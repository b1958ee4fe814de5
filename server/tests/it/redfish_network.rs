//! Suspensions on the Redfish Fleet: the public network is cut at the
//! site's switch, by the operator's hook, not through the BMC.

use crate::common::{TempDir, TestApp, TestDb};
use backend::fleet::redfish::RedfishFleet;
use backend::fleet::{Fleet, FleetError};
use server::config::Config;
use std::path::PathBuf;

on_both_databases!(the_switch_hook_cuts_and_restores_the_public_network);

/// The operator's switch automation as a script: it logs its calls and
/// fails for one port as a switch refusing a session would.
fn switch_hook(dir: &TempDir) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = PathBuf::from(&dir.path).join("switch-hook");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> '{}/calls'\nenv > '{}/env'\n\
         if [ \"$2\" = broken-host ]; then echo 'Eth1/7: NETCONF session refused' >&2; exit 3; fi\n",
        dir.path, dir.path
    );
    std::fs::write(&path, script).expect("writing the hook");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
        .expect("making the hook executable");
    path
}

async fn the_switch_hook_cuts_and_restores_the_public_network(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let database = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting to the test database");
    let dir = TempDir::new();
    let fleet = |hook: Option<PathBuf>| -> RedfishFleet {
        let mut config = Config::for_database(&app.database_url);
        config.fleet_network_hook = hook;
        let sealer = config.sealer().expect("the development sealer");
        config
            .redfish_fleet(&database, &sealer, &backend::Clock::system())
            .expect("building the Redfish Fleet")
    };

    let hooked = fleet(Some(switch_hook(&dir)));
    hooked
        .set_network("fra-g-l40s-001", false)
        .await
        .expect("the port is cut");
    hooked
        .set_network("fra-g-l40s-001", true)
        .await
        .expect("the port is back");
    let calls = std::fs::read_to_string(format!("{}/calls", dir.path)).expect("the hook's log");
    assert_eq!(calls, "disable fra-g-l40s-001\nenable fra-g-l40s-001\n");
    // It runs with a cleared environment: none of ours (the test runner's
    // CARGO_* here, the database URL and keys in production) reaches it.
    let env = std::fs::read_to_string(format!("{}/env", dir.path)).expect("the hook's env");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    assert!(
        !env.lines()
            .any(|l| l.starts_with("CARGO_") || l.starts_with("DATABASE_URL=")),
        "{env}"
    );
    // A refusing switch: the job retries, and says what the switch said.
    match hooked.set_network("broken-host", false).await {
        Err(FleetError::Unavailable(why)) => {
            assert!(
                why.contains("`disable`: Eth1/7: NETCONF session refused"),
                "{why}"
            )
        }
        other => panic!("a refusing switch is a retry: {other:?}"),
    }

    // Without a hook: ports are on as racked, and a suspension waits for
    // an operator instead of pretending the port was cut.
    let bare = fleet(None);
    bare.set_network("fra-g-l40s-001", true)
        .await
        .expect("nothing to restore");
    match bare.set_network("fra-g-l40s-001", false).await {
        Err(FleetError::Unavailable(why)) => assert!(why.contains("FLEET_NETWORK_HOOK"), "{why}"),
        other => panic!("a suspension without a hook waits: {other:?}"),
    }
    app.finish().await;
}
