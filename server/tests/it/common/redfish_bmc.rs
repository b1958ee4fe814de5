//! Redfish BMCs for the Fleet's tests: sushy-tools' emulator with its fake
//! systems driver, extended to look like GPU hosts
//! (`tests/fixtures/redfish/emulator.py`). One Python process per test on
//! a loopback port, behind HTTP Basic auth with a password of its own;
//! tests steer it (GPU readings, power draw, event log, faults) through
//! the fixture's `/fixture/` API and read back what the Fleet did.

use super::TempDir;
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/redfish/emulator.py"
);

/// A bcrypt line for the emulator's htpasswd file; cost 4, since the
/// emulator checks the password on every request.
const HASH_PASSWORD: &str = "import bcrypt, sys; \
    sys.stdout.write(bcrypt.hashpw(sys.argv[1].encode(), bcrypt.gensalt(4)).decode())";

/// One server behind the emulated BMC.
pub struct FakeHost {
    pub name: String,
    /// GPU models, one entry per GPU (`"NVIDIA L40S"`).
    pub gpus: Vec<String>,
    /// Whether its drive offers `#Drive.SecureErase`.
    pub secure_erase: bool,
    /// A tenant's OS runs on it and ignores ACPI: it starts On, and the
    /// BMC accepts graceful shutdowns and restarts that change nothing.
    pub ignores_graceful: bool,
}

/// A running emulator; the process ends when this is dropped.
pub struct Emulator {
    /// `http://127.0.0.1:PORT`, the Redfish service root's origin.
    pub url: String,
    pub user: String,
    pub password: String,
    /// The system UUID of each `FakeHost`, in the order given.
    pub system_ids: Vec<String>,
    client: reqwest::Client,
    child: Child,
    _dir: TempDir,
}

