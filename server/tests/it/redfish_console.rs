//! Consoles on the Redfish Fleet: the serial console runs the program the
//! host's BMC settings name (fake `ipmitool` and `ssh` here, which refuse
//! to run unless the BMC password reached them only through their
//! environment), and the graphical console is the BMC's own VNC server.
//! Each serial console's loopback bridge takes one connection, the one
//! that presents its key, then closes.

use crate::common::{TempDir, TestApp, TestDb};
use backend::fleet::redfish::{RedfishFleet, SERIAL_ACCEPT_WAIT};
use backend::fleet::{ConsoleEndpoint, ConsoleKind, Fleet};
use backend::inventory::bmc::{self, BmcSettings, SerialConsole};
use server::config::Config;
use std::path::PathBuf;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BMC_PASSWORD: &str = "calvin Ω-7";

/// A host with a BMC at 127.0.0.1 (nothing needs to answer there: no
/// Redfish request is made for a console).
struct Racked {
    app: TestApp,
    db: backend::Db,
    host: String,
    dir: TempDir,
}

async fn racked(db: TestDb, serial_console: SerialConsole) -> Racked {
    let app = TestApp::spawn(db).await;
    let host = app.host_names("fra", "g-l40s", "free").remove(0);
    let database = backend::Db::connect(&app.database_url, 2)
        .await
        .expect("connecting to the test database");
    let settings = BmcSettings {
        url: "http://127.0.0.1:8443".to_owned(),
        username: "admin".to_owned(),
        password: BMC_PASSWORD.to_owned(),
        tls_verify: false,
        serial_console,
        serial_command: "console com2".to_owned(),
        vnc_port: 5901,
    };
    let sealer = backend::sealing::Sealer::development();
    bmc::set(
        &database,
        &sealer,
        &backend::Clock::system(),
        &host,
        &settings,
        "test",
    )
    .await
    .expect("giving the host its BMC");
    Racked {
        app,
        db: database,
        host,
        dir: TempDir::new(),
    }
}

impl Racked {
    /// The Redfish Fleet as `server` builds it, with these console programs.
    fn fleet(&self, ipmitool: PathBuf, ssh: PathBuf) -> RedfishFleet {
        let mut config = Config::for_database(&self.app.database_url);
        config.fleet_ipmitool = ipmitool;
        config.fleet_ssh = ssh;
        config.fleet_ssh_known_hosts = self.known_hosts();
        let sealer = config.sealer().expect("the development sealer");
        config
            .redfish_fleet(&self.db, &sealer, &backend::Clock::system())
            .expect("building the Redfish Fleet")
    }

    /// A fixture program behind a wrapper giving it its settings (the
    /// Fleet hands programs a clean environment).
    fn fake(&self, fixture: &str, settings: &[(&str, &str)]) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let real = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/redfish/");
        let mut script = "#!/bin/sh\n".to_owned();
        for (name, value) in settings {
            script.push_str(&format!("export {name}='{value}'\n"));
        }
        script.push_str(&format!("exec '{real}{fixture}' \"$@\"\n"));
        let path = PathBuf::from(&self.dir.path).join(fixture);
        std::fs::write(&path, script).expect("writing the wrapper");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .expect("making the wrapper executable");
        path
    }

    /// In a folder the Fleet must make itself.
    fn known_hosts(&self) -> PathBuf {
        PathBuf::from(&self.dir.path).join("keys/bmc_known_hosts")
    }

    fn log(&self) -> String {
        format!("{}/calls", self.dir.path)
    }

    /// Each call's arguments (the escape byte 0xFF shown as U+FFFD).
    fn calls(&self) -> Vec<String> {
        String::from_utf8_lossy(&std::fs::read(self.log()).unwrap_or_default())
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// The reasons of the events the Fleet wrote in the host's history,
    /// oldest first.
    async fn events(&self) -> Vec<String> {
        sqlx::query_scalar(
            "select e.reason from host_events e join hosts h on h.id = e.host_id \
             where h.name = $1 and e.actor = 'fleet' order by e.at, e.id",
        )
        .bind(&self.host)
        .fetch_all(&self.db.pool)
        .await
        .expect("reading the host's events")
    }

    async fn finish(self) {
        self.db.pool.close().await;
        self.app.finish().await;
    }
}

