//! The portal's own navigation: what the viewer's role may open.

use domain::Lang;
use leptos::prelude::*;

use super::use_viewer;
use crate::i18n::{orders, portal};
use crate::storefront::href;

#[component]
pub fn PortalNav(lang: Lang) -> impl IntoView {
    let o = orders(lang);
    let p = portal(lang);
    let user = use_viewer().user;
    let role = user.as_ref().and_then(|u| u.role);
    let staff = user.as_ref().is_some_and(|u| u.is_staff);
    let technical = role.is_some_and(domain::Role::technical);
    let money = role.is_some_and(domain::Role::money);
    let owner = role == Some(domain::Role::Owner);
    let here = use_context::<http::request::Parts>()
        .map(|p| p.uri.path().to_owned())
        .unwrap_or_default();
    // The link of the section the page belongs to says so.
    let current = move |rest: &str| {
        let link = href(lang, rest);
        (here == link || here.starts_with(&format!("{link}/"))).then_some("page")
    };
    view! {
        <nav class="portal-nav" aria-label=p.nav_portal>
            <ul>
                {technical.then(|| view! { <li><a href=href(lang, "/servers") aria-current=current("/servers")>{o.nav_servers}</a></li> })}
                {(technical || money).then(|| view! { <li><a href=href(lang, "/orders") aria-current=current("/orders")>{o.nav_orders}</a></li> })}
                {technical.then(|| view! { <li><a href=href(lang, "/keys") aria-current=current("/keys")>{o.nav_keys}</a></li> })}
                {(role.is_some() && !staff).then(|| view! { <li><a href=href(lang, "/tokens") aria-current=current("/tokens")>{crate::i18n::tokens(lang).title}</a></li> })}
                {(technical && !staff).then(|| view! { <li><a href=href(lang, "/webhooks") aria-current=current("/webhooks")>{crate::i18n::webhooks(lang).title}</a></li> })}
                {money.then(|| view! { <li><a href=href(lang, "/billing") aria-current=current("/billing")>{crate::i18n::billing(lang).nav_billing}</a></li> })}
                {staff.then(|| view! { <li><a href=href(lang, "/staff") aria-current=current("/staff")>{crate::i18n::staff(lang).title}</a></li> })}
                {owner.then(|| view! { <li><a href=href(lang, "/members") aria-current=current("/members")>{p.nav_members}</a></li> })}
                {owner.then(|| view! { <li><a href=href(lang, "/audit") aria-current=current("/audit")>{p.nav_audit}</a></li> })}
                {(role.is_some() && !staff).then(|| view! { <li><a href=href(lang, "/support/requests") aria-current=current("/support/requests")>{crate::i18n::support(lang).nav}</a></li> })}
                <li><a href=href(lang, "/account") aria-current=current("/account")>{p.account_title}</a></li>
            </ul>
        </nav>
    }
}
