//! The Redfish BMC emulator the Fleet's tests drive (sushy-tools with the
//! GPU-host fixture) answers like the BMCs it stands for: plain HTTP here,
//! no application and no database.

use crate::common::redfish_bmc::{Emulator, FakeHost};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

async fn two_hosts() -> Emulator {
    let host = |name: &str, gpus: usize, secure_erase: bool| FakeHost {
        name: name.to_owned(),
        gpus: vec!["NVIDIA L40S".to_owned(); gpus],
        secure_erase,
        ignores_graceful: false,
    };
    Emulator::start(&[host("gpu-a", 1, true), host("gpu-b", 2, false)]).await
}

/// A Redfish request with the BMC's credentials: (status, JSON body or
/// Null when the body is empty).
async fn redfish(bmc: &Emulator, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let url = if path.starts_with("http") {
        path.to_owned()
    } else {
        format!("{}{path}", bmc.url)
    };
    let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
    let mut request = reqwest::Client::new()
        .request(method, &url)
        .basic_auth(&bmc.user, Some(&bmc.password));
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("asking the BMC");
    let status = response.status().as_u16();
    let text = response.text().await.expect("the BMC's answer");
    let value = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, value)
}

async fn get(bmc: &Emulator, path: &str) -> Value {
    let (status, body) = redfish(bmc, "GET", path, None).await;
    assert_eq!(status, 200, "GET {path}: {body}");
    body
}

#[tokio::test]
async fn inventory_looks_like_gpu_hosts_behind_basic_auth() {
    let bmc = two_hosts().await;
    let anonymous = reqwest::get(format!("{}/redfish/v1/Systems", bmc.url))
        .await
        .expect("asking without credentials");
    assert_eq!(anonymous.status(), 401);

    let systems = get(&bmc, "/redfish/v1/Systems").await;
    assert_eq!(systems["Members@odata.count"], 2, "{systems}");
    let second = bmc.system_url(1);
    let system = get(&bmc, &second).await;
    for field in ["Manufacturer", "Model", "SerialNumber", "BiosVersion"] {
        assert!(system[field].is_string(), "{field} in {system}");
    }
    assert_eq!(system["PowerState"], "Off");

    let processors = get(&bmc, &format!("{second}/Processors")).await;
    assert_eq!(processors["Members@odata.count"], 3, "one CPU, two GPUs");
    let gpu = get(&bmc, &format!("{second}/Processors/GPU2")).await;
    assert_eq!(gpu["ProcessorType"], "GPU");
    assert_eq!(gpu["Manufacturer"], "NVIDIA");
    assert_eq!(gpu["Model"], "NVIDIA L40S");
    let metrics = gpu["Metrics"]["@odata.id"]
        .as_str()
        .expect("a metrics link");
    assert!(get(&bmc, metrics).await["TemperatureCelsius"].is_number());

    // Only the first host's drive can be erased.
    let drive = |s: usize| format!("{}/Storage/1/Drives/Drive1", bmc.system_url(s));
    let erasable = get(&bmc, &drive(0)).await;
    let action = erasable["Actions"]["#Drive.SecureErase"]["target"]
        .as_str()
        .expect("SecureErase offered");
    assert!(get(&bmc, &drive(1)).await.get("Actions").is_none());
    assert!(!bmc.drive_erased(0).await);
    let (status, body) = redfish(&bmc, "POST", action, Some(json!({}))).await;
    assert_eq!(status, 204, "{body}");
    assert!(bmc.drive_erased(0).await);
}

