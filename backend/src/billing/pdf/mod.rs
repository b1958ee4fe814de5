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
//!
//! - `font`: the face, glyph ids and advances; the embedded subset and its
//!   ToUnicode CMap.
//! - `layout`: text measure and line wrapping, the page and its cursor.
//! - `style`: page geometry, colours and text styles.
//! - `draw`: the invoice's blocks, top to bottom, and the page footers.
//! - `file`: the PDF objects around the pages and the font.

mod draw;
mod file;
mod font;
mod layout;
mod style;
#[cfg(test)]
mod tests;

use std::path::Path;

use anyhow::{anyhow, Context as _};
use domain::Lang;

use font::FontInfo;
use layout::Canvas;

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
    draw::layout(doc, &mut canvas);
    if !canvas.missing.is_empty() {
        tracing::warn!(
            number = %doc.number,
            missing = %canvas.missing.iter().collect::<String>(),
            "invoice font lacks glyphs for some characters"
        );
    }
    file::write_pdf(doc, &font, canvas)
}
