//! The two languages of the product. Chinese is the default: the seed page is
//! written in it and most of our visitors read it.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum Lang {
    #[default]
    Zh,
    En,
}

crate::text_column!(Lang, |v| v.code(), Lang::from_code);

impl Lang {
    pub const ALL: [Lang; 2] = [Lang::Zh, Lang::En];

    /// The URL prefix and cookie value: `zh` or `en`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    /// The value of `<html lang>` and `hreflang`.
    pub fn html_lang(self) -> &'static str {
        match self {
            Lang::Zh => "zh-CN",
            Lang::En => "en",
        }
    }

    pub fn from_code(code: &str) -> Option<Lang> {
        match code {
            "zh" => Some(Lang::Zh),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    pub fn other(self) -> Lang {
        match self {
            Lang::Zh => Lang::En,
            Lang::En => Lang::Zh,
        }
    }

    /// Picks the first supported language of an `Accept-Language` header,
    /// honouring q-values; `None` when nothing in it is supported.
    pub fn negotiate(accept_language: &str) -> Option<Lang> {
        let mut best: Option<(Lang, f32)> = None;
        for part in accept_language.split(',') {
            let mut pieces = part.trim().split(';');
            let tag = pieces.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = pieces
                .find_map(|p| p.trim().strip_prefix("q=").map(str::to_owned))
                .and_then(|q| q.parse::<f32>().ok())
                .unwrap_or(1.0);
            let primary = tag.split('-').next().unwrap_or("");
            let lang = match primary {
                "zh" => Lang::Zh,
                "en" => Lang::En,
                _ => continue,
            };
            if q > 0.0 && best.is_none_or(|(_, bq)| q > bq) {
                best = Some((lang, q));
            }
        }
        best.map(|(lang, _)| lang)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiates_by_quality() {
        assert_eq!(Lang::negotiate("en-GB,en;q=0.9,zh;q=0.8"), Some(Lang::En));
        assert_eq!(
            Lang::negotiate("de-DE,zh-CN;q=0.5,en;q=0.7"),
            Some(Lang::En)
        );
        assert_eq!(Lang::negotiate("zh-TW"), Some(Lang::Zh));
        assert_eq!(Lang::negotiate("fr, de"), None);
        assert_eq!(Lang::negotiate("en;q=0"), None);
        assert_eq!(Lang::negotiate(""), None);
    }
}
