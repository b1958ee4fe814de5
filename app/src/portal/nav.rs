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
    let role = user.as_ref().map(|u| u.role.clone()).unwrap_or_default();
    let staff = user.as_ref().is_some_and(|u| u.is_staff);
    let technical = matches!(role.as_str(), "owner" | "technical");
    let money = matches!(role.as_str(), "owner" | "billing");
    view! {
        <nav class="portal-nav" aria-label=p.nav_portal>
            <ul>
                {technical.then(|| view! { <li><a href=href(lang, "/servers")>{o.nav_servers}</a></li> })}
                {(technical || money).then(|| view! { <li><a href=href(lang, "/orders")>{o.nav_orders}</a></li> })}
                {technical.then(|| view! { <li><a href=href(lang, "/keys")>{o.nav_keys}</a></li> })}
                {money.then(|| view! { <li><a href=href(lang, "/billing")>{crate::i18n::billing(lang).nav_billing}</a></li> })}
                {staff.then(|| view! { <li><a href=href(lang, "/staff/hosts")>{o.nav_inventory}</a></li> })}
                {staff.then(|| view! { <li><a href=href(lang, "/staff/finance")>{crate::i18n::billing(lang).nav_finance}</a></li> })}
                <li><a href=href(lang, "/account")>{p.account_title}</a></li>
            </ul>
        </nav>
    }
}
