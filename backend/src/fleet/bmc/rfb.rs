//! The graphical console as an RFB server (VNC, RFC 6143), the protocol a
//! BMC's KVM speaks and noVNC understands. We implement what a viewer needs
//! of it: versions 3.3/3.7/3.8 with security type None, any true-colour
//! pixel format, Raw encoding, incremental updates that wait for the screen
//! to change, and key events (including noVNC's Ctrl-Alt-Del button).

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

use super::login::Key;
use super::monitor::{Input, Monitor};
use super::screen::{PixelFormat, TextScreen, HEIGHT, WIDTH};

/// A client that has not finished the handshake by then is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(30);

/// Longest ClientCutText we accept (we discard it anyway).
const MAX_CUT_TEXT: usize = 1 << 20;

const SECURITY_NONE: u8 = 1;

/// Serves one VNC connection until the client leaves or breaks protocol.
pub(crate) async fn serve(mut stream: TcpStream, host: String, monitor: Arc<Monitor>) {
    if let Err(e) = run(&mut stream, &host, &monitor).await {
        tracing::debug!(host, error = %e, "VNC console connection ended");
    }
}

fn invalid(what: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.into())
}

async fn run(stream: &mut TcpStream, host: &str, monitor: &Monitor) -> std::io::Result<()> {
    let _ = stream.set_nodelay(true);
    tokio::time::timeout(HANDSHAKE_TIMEOUT, handshake(stream, host))
        .await
        .map_err(|_| invalid("handshake timed out"))??;

    let mut screen = monitor.subscribe();
    // Nothing has been sent on this connection yet: even an incremental
    // request gets the screen at once.
    screen.mark_changed();
    let mut session = Session {
        format: PixelFormat::SERVER,
        pending: None,
        modifiers: Modifiers::default(),
    };
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        while let Some(message) = parse(&mut buf)? {
            session
                .handle(message, stream, &mut screen, monitor)
                .await?;
        }
        enum Event {
            Read(std::io::Result<usize>),
            Changed(bool),
        }
        // Both futures are cancel-safe: a read that loses the race has
        // consumed nothing, and `changed` can be awaited again.
        let event = tokio::select! {
            n = stream.read(&mut chunk) => Event::Read(n),
            changed = screen.changed(), if session.pending.is_some() => Event::Changed(changed.is_ok()),
        };
        match event {
            Event::Read(n) => match n? {
                0 => return Ok(()),
                n => buf.extend_from_slice(&chunk[..n]),
            },
            Event::Changed(false) => return Err(invalid("the host's screen is gone")),
            Event::Changed(true) => {
                if let Some(rect) = session.pending.take() {
                    send_update(stream, &mut screen, &session.format, rect).await?;
                }
            }
        }
    }
}

/// Parses "RFB xxx.yyy\n" and returns the minor version we speak with the
/// client: 8, 7 or 3. Per RFC 6143 §7.1.1 other minors count as 3.3; Apple's
/// 3.889 does the 3.8 handshake.
fn client_version(raw: &[u8; 12]) -> Option<u32> {
    let digits = |r: &[u8]| -> Option<u32> {
        if r.iter().all(u8::is_ascii_digit) {
            std::str::from_utf8(r).ok()?.parse().ok()
        } else {
            None
        }
    };
    if &raw[..4] != b"RFB " || raw[7] != b'.' || raw[11] != b'\n' {
        return None;
    }
    let (major, minor) = (digits(&raw[4..7])?, digits(&raw[8..11])?);
    match (major, minor) {
        (3, 8..) => Some(8),
        (3, 7) => Some(7),
        (3, _) => Some(3),
        _ => None,
    }
}

