//! The console tunnel through the public surface: a ticket from the portal,
//! a WebSocket with it, and the development BMC behind: a real RFB
//! handshake and framebuffer, the serial login prompt answering input.
//! Tickets are refused when expired, reused, presented by another user, or
//! from another Origin; any replica redeems a ticket; an open console closes
//! when its session logs out.

use crate::common::console::{connect, open, session_cookie, ticket, Stream, ORIGIN};
use crate::common::{self, server_id, TestApp, TestDb};
use futures_util::StreamExt;
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

on_both_databases!(
    the_console_tunnel_serves_rfb_and_serial_to_its_ticket_holder_only,
    an_open_console_closes_when_its_session_logs_out,
    an_open_console_closes_when_its_member_loses_access,
    the_console_boots_the_ordered_image_under_the_servers_name,
);

/// 2026-11-10 00:00 UTC.
const START: i64 = 1_794_268_800;

async fn the_console_tunnel_serves_rfb_and_serial_to_its_ticket_holder_only(db: TestDb) {
    let clock = backend::Clock::manual(START);
    let app = TestApp::spawn_with_clock(db, clock.clone()).await;
    let (owner, id) = app
        .owner_with_running_server(&[("name", "trainer-1")])
        .await;
    let cookie = session_cookie(&app, "owner@a.example").await;

    // The server page's console tab offers both consoles.
    let page = app
        .get_as(&owner, &format!("/en/servers/{id}/console"))
        .await;
    assert!(page
        .body
        .contains(&format!("/en/servers/{id}/console/serial")));
    let page = app
        .get_as(&owner, &format!("/en/servers/{id}/console/vnc"))
        .await;
    assert_eq!(page.status, 200);
    assert!(page.body.contains("data-ticket-url") && page.body.contains("/console.js"));

    // Graphical: a real RFB 3.8 handshake through the tunnel.
    let (status, path) = ticket(&app, &cookie, &id, "vnc").await;
    assert_eq!(status, 200);
    // From another site, or with no Origin: refused, and the ticket survives.
    assert_eq!(
        open(&app, &cookie, &path, Some("https://evil.example"))
            .await
            .err(),
        Some(403)
    );
    assert_eq!(open(&app, &cookie, &path, None).await.err(), Some(403));
    let mut vnc = connect(&app.base, &cookie, &path).await;
    assert_eq!(vnc.read_exact(12).await, b"RFB 003.008\n");
    vnc.send(b"RFB 003.008\n").await;
    assert_eq!(vnc.read_exact(2).await, [1, 1], "one security type: None");
    vnc.send(&[1]).await;
    assert_eq!(vnc.read_exact(4).await, [0, 0, 0, 0], "security result OK");
    vnc.send(&[1]).await;
    let init = vnc.read_exact(24).await;
    let (width, height) = (
        u16::from_be_bytes([init[0], init[1]]),
        u16::from_be_bytes([init[2], init[3]]),
    );
    assert_eq!((width, height), (640, 400));
    assert_eq!(init[4], 32, "32 bits per pixel");
    let name_len = u32::from_be_bytes([init[20], init[21], init[22], init[23]]) as usize;
    let name = String::from_utf8(vnc.read_exact(name_len).await).expect("a UTF-8 name");
    assert!(name.contains("BMC"), "{name}");
    // The whole screen, raw.
    vnc.send(&[3, 0, 0, 0, 0, 0, 2, 128, 1, 144]).await;
    let header = vnc.read_exact(4).await;
    assert_eq!(header[0], 0, "a FramebufferUpdate");
    let rect = vnc.read_exact(12).await;
    assert_eq!(&rect[4..8], &[2, 128, 1, 144], "the full 640×400");
    assert_eq!(&rect[8..12], &[0, 0, 0, 0], "Raw encoding");
    let pixels = vnc.read_exact(640 * 400 * 4).await;
    assert!(pixels.iter().any(|b| *b != 0), "the screen shows something");
    drop(vnc);

    // A ticket opens one console once.
    assert_eq!(
        open(&app, &cookie, &path, Some(ORIGIN)).await.err(),
        Some(403)
    );

    // Serial: the login prompt answers input.
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&app.base, &cookie, &path).await;
    serial.read_until("login: ").await;
    serial.send(b"root\r").await;
    let echoed = serial.read_until("Password: ").await;
    assert!(echoed.contains("root"), "{echoed:?}");
    drop(serial);

    // Tickets and sessions live in the database: another replica behind the
    // load balancer redeems a ticket this one issued, once.
    let other = app.replica(clock.clone(), |_| {}).await;
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&other, &cookie, &path).await;
    serial.read_until("login: ").await;
    drop(serial);
    assert_eq!(
        open(&app, &cookie, &path, Some(ORIGIN)).await.err(),
        Some(403),
        "spent on the other replica"
    );

    // A ticket for the wrong console or server, or one older than 60 s.
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let wrong_kind = path.replace("/console/serial/", "/console/vnc/");
    assert_eq!(
        open(&app, &cookie, &wrong_kind, Some(ORIGIN)).await.err(),
        Some(403)
    );
    clock.advance(61);
    assert_eq!(
        open(&app, &cookie, &path, Some(ORIGIN)).await.err(),
        Some(403)
    );

    // Someone else's ticket: another organization's owner, and a technical
    // member of the same organization.
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    app.member("owner@b.example", "Other", "Org B").await;
    let stranger = session_cookie(&app, "owner@b.example").await;
    assert_eq!(
        open(&app, &stranger, &path, Some(ORIGIN)).await.err(),
        Some(403)
    );
    let (status, _) = ticket(&app, &stranger, &id, "serial").await;
    assert_eq!(status, 404, "B can't get a ticket for A's server");
    app.invite(&owner, "tech@a.example", "technical").await;
    let colleague = session_cookie(&app, "tech@a.example").await;
    assert_eq!(
        open(&app, &colleague, &path, Some(ORIGIN)).await.err(),
        Some(403)
    );
    // …and the ticket was not burned by them.
    assert!(open(&app, &cookie, &path, Some(ORIGIN)).await.is_ok());
    // A billing member gets none.
    app.invite(&owner, "money@a.example", "billing").await;
    let billing = session_cookie(&app, "money@a.example").await;
    assert_eq!(ticket(&app, &billing, &id, "serial").await.0, 403);

    // Every opening is in the organization's audit log.
    let audit = app.get_as(&owner, "/en/audit").await.body;
    assert!(
        audit.contains("console.vnc.opened"),
        "audit lists the VNC opening"
    );
    assert!(audit.contains("console.serial.opened"));
    app.finish().await;
}

