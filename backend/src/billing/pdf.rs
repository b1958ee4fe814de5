//! Offline invoices as PDF documents, in Chinese and in English.
//!
//! The caller fills an [`InvoiceDocument`] with translated labels and
//! formatted amounts; [`render`] lays it out on A4 pages and writes a PDF
//! with one embedded font. The font must cover both Latin and CJK text
//! ([`DEFAULT_FONT`], from Debian's `fonts-wqy-microhei`, which
//! `scripts/setup.sh` installs); only the glyphs used are embedded (a subset
//! of a few KB instead of the 5 MB font), and a ToUnicode CMap keeps the text
//! searchable and extractable.
//!
//! The layout is done here with a few helpers (text measure, line wrapping,
//! right alignment, page breaks) on top of `pdf-writer`: the document has a
//! fixed shape, so a general layout engine would only add weight.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{anyhow, Context as _};
use domain::Lang;
use pdf_writer::types::{
    CidFontType, FontFlags, LineJoinStyle, SystemInfo, TextRenderingMode, UnicodeCmap,
};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use subsetter::GlyphRemapper;

/// A CJK-capable TrueType font with Latin glyphs too (WenQuanYi Micro Hei,
/// Debian package `fonts-wqy-microhei`). A collection: face 0 is used.
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

/// Everything printed on an invoice, already translated and formatted.
#[derive(Clone, Debug)]
pub struct InvoiceDocument {
    pub lang: Lang,
    /// "Invoice" / "发票".
    pub title: String,
    /// INV-2026-000001.
    pub number: String,
    /// Translated status, e.g. "Open" / "待付款".
    pub status: String,
    /// Name, address, "VAT NL000000000B01".
    pub seller_lines: Vec<String>,
    /// Legal name, address lines, country, VAT id.
    pub customer_lines: Vec<String>,
    /// (label, value): invoice date, due date, service period.
    pub facts: Vec<(String, String)>,
    /// (description, amount formatted like "€239.00").
    pub lines: Vec<(String, String)>,
    /// (label, amount, bold): net, VAT or the reverse charge note, total,
    /// credit, amount due.
    pub totals: Vec<(String, String, bool)>,
    /// Bank transfer instructions; empty when the invoice is paid.
    pub payment_lines: Vec<String>,
    pub footer: String,
}

/// Reads a font file (TrueType/OpenType or a collection of them).
/// Reading the default font takes a few milliseconds (5 MB): callers that
/// render often should keep the bytes.
pub fn load_font(path: &Path) -> anyhow::Result<Vec<u8>> {
    let data = std::fs::read(path).with_context(|| {
        format!(
            "cannot read the invoice font {} (Debian: apt-get install fonts-wqy-microhei, \
             or run scripts/setup.sh)",
            path.display()
        )
    })?;
    ttf_parser::Face::parse(&data, 0).map_err(|e| {
        anyhow!(
            "{} is not a usable TrueType/OpenType font: {e}",
            path.display()
        )
    })?;
    Ok(data)
}

/// Lays out `doc` on A4 pages and returns the PDF file. `font` is the data
/// of a TrueType/OpenType font (face 0 of a collection) that covers the
/// document's characters; it is embedded as a subset.
pub fn render(doc: &InvoiceDocument, font: &[u8]) -> anyhow::Result<Vec<u8>> {
    let font = FontInfo::parse(font)?;
    let mut canvas = Canvas::new(&font);
    layout(doc, &mut canvas);
    if !canvas.missing.is_empty() {
        tracing::warn!(
            number = %doc.number,
            missing = %canvas.missing.iter().collect::<String>(),
            "invoice font lacks glyphs for some characters"
        );
    }
    write_pdf(doc, &font, canvas)
}

// ---------------------------------------------------------------------------
// Page geometry and style (points; the origin is the bottom left corner).

const PAGE_W: f32 = 595.28;
const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 56.0;
const MARGIN_TOP: f32 = 56.0;
/// The footer rule; content stays above `CONTENT_BOTTOM`.
const FOOTER_RULE: f32 = 62.0;
const CONTENT_BOTTOM: f32 = 76.0;
const LEFT: f32 = MARGIN_X;
const RIGHT: f32 = PAGE_W - MARGIN_X;
const CONTENT_W: f32 = RIGHT - LEFT;
/// Width of the amount column in the table of lines.
const AMOUNT_COL: f32 = 110.0;
const CELL_PAD: f32 = 8.0;
const TOTALS_W: f32 = 300.0;

type Rgb = (f32, f32, f32);
const INK: Rgb = (0.13, 0.14, 0.16);
const MUTED: Rgb = (0.42, 0.45, 0.50);
const ACCENT: Rgb = (0.10, 0.27, 0.50);
const RULE: Rgb = (0.82, 0.84, 0.87);
const HEADER_BG: Rgb = (0.93, 0.94, 0.96);
const BADGE_BG: Rgb = (0.89, 0.93, 0.98);
const PANEL_BG: Rgb = (0.96, 0.97, 0.98);

