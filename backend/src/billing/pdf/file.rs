//! The PDF file: catalog, page tree, document info, the pages' content
//! streams and the embedded font.

use domain::Lang;
use pdf_writer::{Filter, Finish, Pdf, Rect, Ref, TextStr};

use super::font::{write_font, FontInfo, FontRefs, FONT_NAME};
use super::layout::Canvas;
use super::style::{PAGE_H, PAGE_W};
use super::InvoiceDocument;

pub(super) fn deflate(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec_zlib(data, 9)
}

pub(super) fn write_pdf(
    doc: &InvoiceDocument,
    font: &FontInfo,
    canvas: Canvas,
) -> anyhow::Result<Vec<u8>> {
    let Canvas {
        pages,
        glyphs,
        unicode,
        ..
    } = canvas;

    let catalog_id = Ref::new(1);
    let tree_id = Ref::new(2);
    let font_ids = FontRefs {
        type0: Ref::new(3),
        cid: Ref::new(4),
        descriptor: Ref::new(5),
        file: Ref::new(6),
        cmap: Ref::new(7),
    };
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
        page.resources().fonts().pair(FONT_NAME, font_ids.type0);
        page.finish();
        pdf.stream(*content_id, &deflate(&content.finish()))
            .filter(Filter::FlateDecode);
    }

    write_font(&mut pdf, &font_ids, font, &glyphs, &unicode)?;
    Ok(pdf.finish())
}
