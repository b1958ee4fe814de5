//! How stock is said: in words with a symbol, never by colour alone, with
//! the moment it was read.

use domain::{Lang, StockLevel};
use leptos::prelude::*;

use crate::context::{READ_AT_ISO, READ_AT_TEXT};
use crate::i18n::ui;

pub fn stock_text(level: StockLevel, lang: Lang) -> String {
    let t = ui(lang);
    match level {
        StockLevel::InStock => t.stock_in_stock.to_owned(),
        StockLevel::Few(n) => (t.stock_few)(n),
        StockLevel::SoldOut => t.stock_sold_out.to_owned(),
    }
}

#[component]
pub fn StockBadge(level: StockLevel, lang: Lang) -> impl IntoView {
    let symbol = match level {
        StockLevel::InStock => "●",
        StockLevel::Few(_) => "◐",
        StockLevel::SoldOut => "○",
    };
    view! {
        <span class=format!("stock stock-{}", level.token())>
            <span aria-hidden="true">{symbol}" "</span>
            {stock_text(level, lang)}
        </span>
    }
}

/// "Stock read at 2026-11-30 14:05:09 UTC"; the server fills in the time.
#[component]
pub fn StockReadAt(lang: Lang) -> impl IntoView {
    view! {
        <p class="read-at">
            {ui(lang).stock_read_at}
            <time datetime=READ_AT_ISO>{READ_AT_TEXT}</time>
        </p>
    }
}
