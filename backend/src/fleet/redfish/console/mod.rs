//! Consoles through the BMC (DESIGN §3). The portal's tunnel connects to
//! the TCP address given here and relays bytes to noVNC or xterm.js.
//!
//! - Graphical: the BMC's own VNC (RFB) server, reached directly. A VNC
//!   password the BMC asks for is the user's to type in noVNC; we never
//!   hold or answer it.
//! - Serial: BMCs have no raw TCP serial port. Each console opened gets a
//!   one-shot loopback bridge that runs the console program with the
//!   connection as its terminal ([`programs`]): `ipmitool … sol activate`
//!   (IPMI Serial-over-LAN) or `ssh` to the BMC running its vendor command
//!   (`console com2`, `vsp`).
//!
//! Every local process on the replica can reach 127.0.0.1, so a bridge
//! takes only the tunnel it was opened for: the tunnel (which redeemed the
//! console ticket) writes the bridge's one-time key first, and a
//! connection without it is closed unserved and noted in the host's
//! history. The first connection with the key is the bridge's only one;
//! then, or after [`SERIAL_ACCEPT_WAIT`], its port is closed.

mod programs;
mod relay;

use std::net::{Ipv4Addr, SocketAddr};
use std::process::Stdio;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use tokio::io::AsyncReadExt;

use super::{RedfishFleet, Target};
use crate::fleet::{ConsoleEndpoint, ConsoleKind, FleetError};
use crate::inventory::bmc::SerialConsole;

/// How long a serial bridge waits for its one connection (the tunnel's)
/// before closing unused.
pub const SERIAL_ACCEPT_WAIT: Duration = Duration::from_secs(10);

impl RedfishFleet {
    pub(super) async fn console(
        &self,
        host: &str,
        kind: ConsoleKind,
    ) -> Result<ConsoleEndpoint, FleetError> {
        let target = self.target(host).await?;
        let bmc_host = bmc_host(&target)?;
        match kind {
            ConsoleKind::Graphical => Ok(ConsoleEndpoint {
                addr: self.vnc_address(&target, &bmc_host).await?,
                key: None,
            }),
            ConsoleKind::Serial => self.serial_bridge(target, bmc_host).await,
        }
    }

    async fn vnc_address(&self, target: &Target, bmc_host: &str) -> Result<SocketAddr, FleetError> {
        let port = target.bmc.vnc_port;
        match tokio::net::lookup_host((bmc_host, port)).await {
            Ok(mut found) => match found.next() {
                Some(addr) => Ok(addr),
                None => Err(self
                    .host_fault(target, format!("VNC: {bmc_host} has no address"))
                    .await),
            },
            Err(error) => {
                let why = format!("VNC: cannot resolve {bmc_host}: {error}");
                self.note(target, &why).await;
                Err(FleetError::Unavailable(format!(
                    "{}: {why}",
                    target.bmc.host_name
                )))
            }
        }
    }

    /// A fresh bridge on 127.0.0.1:0 for one console, with its one-time
    /// key. It runs with the BMC settings read now, so changed settings
    /// apply to the next console opened.
    async fn serial_bridge(
        &self,
        target: Target,
        bmc_host: String,
    ) -> Result<ConsoleEndpoint, FleetError> {
        let host = target.bmc.host_name.clone();
        let failed = |error: std::io::Error| {
            FleetError::Unavailable(format!("{host}: serial console bridge: {error}"))
        };
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .map_err(failed)?;
        let addr = listener.local_addr().map_err(failed)?;
        let key = crate::accounts::tokens::random_token()
            .map_err(|e| FleetError::Unavailable(format!("{host}: {e:#}")))?;
        tracing::debug!(host, %addr, "serial console bridge listening");
        let fleet = self.clone();
        let expected = key.clone();
        tokio::spawn(async move {
            // The listener is dropped on return, before the session starts:
            // from then on a connection to this port is refused.
            if let Some(stream) = fleet.accept_keyed(listener, &target, &expected).await {
                fleet.serial_session(target, bmc_host, stream).await;
            }
        });
        Ok(ConsoleEndpoint {
            addr,
            key: Some(key),
        })
    }

