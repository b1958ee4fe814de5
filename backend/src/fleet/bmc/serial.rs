//! Serial over LAN: the host's ttyS0 as raw bytes over TCP, the way a BMC
//! bridges its UART. The product's tunnel relays these bytes to xterm.js, so
//! we behave like a terminal line in raw mode: we echo what should be
//! echoed ourselves and ignore the escape sequences xterm.js sends for
//! arrows and function keys.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::login::{boot_lines, prompt, Key, Login, LOGIN_DELAY};
use crate::fleet::disks::{Disks, Installed};

/// Pause between boot lines: enough to look like a boot, short enough that
/// a test reading up to the prompt doesn't wait.
const LINE_PAUSE: Duration = Duration::from_millis(5);

/// Serves one serial console connection until the client leaves. The login
/// state is per connection: each connection is a fresh getty on whatever
/// is installed on the host's disks now.
pub(crate) async fn serve(mut stream: TcpStream, host: String, disks: Disks) {
    let os = match disks.read(&host).await {
        Ok(os) => os,
        Err(e) => {
            tracing::warn!(host, error = %format!("{e:#}"), "reading the simulated disks failed");
            return;
        }
    };
    if let Err(e) = run(&mut stream, os.as_ref()).await {
        tracing::debug!(host, error = %e, "serial console connection ended");
    }
}

async fn run(stream: &mut TcpStream, os: Option<&Installed>) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    for line in boot_lines(os, "ttyS0") {
        stream.write_all(format!("{line}\r\n").as_bytes()).await?;
        tokio::time::sleep(LINE_PAUSE).await;
    }
    if let Some(prompt) = prompt(os) {
        stream.write_all(format!("\r\n{prompt}").as_bytes()).await?;
    }

    let mut login = Login::new(os);
    let mut decoder = Decoder::default();
    let mut buf = [0u8; 1024];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        for &byte in &buf[..n] {
            let Some(key) = decoder.feed(byte) else {
                continue;
            };
            let reply = login.key(key);
            if !reply.now.is_empty() {
                stream.write_all(reply.now.as_bytes()).await?;
            }
            if let Some(later) = reply.delayed {
                // Bytes typed meanwhile wait in the socket, as they would
                // in the tty's input queue.
                tokio::time::sleep(LOGIN_DELAY).await;
                stream.write_all(later.as_bytes()).await?;
            }
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    Ground,
    /// After ESC.
    Escape,
    /// Inside a CSI sequence (ESC [ ... final byte), e.g. arrows ESC [ A.
    Csi,
    /// After ESC O (SS3): one more byte, e.g. application-mode arrows.
    Ss3,
}

/// Turns the bytes a terminal sends into keys: UTF-8 characters, Enter
/// ("\r", "\n" or "\r\n" once), backspace (DEL or BS) and Ctrl-C; drops
/// other control bytes and escape sequences.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    state: State,
    /// The last byte was "\r": a "\n" right after it is the same Enter.
    after_cr: bool,
    /// A UTF-8 character being assembled, and how many bytes it needs.
    utf8: Vec<u8>,
    utf8_len: usize,
}