#[derive(Clone, Copy)]
struct Style {
    size: f32,
    bold: bool,
    color: Rgb,
}

impl Style {
    const fn new(size: f32, bold: bool, color: Rgb) -> Style {
        Style { size, bold, color }
    }
}

/// Labels the document does not carry (table heads, page numbers).
struct Fixed {
    bill_to: &'static str,
    description: &'static str,
    amount: &'static str,
    continued: &'static str,
}

impl Fixed {
    fn of(lang: Lang) -> Fixed {
        match lang {
            Lang::Zh => Fixed {
                bill_to: "购买方",
                description: "项目",
                amount: "金额",
                continued: "（续）",
            },
            Lang::En => Fixed {
                bill_to: "Bill to",
                description: "Description",
                amount: "Amount",
                continued: "(continued)",
            },
        }
    }

    fn page(lang: Lang, n: usize, of: usize) -> String {
        match lang {
            Lang::Zh => format!("第 {n} / {of} 页"),
            Lang::En => format!("Page {n} of {of}"),
        }
    }
}

// ---------------------------------------------------------------------------
// Font metrics.

struct FontInfo<'a> {
    data: &'a [u8],
    face: ttf_parser::Face<'a>,
    /// Font units to 1/1000 em (PDF glyph space).
    scale: f32,
}

impl<'a> FontInfo<'a> {
    fn parse(data: &'a [u8]) -> anyhow::Result<FontInfo<'a>> {
        let face = ttf_parser::Face::parse(data, 0)
            .map_err(|e| anyhow!("the invoice font is not a TrueType/OpenType font: {e}"))?;
        let scale = 1000.0 / f32::from(face.units_per_em());
        Ok(FontInfo { data, face, scale })
    }

    fn glyph(&self, c: char) -> Option<u16> {
        self.face.glyph_index(c).map(|g| g.0)
    }

    /// Advance of a glyph in 1/1000 em.
    fn advance(&self, gid: u16) -> f32 {
        self.face
            .glyph_hor_advance(ttf_parser::GlyphId(gid))
            .map_or(0.0, |a| f32::from(a) * self.scale)
    }

    fn width(&self, text: &str, size: f32) -> f32 {
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
    fn wrap(&self, text: &str, size: f32, max: f32) -> Vec<String> {
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
        let kind = if c.is_whitespace() {
            Kind::Space
        } else if is_closing(c) && last.is_some() && last != Some(Kind::Space) {
            // Glue to the previous unit.
            out.last_mut().expect("a previous unit").push(c);
            continue;
        } else if is_cjk(c) {
            Kind::Cjk
        } else {
            Kind::Word
        };
        match (last, kind) {
            (Some(Kind::Space), Kind::Space) | (Some(Kind::Word), Kind::Word) => {
                out.last_mut().expect("a previous unit").push(c)
            }
            _ => out.push(c.to_string()),
        }
        last = Some(kind);
    }
    out
}

// ---------------------------------------------------------------------------
// Drawing: pages of content streams, glyphs collected for the subset.

struct Canvas<'f> {
    font: &'f FontInfo<'f>,
    pages: Vec<Content>,
    /// The page drawn on.
    current: usize,
    /// Original glyph ids to the subset's ids (used as CIDs).
    glyphs: GlyphRemapper,
    /// Subset glyph id to the text it stands for (for the ToUnicode CMap).
    unicode: BTreeMap<u16, char>,
    missing: Vec<char>,
    /// Baseline cursor on the current page.
    y: f32,
}

const FONT_NAME: Name<'static> = Name(b"F1");

impl<'f> Canvas<'f> {
    fn new(font: &'f FontInfo<'f>) -> Canvas<'f> {
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

    fn width(&self, text: &str, style: Style) -> f32 {
        self.font.width(text, style.size)
    }

    fn wrap(&self, text: &str, style: Style, max: f32) -> Vec<String> {
        self.font.wrap(text, style.size, max)
    }

    fn text(&mut self, x: f32, y: f32, style: Style, text: &str) {
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

    fn text_right(&mut self, right: f32, y: f32, style: Style, text: &str) {
        let w = self.width(text, style);
        self.text(right - w, y, style, text);
    }

    fn fill_rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        let page = self.page();
        page.set_fill_rgb(color.0, color.1, color.2);
        page.rect(x, y, w, h);
        page.fill_nonzero();
    }

    fn hline(&mut self, x1: f32, x2: f32, y: f32, width: f32, color: Rgb) {
        let page = self.page();
        page.set_stroke_rgb(color.0, color.1, color.2);
        page.set_line_width(width);
        page.move_to(x1, y);
        page.line_to(x2, y);
        page.stroke();
    }

    fn new_page(&mut self) {
        self.pages.push(Content::new());
        self.current = self.pages.len() - 1;
        self.y = PAGE_H - MARGIN_TOP;
    }