    /// The bridge's one connection: the first within [`SERIAL_ACCEPT_WAIT`]
    /// that writes `key` and a newline first. Others are closed unserved
    /// and noted (a local process knocking on a console). A failed accept
    /// (out of descriptors) is retried until then.
    async fn accept_keyed(
        &self,
        listener: TcpListener,
        target: &Target,
        key: &str,
    ) -> Option<TcpStream> {
        let host = &target.bmc.host_name;
        let deadline = Instant::now() + SERIAL_ACCEPT_WAIT;
        let accepted = tokio::time::timeout_at(deadline, async {
            loop {
                match listener.accept().await {
                    Ok((mut stream, _)) => {
                        if presents_key(&mut stream, key).await {
                            return stream;
                        }
                        self.note(
                            target,
                            "serial console: a connection without the bridge's key was refused",
                        )
                        .await;
                    }
                    Err(error) => {
                        tracing::debug!(host, %error, "serial console accept failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        })
        .await;
        drop(listener);
        match accepted {
            Ok(stream) => Some(stream),
            Err(_) => {
                tracing::debug!(host, "serial console bridge closed unused");
                None
            }
        }
    }

    /// One viewer's serial console: the program runs as long as both the
    /// connection and the program last. Returning drops the stream, which
    /// closes the connection.
    async fn serial_session(self, target: Target, bmc_host: String, mut stream: TcpStream) {
        // `_private` is held until the session ends: ssh's askpass script
        // lives there.
        let (program, path, mut command, _private, escape) = match target.bmc.serial_console {
            SerialConsole::Ipmi => {
                self.sol_deactivate(&target, &bmc_host).await;
                let command = self.sol(&target, &bmc_host, "activate");
                let escape = Some(programs::SOL_ESCAPE);
                ("ipmitool", &self.settings.ipmitool, command, None, escape)
            }
            // ssh runs with `-e none`: no byte escapes.
            SerialConsole::Ssh => match self.ssh(&target, &bmc_host).await {
                Ok((command, private)) => ("ssh", &self.settings.ssh, command, Some(private), None),
                Err(error) => {
                    let why = format!("serial console: preparing ssh failed: {error}");
                    self.note(&target, &why).await;
                    return;
                }
            },
        };
        let child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn();
        let child = match child {
            Ok(child) => child,
            Err(error) => {
                let why = format!(
                    "serial console: cannot start {program} ({}): {error}",
                    path.display()
                );
                self.note(&target, &why).await;
                return;
            }
        };
        let host = &target.bmc.host_name;
        if let Some(failed) = relay::relay(host, program, child, &mut stream, escape).await {
            self.note(&target, &format!("serial console: {failed}"))
                .await;
        }
    }
}

/// Whether the connection's first bytes are `key` and a newline, read
/// within a second (the tunnel writes them at once); compared in constant
/// time.
async fn presents_key(stream: &mut TcpStream, key: &str) -> bool {
    let mut given = vec![0u8; key.len() + 1];
    let read = tokio::time::timeout(Duration::from_secs(1), stream.read_exact(&mut given)).await;
    if !matches!(read, Ok(Ok(_))) {
        return false;
    }
    let expected = key.bytes().chain(std::iter::once(b'\n'));
    given
        .iter()
        .zip(expected)
        .fold(0u8, |differ, (a, b)| differ | (a ^ b))
        == 0
}

/// The BMC's host name or address, from its validated `https://host[:port]`.
fn bmc_host(target: &Target) -> Result<String, FleetError> {
    let parsed = reqwest::Url::parse(&target.bmc.access.url).ok();
    match parsed.as_ref().and_then(|url| url.host_str()) {
        Some(host) => Ok(host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned()),
        None => Err(FleetError::HostFault(format!(
            "{}: the BMC address {} names no host",
            target.bmc.host_name, target.bmc.access.url
        ))),
    }
}
