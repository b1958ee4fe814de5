//! The console tunnel's costs, measured through the public surface: how
//! long a console takes to open (ticket, WebSocket, first byte), how fast a
//! graphical console's full frames cross the relay, and serial echo round
//! trips with many consoles open at once (each rechecks the database every
//! two seconds). Figures only, no pass/fail on time: run on demand with
//!
//!     bash scripts/bench-console.sh
//!
//! and see docs/BENCHMARKS.md.

use crate::common::console::{connect, session_cookie, ticket};
use crate::common::{server_id, TestApp, TestDb};
use std::time::{Duration, Instant};

/// Ticket requests are limited to 30 per user in 5 minutes; each member
/// opens at most this many.
const PER_MEMBER: usize = 25;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: bash scripts/bench-console.sh"]
async fn console_tunnel_figures() {
    let db = match std::env::var("BENCH_DB").as_deref() {
        Ok("postgres") => TestDb::Postgres,
        _ => TestDb::Sqlite,
    };
    let concurrent: usize = std::env::var("BENCH_CONSOLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let app = TestApp::spawn(db).await;
    app.rack("fra", "g-ada", 1);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let page = app
        .place_order(&owner, "g-ada", "fra", &[("name", "bench-1")])
        .await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    println!("database: {db:?}");

    // 1. Opening: ticket POST + WebSocket upgrade + the first bytes.
    let cookie = session_cookie(&app, "owner@a.example").await;
    let mut opening = Vec::new();
    for _ in 0..PER_MEMBER {
        let started = Instant::now();
        let (_, path) = ticket(&app, &cookie, &id, "serial").await;
        let mut serial = connect(&app.base, &cookie, &path).await;
        serial.read_exact(1).await;
        opening.push(started.elapsed());
    }
    report(
        "open a serial console (ticket + upgrade + first byte)",
        opening,
    );

    // 2. Graphical: full 640×400 Raw frames, 32 bpp (1,024,000 bytes each).
    let others = members(&app, &owner, "viewer", 1).await;
    let (_, path) = ticket(&app, &others[0], &id, "vnc").await;
    let mut vnc = connect(&app.base, &others[0], &path).await;
    vnc.read_exact(12).await;
    vnc.send(b"RFB 003.008\n").await;
    vnc.read_exact(2).await;
    vnc.send(&[1]).await;
    vnc.read_exact(4).await;
    vnc.send(&[1]).await;
    let init = vnc.read_exact(24).await;
    let name_len = u32::from_be_bytes([init[20], init[21], init[22], init[23]]) as usize;
    vnc.read_exact(name_len).await;
    let frame = 640 * 400 * 4;
    let mut frames = Vec::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        let asked = Instant::now();
        vnc.send(&[3, 0, 0, 0, 0, 0, 2, 128, 1, 144]).await;
        vnc.read_exact(4 + 12 + frame).await;
        frames.push(asked.elapsed());
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "full VNC frames: {} in {seconds:.1} s = {:.1} frames/s, {:.0} MB/s",
        frames.len(),
        frames.len() as f64 / seconds,
        (frames.len() * frame) as f64 / seconds / 1e6
    );
    report("one full VNC frame (request to last byte)", frames);
    drop(vnc);

    // 3. Many serial consoles open at once: time until every one shows its
    //    prompt, then one keystroke's echo in each, all at the same time.
    let cookies = members(&app, &owner, "tech", concurrent.div_ceil(PER_MEMBER)).await;
    let rss_before = resident_kib();
    let started = Instant::now();
    let mut consoles = Vec::new();
    for n in 0..concurrent {
        let cookie = &cookies[n / PER_MEMBER];
        let (status, path) = ticket(&app, cookie, &id, "serial").await;
        assert_eq!(status, 200, "ticket {n}");
        consoles.push(connect(&app.base, cookie, &path).await);
    }
    let prompts = futures_util::future::join_all(
        consoles
            .iter_mut()
            .map(|c| async move { c.read_until("login: ").await }),
    )
    .await;
    println!(
        "{} serial consoles opened and prompting in {:.2} s",
        prompts.len(),
        started.elapsed().as_secs_f64()
    );
    // Let several database rechecks pass with all of them open.
    tokio::time::sleep(Duration::from_secs(5)).await;
    // Server, BMC and client share this process: an upper bound per tunnel.
    if let (Some(before), Some(after)) = (rss_before, resident_kib()) {
        println!(
            "resident memory: +{} KiB for {concurrent} open consoles, {} KiB each (server, dev BMC and client together)",
            after.saturating_sub(before),
            after.saturating_sub(before) / concurrent as u64
        );
    }
    let echoes = futures_util::future::join_all(consoles.iter_mut().map(|c| async move {
        let sent = Instant::now();
        c.send(b"r").await;
        c.read_until("r").await;
        sent.elapsed()
    }))
    .await;
    report(
        &format!("echo of one keystroke, {concurrent} consoles at once"),
        echoes,
    );
    drop(consoles);
    app.finish().await;
}

/// `n` technical members of the owner's organization, as session cookies.
async fn members(app: &TestApp, owner: &reqwest::Client, who: &str, n: usize) -> Vec<String> {
    let mut cookies = Vec::new();
    for i in 0..n {
        let email = format!("{who}{i}@a.example");
        app.invite(owner, &email, "technical").await;
        cookies.push(session_cookie(app, &email).await);
    }
    cookies
}

/// This process's resident memory (Linux), in KiB.
fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn report(what: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        samples[i].as_secs_f64() * 1000.0
    };
    println!(
        "{what}: n={} p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms",
        samples.len(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}