async fn an_open_console_closes_when_its_session_logs_out(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (_owner, id) = app
        .owner_with_running_server(&[("name", "trainer-1")])
        .await;
    let cookie = session_cookie(&app, "owner@a.example").await;
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&app.base, &cookie, &path).await;
    serial.read_until("login: ").await;
    let response = app
        .client
        .post(format!("{}/en/logout", app.base))
        .header("cookie", &cookie)
        .header("sec-fetch-site", "same-origin")
        .form(&[("x", "")])
        .send()
        .await
        .expect("logging out");
    assert_eq!(response.status().as_u16(), 303);
    // The tunnel notices within its recheck interval and says why.
    let closed = next_close(&mut serial).await;
    assert_eq!(frame_code(&closed), 4000);
    assert_eq!(closed.reason.as_str(), "signed-out");
    app.finish().await;
}

async fn an_open_console_closes_when_its_member_loses_access(db: TestDb) {
    let app = TestApp::spawn(db).await;
    let (owner, id) = app
        .owner_with_running_server(&[("name", "trainer-1")])
        .await;
    app.invite(&owner, "tech@a.example", "technical").await;
    let cookie = session_cookie(&app, "tech@a.example").await;
    let (status, path) = ticket(&app, &cookie, &id, "serial").await;
    assert_eq!(status, 200, "a technical member opens the console");
    let mut serial = connect(&app.base, &cookie, &path).await;
    serial.read_until("login: ").await;
    // The owner makes them a billing member: money only, no console.
    let members = app.get_as(&owner, "/en/members").await.body;
    let tech = common::user_id_of(&members, "tech@a.example");
    let page = app
        .post_as(
            &owner,
            "/en/members",
            "/en/members/role",
            &[("user_id", &tech), ("role", "billing")],
            &[],
        )
        .await;
    assert_eq!(page.location(), "/en/members?done=role");
    let closed = next_close(&mut serial).await;
    assert_eq!(frame_code(&closed), 4000);
    assert_eq!(closed.reason.as_str(), "access-withdrawn");
    // The page translates the code.
    let page = app
        .get_as(&owner, &format!("/zh/servers/{id}/console/serial"))
        .await;
    assert!(page.body.contains("您对此服务器的访问权限已被撤销"));
    app.finish().await;
}

