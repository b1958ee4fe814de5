//! The font: its face and metrics, and the subset embedded in the PDF with a
//! ToUnicode CMap.

use std::collections::BTreeMap;

use anyhow::anyhow;
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Filter, Finish, Name, Pdf, Rect, Ref, Str};
use subsetter::GlyphRemapper;

use super::file::deflate;

/// The font's name in the page resources.
pub(super) const FONT_NAME: Name<'static> = Name(b"F1");

pub(super) struct FontInfo<'a> {
    data: &'a [u8],
    face: ttf_parser::Face<'a>,
    /// Font units to 1/1000 em (PDF glyph space).
    scale: f32,
}

impl<'a> FontInfo<'a> {
    pub(super) fn parse(data: &'a [u8]) -> anyhow::Result<FontInfo<'a>> {
        let face = ttf_parser::Face::parse(data, 0)
            .map_err(|e| anyhow!("the invoice font is not a TrueType/OpenType font: {e}"))?;
        let scale = 1000.0 / f32::from(face.units_per_em());
        Ok(FontInfo { data, face, scale })
    }

    pub(super) fn glyph(&self, c: char) -> Option<u16> {
        self.face.glyph_index(c).map(|g| g.0)
    }

    /// Advance of a glyph in 1/1000 em.
    pub(super) fn advance(&self, gid: u16) -> f32 {
        self.face
            .glyph_hor_advance(ttf_parser::GlyphId(gid))
            .map_or(0.0, |a| f32::from(a) * self.scale)
    }
}

/// The objects that make up the embedded font.
pub(super) struct FontRefs {
    /// The font the pages use (as `FONT_NAME`).
    pub(super) type0: Ref,
    pub(super) cid: Ref,
    pub(super) descriptor: Ref,
    pub(super) file: Ref,
    pub(super) cmap: Ref,
}

/// Writes the font: a Type 0 font over a CID font whose CIDs are the
/// subset's glyph ids, two bytes each (Identity-H). `glyphs` are the glyphs
/// drawn, `unicode` the text each subset glyph stands for.
pub(super) fn write_font(
    pdf: &mut Pdf,
    ids: &FontRefs,
    font: &FontInfo,
    glyphs: &GlyphRemapper,
    unicode: &BTreeMap<u16, char>,
) -> anyhow::Result<()> {
    let subset = subsetter::subset(font.data, 0, glyphs)
        .map_err(|e| anyhow!("cannot subset the invoice font: {e}"))?;
    let face = &font.face;
    let cff = face.tables().cff.is_some();
    let base_font = format!("{}+{}", subset_tag(glyphs), postscript_name(face));
    let base_font = Name(base_font.as_bytes());
    let system_info = SystemInfo {
        registry: Str(b"Adobe"),
        ordering: Str(b"Identity"),
        supplement: 0,
    };

    pdf.type0_font(ids.type0)
        .base_font(base_font)
        .encoding_predefined(Name(b"Identity-H"))
        .descendant_font(ids.cid)
        .to_unicode(ids.cmap);

    let widths: Vec<f32> = glyphs
        .remapped_gids()
        .map(|gid| font.advance(gid).round())
        .collect();
    let mut cid = pdf.cid_font(ids.cid);
    cid.subtype(if cff {
        CidFontType::Type0
    } else {
        CidFontType::Type2
    })
    .base_font(base_font)
    .system_info(system_info)
    .font_descriptor(ids.descriptor)
    .default_width(0.0);
    if !cff {
        cid.cid_to_gid_map_predefined(Name(b"Identity"));
    }
    cid.widths().consecutive(0, widths);
    cid.finish();

    let s = font.scale;
    let bbox = face.global_bounding_box();
    let ascent = f32::from(face.ascender()) * s;
    let mut descriptor = pdf.font_descriptor(ids.descriptor);
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
        descriptor.font_file3(ids.file);
    } else {
        descriptor.font_file2(ids.file);
    }
    descriptor.finish();

    let file_data = deflate(&subset);
    let mut file = pdf.stream(ids.file, &file_data);
    file.filter(Filter::FlateDecode);
    if cff {
        file.pair(Name(b"Subtype"), Name(b"OpenType"));
    } else {
        file.pair(Name(b"Length1"), subset.len() as i32);
    }
    file.finish();

    let mut cmap = UnicodeCmap::new(Name(b"Custom"), system_info);
    for (cid, c) in unicode {
        cmap.pair(*cid, *c);
    }
    pdf.cmap(ids.cmap, &deflate(&cmap.finish()))
        .filter(Filter::FlateDecode);
    Ok(())
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
