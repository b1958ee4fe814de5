//! The organization's servers: one row each (a card on phones) with its
//! plan, site, state, a scheduled cancellation or an overdue invoice, and
//! its IPv4 address.

use crate::pages::servers::{site_city, ServersView};
use app::context::use_facts;
use app::i18n::{orders, ui};
use app::portal::nav::PortalNav;
use app::storefront::href;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn ServersPage(lang: Lang, view: ServersView) -> impl IntoView {
    let o = orders(lang);
    let t = ui(lang);
    let facts = use_facts();
    let empty = view.servers.is_empty();
    let rows = view
        .servers
        .into_iter()
        .map(|s| {
            let plan = facts
                .as_ref()
                .and_then(|f| f.catalog.plan(&s.plan_id).map(|p| p.name.clone()))
                .unwrap_or_else(|| s.plan_id.clone());
            view! {
                <tr data-server=s.name.clone() data-state=s.state.as_str()>
                    <th scope="row"><a class="server-name" href=href(lang, &format!("/servers/{}", s.id))>{s.name.clone()}</a></th>
                    <td data-label=t.configure_plan>{plan}</td>
                    <td data-label=t.configure_site>{site_city(lang, &s.site_code)}</td>
                    <td data-label=o.col_state>
                        {(o.server_state)(s.state)}
                        {s.state.in_progress().then(|| format!(" · {}%", s.progress))}
                        {s.cancel_at.map(|at| view! {
                            <span class="hint" data-testid="cancels-on">{(o.servers_cancels_on)(&domain::time::format_date(at))}</span>
                        })}
                        {s.overdue.clone().map(|overdue| view! { <crate::pages::servers::overdue::OverdueHint lang overdue /> })}
                    </td>
                    <td data-label=o.col_address>
                        {s.ipv4.clone().map(|ip| view! { <code class="address" data-testid="server-ipv4">{ip}</code> })}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=o.servers_title.to_owned() description=o.servers_title.to_owned() rest="/servers".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="servers-title">
                <PortalNav lang />
                <div class="title-row">
                    <h1 id="servers-title">{o.servers_title}</h1>
                    {(!empty).then(|| view! {
                        <a class="button" href=format!("{}#plans", href(lang, ""))>{o.servers_order_more}</a>
                    })}
                </div>
                {if empty {
                    view! { <p>{o.servers_empty}" "<a href=format!("{}#plans", href(lang, ""))>{o.servers_order_first}</a></p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.servers_title)>
                            <table class="servers phone-cards">
                                <thead>
                                    <tr>
                                        <th scope="col">{o.col_name}</th>
                                        <th scope="col">{t.configure_plan}</th>
                                        <th scope="col">{t.configure_site}</th>
                                        <th scope="col">{o.col_state}</th>
                                        <th scope="col">{o.col_address}</th>
                                    </tr>
                                </thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    }
                    .into_any()
                }}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(ServersView => ServersPage(view));
