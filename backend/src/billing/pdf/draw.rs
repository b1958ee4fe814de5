//! The invoice's blocks, top to bottom: header, parties, table of lines,
//! totals, payment box; then the footer on every page. The table, the
//! totals and the payment box go on a continuation page when they do not
//! fit.

use domain::Lang;

use super::layout::Canvas;
use super::style::{
    Style, ACCENT, AMOUNT_COL, BADGE, BADGE_BG, BODY, BODY_BOLD, CELL_PAD, CONTENT_W, FOOT,
    FOOTER_RULE, HEAD, HEADER_BG, INK, LABEL, LEFT, MARGIN_TOP, NUMBER, PAGE_H, PANEL_BG, RIGHT,
    RULE, SMALL, SMALL_BOLD, TITLE, TOTAL, TOTALS_W, TOTAL_BOLD,
};
use super::InvoiceDocument;

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
            Lang::Zh => format!("第 {n} 页，共 {of} 页"),
            Lang::En => format!("Page {n} of {of}"),
        }
    }
}

pub(super) fn layout(doc: &InvoiceDocument, c: &mut Canvas) {
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
