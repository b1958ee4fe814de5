//! The host's monitor output: an 80×25 VGA-style text console, what a
//! server shows on its graphical console after boot. It keeps characters,
//! not pixels, and renders any part of itself into any true-colour RFB
//! pixel format on demand, so every VNC client gets the format it asked for
//! from one shared screen.

use font8x8::legacy::{BASIC_LEGACY, LATIN_LEGACY};

pub(crate) const COLS: usize = 80;
pub(crate) const ROWS: usize = 25;
/// The 8×8 glyphs are drawn with each row doubled: 8×16 cells, like VGA.
pub(crate) const CELL_W: usize = 8;
pub(crate) const CELL_H: usize = 16;
pub(crate) const WIDTH: u16 = (COLS * CELL_W) as u16;
pub(crate) const HEIGHT: u16 = (ROWS * CELL_H) as u16;

/// Light grey on black: the VGA console's default colours.
const FOREGROUND: (u8, u8, u8) = (0xaa, 0xaa, 0xaa);
const BACKGROUND: (u8, u8, u8) = (0, 0, 0);

/// A text screen with a cursor that interprets the same terminal output
/// the serial console sends: "\r", "\n", backspace ("\x08") and printable
/// characters; it wraps at the right edge and scrolls at the bottom.
#[derive(Clone, Debug)]
pub(crate) struct TextScreen {
    cells: Vec<char>,
    row: usize,
    /// May be COLS: the next character wraps to the next line first.
    col: usize,
}

impl Default for TextScreen {
    fn default() -> TextScreen {
        TextScreen {
            cells: vec![' '; COLS * ROWS],
            row: 0,
            col: 0,
        }
    }
}

impl TextScreen {
    pub(crate) fn clear(&mut self) {
        *self = TextScreen::default();
    }

    pub(crate) fn write(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '\r' => self.col = 0,
                '\n' => self.line_feed(),
                '\x08' => self.col = self.col.min(COLS).saturating_sub(1),
                c if c.is_control() => {}
                c => {
                    if self.col >= COLS {
                        self.col = 0;
                        self.line_feed();
                    }
                    self.cells[self.row * COLS + self.col] = c;
                    self.col += 1;
                }
            }
        }
    }

    fn line_feed(&mut self) {
        if self.row + 1 < ROWS {
            self.row += 1;
        } else {
            self.cells.copy_within(COLS.., 0);
            self.cells[(ROWS - 1) * COLS..].fill(' ');
        }
    }

    /// The cell the block cursor is drawn on.
    pub(crate) fn cursor(&self) -> (usize, usize) {
        (self.row, self.col.min(COLS - 1))
    }

    /// The text of one row, trailing blanks removed (for tests and logs).
    #[cfg(test)]
    pub(crate) fn row_text(&self, row: usize) -> String {
        let line: String = self.cells[row * COLS..(row + 1) * COLS].iter().collect();
        line.trim_end().to_string()
    }

    /// Whether the pixel at (`x`, `y`) is lit (foreground colour).
    fn lit(&self, x: usize, y: usize) -> bool {
        let (row, col) = (y / CELL_H, x / CELL_W);
        let glyph = glyph(self.cells[row * COLS + col]);
        let on = (glyph[(y % CELL_H) / 2] >> (x % CELL_W)) & 1 == 1;
        // The block cursor shows the character inverted.
        on != ((row, col) == self.cursor())
    }

    /// The pixels of the rectangle at (`x`, `y`) of `w`×`h` (inside the
    /// screen), row by row, in `format`.
    pub(crate) fn render(&self, x: u16, y: u16, w: u16, h: u16, format: &PixelFormat) -> Vec<u8> {
        let fg = format.encode(FOREGROUND);
        let bg = format.encode(BACKGROUND);
        let (x, y, w, h) = (
            usize::from(x),
            usize::from(y),
            usize::from(w),
            usize::from(h),
        );
        let mut out = Vec::with_capacity(w * h * fg.len());
        for py in y..y + h {
            for px in x..x + w {
                out.extend_from_slice(if self.lit(px, py) { &fg[..] } else { &bg[..] });
            }
        }
        out
    }
}

