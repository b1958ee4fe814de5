//! The designed 404 page and the error page, in the language of the path
//! (or the visitor's, for paths without one).

use domain::Lang;
use leptos::prelude::*;

use super::href;
use super::layout::Page;
use crate::context::{lang_of_path, set_status};
use crate::i18n::ui;

/// The language for a page whose path may not name one: the path, then the
/// `lang` cookie, then `Accept-Language`, then Chinese.
fn visitor_lang() -> Lang {
    let Some(parts) = use_context::<http::request::Parts>() else {
        return Lang::default();
    };
    if let Some(lang) = lang_of_path(parts.uri.path()) {
        return lang;
    }
    let cookie = parts
        .headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix("lang=").and_then(Lang::from_code));
    cookie
        .or_else(|| {
            parts
                .headers
                .get(http::header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok())
                .and_then(Lang::negotiate)
        })
        .unwrap_or_default()
}

#[component]
pub fn NotFound() -> impl IntoView {
    set_status(404);
    let lang = visitor_lang();
    let t = ui(lang);
    view! {
        <Page
            lang
            title=t.not_found_title.to_owned()
            description=t.not_found_body.to_owned()
            rest=String::new()
            noindex=true
        >
            <section class="section error-page" aria-labelledby="error-title">
                <p class="error-code" aria-hidden="true">"404"</p>
                <h1 id="error-title">{t.not_found_heading}</h1>
                <p>{t.not_found_body}</p>
                <p>
                    <a class="button" href=href(lang, "")>{t.not_found_home}</a>
                </p>
            </section>
        </Page>
    }
}

/// Shown when the page's data could not be read; the cause is logged by
/// the server, never shown.
#[component]
pub fn ErrorPage(lang: Lang) -> impl IntoView {
    set_status(503);
    let t = ui(lang);
    view! {
        <Page lang title=t.error_title.to_owned() description=t.error_body.to_owned() rest=String::new() noindex=true>
            <section class="section error-page" aria-labelledby="error-title">
                <h1 id="error-title">{t.error_title}</h1>
                <p>{t.error_body}</p>
            </section>
        </Page>
    }
}