#[tokio::test]
async fn power_boot_override_and_virtual_media_take_effect() {
    let bmc = two_hosts().await;
    let system = bmc.system_url(0);
    assert_eq!(bmc.power_state(0).await, "Off");
    let reset = format!("{system}/Actions/ComputerSystem.Reset");
    let (status, _) = redfish(&bmc, "POST", &reset, Some(json!({"ResetType": "On"}))).await;
    assert_eq!(status, 204);
    // The fake driver applies a reset 1 to 11 s after it is asked for.
    let deadline = Instant::now() + Duration::from_secs(15);
    while bmc.power_state(0).await != "On" {
        assert!(Instant::now() < deadline, "the host never powered on");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert_eq!(get(&bmc, &system).await["PowerState"], "On");
    assert_eq!(bmc.power_state(1).await, "Off");

    let boot =
        json!({"Boot": {"BootSourceOverrideTarget": "Cd", "BootSourceOverrideEnabled": "Once"}});
    let (status, _) = redfish(&bmc, "PATCH", &system, Some(boot)).await;
    assert_eq!(status, 204);
    assert_eq!(bmc.boot_target(0).await, "Cd");

    assert_eq!(bmc.inserted_media(0).await, None);
    let insert = format!("{system}/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia");
    let image = bmc.media_url("installer.iso");
    let (status, body) = redfish(&bmc, "POST", &insert, Some(json!({"Image": image}))).await;
    assert_eq!(status, 204, "{body}");
    assert_eq!(bmc.inserted_media(0).await, Some(image));

    // The emulator downloads the image: a missing one is a Redfish error.
    let missing = format!("{}/fixture/nowhere/installer.iso", bmc.url);
    let (status, body) = redfish(&bmc, "POST", &insert, Some(json!({"Image": missing}))).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}

#[tokio::test]
async fn readings_and_event_log_follow_the_test() {
    let bmc = two_hosts().await;
    let second = bmc.system_url(1);
    bmc.set_gpu(1, 1, 87, 2520).await;
    let metrics = get(&bmc, &format!("{second}/Processors/GPU2/ProcessorMetrics")).await;
    assert_eq!(metrics["TemperatureCelsius"], 87);
    assert_eq!(metrics["OperatingSpeedMHz"], 2520);
    let other = get(&bmc, &format!("{second}/Processors/GPU1/ProcessorMetrics")).await;
    assert_ne!(other["TemperatureCelsius"], 87);

    // Each host has a chassis of its own, so its power reading is its own.
    bmc.set_power_watts(1, 1450).await;
    let system = get(&bmc, &second).await;
    let chassis = system["Links"]["Chassis"][0]["@odata.id"]
        .as_str()
        .expect("a chassis link");
    let power = get(&bmc, &format!("{chassis}/Power")).await;
    assert_eq!(power["PowerControl"][0]["PowerConsumedWatts"], 1450);

    let entries = format!("{second}/LogServices/Log1/Entries");
    assert_eq!(get(&bmc, &entries).await["Members@odata.count"], 0);
    let message_id = "Memory.1.0.CorrectableMemoryError";
    bmc.add_log_entry(1, message_id, "Correctable ECC error on DIMM A1", "Warning")
        .await;
    let log = get(&bmc, &entries).await;
    let entry = &log["Members"][0];
    assert_eq!(entry["MessageId"], message_id, "{log}");
    assert_eq!(entry["Severity"], "Warning");
    assert!(
        entry["Created"].is_string() && entry["Id"].is_string(),
        "{entry}"
    );
    // An entry about one card names it as its origin.
    let xid = "NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE (0x00000000)";
    bmc.add_gpu_log_entry(1, 1, "OEM.GPU.Xid", xid, "Critical")
        .await;
    let log = get(&bmc, &entries).await;
    let origin = &log["Members"][1]["Links"]["OriginOfCondition"]["@odata.id"];
    let gpu = format!("/redfish/v1/Systems/{}/Processors/GPU2", bmc.system_ids[1]);
    assert_eq!(origin.as_str(), Some(gpu.as_str()), "{log}");
}

#[tokio::test]
async fn faults_hang_requests_and_fail_the_next_post() {
    let bmc = two_hosts().await;
    let system = bmc.system_url(0);
    bmc.fault("hang").await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .expect("a client with a timeout");
    let hung = client
        .get(&system)
        .basic_auth(&bmc.user, Some(&bmc.password))
        .send()
        .await;
    assert!(
        hung.is_err_and(|e| e.is_timeout()),
        "the request did not time out"
    );
    bmc.fault("none").await;
    get(&bmc, &system).await;

    bmc.fault("error").await;
    let reset = format!("{system}/Actions/ComputerSystem.Reset");
    let (status, body) = redfish(&bmc, "POST", &reset, Some(json!({"ResetType": "On"}))).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "Base.1.0.GeneralError", "{body}");
    let info = &body["error"]["@Message.ExtendedInfo"][0];
    assert_eq!(
        info["MessageId"], "Base.1.0.PropertyValueNotInList",
        "{body}"
    );
    // Only the next one.
    let (status, _) = redfish(&bmc, "POST", &reset, Some(json!({"ResetType": "On"}))).await;
    assert_eq!(status, 204);
}
