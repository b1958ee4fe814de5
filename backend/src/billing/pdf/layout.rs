//! Text measure and line wrapping, and the canvas: pages of content
//! streams with a baseline cursor, and the glyphs collected for the subset.

use std::collections::BTreeMap;

use pdf_writer::types::{LineJoinStyle, TextRenderingMode};
use pdf_writer::{Content, Str};
use subsetter::GlyphRemapper;

use super::font::{FontInfo, FONT_NAME};
use super::style::{Rgb, Style, CONTENT_BOTTOM, MARGIN_TOP, PAGE_H};

impl FontInfo<'_> {
    pub(super) fn width(&self, text: &str, size: f32) -> f32 {
        text.chars()
            .filter(|c| !c.is_control())
            .map(|c| self.advance(self.glyph(c).unwrap_or(0)))
            .sum::<f32>()
            * size
            / 1000.0
    }

    /// Greedy line breaking: at spaces, and between CJK characters (closing
    /// punctuation stays with the character before it). Words longer than
    /// `max` are cut. Explicit newlines are kept.
    pub(super) fn wrap(&self, text: &str, size: f32, max: f32) -> Vec<String> {
        let mut lines = Vec::new();
        for para in text.split('\n') {
            let mut line = String::new();
            let mut space = false;
            for token in tokens(para) {
                if token.chars().all(char::is_whitespace) {
                    space = !line.is_empty();
                    continue;
                }
                let candidate = if space {
                    format!("{line} {token}")
                } else {
                    format!("{line}{token}")
                };
                space = false;
                if self.width(&candidate, size) <= max {
                    line = candidate;
                    continue;
                }
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
                // The token alone on a line; cut it when even that is too wide.
                for c in token.chars() {
                    let mut next = line.clone();
                    next.push(c);
                    if !line.is_empty() && self.width(&next, size) > max {
                        lines.push(std::mem::take(&mut line));
                        line.push(c);
                    } else {
                        line = next;
                    }
                }
            }
            lines.push(line);
        }
        lines
    }
}

fn is_cjk(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x11FF | 0x2E80..=0x2FFF | 0x3000..=0x30FF | 0x3100..=0x9FFF
        | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF)
}

/// Characters that must not start a line.
fn is_closing(c: char) -> bool {
    "，。、；：！？）》」』】〕〉％,.;:!?)]}%".contains(c)
}

/// Splits into break units: runs of whitespace, words, single CJK characters
/// (with any closing punctuation that follows).
fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    #[derive(PartialEq, Clone, Copy)]
    enum Kind {
        Space,
        Word,
        Cjk,
    }
    let mut last: Option<Kind> = None;
    for c in text.chars() {
        if is_closing(c) && last.is_some_and(|k| k != Kind::Space) {
            // Glue to the previous unit.
            if let Some(unit) = out.last_mut() {
                unit.push(c);
                continue;
            }
        }
        let kind = if c.is_whitespace() {
            Kind::Space
        } else if is_cjk(c) {
            Kind::Cjk
        } else {
            Kind::Word
        };
        match (last, kind, out.last_mut()) {
            (Some(Kind::Space), Kind::Space, Some(unit))
            | (Some(Kind::Word), Kind::Word, Some(unit)) => unit.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(kind);
    }
    out
}

/// Pages of content streams, and the glyphs drawn on them collected for the
/// subset.
pub(super) struct Canvas<'f> {
    font: &'f FontInfo<'f>,
    pub(super) pages: Vec<Content>,
    /// The page drawn on.
    pub(super) current: usize,
    /// Original glyph ids to the subset's ids (used as CIDs).
    pub(super) glyphs: GlyphRemapper,
    /// Subset glyph id to the text it stands for (for the ToUnicode CMap).
    pub(super) unicode: BTreeMap<u16, char>,
    pub(super) missing: Vec<char>,
    /// Baseline cursor on the current page.
    pub(super) y: f32,
}

impl<'f> Canvas<'f> {
    pub(super) fn new(font: &'f FontInfo<'f>) -> Canvas<'f> {
        Canvas {
            font,
            pages: vec![Content::new()],
            current: 0,
            glyphs: GlyphRemapper::new(),
            unicode: BTreeMap::new(),
            missing: Vec::new(),
            y: PAGE_H - MARGIN_TOP,
        }
    }

    fn page(&mut self) -> &mut Content {
        &mut self.pages[self.current]
    }

    pub(super) fn width(&self, text: &str, style: Style) -> f32 {
        self.font.width(text, style.size)
    }

    pub(super) fn wrap(&self, text: &str, style: Style, max: f32) -> Vec<String> {
        self.font.wrap(text, style.size, max)
    }

    pub(super) fn text(&mut self, x: f32, y: f32, style: Style, text: &str) {
        let mut encoded = Vec::with_capacity(text.len() * 2);
        for c in text.chars().filter(|c| !c.is_control()) {
            let gid = match self.font.glyph(c) {
                Some(gid) => gid,
                None => {
                    if !self.missing.contains(&c) {
                        self.missing.push(c);
                    }
                    0
                }
            };
            let cid = self.glyphs.remap(gid);
            if gid != 0 {
                self.unicode.entry(cid).or_insert(c);
            }
            encoded.extend_from_slice(&cid.to_be_bytes());
        }
        if encoded.is_empty() {
            return;
        }
        let (r, g, b) = style.color;
        let page = self.page();
        page.set_fill_rgb(r, g, b);
        if style.bold {
            // One weight in the font: embolden by stroking the outlines.
            page.set_stroke_rgb(r, g, b);
            page.set_line_width(style.size * 0.035);
            page.set_line_join(LineJoinStyle::RoundJoin);
        }
        page.begin_text();
        page.set_font(FONT_NAME, style.size);
        page.set_text_rendering_mode(if style.bold {
            TextRenderingMode::FillStroke
        } else {
            TextRenderingMode::Fill
        });
        page.next_line(x, y);
        page.show(Str(&encoded));
        page.end_text();
    }

    pub(super) fn text_right(&mut self, right: f32, y: f32, style: Style, text: &str) {
        let w = self.width(text, style);
        self.text(right - w, y, style, text);
    }

    pub(super) fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        let page = self.page();
        page.set_fill_rgb(color.0, color.1, color.2);
        page.rect(x, y, w, h);
        page.fill_nonzero();
    }

    pub(super) fn hline(&mut self, x1: f32, x2: f32, y: f32, width: f32, color: Rgb) {
        let page = self.page();
        page.set_stroke_rgb(color.0, color.1, color.2);
        page.set_line_width(width);
        page.move_to(x1, y);
        page.line_to(x2, y);
        page.stroke();
    }

    pub(super) fn new_page(&mut self) {
        self.pages.push(Content::new());
        self.current = self.pages.len() - 1;
        self.y = PAGE_H - MARGIN_TOP;
    }

    pub(super) fn fits(&self, height: f32) -> bool {
        self.y - height >= CONTENT_BOTTOM
    }
}