/// The 8×8 bitmap of `c`: bit 0 of each byte is the leftmost pixel. Basic
/// Latin and Latin-1 come from the font; anything else shows as "?".
fn glyph(c: char) -> [u8; 8] {
    let code = u32::from(c) as usize;
    match code {
        0x20..=0x7e => BASIC_LEGACY[code],
        0xa0..=0xff => LATIN_LEGACY[code - 0xa0],
        _ => BASIC_LEGACY[usize::from(b'?')],
    }
}

/// An RFB PIXEL_FORMAT (RFC 6143 §7.4). We only serve true colour: 8, 16 or
/// 32 bits per pixel, either byte order, any channel maxima and shifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PixelFormat {
    pub bits_per_pixel: u8,
    pub depth: u8,
    pub big_endian: bool,
    pub true_colour: bool,
    pub red_max: u16,
    pub green_max: u16,
    pub blue_max: u16,
    pub red_shift: u8,
    pub green_shift: u8,
    pub blue_shift: u8,
}

impl PixelFormat {
    /// What ServerInit announces: 32 bpp, depth 24, little-endian,
    /// 0x00RRGGBB.
    pub(crate) const SERVER: PixelFormat = PixelFormat {
        bits_per_pixel: 32,
        depth: 24,
        big_endian: false,
        true_colour: true,
        red_max: 255,
        green_max: 255,
        blue_max: 255,
        red_shift: 16,
        green_shift: 8,
        blue_shift: 0,
    };

    pub(crate) fn to_bytes(self) -> [u8; 16] {
        let [rh, rl] = self.red_max.to_be_bytes();
        let [gh, gl] = self.green_max.to_be_bytes();
        let [bh, bl] = self.blue_max.to_be_bytes();
        [
            self.bits_per_pixel,
            self.depth,
            u8::from(self.big_endian),
            u8::from(self.true_colour),
            rh,
            rl,
            gh,
            gl,
            bh,
            bl,
            self.red_shift,
            self.green_shift,
            self.blue_shift,
            0,
            0,
            0,
        ]
    }

    pub(crate) fn from_bytes(b: &[u8; 16]) -> PixelFormat {
        PixelFormat {
            bits_per_pixel: b[0],
            depth: b[1],
            big_endian: b[2] != 0,
            true_colour: b[3] != 0,
            red_max: u16::from_be_bytes([b[4], b[5]]),
            green_max: u16::from_be_bytes([b[6], b[7]]),
            blue_max: u16::from_be_bytes([b[8], b[9]]),
            red_shift: b[10],
            green_shift: b[11],
            blue_shift: b[12],
        }
    }

    /// Whether we can render in this format (no colour maps, no 24 bpp).
    pub(crate) fn supported(&self) -> bool {
        self.true_colour && matches!(self.bits_per_pixel, 8 | 16 | 32)
    }

    pub(crate) fn bytes_per_pixel(&self) -> usize {
        usize::from(self.bits_per_pixel / 8)
    }