/// What the customer ordered is what boots: the image they chose and the
/// server's name as hostname, never the data centre's name for the host.
/// A rename later does not rewrite the installed hostname (see
/// `backend::fleet::disks`).
async fn the_console_boots_the_ordered_image_under_the_servers_name(db: TestDb) {
    let app = TestApp::spawn(db).await;
    app.rack("fra", "g-ada", 1);
    let host = app.host_names("fra", "g-ada", "free").remove(0);
    let owner = app.member("owner@a.example", "Owner", "Org A").await;
    let fields = [("name", "train-fra-01"), ("image", "debian-13")];
    let page = app.place_order(&owner, "g-ada", "fra", &fields).await;
    let id = server_id(page.location());
    app.wait_for_server(&owner, &id).await;
    let cookie = session_cookie(&app, "owner@a.example").await;

    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&app.base, &cookie, &path).await;
    let boot = serial.read_until("login: ").await;
    assert!(
        boot.contains("Debian GNU/Linux 13 train-fra-01 ttyS0"),
        "{boot:?}"
    );
    assert!(boot.ends_with("train-fra-01 login: "), "{boot:?}");
    assert!(
        !boot.contains(&host),
        "the internal host name {host} leaked"
    );
    assert!(!boot.contains("Ubuntu"));
    drop(serial);

    // The graphical console names the same machine.
    let (_, path) = ticket(&app, &cookie, &id, "vnc").await;
    let mut vnc = connect(&app.base, &cookie, &path).await;
    vnc.read_exact(12).await;
    vnc.send(b"RFB 003.008\n").await;
    vnc.read_exact(2).await;
    vnc.send(&[1]).await;
    vnc.read_exact(4).await;
    vnc.send(&[1]).await;
    let init = vnc.read_exact(24).await;
    let name_len = u32::from_be_bytes([init[20], init[21], init[22], init[23]]) as usize;
    let name = String::from_utf8(vnc.read_exact(name_len).await).expect("a UTF-8 name");
    assert_eq!(name, "train-fra-01 (BMC console)");
    drop(vnc);

    // Renamed in the portal: the machine keeps the hostname it was given.
    let base = format!("/en/servers/{id}");
    let page = app
        .post_as(
            &owner,
            &base,
            &format!("{base}/rename"),
            &[("name", "train-2")],
            &[],
        )
        .await;
    assert_eq!(page.status, 303);
    let (_, path) = ticket(&app, &cookie, &id, "serial").await;
    let mut serial = connect(&app.base, &cookie, &path).await;
    let boot = serial.read_until("login: ").await;
    assert!(boot.ends_with("train-fra-01 login: "), "{boot:?}");
    app.finish().await;
}

/// Waits (10 s at most) for the portal to close the tunnel.
async fn next_close(serial: &mut Stream) -> tokio_tungstenite::tungstenite::protocol::CloseFrame {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match serial.socket.next().await {
                Some(Ok(Message::Close(Some(frame)))) => return Some(frame),
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    })
    .await
    .expect("the console closes within 10 s")
    .expect("with a close frame")
}

fn frame_code(frame: &tokio_tungstenite::tungstenite::protocol::CloseFrame) -> u16 {
    frame.code.into()
}