/// Reads until `needle` arrived (10 s); answers all that was read.
async fn read_until(stream: &mut TcpStream, needle: &str) -> String {
    let mut seen = Vec::new();
    let read = async {
        let mut buffer = [0u8; 512];
        while !String::from_utf8_lossy(&seen).contains(needle) {
            let n = stream.read(&mut buffer).await.expect("reading the console");
            assert!(
                n > 0,
                "the console closed after {:?}",
                String::from_utf8_lossy(&seen)
            );
            seen.extend_from_slice(&buffer[..n]);
        }
    };
    if tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .is_err()
    {
        panic!(
            "no {needle:?} within 10 s: {:?}",
            String::from_utf8_lossy(&seen)
        );
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// Connects to a console as the tunnel does: the bridge's key first.
async fn open(endpoint: &ConsoleEndpoint) -> TcpStream {
    let mut stream = TcpStream::connect(endpoint.addr).await.expect("connecting");
    if let Some(key) = &endpoint.key {
        stream
            .write_all(format!("{key}\n").as_bytes())
            .await
            .expect("presenting the key");
    }
    stream
}

/// Whether the console closes (10 s), discarding what it still sends.
async fn closes(stream: &mut TcpStream) -> bool {
    let drained = async {
        let mut buffer = [0u8; 512];
        while stream.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
    };
    tokio::time::timeout(Duration::from_secs(10), drained)
        .await
        .is_ok()
}

/// Whether connecting to `addr` is refused: nothing listens there.
async fn assert_refused(addr: std::net::SocketAddr) {
    match TcpStream::connect(addr).await {
        Err(error) => assert_eq!(
            error.kind(),
            std::io::ErrorKind::ConnectionRefused,
            "{error}"
        ),
        Ok(_) => panic!("{addr} took a second connection"),
    }
}

async fn serial_console_over_ipmi_sol(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    let log = racked.log();
    let ipmitool = racked.fake(
        "fake-ipmitool",
        &[
            ("FAKE_IPMITOOL_LOG", &log),
            ("FAKE_IPMITOOL_PASSWORD", BMC_PASSWORD),
        ],
    );
    let fleet = racked.fleet(ipmitool, "/nonexistent/ssh".into());
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    let addr = endpoint.addr;
    assert!(addr.ip().is_loopback(), "{addr}");
    assert_eq!(endpoint.key.as_deref().map(str::len), Some(64));

    let mut console = open(&endpoint).await;
    let prompt = read_until(&mut console, "host login: ").await;
    assert!(
        prompt.contains("Debian GNU/Linux 13 host ttyS0"),
        "{prompt}"
    );
    console.write_all(b"root\r").await.expect("typing");
    read_until(&mut console, "root\r").await;
    // ipmitool's escape character (0xFF) never reaches it from a viewer:
    // the fake echoes what it was given.
    console
        .write_all(b"\xff.\rescaped\r")
        .await
        .expect("typing the escape");
    let echoed = read_until(&mut console, "escaped\r").await;
    assert!(echoed.contains(".\rescaped\r"), "{echoed:?}");
    assert!(!echoed.contains('\u{FFFD}'), "{echoed:?}");
    // The bridge took its one connection: nobody else gets this console.
    assert_refused(addr).await;
    drop(console);

    // A stale session is ended first; the password is never an argument;
    // the escape character is the byte 0xFF.
    let expected =
        |action: &str| format!("-I lanplus -H 127.0.0.1 -U admin -e \u{FFFD} -E sol {action}");
    assert_eq!(
        racked.calls(),
        [expected("deactivate"), expected("activate")]
    );

    // The next viewer gets a bridge of its own, and the console works again.
    let again = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console again");
    assert_ne!(again.key, endpoint.key, "a key per bridge");
    let mut console = open(&again).await;
    read_until(&mut console, "host login: ").await;
    drop(console);
    // A viewer closing its console is nothing for the host's history.
    assert_eq!(racked.events().await, Vec::<String>::new());
    racked.finish().await;
}

/// Another local process reaching the bridge first, without its key or
/// with the previous bridge's, gets nothing and is noted; the tunnel with
/// the key still gets the console.
async fn a_serial_bridge_serves_only_the_tunnel_with_its_key(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    let log = racked.log();
    let ipmitool = racked.fake("fake-ipmitool", &[("FAKE_IPMITOOL_LOG", &log)]);
    let fleet = racked.fleet(ipmitool, "/nonexistent/ssh".into());
    let old = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    drop(open(&old).await);
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    for knock in [
        Vec::new(),
        b"hello\n".to_vec(),
        format!("{}\n", old.key.clone().unwrap_or_default()).into_bytes(),
    ] {
        let mut intruder = TcpStream::connect(endpoint.addr).await.expect("connecting");
        intruder.write_all(&knock).await.expect("knocking");
        assert!(closes(&mut intruder).await, "served without the key");
    }
    let mut console = open(&endpoint).await;
    read_until(&mut console, "host login: ").await;
    drop(console);
    let events = racked.events().await;
    assert_eq!(
        events,
        vec!["serial console: a connection without the bridge's key was refused".to_owned(); 3]
    );
    racked.finish().await;
}

async fn graphical_console_is_the_bmcs_vnc(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    let fleet = racked.fleet("/nonexistent/ipmitool".into(), "/nonexistent/ssh".into());
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Graphical)
        .await
        .expect("a graphical console");
    assert_eq!(endpoint.addr, "127.0.0.1:5901".parse().expect("an address"));
    assert_eq!(endpoint.key, None, "the BMC's own server");
    // A host without a BMC has no console here.
    let error = fleet
        .console_endpoint("no-such-host", ConsoleKind::Graphical)
        .await
        .expect_err("no BMC");
    assert!(error.to_string().contains("no BMC configured"), "{error}");
    racked.finish().await;
}

async fn missing_console_program_is_noted(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    let missing = PathBuf::from(&racked.dir.path).join("no-ipmitool-here");
    let fleet = racked.fleet(missing, "/nonexistent/ssh".into());
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("the bridge itself opens");
    let mut console = open(&endpoint).await;
    assert!(closes(&mut console).await, "the console stayed open");
    let events = racked.events().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].contains("serial console: cannot start ipmitool")
            && events[0].contains("no-ipmitool-here"),
        "{events:?}"
    );
    racked.finish().await;
}