    /// One pixel of colour `rgb` (0..=255 each), as the bytes to send.
    pub(crate) fn encode(&self, (r, g, b): (u8, u8, u8)) -> Vec<u8> {
        let channel = |v: u8, max: u16, shift: u8| {
            (u32::from(v) * u32::from(max) / 255)
                .checked_shl(u32::from(shift))
                .unwrap_or(0)
        };
        let pixel = channel(r, self.red_max, self.red_shift)
            | channel(g, self.green_max, self.green_shift)
            | channel(b, self.blue_max, self.blue_shift);
        let n = self.bytes_per_pixel().min(4);
        if self.big_endian {
            pixel.to_be_bytes()[4 - n..].to_vec()
        } else {
            pixel.to_le_bytes()[..n].to_vec()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_wraps_and_scrolls() {
        let mut s = TextScreen::default();
        s.write("hello\r\nwor\x08\x08ld");
        assert_eq!(s.row_text(0), "hello");
        assert_eq!(s.row_text(1), "wld");
        assert_eq!(s.cursor(), (1, 3));

        let long: String = std::iter::repeat_n('x', COLS + 2).collect();
        s.write(&format!("\r\n{long}"));
        assert_eq!(s.row_text(2).len(), COLS);
        assert_eq!(s.row_text(3), "xx");

        s.clear();
        for i in 0..ROWS + 3 {
            s.write(&format!("line {i}\r\n"));
        }
        assert_eq!(s.row_text(0), "line 4");
        assert_eq!(s.row_text(ROWS - 2), format!("line {}", ROWS + 2));
        assert_eq!(s.row_text(ROWS - 1), "");
        assert_eq!(s.cursor(), (ROWS - 1, 0));
    }

    #[test]
    fn pixel_formats_encode_channels() {
        let server = PixelFormat::SERVER;
        assert_eq!(server.encode((0x11, 0x22, 0x33)), vec![0x33, 0x22, 0x11, 0]);
        assert_eq!(PixelFormat::from_bytes(&server.to_bytes()), server);

        // noVNC: 32 bpp little-endian, red in the low byte.
        let novnc = PixelFormat {
            red_shift: 0,
            blue_shift: 16,
            ..server
        };
        assert_eq!(novnc.encode((0x11, 0x22, 0x33)), vec![0x11, 0x22, 0x33, 0]);

        // RGB565, big-endian.
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
            ..server
        };
        assert_eq!(rgb565.encode((255, 255, 255)), vec![0xff, 0xff]);
        assert_eq!(rgb565.encode((255, 0, 0)), vec![0xf8, 0x00]);
        let rgb565_le = PixelFormat {
            big_endian: false,
            ..rgb565
        };
        assert_eq!(rgb565_le.encode((255, 0, 0)), vec![0x00, 0xf8]);

        // BGR233 in 8 bits; absurd shifts don't panic.
        let bgr233 = PixelFormat {
            bits_per_pixel: 8,
            depth: 8,
            red_max: 7,
            green_max: 7,
            blue_max: 3,
            red_shift: 0,
            green_shift: 3,
            blue_shift: 6,
            ..server
        };
        assert_eq!(bgr233.encode((255, 255, 255)), vec![0xff]);
        let odd = PixelFormat {
            red_shift: 40,
            ..server
        };
        assert_eq!(odd.encode((255, 0, 0)), vec![0, 0, 0, 0]);
        assert!(!PixelFormat {
            bits_per_pixel: 24,
            ..server
        }
        .supported());
    }

    #[test]
    fn renders_text_and_cursor() {
        let mut s = TextScreen::default();
        s.write("!");
        let px = s.render(0, 0, WIDTH, HEIGHT, &PixelFormat::SERVER);
        assert_eq!(px.len(), usize::from(WIDTH) * usize::from(HEIGHT) * 4);
        let lit = |x: usize, y: usize| px[(y * usize::from(WIDTH) + x) * 4] == 0xaa;
        // "!" is a vertical bar in columns 3 and 4 of its cell, rows doubled.
        assert!(lit(3, 0) && lit(4, 1) && !lit(0, 0) && !lit(3, 14));
        // The cursor after it is a full block.
        assert!((8..16).all(|x| (0..16).all(|y| lit(x, y))));
        assert!(!lit(16, 0));
        // A sub-rectangle is the same pixels.
        let part = s.render(8, 0, 8, 16, &PixelFormat::SERVER);
        assert!(part.chunks(4).all(|p| p == [0xaa, 0xaa, 0xaa, 0]));
    }
}
