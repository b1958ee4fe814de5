//! A simulated baseboard management controller (BMC) for the development
//! Fleet. A real BMC serves, per physical host, a serial-over-LAN console
//! (raw bytes over TCP) and a graphical console (VNC); the product's
//! WebSocket tunnel connects to those TCP endpoints and relays bytes to
//! xterm.js and noVNC. [`DevBmc`] serves both on loopback ports with real
//! protocol implementations, so the whole path can be used offline.
//!
//! - [`login`]: boot messages of what is installed on the host's disks
//!   ([`crate::fleet::disks`]) and the getty/login state machine that both
//!   consoles drive (the installed root password logs in).
//! - [`serial`]: the serial console (ttyS0) over TCP.
//! - [`screen`]: the 80×25 text screen and its rendering to RFB pixels.
//! - [`monitor`]: a host's screen shared by its VNC viewers, and the task
//!   that applies their keys.
//! - [`rfb`]: the RFB (VNC) server.

mod login;
mod monitor;
mod rfb;
mod screen;
mod serial;

use std::collections::HashMap;
use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Mutex;

use super::disks::Disks;
use super::ConsoleKind;
use monitor::{Input, Monitor};

/// The BMCs of all simulated hosts: one listener per host and console kind,
/// created on first use and kept for the life of the process.
#[derive(Clone, Default)]
pub struct DevBmc {
    inner: Arc<Mutex<Inner>>,
    /// What each host boots.
    disks: Disks,
}

#[derive(Default)]
struct Inner {
    endpoints: HashMap<(String, ConsoleKind), SocketAddr>,
    /// Each host's screen, shared by all VNC connections to it.
    monitors: HashMap<String, Arc<Monitor>>,
}

impl std::fmt::Debug for DevBmc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DevBmc").finish_non_exhaustive()
    }
}

impl DevBmc {
    pub fn new() -> DevBmc {
        DevBmc::default()
    }

    /// BMCs of hosts whose disks are kept in `disks`.
    pub fn with_disks(disks: Disks) -> DevBmc {
        DevBmc {
            inner: Arc::default(),
            disks,
        }
    }

    pub fn disks(&self) -> &Disks {
        &self.disks
    }

    /// The TCP address of `host`'s console of `kind`; binds a listener on
    /// 127.0.0.1:0 the first time and spawns its accept loop (tokio). Later
    /// calls return the same address.
    pub async fn endpoint(&self, host: &str, kind: ConsoleKind) -> std::io::Result<SocketAddr> {
        // Held across the bind, so concurrent first calls share one listener.
        let mut inner = self.inner.lock().await;
        let key = (host.to_string(), kind);
        if let Some(addr) = inner.endpoints.get(&key) {
            return Ok(*addr);
        }
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let name = host.to_string();
        let disks = self.disks.clone();
        match kind {
            ConsoleKind::Serial => {
                tokio::spawn(accept_loop(listener, kind, move |stream| {
                    serial::serve(stream, name.clone(), disks.clone())
                }));
            }
            ConsoleKind::Graphical => {
                let monitor = match inner.monitors.get(host) {
                    Some(monitor) => monitor.clone(),
                    None => {
                        let os = disks.read(host).await.map_err(std::io::Error::other)?;
                        let monitor = Arc::new(Monitor::start(os));
                        inner.monitors.insert(name.clone(), monitor.clone());
                        monitor
                    }
                };
                tokio::spawn(accept_loop(listener, kind, move |stream| {
                    let (name, disks, monitor) = (name.clone(), disks.clone(), monitor.clone());
                    async move {
                        // The screen shows what the disks hold now; the
                        // viewer is named after the installed hostname, not
                        // our internal host name.
                        let os = match disks.read(&name).await {
                            Ok(os) => os,
                            Err(e) => {
                                tracing::warn!(host = name, error = %format!("{e:#}"), "reading the simulated disks failed");
                                return;
                            }
                        };
                        let shown = os.as_ref().map_or(name, |os| os.hostname.clone());
                        monitor.send(Input::Booted(os)).await;
                        rfb::serve(stream, shown, monitor).await;
                    }
                }));
            }
        }
        tracing::debug!(host, kind = kind.as_str(), %addr, "BMC console listening");
        inner.endpoints.insert(key, addr);
        Ok(addr)
    }
}

/// Accepts connections forever, serving each in its own task. A failed
/// accept (e.g. out of file descriptors) is logged and retried shortly.
async fn accept_loop<F, Fut>(listener: TcpListener, kind: ConsoleKind, serve: F)
where
    F: Fn(TcpStream) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                tracing::debug!(kind = kind.as_str(), %peer, "BMC console connection");
                tokio::spawn(serve(stream));
            }
            Err(e) => {
                tracing::debug!(kind = kind.as_str(), error = %e, "BMC console accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn endpoints_are_stable_per_host_and_kind() {
        let bmc = DevBmc::new();
        let serial = bmc.endpoint("a", ConsoleKind::Serial).await.unwrap();
        let vnc = bmc.endpoint("a", ConsoleKind::Graphical).await.unwrap();
        assert!(serial.ip().is_loopback() && vnc.ip().is_loopback());
        assert_ne!(serial, vnc);
        assert_eq!(
            bmc.endpoint("a", ConsoleKind::Serial).await.unwrap(),
            serial
        );
        // A clone is the same BMC.
        let clone = bmc.clone();
        assert_eq!(
            clone.endpoint("a", ConsoleKind::Graphical).await.unwrap(),
            vnc
        );
        let other = bmc.endpoint("b", ConsoleKind::Serial).await.unwrap();
        assert_ne!(other, serial);
        assert_ne!(
            bmc.endpoint("b", ConsoleKind::Graphical).await.unwrap(),
            vnc
        );

        // Concurrent first calls agree too.
        let (x, y) = tokio::join!(
            bmc.endpoint("c", ConsoleKind::Serial),
            clone.endpoint("c", ConsoleKind::Serial)
        );
        assert_eq!(x.unwrap(), y.unwrap());
    }
}