/// Version and security negotiation, ClientInit and ServerInit (§7.1–7.3).
async fn handshake(stream: &mut TcpStream, host: &str) -> std::io::Result<()> {
    stream.write_all(b"RFB 003.008\n").await?;
    let mut version = [0u8; 12];
    stream.read_exact(&mut version).await?;
    let minor = client_version(&version).ok_or_else(|| {
        invalid(format!(
            "bad protocol version {:?}",
            String::from_utf8_lossy(&version)
        ))
    })?;

    if minor >= 7 {
        stream.write_all(&[1, SECURITY_NONE]).await?;
        let mut choice = [0u8; 1];
        stream.read_exact(&mut choice).await?;
        if choice[0] != SECURITY_NONE {
            if minor >= 8 {
                let reason = b"unsupported security type";
                let mut failed = 1u32.to_be_bytes().to_vec();
                failed.extend_from_slice(&(reason.len() as u32).to_be_bytes());
                failed.extend_from_slice(reason);
                stream.write_all(&failed).await?;
            }
            return Err(invalid(format!("client chose security type {}", choice[0])));
        }
        // 3.7 sends no SecurityResult for None; 3.8 does.
        if minor >= 8 {
            stream.write_all(&0u32.to_be_bytes()).await?;
        }
    } else {
        stream
            .write_all(&u32::from(SECURITY_NONE).to_be_bytes())
            .await?;
    }

    let mut shared = [0u8; 1];
    stream.read_exact(&mut shared).await?;

    let name = format!("{host} (BMC console)");
    let mut init = Vec::with_capacity(24 + name.len());
    init.extend_from_slice(&WIDTH.to_be_bytes());
    init.extend_from_slice(&HEIGHT.to_be_bytes());
    init.extend_from_slice(&PixelFormat::SERVER.to_bytes());
    init.extend_from_slice(&(name.len() as u32).to_be_bytes());
    init.extend_from_slice(name.as_bytes());
    stream.write_all(&init).await
}

/// A rectangle of the framebuffer: x, y, width, height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rect {
    x: u16,
    y: u16,
    w: u16,
    h: u16,
}

impl Rect {
    /// The part inside the screen (possibly empty).
    fn clamped(self) -> Rect {
        let x = self.x.min(WIDTH);
        let y = self.y.min(HEIGHT);
        let right = (u32::from(self.x) + u32::from(self.w)).min(u32::from(WIDTH));
        let bottom = (u32::from(self.y) + u32::from(self.h)).min(u32::from(HEIGHT));
        Rect {
            x,
            y,
            // Both bounds are at most WIDTH/HEIGHT, which fit in u16.
            w: u16::try_from(right.saturating_sub(u32::from(x))).unwrap_or(0),
            h: u16::try_from(bottom.saturating_sub(u32::from(y))).unwrap_or(0),
        }
    }

    /// The smallest rectangle holding both.
    fn union(self, other: Rect) -> Rect {
        let (a, b) = (self.clamped(), other.clamped());
        let x = a.x.min(b.x);
        let y = a.y.min(b.y);
        let right = (a.x + a.w).max(b.x + b.w);
        let bottom = (a.y + a.h).max(b.y + b.h);
        Rect {
            x,
            y,
            w: right - x,
            h: bottom - y,
        }
    }
}

/// A client-to-server message (§7.5).
#[derive(Debug, PartialEq, Eq)]
enum ClientMessage {
    SetPixelFormat(PixelFormat),
    SetEncodings,
    UpdateRequest { incremental: bool, rect: Rect },
    KeyEvent { down: bool, keysym: u32 },
    PointerEvent,
    ClientCutText,
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Takes one complete message off the front of `buf`; `None` until all of
/// it has arrived. Unknown types and oversized cut text are errors: we
/// cannot tell where the next message would start.
fn parse(buf: &mut Vec<u8>) -> std::io::Result<Option<ClientMessage>> {
    let Some(&kind) = buf.first() else {
        return Ok(None);
    };
    // The length of the message, once its header has arrived.
    let len = match kind {
        0 => Some(20),
        2 => (buf.len() >= 4).then(|| 4 + 4 * usize::from(be16(buf, 2))),
        3 => Some(10),
        4 => Some(8),
        5 => Some(6),
        6 if buf.len() >= 8 => {
            let text = usize::try_from(be32(buf, 4)).unwrap_or(usize::MAX);
            if text > MAX_CUT_TEXT {
                return Err(invalid(format!("cut text of {text} bytes")));
            }
            Some(8 + text)
        }
        6 => None,
        other => return Err(invalid(format!("unknown message type {other}"))),
    };
    let Some(len) = len.filter(|len| buf.len() >= *len) else {
        return Ok(None);
    };
    let m = &buf[..len];
    let message = match kind {
        0 => {
            let mut format = [0u8; 16];
            format.copy_from_slice(&m[4..20]);
            ClientMessage::SetPixelFormat(PixelFormat::from_bytes(&format))
        }
        2 => ClientMessage::SetEncodings,
        3 => ClientMessage::UpdateRequest {
            incremental: m[1] != 0,
            rect: Rect {
                x: be16(m, 2),
                y: be16(m, 4),
                w: be16(m, 6),
                h: be16(m, 8),
            },
        },
        4 => ClientMessage::KeyEvent {
            down: m[1] != 0,
            keysym: be32(m, 4),
        },
        5 => ClientMessage::PointerEvent,
        _ => ClientMessage::ClientCutText,
    };
    buf.drain(..len);
    Ok(Some(message))
}

/// Which modifier keys this client holds down (left and right of each).
#[derive(Debug, Default)]
struct Modifiers {
    control: [bool; 2],
    alt: [bool; 2],
}

impl Modifiers {
    /// Records a modifier key; false if `keysym` is not one.
    fn track(&mut self, keysym: u32, down: bool) -> bool {
        let slot = match keysym {
            0xffe3 => &mut self.control[0],
            0xffe4 => &mut self.control[1],
            0xffe9 => &mut self.alt[0],
            0xffea => &mut self.alt[1],
            _ => return false,
        };
        *slot = down;
        true
    }

