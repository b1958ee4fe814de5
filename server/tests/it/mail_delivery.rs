//! With SMTP configured, queued mail is delivered: a minimal SMTP server on
//! loopback receives what the product sends.

use crate::common::{self, TestApp, TestDb};
use backend::Clock;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

on_both_databases!(queued_mail_is_delivered_over_smtp);

/// Accepts SMTP sessions and keeps each message's DATA.
async fn fake_smtp() -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binding the SMTP double");
    let port = listener.local_addr().expect("port").port();
    let received = Arc::new(Mutex::new(Vec::new()));
    let store = received.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let store = store.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                let _ = write.write_all(b"220 test ESMTP\r\n").await;
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(body) = data.as_mut() {
                        if line == "." {
                            if let Ok(mut all) = store.lock() {
                                all.push(std::mem::take(body));
                            }
                            data = None;
                            let _ = write.write_all(b"250 queued\r\n").await;
                        } else {
                            body.push_str(&line);
                            body.push('\n');
                        }
                        continue;
                    }
                    let verb = line
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 test\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 go ahead\r\n"
                        }
                        "QUIT" => {
                            let _ = write.write_all(b"221 bye\r\n").await;
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    let _ = write.write_all(reply).await;
                }
            });
        }
    });
    (port, received)
}

/// Undoes quoted-printable (what lettre uses for non-ASCII text), so the
/// test reads the body as written.
fn unquote(message: &str) -> String {
    let joined = message.replace("=\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'=', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

async fn queued_mail_is_delivered_over_smtp(db: TestDb) {
    let (port, received) = fake_smtp().await;
    let app = TestApp::spawn_configured(db, Clock::system(), |config| {
        config.smtp_url = Some(server::config::Redacted(format!("smtp://127.0.0.1:{port}")));
        config.mail_from = "GPU servers <noreply@gpu.example.com>".to_owned();
    })
    .await;
    let b = app.browser();
    let fields = [
        ("name", "Ann"),
        ("email", "ann@example.com"),
        ("password", common::PASSWORD),
    ];
    assert_eq!(
        app.post_as(&b, "/en/signup", "/en/signup", &fields, &[])
            .await
            .location(),
        "/en/signup?sent=1"
    );
    let mut delivered = String::new();
    for _ in 0..100 {
        if let Some(message) = received.lock().ok().and_then(|all| all.first().cloned()) {
            delivered = unquote(&message);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(delivered.contains("To: ann@example.com"), "{delivered}");
    assert!(
        delivered.contains("From: \"GPU servers\" <noreply@gpu.example.com>"),
        "{delivered}"
    );
    assert!(
        delivered.contains("Subject: Confirm your email address"),
        "{delivered}"
    );
    assert!(
        delivered.contains("/en/verify?token="),
        "the link is in the body: {delivered}"
    );
    // Once delivered, the stored copy keeps no working link: whoever reads
    // the table (or a backup) can't use it to take the account over.
    let mut stored = String::new();
    for _ in 0..100 {
        stored = app.last_mail("ann@example.com");
        if stored.contains("[link removed after sending]") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        stored.contains("[link removed after sending]") && !stored.contains("token="),
        "{stored}"
    );
    app.finish().await;
}