async fn failing_console_program_is_noted(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    // The BMC's password was changed behind our back.
    let ipmitool = racked.fake("fake-ipmitool", &[("FAKE_IPMITOOL_PASSWORD", "newer")]);
    let fleet = racked.fleet(ipmitool, "/nonexistent/ssh".into());
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    let mut console = open(&endpoint).await;
    assert!(closes(&mut console).await, "the console stayed open");
    let events = racked.events().await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        events[0].starts_with("serial console: ipmitool ended")
            && events[0].ends_with("fake-ipmitool: wrong password"),
        "{events:?}"
    );
    racked.finish().await;
}

async fn serial_console_over_the_bmcs_ssh(db: TestDb) {
    let racked = racked(db, SerialConsole::Ssh).await;
    let log = racked.log();
    let ssh = racked.fake(
        "fake-ssh",
        &[("FAKE_SSH_LOG", &log), ("FAKE_SSH_PASSWORD", BMC_PASSWORD)],
    );
    let fleet = racked.fleet("/nonexistent/ipmitool".into(), ssh);
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    let mut console = open(&endpoint).await;
    read_until(&mut console, "host login: ").await;
    console.write_all(b"root\r").await.expect("typing");
    read_until(&mut console, "root\r").await;
    drop(console);

    let calls = racked.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    let call = &calls[0];
    assert!(
        call.starts_with("-tt -e none -o StrictHostKeyChecking=accept-new"),
        "{call}"
    );
    // The settings' known-hosts file, kept across restarts.
    let known = format!(
        " -o UserKnownHostsFile={} -o ",
        racked.known_hosts().display()
    );
    assert!(call.contains(&known), "{call}");
    assert!(
        racked
            .known_hosts()
            .parent()
            .is_some_and(|keys| keys.is_dir()),
        "the known-hosts folder was not made"
    );
    assert!(
        call.ends_with(" -l admin -- 127.0.0.1 console com2"),
        "{call}"
    );
    assert_eq!(racked.events().await, Vec::<String>::new());
    racked.finish().await;
}

async fn unused_serial_bridge_closes(db: TestDb) {
    let racked = racked(db, SerialConsole::Ipmi).await;
    let log = racked.log();
    let ipmitool = racked.fake("fake-ipmitool", &[("FAKE_IPMITOOL_LOG", &log)]);
    let fleet = racked.fleet(ipmitool, "/nonexistent/ssh".into());
    let endpoint = fleet
        .console_endpoint(&racked.host, ConsoleKind::Serial)
        .await
        .expect("a serial console");
    tokio::time::sleep(SERIAL_ACCEPT_WAIT + Duration::from_millis(500)).await;
    assert_refused(endpoint.addr).await;
    // No console program ran, and nothing happened to the host.
    assert_eq!(racked.calls(), Vec::<String>::new());
    assert_eq!(racked.events().await, Vec::<String>::new());
    racked.finish().await;
}

on_both_databases!(
    serial_console_over_ipmi_sol,
    a_serial_bridge_serves_only_the_tunnel_with_its_key,
    graphical_console_is_the_bmcs_vnc,
    missing_console_program_is_noted,
    failing_console_program_is_noted,
    serial_console_over_the_bmcs_ssh,
    unused_serial_bridge_closes,
);