    fn control(&self) -> bool {
        self.control.iter().any(|d| *d)
    }

    fn alt(&self) -> bool {
        self.alt.iter().any(|d| *d)
    }
}

/// What a key-down of `keysym` does, given the modifiers held.
fn input_for(keysym: u32, modifiers: &Modifiers) -> Option<Input> {
    const DELETE: u32 = 0xffff;
    const KP_DELETE: u32 = 0xff9f;
    if modifiers.control() && modifiers.alt() && matches!(keysym, DELETE | KP_DELETE) {
        return Some(Input::CtrlAltDel);
    }
    let key = match keysym {
        0xff0d | 0xff8d => Key::Enter,
        0xff08 => Key::Backspace,
        // Latin-1 keysyms are their code points.
        0x20..=0x7e | 0xa0..=0xff => Key::Char(char::from_u32(keysym)?),
        // Keypad digits.
        0xffb0..=0xffb9 => Key::Char(char::from_u32(u32::from(b'0') + keysym - 0xffb0)?),
        // Unicode keysyms: 0x01000000 + the code point.
        0x0100_0100..=0x0110_ffff => Key::Char(char::from_u32(keysym - 0x0100_0000)?),
        _ => return None,
    };
    if modifiers.control() {
        // Only Ctrl-C means something at a login prompt.
        return matches!(key, Key::Char('c' | 'C')).then_some(Input::Key(Key::Interrupt));
    }
    Some(Input::Key(key))
}

/// Per-connection state after the handshake.
struct Session {
    format: PixelFormat,
    /// An incremental update request waiting for the screen to change.
    pending: Option<Rect>,
    modifiers: Modifiers,
}

impl Session {
    async fn handle(
        &mut self,
        message: ClientMessage,
        stream: &mut TcpStream,
        screen: &mut watch::Receiver<TextScreen>,
        monitor: &Monitor,
    ) -> std::io::Result<()> {
        match message {
            ClientMessage::SetPixelFormat(format) => {
                if !format.supported() {
                    return Err(invalid(format!("unsupported pixel format {format:?}")));
                }
                self.format = format;
            }
            ClientMessage::UpdateRequest { incremental, rect } => {
                // A closed channel counts as changed; the next wait ends the
                // connection.
                if !incremental || screen.has_changed().unwrap_or(true) {
                    send_update(stream, screen, &self.format, rect).await?;
                } else {
                    self.pending = Some(match self.pending {
                        Some(earlier) => earlier.union(rect),
                        None => rect,
                    });
                }
            }
            ClientMessage::KeyEvent { down, keysym } => {
                if !self.modifiers.track(keysym, down) && down {
                    if let Some(input) = input_for(keysym, &self.modifiers) {
                        monitor.send(input).await;
                    }
                }
            }
            // We always answer in Raw, which every client must accept; the
            // pointer and clipboard mean nothing at a login prompt.
            ClientMessage::SetEncodings
            | ClientMessage::PointerEvent
            | ClientMessage::ClientCutText => {}
        }
        Ok(())
    }
}

/// Sends a FramebufferUpdate (§7.6.1) of `rect` (clamped to the screen; no
/// rectangle if nothing is left) in Raw encoding, and marks the screen as
/// seen by this connection.
async fn send_update(
    stream: &mut TcpStream,
    screen: &mut watch::Receiver<TextScreen>,
    format: &PixelFormat,
    rect: Rect,
) -> std::io::Result<()> {
    let rect = rect.clamped();
    let pixels = {
        let screen = screen.borrow_and_update();
        screen.render(rect.x, rect.y, rect.w, rect.h, format)
    };
    let empty = rect.w == 0 || rect.h == 0;
    let mut message = Vec::with_capacity(16 + pixels.len());
    message.extend_from_slice(&[0, 0]);
    message.extend_from_slice(&u16::from(!empty).to_be_bytes());
    if !empty {
        for v in [rect.x, rect.y, rect.w, rect.h] {
            message.extend_from_slice(&v.to_be_bytes());
        }
        message.extend_from_slice(&0i32.to_be_bytes());
        message.extend_from_slice(&pixels);
    }
    stream.write_all(&message).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::bmc::login::boot_lines;
    use crate::fleet::bmc::DevBmc;
    use crate::fleet::disks::Installed;
    use crate::fleet::ConsoleKind;
    use tokio::time::timeout;

    const WAIT: Duration = Duration::from_secs(5);
    const W: usize = WIDTH as usize;
    const H: usize = HEIGHT as usize;

    async fn read_n(stream: &mut TcpStream, n: usize) -> Vec<u8> {
        let mut buf = vec![0u8; n];
        timeout(WAIT, stream.read_exact(&mut buf))
            .await
            .expect("timed out reading from the server")
            .expect("read");
        buf
    }

    fn ubuntu(host: &str) -> Installed {
        Installed::new(domain::OsImage::Ubuntu2404, host, None)
    }

    /// A BMC whose `host` has Ubuntu installed under its own name.
    async fn installed(host: &str) -> DevBmc {
        let bmc = DevBmc::new();
        bmc.disks().install(host, ubuntu(host), 0).await.unwrap();
        bmc
    }

    async fn connect(host: &str) -> TcpStream {
        let bmc = installed(host).await;
        let addr = bmc.endpoint(host, ConsoleKind::Graphical).await.unwrap();
        TcpStream::connect(addr).await.unwrap()
    }

    /// ServerInit: width, height, pixel format, name.
    async fn read_server_init(stream: &mut TcpStream) -> (u16, u16, PixelFormat, String) {
        let head = read_n(stream, 24).await;
        let mut format = [0u8; 16];
        format.copy_from_slice(&head[4..20]);
        let name = read_n(stream, be32(&head, 20) as usize).await;
        (
            be16(&head, 0),
            be16(&head, 2),
            PixelFormat::from_bytes(&format),
            String::from_utf8(name).unwrap(),
        )
    }

    async fn handshake_38(stream: &mut TcpStream) -> (u16, u16, PixelFormat, String) {
        assert_eq!(read_n(stream, 12).await, b"RFB 003.008\n");
        stream.write_all(b"RFB 003.008\n").await.unwrap();
        assert_eq!(read_n(stream, 2).await, [1, SECURITY_NONE]);
        stream.write_all(&[SECURITY_NONE]).await.unwrap();
        assert_eq!(read_n(stream, 4).await, [0, 0, 0, 0]);
        stream.write_all(&[1]).await.unwrap();
        read_server_init(stream).await
    }

    async fn set_pixel_format(stream: &mut TcpStream, format: PixelFormat) {
        let mut m = vec![0u8, 0, 0, 0];
        m.extend_from_slice(&format.to_bytes());
        stream.write_all(&m).await.unwrap();
    }

    async fn request(stream: &mut TcpStream, incremental: bool) {
        let mut m = vec![3u8, u8::from(incremental)];
        for v in [0, 0, WIDTH, HEIGHT] {
            m.extend_from_slice(&v.to_be_bytes());
        }
        stream.write_all(&m).await.unwrap();
    }

    async fn key(stream: &mut TcpStream, keysym: u32, down: bool) {
        let mut m = vec![4u8, u8::from(down), 0, 0];
        m.extend_from_slice(&keysym.to_be_bytes());
        stream.write_all(&m).await.unwrap();
    }

    /// Reads a one-rectangle full-screen FramebufferUpdate of `bpp` bytes a
    /// pixel and returns its pixels.
    async fn read_full_update(stream: &mut TcpStream, bpp: usize) -> Vec<u8> {
        let head = read_n(stream, 16).await;
        assert_eq!(&head[..4], [0, 0, 0, 1], "one-rectangle update");
        assert_eq!(
            [
                be16(&head, 4),
                be16(&head, 6),
                be16(&head, 8),
                be16(&head, 10)
            ],
            [0, 0, WIDTH, HEIGHT]
        );
        assert_eq!(be32(&head, 12), 0, "Raw encoding");
        read_n(stream, W * H * bpp).await
    }

    fn novnc_format() -> PixelFormat {
        PixelFormat {
            red_shift: 0,
            green_shift: 8,
            blue_shift: 16,
            ..PixelFormat::SERVER
        }
    }

    /// Whether any pixel in text row `row`, columns `cols`, is not black.
    fn any_lit(pixels: &[u8], row: usize, cols: std::ops::Range<usize>) -> bool {
        (row * 16..(row + 1) * 16).any(|y| {
            (cols.start * 8..cols.end * 8)
                .any(|x| pixels[(y * W + x) * 4..(y * W + x) * 4 + 3] != [0, 0, 0])
        })
    }

    #[tokio::test]
    async fn rfb_38_session_renders_the_prompt_and_typing() {
        let mut stream = connect("gpu-7").await;
        let (w, h, format, name) = handshake_38(&mut stream).await;
        assert_eq!((w, h), (640, 400));
        assert_eq!(format, PixelFormat::SERVER);
        assert_eq!(name, "gpu-7 (BMC console)");

        // What noVNC does next: pixel format, encodings, a full request.
        set_pixel_format(&mut stream, novnc_format()).await;
        let mut encodings = vec![2u8, 0, 0, 3];
        for e in [7i32, 0, -223] {
            encodings.extend_from_slice(&e.to_be_bytes());
        }
        stream.write_all(&encodings).await.unwrap();
        request(&mut stream, false).await;
        let before = read_full_update(&mut stream, 4).await;
        assert_eq!(before.len(), 640 * 400 * 4);

        let prompt_row = boot_lines(Some(&ubuntu("gpu-7")), "tty1").len() + 1;
        let prompt = "gpu-7 login: ".len();
        assert!(any_lit(&before, prompt_row, 0..prompt + 1));
        // The cursor is a full block of light grey, red in the low byte.
        let at = |x: usize, y: usize| &before[(y * W + x) * 4..(y * W + x) * 4 + 4];
        assert_eq!(
            at(prompt * 8 + 3, prompt_row * 16 + 7),
            [0xaa, 0xaa, 0xaa, 0]
        );
        assert!(!any_lit(&before, prompt_row, prompt + 1..80));
        assert!(!any_lit(&before, prompt_row + 1, 0..80));

        // Nothing changed: an incremental request waits...
        request(&mut stream, true).await;
        let mut probe = [0u8; 1];
        let early = timeout(Duration::from_millis(100), stream.read(&mut probe)).await;
        assert!(early.is_err(), "an update came without a change");
        // ...until typing changes the screen, while the server still reads.
        for c in "root".bytes() {
            key(&mut stream, u32::from(c), true).await;
            key(&mut stream, u32::from(c), false).await;
        }
        let after = read_full_update(&mut stream, 4).await;
        assert_ne!(before, after);
        assert!(any_lit(&after, prompt_row, prompt..prompt + 2));
    }

    #[tokio::test]
    async fn rfb_16_bpp_updates_are_two_bytes_a_pixel() {
        let mut stream = connect("h").await;
        handshake_38(&mut stream).await;
        let rgb565 = PixelFormat {
            bits_per_pixel: 16,
            depth: 16,
            big_endian: true,
            red_max: 31,
            green_max: 63,
            blue_max: 31,
            red_shift: 11,
            green_shift: 5,
            blue_shift: 0,
            true_colour: true,
        };
        set_pixel_format(&mut stream, rgb565).await;
        request(&mut stream, false).await;
        let pixels = read_full_update(&mut stream, 2).await;
        assert_eq!(pixels.len(), 640 * 400 * 2);
        let grey = rgb565.encode((0xaa, 0xaa, 0xaa));
        assert!(pixels.chunks(2).any(|p| p == grey));
        assert!(pixels.chunks(2).all(|p| p == grey || p == [0, 0]));
    }

    #[tokio::test]
    async fn rfb_partial_and_out_of_range_requests_are_clamped() {
        let mut stream = connect("h").await;
        handshake_38(&mut stream).await;
        let mut m = vec![3u8, 0];
        for v in [600u16, 380, 100, 100] {
            m.extend_from_slice(&v.to_be_bytes());
        }
        stream.write_all(&m).await.unwrap();
        let head = read_n(&mut stream, 16).await;
        assert_eq!(
            [
                be16(&head, 4),
                be16(&head, 6),
                be16(&head, 8),
                be16(&head, 10)
            ],
            [600, 380, 40, 20]
        );
        read_n(&mut stream, 40 * 20 * 4).await;
        // Entirely outside: an update with no rectangle.
        let mut m = vec![3u8, 0];
        for v in [700u16, 0, 10, 10] {
            m.extend_from_slice(&v.to_be_bytes());
        }
        stream.write_all(&m).await.unwrap();
        assert_eq!(read_n(&mut stream, 4).await, [0, 0, 0, 0]);
    }

    #[tokio::test]
    async fn rfb_33_and_37_handshakes() {
        let mut stream = connect("old").await;
        read_n(&mut stream, 12).await;
        stream.write_all(b"RFB 003.003\n").await.unwrap();
        assert_eq!(read_n(&mut stream, 4).await, [0, 0, 0, 1]);
        stream.write_all(&[0]).await.unwrap();
        let (w, h, _, name) = read_server_init(&mut stream).await;
        assert_eq!((w, h, name.as_str()), (640, 400, "old (BMC console)"));
        request(&mut stream, false).await;
        read_full_update(&mut stream, 4).await;

        let mut stream = connect("mid").await;
        read_n(&mut stream, 12).await;
        stream.write_all(b"RFB 003.007\n").await.unwrap();
        assert_eq!(read_n(&mut stream, 2).await, [1, SECURITY_NONE]);
        stream.write_all(&[SECURITY_NONE, 1]).await.unwrap();
        // No SecurityResult in 3.7: ServerInit follows at once.
        let (w, h, _, name) = read_server_init(&mut stream).await;
        assert_eq!((w, h, name.as_str()), (640, 400, "mid (BMC console)"));
    }

    async fn assert_closed(stream: &mut TcpStream) {
        let mut rest = Vec::new();
        let closed = timeout(WAIT, stream.read_to_end(&mut rest)).await;
        assert!(closed.is_ok(), "the server kept the connection open");
    }

    #[tokio::test]
    async fn rfb_bad_version_or_message_closes_the_connection() {
        let mut stream = connect("h").await;
        read_n(&mut stream, 12).await;
        stream.write_all(b"HTTP/1.1 200").await.unwrap();
        let mut rest = Vec::new();
        let read = timeout(WAIT, stream.read_to_end(&mut rest)).await;
        assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "{read:?} {rest:?}");

        let mut stream = connect("h").await;
        handshake_38(&mut stream).await;
        stream.write_all(&[99]).await.unwrap();
        assert_closed(&mut stream).await;

        let mut stream = connect("h").await;
        handshake_38(&mut stream).await;
        let mut cut = vec![6u8, 0, 0, 0];
        cut.extend_from_slice(&(64u32 << 20).to_be_bytes());
        stream.write_all(&cut).await.unwrap();
        assert_closed(&mut stream).await;

        let mut stream = connect("h").await;
        handshake_38(&mut stream).await;
        set_pixel_format(
            &mut stream,
            PixelFormat {
                true_colour: false,
                ..PixelFormat::SERVER
            },
        )
        .await;
        assert_closed(&mut stream).await;
    }

