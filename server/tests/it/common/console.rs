//! The console tunnel as the page's script uses it: a session cookie, a
//! ticket from the portal, a WebSocket with it, and the bytes behind.

use super::{TestApp, PASSWORD};
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

pub const ORIGIN: &str = "https://gpu.example.com";

/// Logs in without a cookie jar and answers the session cookie, to send by
/// hand with requests and the WebSocket handshake.
pub async fn session_cookie(app: &TestApp, email: &str) -> String {
    let response = app
        .client
        .post(format!("{}/en/login", app.base))
        .header("sec-fetch-site", "same-origin")
        .form(&[("email", email), ("password", PASSWORD)])
        .send()
        .await
        .expect("logging in");
    assert_eq!(response.status().as_u16(), 303);
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.contains("session="))
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_owned()
}

/// Asks for a console ticket as the page's script does; answers the status
/// and the WebSocket path.
pub async fn ticket(app: &TestApp, cookie: &str, server: &str, kind: &str) -> (u16, String) {
    let response = app
        .client
        .post(format!("{}/en/servers/{server}/console/{kind}", app.base))
        .header("cookie", cookie)
        .header("origin", ORIGIN)
        .header("sec-fetch-site", "same-origin")
        .form(&[("x", "")])
        .send()
        .await
        .expect("asking for a ticket");
    let status = response.status().as_u16();
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    (status, body["url"].as_str().unwrap_or_default().to_owned())
}

pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the tunnel; `Err(status)` when the handshake is refused.
pub async fn open(
    app: &TestApp,
    cookie: &str,
    path: &str,
    origin: Option<&str>,
) -> Result<Socket, u16> {
    open_at(&app.base, cookie, path, origin).await
}

/// Opens the tunnel on the replica at `base`.
pub async fn open_at(
    base: &str,
    cookie: &str,
    path: &str,
    origin: Option<&str>,
) -> Result<Socket, u16> {
    let url = format!("{}{path}", base.replace("http://", "ws://"));
    let mut request = url.into_client_request().expect("a WebSocket request");
    request
        .headers_mut()
        .insert("cookie", cookie.parse().expect("cookie header"));
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", origin.parse().expect("origin header"));
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(error) => panic!("WebSocket failed: {error}"),
    }
}

/// The tunnel's byte stream, whatever the framing of the messages.
pub struct Stream {
    pub socket: Socket,
    pub buffer: Vec<u8>,
}

/// Opens the tunnel at `base` from our own origin; the test fails if it is
/// refused.
pub async fn connect(base: &str, cookie: &str, path: &str) -> Stream {
    let socket = open_at(base, cookie, path, Some(ORIGIN))
        .await
        .unwrap_or_else(|status| panic!("the console did not open: {status}"));
    Stream {
        socket,
        buffer: Vec::new(),
    }
}

impl Stream {
    pub async fn fill(&mut self) -> bool {
        let next = tokio::time::timeout(Duration::from_secs(10), self.socket.next())
            .await
            .expect("the console answers within 10 s");
        match next {
            Some(Ok(Message::Binary(bytes))) => {
                self.buffer.extend_from_slice(&bytes);
                true
            }
            Some(Ok(Message::Close(_))) | None => false,
            Some(Ok(_)) => true,
            Some(Err(error)) => panic!("tunnel error: {error}"),
        }
    }

    pub async fn read_exact(&mut self, n: usize) -> Vec<u8> {
        while self.buffer.len() < n {
            assert!(self.fill().await, "tunnel closed early");
        }
        self.buffer.drain(..n).collect()
    }

    /// Reads until `text` has been seen; answers everything read.
    pub async fn read_until(&mut self, text: &str) -> String {
        let mut seen = String::new();
        loop {
            seen.push_str(&String::from_utf8_lossy(&std::mem::take(&mut self.buffer)));
            if seen.contains(text) {
                return seen;
            }
            assert!(self.fill().await, "closed before {text:?}; saw {seen:?}");
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.socket
            .send(Message::Binary(bytes.to_vec().into()))
            .await
            .expect("sending");
    }
}
