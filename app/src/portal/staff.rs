//! The staff area's frame: its menu on every staff page, and the
//! development outbox. The home is `staff_home`.

use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::{portal, staff};
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OutboxView {
    /// (at, to, subject, body)
    pub mails: Vec<(i64, String, String, String)>,
}

/// The request's path without its language, e.g. `/staff/audit`.
fn here() -> String {
    let path = use_context::<http::request::Parts>()
        .map(|p| p.uri.path().to_owned())
        .unwrap_or_default();
    match crate::context::lang_of_path(&path) {
        Some(lang) => path[lang.code().len() + 1..].to_owned(),
        None => path,
    }
}

/// Whether this page is one of the staff area's: pages shared with
/// customers (the audit log, an invoice) say so in their language switch
/// and show the staff menu.
pub fn in_staff_area() -> bool {
    let here = here();
    here == "/staff" || here.starts_with("/staff/")
}

/// Where the language switch of a page shared with customers leads: the
/// same staff page in the staff area, else the customer's page `rest`.
pub fn switch_rest(rest: &str) -> String {
    if in_staff_area() {
        here()
    } else {
        rest.to_owned()
    }
}

/// The staff pages, linked from each of them (nothing outside the staff
/// area, so pages shared with customers can always include it).
#[component]
pub fn StaffNav(lang: Lang) -> impl IntoView {
    if !in_staff_area() {
        return ().into_any();
    }
    let s = staff(lang);
    let here = here();
    let development = crate::context::use_site_info().development;
    let link = move |rest: &'static str, text: &'static str| {
        // The home is current only on itself; a section also on its pages.
        let current = if rest == "/staff" {
            here == rest
        } else {
            here == rest || here.starts_with(&format!("{rest}/"))
        };
        view! { <li><a href=href(lang, rest) aria-current=current.then_some("page")>{text}</a></li> }
    };
    view! {
        <nav class="portal-nav staff-nav" aria-label=s.nav_label>
            <ul>
                {link("/staff", s.nav_home)}
                {link("/staff/hosts", s.nav_hosts)}
                {link("/staff/orders", s.nav_orders)}
                {link("/staff/support", crate::i18n::staff_support(lang).nav)}
                {link("/staff/finance", s.nav_finance)}
                {development.then(|| link("/staff/outbox", s.nav_outbox))}
                {link("/staff/audit", s.nav_audit)}
            </ul>
        </nav>
    }
    .into_any()
}

#[component]
pub fn OutboxPage(lang: Lang, view: OutboxView) -> impl IntoView {
    let p = portal(lang);
    let mails = view
        .mails
        .into_iter()
        .map(|(at, to, subject, body)| {
            let key = to.clone();
            view! {
                <article class="card mail" data-to=key>
                    <h2>{subject}</h2>
                    <p class="read-at">
                        <time datetime=domain::time::format_iso(at)>{domain::time::format_datetime(at)}</time>
                        " · "
                        {to}
                    </p>
                    <pre>{body}</pre>
                </article>
            }
        })
        .collect_view();
    view! {
        <Page lang title=p.staff_outbox.to_owned() description=p.staff_outbox.to_owned() rest="/staff/outbox".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="outbox-title">
                <StaffNav lang />
                <h1 id="outbox-title">{p.staff_outbox}</h1>
                <p>{p.staff_outbox_note}</p>
                {mails}
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(OutboxView => OutboxPage(view));