    #[tokio::test]
    async fn rfb_ignores_pointer_and_cut_text_and_sends_ctrl_alt_del() {
        let bmc = installed("h").await;
        let addr = bmc.endpoint("h", ConsoleKind::Graphical).await.unwrap();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        handshake_38(&mut stream).await;
        stream.write_all(&[5, 1, 0, 10, 0, 10]).await.unwrap();
        let mut cut = vec![6u8, 0, 0, 0, 0, 0, 0, 5];
        cut.extend_from_slice(b"hello");
        stream.write_all(&cut).await.unwrap();
        request(&mut stream, false).await;
        let booted = read_full_update(&mut stream, 4).await;

        // noVNC's "Send Ctrl-Alt-Del": three downs, three ups.
        for (keysym, down) in [
            (0xffe3, true),
            (0xffe9, true),
            (0xffff, true),
            (0xffff, false),
            (0xffe9, false),
            (0xffe3, false),
        ] {
            key(&mut stream, keysym, down).await;
        }
        request(&mut stream, true).await;
        let rebooting = read_full_update(&mut stream, 4).await;
        assert_ne!(booted, rebooting);
        // Row 0 holds "reboot: Restarting system"; row 1 is empty.
        assert!(any_lit(&rebooting, 0, 0..25));
        assert!(!any_lit(&rebooting, 1, 0..80));
        request(&mut stream, true).await;
        let rebooted = read_full_update(&mut stream, 4).await;
        assert_eq!(booted, rebooted);
    }

