//! Page geometry and style (points; the origin is the bottom left corner).

pub(super) const PAGE_W: f32 = 595.28;
pub(super) const PAGE_H: f32 = 841.89;
const MARGIN_X: f32 = 56.0;
pub(super) const MARGIN_TOP: f32 = 56.0;
/// The footer rule; content stays above `CONTENT_BOTTOM`.
pub(super) const FOOTER_RULE: f32 = 62.0;
pub(super) const CONTENT_BOTTOM: f32 = 76.0;
pub(super) const LEFT: f32 = MARGIN_X;
pub(super) const RIGHT: f32 = PAGE_W - MARGIN_X;
pub(super) const CONTENT_W: f32 = RIGHT - LEFT;
/// Width of the amount column in the table of lines.
pub(super) const AMOUNT_COL: f32 = 110.0;
pub(super) const CELL_PAD: f32 = 8.0;
pub(super) const TOTALS_W: f32 = 300.0;

pub(super) type Rgb = (f32, f32, f32);
pub(super) const INK: Rgb = (0.13, 0.14, 0.16);
pub(super) const MUTED: Rgb = (0.42, 0.45, 0.50);
pub(super) const ACCENT: Rgb = (0.10, 0.27, 0.50);
pub(super) const RULE: Rgb = (0.82, 0.84, 0.87);
pub(super) const HEADER_BG: Rgb = (0.93, 0.94, 0.96);
pub(super) const BADGE_BG: Rgb = (0.89, 0.93, 0.98);
pub(super) const PANEL_BG: Rgb = (0.96, 0.97, 0.98);

#[derive(Clone, Copy)]
pub(super) struct Style {
    pub(super) size: f32,
    pub(super) bold: bool,
    pub(super) color: Rgb,
}

impl Style {
    const fn new(size: f32, bold: bool, color: Rgb) -> Style {
        Style { size, bold, color }
    }
}

pub(super) const TITLE: Style = Style::new(26.0, true, ACCENT);
pub(super) const NUMBER: Style = Style::new(12.0, false, INK);
pub(super) const BADGE: Style = Style::new(9.0, true, ACCENT);
pub(super) const SMALL: Style = Style::new(9.0, false, INK);
pub(super) const SMALL_BOLD: Style = Style::new(9.5, true, INK);
pub(super) const LABEL: Style = Style::new(8.5, false, MUTED);
pub(super) const BODY: Style = Style::new(10.0, false, INK);
pub(super) const BODY_BOLD: Style = Style::new(10.0, true, INK);
pub(super) const HEAD: Style = Style::new(9.0, true, MUTED);
pub(super) const TOTAL: Style = Style::new(10.0, false, INK);
pub(super) const TOTAL_BOLD: Style = Style::new(11.0, true, INK);
pub(super) const FOOT: Style = Style::new(8.0, false, MUTED);