    fn fits(&self, height: f32) -> bool {
        self.y - height >= CONTENT_BOTTOM
    }
}

// ---------------------------------------------------------------------------
// The invoice layout.

const TITLE: Style = Style::new(26.0, true, ACCENT);
const NUMBER: Style = Style::new(12.0, false, INK);
const BADGE: Style = Style::new(9.0, true, ACCENT);
const SMALL: Style = Style::new(9.0, false, INK);
const SMALL_BOLD: Style = Style::new(9.5, true, INK);
const LABEL: Style = Style::new(8.5, false, MUTED);
const BODY: Style = Style::new(10.0, false, INK);
const BODY_BOLD: Style = Style::new(10.0, true, INK);
const HEAD: Style = Style::new(9.0, true, MUTED);
const TOTAL: Style = Style::new(10.0, false, INK);
const TOTAL_BOLD: Style = Style::new(11.0, true, INK);
const FOOT: Style = Style::new(8.0, false, MUTED);

fn layout(doc: &InvoiceDocument, c: &mut Canvas) {
    let fixed = Fixed::of(doc.lang);
    header(doc, c);
    parties(doc, &fixed, c);
    table(doc, &fixed, c);
    totals(doc, &fixed, c);
    payment(doc, &fixed, c);
    footers(doc, c);
}

/// Title, number and status on the left; the seller on the right.
fn header(doc: &InvoiceDocument, c: &mut Canvas) {
    let top = PAGE_H - MARGIN_TOP;

    // Seller, right aligned; the column takes at most half the width.
    let seller_w = CONTENT_W * 0.5;
    let mut y = top - 9.0;
    for (i, line) in doc.seller_lines.iter().enumerate() {
        let style = if i == 0 { SMALL_BOLD } else { SMALL };
        for part in c.wrap(line, style, seller_w) {
            c.text_right(RIGHT, y, style, &part);
            y -= 13.0;
        }
    }
    let seller_bottom = y + 13.0 - 4.0;

    let mut y = top - 22.0;
    c.text(LEFT, y, TITLE, &doc.title);
    y -= 21.0;
    c.text(LEFT, y, NUMBER, &doc.number);
    if !doc.status.is_empty() {
        y -= 24.0;
        let w = c.width(&doc.status, BADGE) + 14.0;
        c.fill_rect(LEFT, y - 5.0, w, 17.0, BADGE_BG);
        c.text(LEFT + 7.0, y, BADGE, &doc.status);
        y -= 5.0;
    } else {
        y -= 4.0;
    }

    let bottom = y.min(seller_bottom) - 16.0;
    c.hline(LEFT, RIGHT, bottom, 1.2, ACCENT);
    c.y = bottom - 26.0;
}

/// The customer on the left, the invoice facts (dates) on the right.
fn parties(doc: &InvoiceDocument, fixed: &Fixed, c: &mut Canvas) {
    let top = c.y;
    let col_w = CONTENT_W * 0.48;

    let mut y = top;
    c.text(LEFT, y, LABEL, fixed.bill_to);
    y -= 15.0;
    for (i, line) in doc.customer_lines.iter().enumerate() {
        let style = if i == 0 { BODY_BOLD } else { BODY };
        for part in c.wrap(line, style, col_w) {
            c.text(LEFT, y, style, &part);
            y -= 14.0;
        }
    }
    let left_bottom = y;

    let facts_left = RIGHT - col_w;
    let mut y = top;
    for (label, value) in &doc.facts {
        let label_w = c.width(label, LABEL);
        let value_w = c.width(value, SMALL);
        c.text(facts_left, y, LABEL, label);
        if label_w + 12.0 + value_w > col_w {
            // No room beside the label: the value goes below it.
            for part in c.wrap(value, SMALL, col_w) {
                y -= 13.0;
                c.text_right(RIGHT, y, SMALL, &part);
            }
        } else {
            c.text_right(RIGHT, y, SMALL, value);
        }
        y -= 15.0;
    }

    c.y = left_bottom.min(y) - 18.0;
}

const HEAD_H: f32 = 22.0;
const ROW_LEADING: f32 = 14.0;
const ROW_PAD: f32 = 5.5;

fn table_head(fixed: &Fixed, c: &mut Canvas) {
    let top = c.y;
    c.fill_rect(LEFT, top - HEAD_H, CONTENT_W, HEAD_H, HEADER_BG);
    let base = top - HEAD_H + 7.5;
    c.text(LEFT + CELL_PAD, base, HEAD, fixed.description);
    c.text_right(RIGHT - CELL_PAD, base, HEAD, fixed.amount);
    c.y = top - HEAD_H;
}

/// The top of a continuation page: title, number and "continued".
fn continuation(doc: &InvoiceDocument, fixed: &Fixed, c: &mut Canvas) {
    c.new_page();
    let y = c.y - 10.0;
    let text = format!("{} {} {}", doc.title, doc.number, fixed.continued);
    c.text(LEFT, y, SMALL_BOLD, &text);
    c.hline(LEFT, RIGHT, y - 10.0, 0.8, ACCENT);
    c.y = y - 28.0;
}

fn table(doc: &InvoiceDocument, fixed: &Fixed, c: &mut Canvas) {
    let desc_w = CONTENT_W - AMOUNT_COL - 2.0 * CELL_PAD;
    if !c.fits(HEAD_H + ROW_LEADING + 2.0 * ROW_PAD) {
        continuation(doc, fixed, c);
    }
    table_head(fixed, c);
    for (description, amount) in &doc.lines {
        let parts = c.wrap(description, BODY, desc_w);
        let height = parts.len() as f32 * ROW_LEADING + 2.0 * ROW_PAD;
        if !c.fits(height) {
            continuation(doc, fixed, c);
            table_head(fixed, c);
        }
        let first = c.y - ROW_PAD - 10.0;
        let mut y = first;
        for part in &parts {
            c.text(LEFT + CELL_PAD, y, BODY, part);
            y -= ROW_LEADING;
        }
        c.text_right(RIGHT - CELL_PAD, first, BODY, amount);
        c.y -= height;
        c.hline(LEFT, RIGHT, c.y, 0.5, RULE);
    }
    c.y -= 14.0;
}

fn totals(doc: &InvoiceDocument, fixed: &Fixed, c: &mut Canvas) {
    if doc.totals.is_empty() {
        return;
    }
    let left = RIGHT - TOTALS_W;
    let amount_w = 90.0;
    let label_w = TOTALS_W - amount_w - 2.0 * CELL_PAD;
    let rows: Vec<(Vec<String>, &str, Style)> = doc
        .totals
        .iter()
        .map(|(label, amount, bold)| {
            let style = if *bold { TOTAL_BOLD } else { TOTAL };
            (c.wrap(label, style, label_w), amount.as_str(), style)
        })
        .collect();
    let row_h = |lines: usize, style: Style| lines as f32 * (style.size + 4.0) + 9.0;
    let height: f32 = rows.iter().map(|(l, _, s)| row_h(l.len(), *s)).sum();
    if !c.fits(height) {
        continuation(doc, fixed, c);
    }
    for (i, (label, amount, style)) in rows.iter().enumerate() {
        if style.bold && i > 0 {
            c.hline(left, RIGHT, c.y, 0.8, INK);
        }
        let first = c.y - style.size - 3.0;
        let mut y = first;
        for part in label {
            c.text(left + CELL_PAD, y, *style, part);
            y -= style.size + 4.0;
        }
        c.text_right(RIGHT - CELL_PAD, first, *style, amount);
        c.y -= row_h(label.len(), *style);
    }
    c.y -= 18.0;
}

fn payment(doc: &InvoiceDocument, fixed: &Fixed, c: &mut Canvas) {
    if doc.payment_lines.is_empty() {
        return;
    }
    let pad = 12.0;
    let leading = 14.5;
    let mut parts = Vec::new();
    for (i, line) in doc.payment_lines.iter().enumerate() {
        let style = if i == 0 { BODY_BOLD } else { BODY };
        for part in c.wrap(line, style, CONTENT_W - 2.0 * pad) {
            parts.push((part, style));
        }
    }
    let height = parts.len() as f32 * leading + 2.0 * pad - 4.0;
    if !c.fits(height) {
        continuation(doc, fixed, c);
    }
    let top = c.y;
    c.fill_rect(LEFT, top - height, CONTENT_W, height, PANEL_BG);
    c.fill_rect(LEFT, top - height, 2.5, height, ACCENT);
    let mut y = top - pad - 8.0;
    for (part, style) in parts {
        c.text(LEFT + pad, y, style, &part);
        y -= leading;
    }
    c.y = top - height - 18.0;
}

/// The footer text and page numbers, on every page.
fn footers(doc: &InvoiceDocument, c: &mut Canvas) {
    let count = c.pages.len();
    let number_w = c.width(&Fixed::page(doc.lang, count, count), FOOT) + 24.0;
    let lines = c.wrap(&doc.footer, FOOT, CONTENT_W - number_w);
    for n in 0..count {
        c.current = n;
        c.hline(LEFT, RIGHT, FOOTER_RULE, 0.5, RULE);
        let mut y = FOOTER_RULE - 13.0;
        for line in &lines {
            c.text(LEFT, y, FOOT, line);
            y -= 10.0;
        }
        c.text_right(
            RIGHT,
            FOOTER_RULE - 13.0,
            FOOT,
            &Fixed::page(doc.lang, n + 1, count),
        );
    }
}

// ---------------------------------------------------------------------------
// The PDF file.

fn deflate(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 9)
}