    #[tokio::test]
    async fn rfb_viewers_of_a_host_share_one_screen() {
        let bmc = installed("h").await;
        let addr = bmc.endpoint("h", ConsoleKind::Graphical).await.unwrap();
        assert_eq!(
            bmc.endpoint("h", ConsoleKind::Graphical).await.unwrap(),
            addr
        );
        let mut typist = TcpStream::connect(addr).await.unwrap();
        let mut watcher = TcpStream::connect(addr).await.unwrap();
        handshake_38(&mut typist).await;
        handshake_38(&mut watcher).await;
        request(&mut watcher, false).await;
        let before = read_full_update(&mut watcher, 4).await;
        request(&mut watcher, true).await;
        key(&mut typist, u32::from(b'x'), true).await;
        let after = read_full_update(&mut watcher, 4).await;
        assert_ne!(before, after);
        // A viewer connecting later sees the typed character too.
        let mut late = TcpStream::connect(addr).await.unwrap();
        handshake_38(&mut late).await;
        request(&mut late, false).await;
        assert_eq!(read_full_update(&mut late, 4).await, after);
    }

    #[test]
    fn versions_and_keysyms() {
        assert_eq!(client_version(b"RFB 003.008\n"), Some(8));
        assert_eq!(client_version(b"RFB 003.889\n"), Some(8));
        assert_eq!(client_version(b"RFB 003.007\n"), Some(7));
        assert_eq!(client_version(b"RFB 003.005\n"), Some(3));
        assert_eq!(client_version(b"RFB 004.000\n"), None);
        assert_eq!(client_version(b"RFB 003.00x\n"), None);
        assert_eq!(client_version(b"GET / HTTP/1"), None);

        let none = Modifiers::default();
        assert_eq!(input_for(0x61, &none), Some(Input::Key(Key::Char('a'))));
        assert_eq!(input_for(0xe9, &none), Some(Input::Key(Key::Char('é'))));
        assert_eq!(
            input_for(0x0100_20ac, &none),
            Some(Input::Key(Key::Char('€')))
        );
        assert_eq!(input_for(0xffb7, &none), Some(Input::Key(Key::Char('7'))));
        assert_eq!(input_for(0xff0d, &none), Some(Input::Key(Key::Enter)));
        assert_eq!(input_for(0xff08, &none), Some(Input::Key(Key::Backspace)));
        assert_eq!(input_for(0xffff, &none), None);
        assert_eq!(input_for(0xffe1, &none), None);

        let mut held = Modifiers::default();
        assert!(held.track(0xffe4, true));
        assert_eq!(input_for(0x63, &held), Some(Input::Key(Key::Interrupt)));
        assert_eq!(input_for(0x64, &held), None);
        assert!(held.track(0xffea, true));
        assert_eq!(input_for(0xffff, &held), Some(Input::CtrlAltDel));
        assert!(held.track(0xffe4, false));
        assert_eq!(input_for(0xffff, &held), None);
    }

    #[test]
    fn parse_waits_for_whole_messages() {
        let mut buf = vec![3u8, 1, 0, 0, 0];
        assert_eq!(parse(&mut buf).unwrap(), None);
        buf.extend_from_slice(&[0, 0, 10, 0, 20, 4]);
        assert_eq!(
            parse(&mut buf).unwrap(),
            Some(ClientMessage::UpdateRequest {
                incremental: true,
                rect: Rect {
                    x: 0,
                    y: 0,
                    w: 10,
                    h: 20
                }
            })
        );
        assert_eq!(buf, [4]);
        let mut buf = vec![2u8, 0, 0, 2, 0, 0, 0, 0];
        assert_eq!(parse(&mut buf).unwrap(), None);
        buf.extend_from_slice(&[0, 0, 0, 7]);
        assert_eq!(parse(&mut buf).unwrap(), Some(ClientMessage::SetEncodings));
        assert!(buf.is_empty());
        assert!(parse(&mut vec![1u8]).is_err());
    }
}