/// The Python with sushy-tools 2.2.0 that `scripts/test.sh` installs.
fn python() -> String {
    if let Some(python) = std::env::var("SUSHY_EMULATOR_PYTHON")
        .ok()
        .filter(|p| !p.is_empty())
    {
        return python;
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let default = format!("{home}/.cache/gpu-storefront/tools/sushy/bin/python");
    if std::path::Path::new(&default).exists() {
        return default;
    }
    panic!(
        "the Redfish tests need sushy-tools' emulator: run `bash scripts/test.sh` \
         (it installs sushy-tools 2.2.0 into ~/.cache/gpu-storefront/tools/sushy) \
         or set SUSHY_EMULATOR_PYTHON to a Python that has it"
    );
}

/// The emulator's config file: Python, with the systems as JSON.
fn config(dir: &str, hosts: &[FakeHost], ids: &[String]) -> String {
    let systems: Vec<Value> = hosts
        .iter()
        .zip(ids)
        .enumerate()
        .map(|(i, (host, id))| {
            let gpus: Vec<Value> = host
                .gpus
                .iter()
                .enumerate()
                .map(|(g, model)| json!({"model": model, "serial": format!("GPU-{i}{g}-{}", &id[..8])}))
                .collect();
            json!({
                "uuid": id,
                "name": host.name,
                "power_state": if host.ignores_graceful { "On" } else { "Off" },
                "nics": [{"mac": format!("52:54:00:00:00:{:02x}", i + 1), "ip": format!("10.0.0.{}", i + 1)}],
                "manufacturer": "Supermicro",
                "model": "SYS-421GE-TNRT",
                "serial": format!("SN{}", id[..8].to_uppercase()),
                "bios": "2.6.0",
                "gpus": gpus,
                "secure_erase": host.secure_erase,
                "ignores_graceful": host.ignores_graceful,
            })
        })
        .collect();
    let text = |s: String| Value::String(s).to_string();
    format!(
        "import json\n\
         SUSHY_EMULATOR_FAKE_DRIVER = True\n\
         SUSHY_EMULATOR_FEATURE_SET = 'full'\n\
         SUSHY_EMULATOR_AUTH_FILE = {}\n\
         SUSHY_EMULATOR_STATE_DIR = {}\n\
         SUSHY_EMULATOR_FAKE_SYSTEMS = json.loads({})\n",
        text(format!("{dir}/htpasswd")),
        text(format!("{dir}/state")),
        text(Value::Array(systems).to_string()),
    )
}

impl Emulator {
    /// Starts an emulator serving `hosts` (all powered off) and waits until
    /// it answers authenticated requests.
    pub async fn start(hosts: &[FakeHost]) -> Emulator {
        let python = python();
        let dir = TempDir::new();
        let user = "fleet".to_owned();
        let password = uuid::Uuid::new_v4().simple().to_string();
        let hashed = Command::new(&python)
            .args(["-c", HASH_PASSWORD, &password])
            .output()
            .unwrap_or_else(|e| panic!("running {python}: {e}"));
        assert!(
            hashed.status.success(),
            "hashing the BMC password: {}",
            String::from_utf8_lossy(&hashed.stderr)
        );
        let htpasswd = format!("{user}:{}\n", String::from_utf8_lossy(&hashed.stdout));
        std::fs::write(format!("{}/htpasswd", dir.path), htpasswd).expect("writing htpasswd");
        let system_ids: Vec<String> = hosts
            .iter()
            .map(|_| uuid::Uuid::new_v4().to_string())
            .collect();
        let config_file = format!("{}/emulator_config.py", dir.path);
        std::fs::write(&config_file, config(&dir.path, hosts, &system_ids))
            .expect("writing the emulator's config");
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("building the HTTP client");
        // The free port is found by binding and released before Python binds
        // it; another test may take it in between, so try a few times.
        let mut log = String::new();
        for _ in 0..3 {
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("finding a free port")
                .port();
            let url = format!("http://127.0.0.1:{port}");
            let mut child = spawn(&python, &config_file, port, &dir.path);
            let ready = wait_until_ready(&client, &url, &user, &password, &mut child).await;
            log = std::fs::read_to_string(format!("{}/emulator.log", dir.path)).unwrap_or_default();
            if ready {
                return Emulator {
                    url,
                    user,
                    password,
                    system_ids,
                    client,
                    child,
                    _dir: dir,
                };
            }
            let _ = child.kill();
            let _ = child.wait();
            if !log.contains("Address already in use") {
                break;
            }
        }
        panic!("the Redfish emulator did not start (or not answer within 20 s); its log:\n{log}");
    }
}

/// Polls the systems collection with the credentials (20 s); false when
/// the emulator exited or never answered.
async fn wait_until_ready(
    client: &reqwest::Client,
    url: &str,
    user: &str,
    password: &str,
    child: &mut Child,
) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if !matches!(child.try_wait(), Ok(None)) {
            return false;
        }
        let answer = client
            .get(format!("{url}/redfish/v1/Systems"))
            .basic_auth(user, Some(password))
            .timeout(Duration::from_secs(2))
            .send()
            .await;
        if answer.is_ok_and(|a| a.status() == 200) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

fn spawn(python: &str, config_file: &str, port: u16, dir: &str) -> Child {
    let log = std::fs::File::create(format!("{dir}/emulator.log")).expect("creating the log");
    let log2 = log.try_clone().expect("sharing the log");
    // The emulator downloads virtual media with `requests`, which would
    // send loopback URLs through a proxy from the environment.
    let no_proxy = match std::env::var("NO_PROXY").or_else(|_| std::env::var("no_proxy")) {
        Ok(list) if !list.is_empty() => format!("{list},127.0.0.1,localhost"),
        _ => "127.0.0.1,localhost".to_owned(),
    };
    Command::new(python)
        .arg(SCRIPT)
        .args(["--config", config_file, "--port", &port.to_string()])
        .args(["--interface", "127.0.0.1"])
        // Nothing written beside the fixture (no __pycache__ in the tree).
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("NO_PROXY", &no_proxy)
        .env("no_proxy", &no_proxy)
        // Downloaded images land in the temporary folder, removed with it.
        .env("TMPDIR", dir)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .unwrap_or_else(|e| panic!("starting {python} {SCRIPT}: {e}"))
}

impl Emulator {
    /// The Redfish URL of a system (`/redfish/v1/Systems/<uuid>`).
    pub fn system_url(&self, system: usize) -> String {
        format!(
            "{}/redfish/v1/Systems/{}",
            self.url, self.system_ids[system]
        )
    }

    /// A small image the emulator itself serves, for `InsertMedia` to
    /// download (the emulator fetches every inserted image).
    pub fn media_url(&self, name: &str) -> String {
        format!("{}/fixture/media/{name}", self.url)
    }

    /// Sets what a GPU's metrics report; `gpu` counts from 0 in the
    /// host's `gpus` (Redfish calls it `GPU{gpu + 1}`).
    pub async fn set_gpu(&self, system: usize, gpu: usize, temp_c: i64, clock_mhz: i64) {
        let path = format!("processors/GPU{}", gpu + 1);
        let body = json!({"temperature_c": temp_c, "clock_mhz": clock_mhz});
        self.control(system, &path, body).await;
    }

    /// Sets the power draw the system's chassis reports.
    pub async fn set_power_watts(&self, system: usize, watts: i64) {
        self.control(system, "power", json!({"watts": watts})).await;
    }

    /// Appends an entry to the system event log (`Severity`: OK, Warning,
    /// Critical).
    pub async fn add_log_entry(
        &self,
        system: usize,
        message_id: &str,
        message: &str,
        severity: &str,
    ) {
        let entry = json!({"MessageId": message_id, "Message": message, "Severity": severity});
        self.control(system, "log", entry).await;
    }

    /// Appends an entry about one GPU (`Links.OriginOfCondition` is the
    /// processor `GPU{gpu + 1}`), as BMCs log Xid and GPU memory errors.
    pub async fn add_gpu_log_entry(
        &self,
        system: usize,
        gpu: usize,
        message_id: &str,
        message: &str,
        severity: &str,
    ) {
        let entry = json!({
            "MessageId": message_id,
            "Message": message,
            "Severity": severity,
            "OriginOfCondition": format!("GPU{}", gpu + 1),
        });
        self.control(system, "log", entry).await;
    }

    /// `hang`: every Redfish request waits 30 s (or until the mode
    /// changes) before it is answered; `error`: the next Redfish POST
    /// answers 400 with a Redfish error body; `redirect`: every Redfish
    /// request answers 307 to another origin; `foreign`: a system's reset
    /// target and virtual media link name another origin; `none`: normal
    /// again.
    pub async fn fault(&self, mode: &str) {
        let url = format!("{}/fixture/fault", self.url);
        self.post(&url, json!({"mode": mode})).await;
    }

    /// (requests, with credentials) that reached another origin the BMC
    /// pointed at (faults `redirect` and `foreign`).
    pub async fn requests_elsewhere(&self) -> (u64, u64) {
        let url = format!("{}/fixture/elsewhere", self.url);
        let seen: Value = self
            .client
            .get(&url)
            .send()
            .await
            .expect("reading the requests elsewhere")
            .json()
            .await
            .expect("JSON");
        (
            seen["requests"].as_u64().unwrap_or_default(),
            seen["with_credentials"].as_u64().unwrap_or_default(),
        )
    }

    /// The image URL in the virtual CD slot, when media is inserted.
    pub async fn inserted_media(&self, system: usize) -> Option<String> {
        let cd = &self.state(system).await["virtual_media"]["Cd"];
        match (cd["inserted"].as_bool(), cd["image"].as_str()) {
            (Some(true), Some(image)) => Some(image.to_owned()),
            _ => None,
        }
    }

    /// The reset types the BMC was asked for, oldest first.
    pub async fn resets(&self, system: usize) -> Vec<String> {
        let state = self.state(system).await;
        state["resets"]
            .as_array()
            .map(|r| {
                r.iter()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `On` or `Off`; the fake driver applies a reset 1–11 s after it is
    /// asked for.
    pub async fn power_state(&self, system: usize) -> String {
        let state = self.state(system).await;
        state["power_state"].as_str().unwrap_or_default().to_owned()
    }

    /// The boot source override target (`Hdd`, `Cd`, `Pxe`, …).
    pub async fn boot_target(&self, system: usize) -> String {
        let state = self.state(system).await;
        state["boot_source_target"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Whether the system's drive has been through `Drive.SecureErase`.
    pub async fn drive_erased(&self, system: usize) -> bool {
        let state = self.state(system).await;
        state["erased_drives"]
            .as_array()
            .is_some_and(|d| !d.is_empty())
    }

    async fn state(&self, system: usize) -> Value {
        let url = format!("{}/fixture/systems/{}", self.url, self.system_ids[system]);
        let response = self
            .client
            .get(&url)
            .send()
            .await
            .expect("reading the BMC's state");
        let status = response.status();
        let body = response.text().await.expect("the BMC's state");
        assert_eq!(status, 200, "{url}: {body}");
        serde_json::from_str(&body).expect("the BMC's state is JSON")
    }

    async fn control(&self, system: usize, path: &str, body: Value) {
        let url = format!(
            "{}/fixture/systems/{}/{path}",
            self.url, self.system_ids[system]
        );
        self.post(&url, body).await;
    }

    async fn post(&self, url: &str, body: Value) {
        let response = self
            .client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("steering the BMC");
        let status = response.status();
        let text = response.text().await.unwrap_or_default();
        assert_eq!(status, 204, "{url}: {text}");
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