fn write_pdf(doc: &InvoiceDocument, font: &FontInfo, canvas: Canvas) -> anyhow::Result<Vec<u8>> {
    let Canvas {
        pages,
        glyphs,
        unicode,
        ..
    } = canvas;

    let catalog_id = Ref::new(1);
    let tree_id = Ref::new(2);
    let type0_id = Ref::new(3);
    let cid_id = Ref::new(4);
    let descriptor_id = Ref::new(5);
    let file_id = Ref::new(6);
    let cmap_id = Ref::new(7);
    let info_id = Ref::new(8);
    let page_ids: Vec<(Ref, Ref)> = (0..pages.len() as i32)
        .map(|i| (Ref::new(9 + 2 * i), Ref::new(10 + 2 * i)))
        .collect();

    let mut pdf = Pdf::new();
    let lang = match doc.lang {
        Lang::Zh => "zh-CN",
        Lang::En => "en",
    };
    pdf.catalog(catalog_id).pages(tree_id).lang(TextStr(lang));
    pdf.pages(tree_id)
        .kids(page_ids.iter().map(|(page, _)| *page))
        .count(page_ids.len() as i32);
    let title = format!("{} {}", doc.title, doc.number);
    pdf.document_info(info_id)
        .title(TextStr(&title))
        .producer(TextStr("gpu-storefront"));

    for ((page_id, content_id), content) in page_ids.iter().zip(pages) {
        let mut page = pdf.page(*page_id);
        page.parent(tree_id)
            .media_box(Rect::new(0.0, 0.0, PAGE_W, PAGE_H))
            .contents(*content_id);
        page.resources().fonts().pair(FONT_NAME, type0_id);
        page.finish();
        pdf.stream(*content_id, &deflate(&content.finish()))
            .filter(Filter::FlateDecode);
    }

    // The font: a Type 0 font over a CID font whose CIDs are the subset's
    // glyph ids, two bytes each (Identity-H).
    let subset = subsetter::subset(font.data, 0, &glyphs)
        .map_err(|e| anyhow!("cannot subset the invoice font: {e}"))?;
    let face = &font.face;
    let cff = face.tables().cff.is_some();
    let base_font = format!("{}+{}", subset_tag(&glyphs), postscript_name(face));
    let base_font = Name(base_font.as_bytes());
    let system_info = SystemInfo {
        registry: Str(b"Adobe"),
        ordering: Str(b"Identity"),
        supplement: 0,
    };

    pdf.type0_font(type0_id)
        .base_font(base_font)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(cid_id)
        .to_unicode(cmap_id);

    let widths: Vec<f32> = glyphs
        .remapped_gids()
        .map(|gid| font.advance(gid).round())
        .collect();
    let mut cid = pdf.cid_font(cid_id);
    cid.subtype(if cff {
        CidFontType::Type0
    } else {
        CidFontType::Type2
    })
    .base_font(base_font)
    .system_info(system_info)
    .font_descriptor(descriptor_id)
    .default_width(0.0);
    if !cff {
        cid.cid_to_gid_map_predefined(Name(b"Identity"));
    }
    cid.widths().consecutive(0, widths);
    cid.finish();

    let s = font.scale;
    let bbox = face.global_bounding_box();
    let ascent = f32::from(face.ascender()) * s;
    let mut descriptor = pdf.font_descriptor(descriptor_id);
    descriptor
        .name(base_font)
        .flags(FontFlags::SYMBOLIC)
        .bbox(Rect::new(
            f32::from(bbox.x_min) * s,
            f32::from(bbox.y_min) * s,
            f32::from(bbox.x_max) * s,
            f32::from(bbox.y_max) * s,
        ))
        .italic_angle(0.0)
        .ascent(ascent)
        .descent(f32::from(face.descender()) * s)
        .cap_height(face.capital_height().map_or(ascent, |h| f32::from(h) * s))
        .stem_v(80.0);
    if cff {
        descriptor.font_file3(file_id);
    } else {
        descriptor.font_file2(file_id);
    }
    descriptor.finish();

    let file_data = deflate(&subset);
    let mut file = pdf.stream(file_id, &file_data);
    file.filter(Filter::FlateDecode);
    if cff {
        file.pair(Name(b"Subtype"), Name(b"OpenType"));
    } else {
        file.pair(Name(b"Length1"), subset.len() as i32);
    }
    file.finish();

    let mut cmap = UnicodeCmap::new(Name(b"Custom"), system_info);
    for (cid, c) in &unicode {
        cmap.pair(*cid, *c);
    }
    pdf.cmap(cmap_id, &deflate(&cmap.finish()))
        .filter(Filter::FlateDecode);

    Ok(pdf.finish())
}

