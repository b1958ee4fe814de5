//! Renders the sample invoices and reads their text back out of the PDF.

mod extract;
mod samples;

use std::path::Path;

use super::font::FontInfo;
use super::{load_font, render, DEFAULT_FONT};
use extract::{extract, find};
use samples::{chinese, english};

fn font() -> Vec<u8> {
    let path = Path::new(DEFAULT_FONT);
    assert!(
        path.exists(),
        "the invoice font {DEFAULT_FONT} is missing: run `source scripts/setup.sh` \
         (it installs the Debian package fonts-wqy-microhei)"
    );
    load_font(path).expect("the default font loads")
}

/// Writes the PDF to `$INVOICE_PDF_DIR/name` when that is set, to look at.
fn keep(name: &str, pdf: &[u8]) {
    if let Ok(dir) = std::env::var("INVOICE_PDF_DIR") {
        let path = Path::new(&dir).join(name);
        std::fs::write(&path, pdf).expect("write the sample PDF");
    }
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
        "第 1 页，共 1 页",
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
