//! The staff inventory: hosts per site and state, racking new hosts,
//! moving a host to maintenance, failed or free, and hosts' BMCs
//! (`host_bmc`). The page also lists maintenance windows and degraded
//! hosts, whose forms are in `maintenance`; every order is in `orders`.

use crate::http::page::{
    lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Access, Route};
use crate::pages::orders::list::{OrderRow, OrderTableRow};
use crate::pages::staff::host_bmc::{bmc_cell, BmcRow, CheckNotice, HostBmcs};
use crate::pages::staff::{ListAt, StaffNav};
use crate::startup::AppState;
use app::context::use_facts;
use app::i18n::{orders, staff, ui};
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::query;
use app::portal::FormError;
use app::storefront::href;
use app::storefront::layout::Page;
use app::storefront::not_found::ErrorPage;
use axum::extract::{Query, State};
use backend::inventory::{self, HostFilter, InventoryError};
use domain::host::HostState;
use domain::Lang;
use domain::SiteCode;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct InventoryView {
    /// (site, plan, count per state in [`HostState::ALL`] order)
    pub counts: Vec<(String, String, Vec<i64>)>,
    /// (name, site, plan, state, changed at): this page of the hosts that
    /// match the filters.
    pub hosts: Vec<(String, String, String, HostState, i64)>,
    /// Who has an allocated or held host: (host, organization, server).
    #[serde(default)]
    pub customers: Vec<(String, String, String)>,
    pub filter_site: String,
    pub filter_state: Option<HostState>,
    /// The list's page, and part of a host's name looked for.
    #[serde(default)]
    pub list: ListAt,
    pub windows: Vec<crate::pages::servers::maintenance::WindowRow>,
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
            let customer = view
                .customers
                .iter()
                .find(|(host, _, _)| host == name)
                .map(|(_, org, server)| format!("{org} · {server}"));
            view! {
                <tr data-host=name.clone() data-state=state.as_str()>
                    <th scope="row"><a href=href(lang, &crate::pages::staff::host_page::host_rest(name))><code>{name.clone()}</code></a></th>
                    <td data-label=t.configure_site>{site.clone()}</td>
                    <td data-label=t.configure_plan>{plan.clone()}</td>
                    <td data-label=o.col_state>
                        {(o.host_state)(*state)}
                        {view.degraded.iter().any(|d| &d.0 == name).then(|| view! {
                            " "<span class="badge badge-warn">{app::i18n::operations(lang).maint_degraded_badge}</span>
                        })}
                    </td>
                    <td data-label=s.col_customer data-testid="host-customer">{customer.unwrap_or_default()}</td>
                    <td data-label=s.col_bmc>{bmc_cell(lang, name, &view.bmcs)}</td>
                    <td data-label=o.col_updated>{domain::time::format_datetime(*at)}</td>
                    <td><RowAction lang name=name.clone() from=*state /></td>
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
    // The list's filters, kept by the pager's links.
    let pager_query = {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (key, value) in [
            ("site", view.filter_site.as_str()),
            ("state", view.filter_state.map_or("", HostState::as_str)),
            ("q", view.list.search.as_str()),
        ] {
            if !value.is_empty() {
                q.append_pair(key, value);
            }
        }
        q.finish()
    };
    view! {
        <Page lang title=o.inventory_title.to_owned() description=o.inventory_title.to_owned() rest="/staff/hosts".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="inventory-title">
                <StaffNav lang />
                <h1 id="inventory-title">{o.inventory_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                <CheckNotice lang bmcs=view.bmcs.clone() />
                <h2>{o.inventory_summary}</h2>
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.inventory_summary)>
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
                </div>
                <crate::pages::servers::maintenance::StaffMaintenance lang windows=view.windows.clone() degraded=view.degraded.clone() />
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
                    <div class="field">
                        <label for="filter-q">{s.hosts_search}</label>
                        <input id="filter-q" name="q" type="search" value=view.list.search.clone() maxlength="80" />
                    </div>
                    <button type="submit">{o.hosts_filter_submit}</button>
                </form>
                <p class="hint" data-testid="hosts-matching">{(s.hosts_matching)(view.list.matching)}</p>
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.hosts_list)>
                    <table class="hosts phone-cards">
                        <thead>
                            <tr>
                                <th scope="col">{o.col_host}</th>
                                <th scope="col">{t.configure_site}</th>
                                <th scope="col">{t.configure_plan}</th>
                                <th scope="col">{o.col_state}</th>
                                <th scope="col">{s.col_customer}</th>
                                <th scope="col">{s.col_bmc}</th>
                                <th scope="col">{o.col_updated}</th>
                                <th scope="col">{o.hosts_set_title}</th>
                            </tr>
                        </thead>
                        <tbody>{hosts}</tbody>
                    </table>
                </div>
                <crate::pages::staff::Pager lang at=view.list.clone() rest="/staff/hosts".to_owned() query=pager_query />
            </section>
        </Page>
    }
    .into_any()
}

