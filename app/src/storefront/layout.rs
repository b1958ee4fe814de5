//! The frame of every storefront page: head metadata, header with the
//! language switch and the way into the account, and footer. Portal pages
//! use it too; only they show who is signed in (see `signed_in`).

use domain::Lang;
use leptos::prelude::*;
use leptos_meta::{Link, Meta, Title};

use super::href;
use crate::context::use_site_info;
use crate::i18n::{site, ui};

#[component]
pub fn Page(
    lang: Lang,
    title: String,
    description: String,
    /// This page's address after the language prefix: `` for the home page,
    /// `/configure?plan=g-ada` for others. Canonical and alternates use it.
    rest: String,
    #[prop(optional)] noindex: bool,
    children: Children,
) -> impl IntoView {
    let t = ui(lang);
    let base = use_site_info().base_url;
    let canonical = format!("{base}{}", href(lang, &rest));
    let alternate = |l: Lang| format!("{base}{}", href(l, &rest));
    let x_default = if rest.is_empty() {
        format!("{base}/")
    } else {
        alternate(Lang::Zh)
    };
    let other = lang.other();
    // The switch keeps everything the visitor chose (a latency city too),
    // unlike the canonical address.
    let switch_href = use_context::<http::request::Parts>()
        .and_then(|parts| parts.uri.query().map(str::to_owned))
        .filter(|q| !q.is_empty() && !rest.contains('?'))
        .map_or_else(
            || href(other, &rest),
            |q| format!("{}?{q}", href(other, &rest)),
        );
    // leptos_meta writes the title into the head unescaped: a server
    // name or a support request's subject must not end the element.
    let title = escape_title(&title);
    view! {
        <Title text=title />
        <Meta name="description" content=description />
        {noindex.then(|| view! { <Meta name="robots" content="noindex" /> })}
        <Link rel="canonical" href=canonical />
        <Link rel="alternate" hreflang=Lang::Zh.html_lang() href=alternate(Lang::Zh) />
        <Link rel="alternate" hreflang=Lang::En.html_lang() href=alternate(Lang::En) />
        <Link rel="alternate" hreflang="x-default" href=x_default />
        <a class="skip-link" href="#main">{t.skip_to_content}</a>
        <header class="site-header">
            <a class="brand" href=href(lang, "")>{t.brand}</a>
            <nav aria-label=t.nav_label>
                <ul>
                    <li><a href=format!("{}#plans", href(lang, ""))>{t.nav_plans}</a></li>
                    <li><a href=format!("{}#latency", href(lang, ""))>{t.nav_latency}</a></li>
                    <li><a href=format!("{}#sites", href(lang, ""))>{t.nav_sites}</a></li>
                    <li><a href=format!("{}#faq", href(lang, ""))>{t.nav_faq}</a></li>
                </ul>
            </nav>
            // The visible name is the accessible name (WCAG 2.5.3); the
            // longer "switch to …" is only a tooltip.
            <a
                class="lang-switch"
                href=switch_href
                hreflang=other.html_lang()
                lang=other.html_lang()
                title=t.switch_label
                data-testid="lang-switch"
            >
                {t.switch_to_other}
            </a>
            {match signed_in(lang) {
                Some(menu) => menu.into_any(),
                None => view! { <AccountLinks lang /> }.into_any(),
            }}
        </header>
        <main id="main" tabindex="-1">{children()}</main>
        <footer class="site-footer">
            <nav aria-label=site(lang).footer_label>
                <ul class="footer-links" data-testid="footer-links">
                    <li><a href=href(lang, "/support")>{site(lang).support}</a></li>
                    <li><a href=href(lang, "/terms")>{site(lang).terms}</a></li>
                    <li><a href=href(lang, "/privacy")>{site(lang).privacy}</a></li>
                    <li><a href=href(lang, "/imprint")>{site(lang).imprint}</a></li>
                    <li><a href=href(lang, crate::storefront::api_docs::REST)>{crate::i18n::api_docs(lang).footer_link}</a></li>
                </ul>
            </nav>
            <p>{t.footer_prices}</p>
            <p>{t.footer_sla}</p>
        </footer>
    }
}

/// "Log in" and "Sign up", for anyone the page does not know to be signed
/// in. Storefront pages are cached for everyone, so they always show these;
/// the login page sends a signed-in visitor straight to their account.
#[component]
fn AccountLinks(lang: Lang) -> impl IntoView {
    let s = site(lang);
    view! {
        <ul class="account-links" aria-label=s.account_links_label data-testid="account-links">
            <li><a href=href(lang, "/login")>{s.log_in}</a></li>
            <li><a class="button" href=href(lang, "/signup")>{s.sign_up}</a></li>
        </ul>
    }
}

/// Who is signed in, and the log-out button. Only portal requests carry a
/// `Viewer` (the server's `load_viewer` sets it); storefront pages are
/// rendered without a session and cached for everyone, so they never show
/// this.
fn signed_in(lang: Lang) -> Option<impl IntoView> {
    let viewer = crate::portal::use_viewer();
    let user = viewer.user?;
    let p = crate::i18n::portal(lang);
    let organization = (!user.organization.is_empty()).then(|| {
        view! { <span class="account-org" data-testid="header-organization">{user.organization.clone()}</span> }
    });
    Some(view! {
        <div class="account-menu" role="group" aria-label=p.header_account data-testid="account-menu">
            <a class="account-who" href=href(lang, "/account")>
                <span data-testid="header-email">{user.email.clone()}</span>
                {organization}
            </a>
            <form method="post" action=href(lang, "/logout") class="header-logout">
                <input type="hidden" name="csrf" value=viewer.csrf_token />
                <button type="submit" class="button-secondary" data-testid="header-logout">{p.logout}</button>
            </form>
        </div>
    })
}

/// `<title>` text as HTML: the three characters that could end the element
/// or start a character reference.
fn escape_title(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
