//! Staff pages: the inventory (hosts per site and state, racking new
//! hosts, maintenance, failures, back to free, hosts' BMCs) and every
//! order.

use domain::host::HostState;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice, Notice};
use super::host_bmc::{bmc_cell, BmcRow, CheckNotice, HostBmcs};
use super::nav::PortalNav;
use super::orders::{OrderRow, OrderTableRow};
use super::staff::StaffNav;
use super::{query, use_feedback};
use crate::context::use_facts;
use crate::i18n::{orders, staff, ui};
use crate::storefront::href;
use crate::storefront::layout::Page;
use crate::storefront::not_found::ErrorPage;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct InventoryView {
    /// (site, plan, count per state in [`HostState::ALL`] order)
    pub counts: Vec<(String, String, Vec<i64>)>,
    /// (name, site, plan, state, changed at)
    pub hosts: Vec<(String, String, String, HostState, i64)>,
    pub filter_site: String,
    pub filter_state: Option<HostState>,
    pub windows: Vec<super::maintenance::WindowRow>,
    /// Hosts reporting a fault: (name, reason, since).
    pub degraded: Vec<(String, String, i64)>,
    /// The hosts that have a BMC (the Redfish Fleet drives them).
    #[serde(default)]
    pub bmcs: Vec<BmcRow>,
}