/// How many hosts a page of the list shows.
const HOSTS_PER_PAGE: usize = 100;

/// A host's state changed from its row: the states it may move to from
/// the one it is in, and the reason for the audit log. Hosts a customer
/// holds or uses can only be marked failed (their server is rebuilt).
#[component]
fn RowAction(lang: Lang, name: String, from: HostState) -> impl IntoView {
    let o = orders(lang);
    let choices: Vec<HostState> = HostState::ALL
        .iter()
        .copied()
        .filter(|&to| HostState::operator_sources(to).contains(&from))
        .collect();
    if choices.is_empty() {
        return ().into_any();
    }
    let options = choices
        .into_iter()
        .map(|s| view! { <option value=s.as_str()>{(o.host_state)(s)}</option> })
        .collect_view();
    let (state_id, reason_id) = (format!("set-{name}-state"), format!("set-{name}-reason"));
    view! {
        <form method="post" action=href(lang, "/staff/hosts/set") class="inline row-action">
            <CsrfField />
            <input type="hidden" name="name" value=name.clone() />
            <label class="sr-only" for=state_id.clone()>{format!("{} · {name}", o.hosts_new_state)}</label>
            <select id=state_id name="state">{options}</select>
            <label class="sr-only" for=reason_id.clone()>{format!("{} · {name}", o.hosts_reason)}</label>
            <input id=reason_id name="reason" maxlength="200" placeholder=o.hosts_reason />
            <button type="submit" class="secondary">{o.hosts_set_submit}</button>
        </form>
    }
    .into_any()
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StaffOrdersView {
    pub rows: Vec<OrderRow>,
    /// The list's page, and what was looked for.
    pub list: ListAt,
}

#[component]
pub fn StaffOrdersPage(lang: Lang, view: StaffOrdersView) -> impl IntoView {
    staff_orders(lang, view).into_any()
}

fn staff_orders(lang: Lang, view: StaffOrdersView) -> impl IntoView {
    let o = orders(lang);
    let s = staff(lang);
    let list = view.list.clone();
    let search = list.search.clone();
    let pager_query = if search.is_empty() {
        String::new()
    } else {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("q", &search)
            .finish()
    };
    let rows = view
        .rows
        .into_iter()
        .map(|row| view! { <OrderTableRow lang row money=true /> })
        .collect_view();
    view! {
        <Page lang title=o.staff_orders_title.to_owned() description=o.staff_orders_title.to_owned() rest="/staff/orders".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="staff-orders-title">
                <StaffNav lang />
                <h1 id="staff-orders-title">{o.staff_orders_title}</h1>
                <form method="get" action=href(lang, "/staff/orders") class="choice" role="search">
                    <div class="field">
                        <label for="orders-q">{s.orders_search}</label>
                        <input id="orders-q" name="q" type="search" value=search.clone() maxlength="80" />
                    </div>
                    <button type="submit">{o.hosts_filter_submit}</button>
                </form>
                <p class="hint" data-testid="orders-matching">{(s.orders_matching)(list.matching)}</p>
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.staff_orders_title)>
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
                <crate::pages::staff::Pager lang at=list rest="/staff/orders".to_owned() query=pager_query />
            </section>
        </Page>
    }
}

app::page_view!(StaffOrdersView => StaffOrdersPage(view));

app::page_view!(InventoryView => InventoryPage(view));

pub fn routes() -> Vec<Route> {
    use Access::Staff;
    vec![
        Route::get("/{lang}/staff/hosts", Staff, hosts_page),
        Route::post("/{lang}/staff/hosts/add", Staff, add),
        Route::post("/{lang}/staff/hosts/set", Staff, set),
    ]
}

#[derive(Deserialize, Default)]
struct HostQuery {
    #[serde(default)]
    site: String,
    #[serde(default)]
    state: String,
    /// Part of a host's name.
    #[serde(default)]
    q: String,
    #[serde(default)]
    page: Option<usize>,
}