impl Decoder {
    pub(crate) fn feed(&mut self, byte: u8) -> Option<Key> {
        let after_cr = std::mem::replace(&mut self.after_cr, byte == b'\r');
        match self.state {
            State::Escape => {
                self.state = match byte {
                    b'[' => State::Csi,
                    b'O' => State::Ss3,
                    // ESC followed by a key is Alt+key: dropped whole.
                    _ => State::Ground,
                };
                return None;
            }
            State::Csi => {
                // Parameter and intermediate bytes (0x20..=0x3f) continue the
                // sequence; a final byte (0x40..=0x7e) or anything else ends it.
                if !(0x20..=0x3f).contains(&byte) {
                    self.state = State::Ground;
                }
                return None;
            }
            State::Ss3 => {
                self.state = State::Ground;
                return None;
            }
            State::Ground => {}
        }
        if self.utf8_len > 0 {
            if byte & 0xc0 == 0x80 {
                self.utf8.push(byte);
                if self.utf8.len() < self.utf8_len {
                    return None;
                }
                let c = std::str::from_utf8(&self.utf8)
                    .ok()
                    .and_then(|s| s.chars().next());
                self.utf8.clear();
                self.utf8_len = 0;
                return c.filter(|c| !c.is_control()).map(Key::Char);
            }
            // A broken sequence: drop it and read this byte afresh.
            self.utf8.clear();
            self.utf8_len = 0;
        }
        match byte {
            b'\r' => Some(Key::Enter),
            b'\n' if after_cr => None,
            b'\n' => Some(Key::Enter),
            0x7f | 0x08 => Some(Key::Backspace),
            0x03 => Some(Key::Interrupt),
            0x1b => {
                self.state = State::Escape;
                None
            }
            0x20..=0x7e => Some(Key::Char(char::from(byte))),
            0xc2..=0xf4 => {
                self.utf8_len = match byte {
                    0xc2..=0xdf => 2,
                    0xe0..=0xef => 3,
                    _ => 4,
                };
                self.utf8.push(byte);
                None
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::bmc::DevBmc;
    use crate::fleet::ConsoleKind;
    use tokio::time::timeout;

    fn decode(bytes: &[u8]) -> Vec<Key> {
        let mut d = Decoder::default();
        bytes.iter().filter_map(|b| d.feed(*b)).collect()
    }

    #[test]
    fn decoder_handles_enter_backspace_and_escapes() {
        use Key::*;
        assert_eq!(
            decode(b"ab\r\nc\rd\ne"),
            vec![
                Char('a'),
                Char('b'),
                Enter,
                Char('c'),
                Enter,
                Char('d'),
                Enter,
                Char('e')
            ]
        );
        assert_eq!(decode(b"\r\r"), vec![Enter, Enter]);
        assert_eq!(
            decode(b"a\x7fb\x08"),
            vec![Char('a'), Backspace, Char('b'), Backspace]
        );
        assert_eq!(decode(b"\x03"), vec![Interrupt]);
        // Arrows (normal and application mode), F5, Alt+x, other controls.
        assert_eq!(
            decode(b"\x1b[Ax\x1bOBy\x1b[15~z\x1bxw\x01\x07\x00"),
            vec![Char('x'), Char('y'), Char('z'), Char('w')]
        );
        assert_eq!(decode("é€".as_bytes()), vec![Char('é'), Char('€')]);
        assert_eq!(decode(b"\xc3a"), vec![Char('a')]);
    }

    /// Reads until `needle` has arrived (or fails after a few seconds) and
    /// returns everything read so far.
    async fn read_until(stream: &mut TcpStream, seen: &mut String, needle: &str) -> String {
        let deadline = Duration::from_secs(5);
        let mut buf = [0u8; 4096];
        timeout(deadline, async {
            while !seen.contains(needle) {
                let n = stream.read(&mut buf).await.expect("read");
                assert!(n > 0, "connection closed before {needle:?}; got {seen:?}");
                seen.push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {needle:?}; got {seen:?}"));
        std::mem::take(seen)
    }

    /// A BMC whose `host` has Ubuntu installed, named `hostname`.
    async fn installed(host: &str, hostname: &str) -> DevBmc {
        let bmc = DevBmc::new();
        let os = Installed::new(domain::OsImage::Ubuntu2404, hostname, Some("right"));
        bmc.disks().install(host, os, 0).await.unwrap();
        bmc
    }

    #[tokio::test]
    async fn serial_console_boots_and_refuses_the_login() {
        let bmc = installed("gpu-7", "gpu-7").await;
        let addr = bmc.endpoint("gpu-7", ConsoleKind::Serial).await.unwrap();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut seen = String::new();

        let boot = read_until(&mut stream, &mut seen, "login: ").await;
        assert!(boot.ends_with("\r\n\r\ngpu-7 login: "), "{boot:?}");
        assert!(boot
            .split("\r\n")
            .any(|l| l == "Ubuntu 24.04.1 LTS gpu-7 ttyS0"));
        assert!(boot.contains("[  OK  ] Reached target Multi-User System.\r\n"));

        stream.write_all(b"root\r").await.unwrap();
        let out = read_until(&mut stream, &mut seen, "Password: ").await;
        assert_eq!(out, "root\r\nPassword: ");

        stream.write_all(b"secret\r").await.unwrap();
        let out = read_until(&mut stream, &mut seen, "login: ").await;
        assert_eq!(out, "\r\nLogin incorrect\r\ngpu-7 login: ");
        assert!(!out.contains("secret"));

        // Editing and Ctrl-C on the fresh prompt; an arrow key is ignored.
        stream.write_all(b"ab\x7f\x1b[Ac\x03").await.unwrap();
        let out = read_until(&mut stream, &mut seen, "login: ").await;
        assert_eq!(out, "ab\x08 \x08c^C\r\ngpu-7 login: ");
    }

    #[tokio::test]
    async fn the_console_shows_what_is_installed_now() {
        let bmc = DevBmc::new();
        let addr = bmc
            .endpoint("fra-g-l40s-002", ConsoleKind::Serial)
            .await
            .unwrap();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut seen = String::new();
        let empty = read_until(&mut stream, &mut seen, "press any key").await;
        assert!(!empty.contains("login:"), "{empty:?}");

        let os = Installed::new(domain::OsImage::Debian13, "train-fra-01", Some("right"));
        bmc.disks().install("fra-g-l40s-002", os, 0).await.unwrap();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let boot = read_until(&mut stream, &mut seen, "login: ").await;
        assert!(
            boot.contains("Debian GNU/Linux 13 train-fra-01 ttyS0"),
            "{boot:?}"
        );
        assert!(boot.ends_with("train-fra-01 login: "));
        assert!(!boot.contains("fra-g-l40s-002") && !boot.contains("Ubuntu"));
        stream.write_all(b"root\rright\r").await.unwrap();
        let shell = read_until(&mut stream, &mut seen, "# ").await;
        assert!(shell.ends_with("root@train-fra-01:~# "), "{shell:?}");
    }

    #[tokio::test]
    async fn each_serial_connection_has_its_own_login() {
        let bmc = installed("h", "h").await;
        let addr = bmc.endpoint("h", ConsoleKind::Serial).await.unwrap();
        let mut first = TcpStream::connect(addr).await.unwrap();
        let mut second = TcpStream::connect(addr).await.unwrap();
        let (mut a, mut b) = (String::new(), String::new());
        read_until(&mut first, &mut a, "login: ").await;
        read_until(&mut second, &mut b, "login: ").await;
        first.write_all(b"root\r").await.unwrap();
        read_until(&mut first, &mut a, "Password: ").await;
        // The second connection is still at the user name: it echoes.
        second.write_all(b"x").await.unwrap();
        assert_eq!(read_until(&mut second, &mut b, "x").await, "x");
    }
}