#[component]
pub fn InventoryPage(lang: Lang, view: InventoryView) -> impl IntoView {
    let Some(facts) = use_facts() else {
        return view! { <ErrorPage lang /> }.into_any();
    };
    let o = orders(lang);
    let t = ui(lang);
    let s = staff(lang);
    let done = query("done").map(|d| match d.as_str() {
        "bmc" => s.bmc_set_done,
        _ => o.hosts_done,
    });
    let feedback = use_feedback();
    let header = HostState::ALL
        .iter()
        .map(|&s| view! { <th scope="col" class="num">{(o.host_state)(s)}</th> })
        .collect_view();
    let counts = view
        .counts
        .iter()
        .map(|(site, plan, n)| {
            let cells = n.iter().map(|c| view! { <td class="num">{*c}</td> }).collect_view();
            view! { <tr data-count=format!("{site}/{plan}")><th scope="row">{format!("{site} · {plan}")}</th>{cells}</tr> }
        })
        .collect_view();
    let hosts = view
        .hosts
        .iter()
        .map(|(name, site, plan, state, at)| {
            view! {
                <tr data-host=name.clone() data-state=state.as_str()>
                    <th scope="row"><a href=href(lang, &super::host_page::host_rest(name))><code>{name.clone()}</code></a></th>
                    <td data-label=t.configure_site>{site.clone()}</td>
                    <td data-label=t.configure_plan>{plan.clone()}</td>
                    <td data-label=o.col_state>
                        {(o.host_state)(*state)}
                        {view.degraded.iter().any(|d| &d.0 == name).then(|| view! {
                            " "<span class="badge badge-warn">{crate::i18n::operations(lang).maint_degraded_badge}</span>
                        })}
                    </td>
                    <td data-label=s.col_bmc>{bmc_cell(lang, name, &view.bmcs)}</td>
                    <td data-label=o.col_updated>{domain::time::format_datetime(*at)}</td>
                </tr>
            }
        })
        .collect_view();
    let sites = facts.catalog.sites.clone();
    let site_options = move |selected: &str, all: bool| {
        let mut options = Vec::new();
        if all {
            options.push(
                view! { <option value="" selected=selected.is_empty()>{o.hosts_all}</option> }
                    .into_any(),
            );
        }
        for s in &sites {
            let code = s.code.to_string();
            let label = format!("{} ({code})", s.city.get(lang));
            options.push(
                view! { <option value=code.clone() selected=selected == code>{label}</option> }
                    .into_any(),
            );
        }
        options
    };
    let plan_options = facts
        .catalog
        .plans
        .iter()
        .map(|p| view! { <option value=p.id.to_string()>{p.name.clone()}</option> })
        .collect_view();
    let state_filter = HostState::ALL
        .iter()
        .map(|&s| view! { <option value=s.as_str() selected=view.filter_state == Some(s)>{(o.host_state)(s)}</option> })
        .collect_view();
    let settable = HostState::ALL
        .iter()
        .filter(|&&to| !HostState::operator_sources(to).is_empty())
        .map(|&s| view! { <option value=s.as_str()>{(o.host_state)(s)}</option> })
        .collect_view();
    view! {
        <Page lang title=o.inventory_title.to_owned() description=o.inventory_title.to_owned() rest="/staff/hosts".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="inventory-title">
                <PortalNav lang />
                <StaffNav lang />
                <h1 id="inventory-title">{o.inventory_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                <CheckNotice lang bmcs=view.bmcs.clone() />
                <h2>{o.inventory_summary}</h2>
                <div class="table-scroll" role="region" tabindex="0" aria-label=o.inventory_summary>
                    <table class="inventory">
                        <thead><tr><th scope="col">{t.configure_site}</th>{header}</tr></thead>
                        <tbody>{counts}</tbody>
                    </table>
                </div>
                <div class="staff-forms">
                    <form method="post" action=href(lang, "/staff/hosts/add")>
                        <h2>{o.hosts_add_title}</h2>
                        <CsrfField />
                        <div class="field">
                            <label for="add-site">{t.configure_site}</label>
                            <select id="add-site" name="site">{site_options("", false)}</select>
                        </div>
                        <div class="field">
                            <label for="add-plan">{t.configure_plan}</label>
                            <select id="add-plan" name="plan">{plan_options}</select>
                        </div>
                        <div class="field">
                            <label for="add-count">{o.hosts_count}</label>
                            <input id="add-count" name="count" type="number" min="1" max="500" value="1" required />
                        </div>
                        <button type="submit">{o.hosts_add_submit}</button>
                    </form>
                    <form method="post" action=href(lang, "/staff/hosts/set")>
                        <h2>{o.hosts_set_title}</h2>
                        <CsrfField />
                        <div class="field">
                            <label for="set-name">{o.hosts_name}</label>
                            <input id="set-name" name="name" value=feedback.value("name") required />
                        </div>
                        <div class="field">
                            <label for="set-state">{o.hosts_new_state}</label>
                            <select id="set-state" name="state">{settable}</select>
                        </div>
                        <div class="field">
                            <label for="set-reason">{o.hosts_reason}</label>
                            <input id="set-reason" name="reason" value=feedback.value("reason") maxlength="200" />
                        </div>
                        <button type="submit">{o.hosts_set_submit}</button>
                    </form>
                </div>
                <super::maintenance::StaffMaintenance lang windows=view.windows.clone() degraded=view.degraded.clone() />
                <HostBmcs lang bmcs=view.bmcs.clone() />
                <h2>{o.hosts_list}</h2>
                <form method="get" action=href(lang, "/staff/hosts") class="choice">
                    <div class="field">
                        <label for="filter-site">{t.configure_site}</label>
                        <select id="filter-site" name="site">{site_options(&view.filter_site, true)}</select>
                    </div>
                    <div class="field">
                        <label for="filter-state">{o.col_state}</label>
                        <select id="filter-state" name="state">
                            <option value="" selected=view.filter_state.is_none()>{o.hosts_all}</option>
                            {state_filter}
                        </select>
                    </div>
                    <button type="submit">{o.hosts_filter_submit}</button>
                </form>
                <div class="table-scroll" role="region" tabindex="0" aria-label=o.hosts_list>
                    <table class="hosts phone-cards">
                        <thead>
                            <tr>
                                <th scope="col">{o.col_host}</th>
                                <th scope="col">{t.configure_site}</th>
                                <th scope="col">{t.configure_plan}</th>
                                <th scope="col">{o.col_state}</th>
                                <th scope="col">{s.col_bmc}</th>
                                <th scope="col">{o.col_updated}</th>
                            </tr>
                        </thead>
                        <tbody>{hosts}</tbody>
                    </table>
                </div>
            </section>
        </Page>
    }
    .into_any()
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StaffOrdersView {
    pub rows: Vec<OrderRow>,
}

#[component]
pub fn StaffOrdersPage(lang: Lang, view: StaffOrdersView) -> impl IntoView {
    staff_orders(lang, view).into_any()
}

fn staff_orders(lang: Lang, view: StaffOrdersView) -> impl IntoView {
    let o = orders(lang);
    let rows = view
        .rows
        .into_iter()
        .map(|row| view! { <OrderTableRow lang row money=true /> })
        .collect_view();
    view! {
        <Page lang title=o.staff_orders_title.to_owned() description=o.staff_orders_title.to_owned() rest="/staff/orders".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="staff-orders-title">
                <PortalNav lang />
                <StaffNav lang />
                <h1 id="staff-orders-title">{o.staff_orders_title}</h1>
                <div class="table-scroll" role="region" tabindex="0" aria-label=o.staff_orders_title>
                    <table class="orders">
                        <thead>
                            <tr>
                                <th scope="col">{o.orders_placed}</th>
                                <th scope="col">{o.col_organization}</th>
                                <th scope="col">{o.orders_server}</th>
                                <th scope="col">{ui(lang).configure_plan}</th>
                                <th scope="col">{o.orders_state}</th>
                                <th scope="col">{o.orders_by}</th>
                                <th scope="col" class="num">{o.orders_total}</th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        </Page>
    }
}

crate::page_view!(StaffOrdersView => StaffOrdersPage(view));

crate::page_view!(InventoryView => InventoryPage(view));