async fn inventory_view(state: &AppState, query: &HostQuery) -> anyhow::Result<InventoryView> {
    let all = inventory::list_hosts(&state.db, &HostFilter::default()).await?;
    let mut counts: Vec<(String, String, Vec<i64>)> = Vec::new();
    for host in &all {
        let (site, plan) = (host.site.to_string(), host.plan.to_string());
        let i = HostState::ALL
            .iter()
            .position(|&s| s == host.state)
            .expect("every state is in ALL");
        let row = match counts.iter().position(|(s, p, _)| *s == site && *p == plan) {
            Some(row) => row,
            None => {
                counts.push((site, plan, vec![0; HostState::ALL.len()]));
                counts.len() - 1
            }
        };
        counts[row].2[i] += 1;
    }
    let filter = HostFilter {
        site: SiteCode::parse(&query.site),
        plan: None,
        state: HostState::parse(&query.state),
    };
    let search = query.q.trim().to_lowercase();
    let matching: Vec<_> = inventory::list_hosts(&state.db, &filter)
        .await?
        .into_iter()
        .filter(|h| search.is_empty() || h.name.to_lowercase().contains(&search))
        .collect();
    let (shown, list) = ListAt::slice(matching, &query.q, query.page, HOSTS_PER_PAGE);
    let hosts = shown
        .into_iter()
        .map(|h| {
            (
                h.name,
                h.site.to_string(),
                h.plan.to_string(),
                h.state,
                h.updated_at,
            )
        })
        .collect();
    let windows = backend::servers::maintenance::open_for_staff(&state.db)
        .await?
        .into_iter()
        .map(
            |(w, host, server)| crate::pages::servers::maintenance::WindowRow {
                host,
                server,
                ..crate::pages::servers::maintenance::WindowRow::from(w)
            },
        )
        .collect();
    let degraded = backend::servers::maintenance::degraded_hosts(&state.db).await?;
    Ok(InventoryView {
        bmcs: crate::pages::staff::host_bmc::bmc_rows(&state.db).await?,
        windows,
        degraded,
        counts,
        hosts,
        customers: inventory::customers(&state.db).await?,
        filter_site: query.site.clone(),
        filter_state: HostState::parse(&query.state),
        list,
    })
}

async fn hosts_page(
    State(state): State<Arc<AppState>>,
    Query(query): Query<HostQuery>,
    parts: Parts,
) -> PageResult {
    let view = inventory_view(&state, &query).await?;
    page(&state, parts, view).await
}

/// Who acts, for the audit log.
pub(crate) fn actor(staff: &Signed) -> String {
    format!("staff:{}", staff.0.user.email)
}

/// Back to the hosts page once done.
pub(crate) fn done(parts: &Parts) -> PageResult {
    Ok(redirect(lang_of(parts), "/staff/hosts?done=1"))
}

/// The hosts page again with why the inventory refused, and the host
/// form's fields.
fn refusal(error: InventoryError, name: &str, reason: &str) -> PageError {
    let error = match error {
        InventoryError::UnknownHost(_) => FormError::UnknownHost,
        InventoryError::UnknownSite(_) | InventoryError::UnknownPlan(_) => FormError::Choice,
        InventoryError::Transition { .. } => FormError::HostTransition,
        InventoryError::Count => FormError::HostCount,
        InventoryError::NotChecked(_) => {
            FormError::Bmc(app::portal::refusals::BmcRefusal::NotChecked)
        }
        InventoryError::Db(error) => return PageError::Unavailable(error),
    };
    refused(error, &[("name", name), ("reason", reason)])
}

#[derive(Deserialize)]
struct NewHosts {
    #[serde(default)]
    site: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    count: String,
}

/// Racks `count` new hosts of a plan at a site.
async fn add(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewHosts>,
) -> PageResult {
    let count = form.count.trim().parse::<u32>().unwrap_or(0);
    inventory::add_hosts(
        &state.db,
        &state.clock,
        &form.site,
        &form.plan,
        count,
        &actor(&staff),
    )
    .await
    .map_err(|error| refusal(error, "", ""))?;
    done(&parts)
}

#[derive(Deserialize)]
struct NewState {
    #[serde(default)]
    name: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    reason: String,
}

/// Moves a host to another state, with the reason for the audit log.
async fn set(
    State(state): State<Arc<AppState>>,
    staff: Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewState>,
) -> PageResult {
    let to = HostState::parse(&form.state)
        .ok_or_else(|| refused(FormError::Choice, &[("name", &form.name)]))?;
    let reason = match form.reason.trim() {
        "" => "changed by staff",
        reason => reason,
    };
    inventory::set_state(
        &state.db,
        &state.clock,
        form.name.trim(),
        to,
        &actor(&staff),
        reason,
    )
    .await
    .map_err(|error| refusal(error, &form.name, &form.reason))?;
    done(&parts)
}
