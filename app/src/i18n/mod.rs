//! Every user-visible string, in Chinese and English. Each language is a
//! value of the same struct, so a missing string is a compile error; this
//! replaces leptos_i18n (see docs/decisions/translations.md).

pub mod api_docs;
mod api_docs_en;
mod api_docs_zh;
pub mod billing;
mod billing_en;
mod billing_zh;
pub mod content;
mod content_en;
mod content_zh;
pub mod operations;
mod operations_en;
mod operations_zh;
pub mod orders;
mod orders_en;
mod orders_zh;
pub mod portal;
mod portal_en;
mod portal_zh;
pub mod site;
mod site_en;
mod site_zh;
pub mod staff;
mod staff_en;
pub mod staff_support;
mod staff_support_en;
mod staff_support_zh;
mod staff_zh;
pub mod support;
mod support_en;
mod support_zh;
pub mod tokens;
mod tokens_en;
mod tokens_zh;
pub mod ui;
mod ui_en;
mod ui_zh;
pub mod webhooks;
mod webhooks_en;
mod webhooks_zh;

use domain::Lang;

/// 10000 as "10,000": counts are grouped by thousands in both languages, as
/// money is (`domain::money`).
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn content(lang: Lang) -> &'static content::Content {
    match lang {
        Lang::Zh => &content_zh::CONTENT_ZH,
        Lang::En => &content_en::CONTENT_EN,
    }
}

pub fn ui(lang: Lang) -> &'static ui::Ui {
    match lang {
        Lang::Zh => &ui_zh::UI_ZH,
        Lang::En => &ui_en::UI_EN,
    }
}

pub fn portal(lang: Lang) -> &'static portal::Portal {
    match lang {
        Lang::Zh => &portal_zh::PORTAL_ZH,
        Lang::En => &portal_en::PORTAL_EN,
    }
}

pub fn orders(lang: Lang) -> &'static orders::Orders {
    match lang {
        Lang::Zh => &orders_zh::ORDERS_ZH,
        Lang::En => &orders_en::ORDERS_EN,
    }
}

pub fn billing(lang: Lang) -> &'static billing::Billing {
    match lang {
        Lang::Zh => &billing_zh::BILLING_ZH,
        Lang::En => &billing_en::BILLING_EN,
    }
}

pub fn operations(lang: Lang) -> &'static operations::Operations {
    match lang {
        Lang::Zh => &operations_zh::OPERATIONS_ZH,
        Lang::En => &operations_en::OPERATIONS_EN,
    }
}

pub fn staff(lang: Lang) -> &'static staff::Staff {
    match lang {
        Lang::Zh => &staff_zh::STAFF_ZH,
        Lang::En => &staff_en::STAFF_EN,
    }
}

pub fn site(lang: Lang) -> &'static site::Site {
    match lang {
        Lang::Zh => &site_zh::SITE_ZH,
        Lang::En => &site_en::SITE_EN,
    }
}

pub fn api_docs(lang: Lang) -> &'static api_docs::ApiDocs {
    match lang {
        Lang::Zh => &api_docs_zh::API_DOCS_ZH,
        Lang::En => &api_docs_en::API_DOCS_EN,
    }
}

pub fn tokens(lang: Lang) -> &'static tokens::Tokens {
    match lang {
        Lang::Zh => &tokens_zh::TOKENS_ZH,
        Lang::En => &tokens_en::TOKENS_EN,
    }
}

pub fn webhooks(lang: Lang) -> &'static webhooks::Webhooks {
    match lang {
        Lang::Zh => &webhooks_zh::WEBHOOKS_ZH,
        Lang::En => &webhooks_en::WEBHOOKS_EN,
    }
}

pub fn staff_support(lang: Lang) -> &'static staff_support::StaffSupport {
    match lang {
        Lang::Zh => &staff_support_zh::STAFF_SUPPORT_ZH,
        Lang::En => &staff_support_en::STAFF_SUPPORT_EN,
    }
}

pub fn support(lang: Lang) -> &'static support::Support {
    match lang {
        Lang::Zh => &support_zh::SUPPORT_ZH,
        Lang::En => &support_en::SUPPORT_EN,
    }
}