fn postscript_name(face: &ttf_parser::Face) -> String {
    let name = face
        .names()
        .into_iter()
        .filter(|n| n.name_id == ttf_parser::name_id::POST_SCRIPT_NAME)
        .find_map(|n| n.to_string())
        .unwrap_or_default();
    let name: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    if name.is_empty() {
        "InvoiceFont".into()
    } else {
        name
    }
}

/// Six capital letters that name the subset (PDF 32000 §9.6.4), derived
/// from the glyphs it holds.
fn subset_tag(glyphs: &GlyphRemapper) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for gid in glyphs.remapped_gids() {
        for byte in gid.to_be_bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    (0..6)
        .map(|i| char::from(b'A' + ((hash >> (i * 8)) % 26) as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn font() -> Vec<u8> {
        let path = Path::new(DEFAULT_FONT);
        assert!(
            path.exists(),
            "the invoice font {DEFAULT_FONT} is missing: run `source scripts/setup.sh` \
             (it installs the Debian package fonts-wqy-microhei)"
        );
        load_font(path).expect("the default font loads")
    }

    fn english() -> InvoiceDocument {
        InvoiceDocument {
            lang: Lang::En,
            title: "Invoice".into(),
            number: "INV-2026-000001".into(),
            status: "Open".into(),
            seller_lines: vec![
                "Example GPU Hosting B.V. (development)".into(),
                "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".into(),
                "VAT NL000000000B01".into(),
            ],
            customer_lines: vec![
                "Acme Research GmbH".into(),
                "Hauptstraße 5".into(),
                "10115 Berlin".into(),
                "Germany".into(),
                "VAT DE123456789".into(),
            ],
            facts: vec![
                ("Invoice date".into(), "1 March 2026".into()),
                ("Due date".into(), "15 March 2026".into()),
                (
                    "Service period".into(),
                    "1 March 2026 – 31 March 2026".into(),
                ),
            ],
            lines: vec![
                (
                    "GPU server gpu-a100-01 (1× NVIDIA A100 80 GB, 32 vCPU, 256 GB RAM), \
                     monthly rental, 1 March 2026 – 31 March 2026"
                        .into(),
                    "€1,420.00".into(),
                ),
                ("Extra IPv4 address".into(), "€4.00".into()),
                ("Snapshot storage 500 GB".into(), "€239.00".into()),
            ],
            totals: vec![
                ("Net".into(), "€1,663.00".into(), false),
                (
                    "VAT reverse charged: the customer accounts for VAT \
                     (Article 196, Directive 2006/112/EC)"
                        .into(),
                    "€0.00".into(),
                    false,
                ),
                ("Total".into(), "€1,663.00".into(), true),
                ("Credit applied".into(), "-€100.00".into(), false),
                ("Amount due".into(), "€1,563.00".into(), true),
            ],
            payment_lines: vec![
                "Please pay by bank transfer by 15 March 2026.".into(),
                "IBAN NL00 TEST 0000 0000 00".into(),
                "BIC TESTNL2A".into(),
                "Reference INV-2026-000001".into(),
            ],
            footer: "Example GPU Hosting B.V. (development) · Keizersgracht 1, 1015 CJ \
                     Amsterdam · VAT NL000000000B01 · Questions: billing@example.com"
                .into(),
        }
    }

    fn chinese() -> InvoiceDocument {
        InvoiceDocument {
            lang: Lang::Zh,
            title: "发票".into(),
            number: "INV-2026-000002".into(),
            status: "待付款".into(),
            seller_lines: vec![
                "Example GPU Hosting B.V. (development)".into(),
                "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".into(),
                "增值税号 NL000000000B01".into(),
            ],
            customer_lines: vec![
                "北京深度计算科技有限公司".into(),
                "北京市海淀区中关村大街 1 号".into(),
                "中国".into(),
            ],
            facts: vec![
                ("开票日期".into(), "2026年3月1日".into()),
                ("到期日".into(), "2026年3月15日".into()),
                ("服务期间".into(), "2026年3月1日 – 2026年3月31日".into()),
            ],
            lines: vec![
                (
                    "GPU 服务器 gpu-a100-01（1× NVIDIA A100 80 GB，32 vCPU，256 GB 内存），\
                     月租，2026年3月1日至2026年3月31日"
                        .into(),
                    "€239.00".into(),
                ),
                ("额外 IPv4 地址".into(), "€4.00".into()),
            ],
            totals: vec![
                ("不含税金额".into(), "€243.00".into(), false),
                (
                    "增值税 0%（出口服务，不在欧盟征税范围内）".into(),
                    "€0.00".into(),
                    false,
                ),
                ("合计".into(), "€243.00".into(), true),
                ("应付金额".into(), "€243.00".into(), true),
            ],
            payment_lines: vec![
                "请于2026年3月15日前通过银行转账付款。".into(),
                "IBAN NL00 TEST 0000 0000 00".into(),
                "BIC TESTNL2A".into(),
                "付款备注 INV-2026-000002".into(),
            ],
            footer: "Example GPU Hosting B.V. (development) · 阿姆斯特丹 · 增值税号 \
                     NL000000000B01 · 如有疑问请联系 billing@example.com"
                .into(),
        }
    }

    /// Writes the PDF to `$INVOICE_PDF_DIR/name` when that is set, to look at.
    fn keep(name: &str, pdf: &[u8]) {
        if let Ok(dir) = std::env::var("INVOICE_PDF_DIR") {
            let path = Path::new(&dir).join(name);
            std::fs::write(&path, pdf).expect("write the sample PDF");
        }
    }

    /// The page texts of a PDF written by `render`: streams are inflated,
    /// the ToUnicode CMap is read and the strings of every `Tj` decoded
    /// through it, one line per text object.
    fn extract(pdf: &[u8]) -> Vec<String> {
        let mut streams = Vec::new();
        let mut rest = pdf;
        while let Some(start) = find(rest, b"stream\n") {
            let body = &rest[start + 7..];
            let end = find(body, b"\nendstream").expect("endstream");
            let raw = &body[..end];
            streams.push(
                miniz_oxide::inflate::decompress_to_vec_zlib(raw).unwrap_or_else(|_| raw.to_vec()),
            );
            rest = &body[end + b"\nendstream".len()..];
        }
        let cmap_stream = streams
            .iter()
            .find(|s| find(s, b"begincmap").is_some())
            .expect("a ToUnicode CMap stream");
        let cmap = parse_cmap(&String::from_utf8_lossy(cmap_stream));
        streams
            .iter()
            // Content streams: plain ASCII, unlike the font file.
            .filter(|s| s.is_ascii() && find(s, b"Tj").is_some())
            .map(|s| {
                shown_strings(s)
                    .iter()
                    .map(|bytes| {
                        bytes
                            .chunks(2)
                            .map(|pair| {
                                let cid = u16::from_be_bytes([pair[0], pair[1]]);
                                cmap.get(&cid).cloned().unwrap_or_else(|| "\u{FFFD}".into())
                            })
                            .collect::<String>()
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect()
    }

    fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
        hay.windows(needle.len()).position(|w| w == needle)
    }

    fn parse_cmap(text: &str) -> BTreeMap<u16, String> {
        let mut map = BTreeMap::new();
        for line in text.lines() {
            let Some((cid, uni)) = line.split_once("> <") else {
                continue;
            };
            let cid = u16::from_str_radix(cid.trim_start_matches('<'), 16).expect("cid hex");
            let units: Vec<u16> = uni
                .trim_end_matches('>')
                .as_bytes()
                .chunks(4)
                .map(|h| u16::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
                .collect();
            map.insert(cid, String::from_utf16(&units).expect("utf-16"));
        }
        map
    }

    /// The operands of `Tj` in a content stream, as bytes: literal strings
    /// (with escapes) and hex strings.
    fn shown_strings(content: &[u8]) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < content.len() {
            let (string, next) = match content[i] {
                b'(' => {
                    let mut bytes = Vec::new();
                    let mut depth = 1;
                    let mut j = i + 1;
                    loop {
                        let b = content[j];
                        match b {
                            b'\\' => {
                                let e = content[j + 1];
                                match e {
                                    b'n' => bytes.push(b'\n'),
                                    b'r' => bytes.push(b'\r'),
                                    b't' => bytes.push(b'\t'),
                                    b'b' => bytes.push(8),
                                    b'f' => bytes.push(12),
                                    b'0'..=b'7' => {
                                        let oct =
                                            std::str::from_utf8(&content[j + 1..j + 4]).unwrap();
                                        bytes.push(u8::from_str_radix(oct, 8).unwrap());
                                        j += 2;
                                    }
                                    other => bytes.push(other),
                                }
                                j += 2;
                                continue;
                            }
                            b'(' => depth += 1,
                            b')' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                        bytes.push(b);
                        j += 1;
                    }
                    (bytes, j + 1)
                }
                b'<' if content.get(i + 1) != Some(&b'<') => {
                    let end = i + find(&content[i..], b">").unwrap();
                    let hex = std::str::from_utf8(&content[i + 1..end]).unwrap();
                    let bytes = (0..hex.len())
                        .step_by(2)
                        .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).unwrap())
                        .collect();
                    (bytes, end + 1)
                }
                _ => {
                    i += 1;
                    continue;
                }
            };
            if content[next..].trim_ascii_start().starts_with(b"Tj") {
                out.push(string);
            }
            i = next;
        }
        out
    }

    fn check(pdf: &[u8]) {
        assert!(pdf.starts_with(b"%PDF-"), "not a PDF");
        assert!(
            pdf.len() < 200_000,
            "{} bytes: the font is not subset?",
            pdf.len()
        );
        assert!(find(pdf, b"/ToUnicode").is_some(), "no ToUnicode CMap");
        assert!(
            find(pdf, b"/FontFile2").is_some(),
            "the font is not embedded"
        );
    }

    #[test]
    fn pdf_english_invoice_has_extractable_text() {
        let pdf = render(&english(), &font()).unwrap();
        keep("invoice-en.pdf", &pdf);
        check(&pdf);
        let pages = extract(&pdf);
        assert_eq!(pages.len(), 1);
        let text = &pages[0];
        for needle in [
            "Invoice",
            "INV-2026-000001",
            "Open",
            "Bill to",
            "Acme Research GmbH",
            "Hauptstraße 5",
            "Service period",
            "1 March 2026 – 31 March 2026",
            "Description",
            "€1,420.00",
            "Snapshot storage 500 GB",
            "€239.00",
            "Amount due",
            "€1,563.00",
            "IBAN NL00 TEST 0000 0000 00",
            "Reference INV-2026-000001",
            "Page 1 of 1",
        ] {
            assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
        }
        assert!(!text.contains('\u{FFFD}'), "unmapped glyphs in:\n{text}");
    }

    #[test]
    fn pdf_chinese_invoice_has_extractable_text() {
        let pdf = render(&chinese(), &font()).unwrap();
        keep("invoice-zh.pdf", &pdf);
        check(&pdf);
        assert!(find(&pdf, b"/Lang (zh-CN)").is_some());
        let pages = extract(&pdf);
        assert_eq!(pages.len(), 1);
        let text = &pages[0];
        for needle in [
            "发票",
            "INV-2026-000002",
            "待付款",
            "购买方",
            "北京深度计算科技有限公司",
            "服务期间",
            "金额",
            "€239.00",
            "应付金额",
            "€243.00",
            "请于2026年3月15日前通过银行转账付款。",
            "第 1 / 1 页",
        ] {
            assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
        }
        assert!(!text.contains('\u{FFFD}'), "unmapped glyphs in:\n{text}");
    }

    #[test]
    fn pdf_many_lines_continue_on_more_pages() {
        let mut doc = english();
        doc.lines = (1..=90)
            .map(|i| {
                (
                    format!("GPU server gpu-{i:03}, monthly rental"),
                    format!("€{i}.00"),
                )
            })
            .collect();
        let pdf = render(&doc, &font()).unwrap();
        keep("invoice-long.pdf", &pdf);
        check(&pdf);
        let pages = extract(&pdf);
        assert!(pages.len() >= 3, "{} pages", pages.len());
        let all = pages.join("\n");
        for i in 1..=90 {
            assert!(all.contains(&format!("GPU server gpu-{i:03}, monthly rental")));
        }
        let count = pages.len();
        for (n, page) in pages.iter().enumerate() {
            assert!(page.contains(&format!("Page {} of {count}", n + 1)));
            assert!(page.contains("billing@example.com"));
            if n > 0 {
                assert!(page.contains("Invoice INV-2026-000001 (continued)"));
            }
        }
        assert!(pages[count - 1].contains("Amount due"));
    }

    #[test]
    fn pdf_page_breaks_before_totals_and_payment_repeat_the_heading() {
        let data = font();
        // Between 6 and 30 lines the payment box, the totals or the table meet the
        // end of the first page.
        for n in 6..=30 {
            let mut doc = english();
            doc.lines = (1..=n)
                .map(|i| (format!("Line {i}"), format!("€{i}.00")))
                .collect();
            let pages = extract(&render(&doc, &data).unwrap());
            let count = pages.len();
            for (k, page) in pages.iter().enumerate() {
                assert!(
                    page.contains(&format!("Page {} of {count}", k + 1)),
                    "{n} lines"
                );
                assert_eq!(
                    page.contains("Invoice INV-2026-000001 (continued)"),
                    k > 0,
                    "{n} lines, page {k}"
                );
            }
            let all = pages.join("\n");
            for needle in [format!("Line {n}\n€{n}.00"), "Amount due".into()] {
                assert!(all.contains(&needle), "{n} lines: {needle:?}");
            }
            assert!(pages[count - 1].contains("Reference INV-2026-000001"));
        }
    }

    #[test]
    fn pdf_paid_invoice_without_payment_lines() {
        let mut doc = chinese();
        doc.status = "已付款".into();
        doc.payment_lines.clear();
        let pdf = render(&doc, &font()).unwrap();
        check(&pdf);
        let text = extract(&pdf).join("\n");
        assert!(text.contains("已付款"));
        assert!(!text.contains("银行转账"));
    }

    #[test]
    fn pdf_load_font_names_the_missing_path() {
        let err = load_font(Path::new("/nonexistent/font.ttf")).unwrap_err();
        assert!(
            format!("{err:#}").contains("/nonexistent/font.ttf"),
            "{err:#}"
        );
        let err = render(&english(), b"not a font").unwrap_err();
        assert!(format!("{err:#}").contains("font"), "{err:#}");
    }

    #[test]
    fn pdf_wrapping_breaks_words_and_cjk_within_the_width() {
        let data = font();
        let font = FontInfo::parse(&data).unwrap();
        let english = font.wrap("the quick brown fox jumps over the lazy dog", 10.0, 60.0);
        assert!(english.len() > 2, "{english:?}");
        for line in &english {
            assert!(font.width(line, 10.0) <= 60.0, "{line:?}");
            assert!(!line.starts_with(' ') && !line.ends_with(' '), "{line:?}");
        }
        assert_eq!(
            english.join(" "),
            "the quick brown fox jumps over the lazy dog"
        );

        let chinese = font.wrap("请于二零二六年三月十五日前，通过银行转账付款。", 10.0, 50.0);
        assert!(chinese.len() > 2, "{chinese:?}");
        for line in &chinese {
            assert!(font.width(line, 10.0) <= 50.0, "{line:?}");
            assert!(
                !line.starts_with('，') && !line.starts_with('。'),
                "{line:?}"
            );
        }
        assert_eq!(
            chinese.concat(),
            "请于二零二六年三月十五日前，通过银行转账付款。"
        );

        // A word wider than the line is cut.
        let long = font.wrap("INV-2026-000001-INV-2026-000001", 10.0, 40.0);
        assert!(long.len() > 1, "{long:?}");
        assert_eq!(long.concat(), "INV-2026-000001-INV-2026-000001");
    }
}
