//! The staff home: a card per staff page with what it holds that needs a
//! look, then every organization and user.

use crate::pages::staff::StaffNav;
use app::i18n::{portal, staff};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StaffHomeView {
    /// Hosts per state.
    pub hosts: Vec<(domain::host::HostState, i64)>,
    pub degraded_hosts: i64,
    pub open_windows: i64,
    pub failed_orders: i64,
    pub confirmed_orders: i64,
    pub open_invoices: i64,
    pub overdue_invoices: i64,
    pub amount_due: Money,
    /// (name, members, created)
    pub organizations: Vec<(String, i64, i64)>,
    /// (email, name, verified, staff)
    pub users: Vec<(String, String, bool, bool)>,
}

/// One staff page on the home: its link and a line on what it holds.
#[component]
fn StaffCard(
    lang: Lang,
    rest: &'static str,
    key: &'static str,
    title: &'static str,
    summary: String,
) -> impl IntoView {
    view! {
        <li class="card" data-staff-page=key>
            <h2><a href=href(lang, rest)>{title}</a></h2>
            <p>{summary}</p>
        </li>
    }
}

#[component]
pub fn StaffHomePage(lang: Lang, view: StaffHomeView) -> impl IntoView {
    let s = staff(lang);
    let o = app::i18n::orders(lang);
    let hosts = if view.hosts.is_empty() {
        s.no_hosts.to_owned()
    } else {
        view.hosts
            .iter()
            .map(|(state, n)| format!("{}: {n}", (o.host_state)(*state)))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    let development = app::context::use_site_info().development;
    view! {
        <Page lang title=s.title.to_owned() description=s.intro.to_owned() rest="/staff".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="staff-title">
                <StaffNav lang />
                <h1 id="staff-title">{s.title}</h1>
                <p>{s.intro}</p>
                <ul class="cards staff-cards">
                    <StaffCard lang rest="/staff/hosts" key="hosts" title=s.nav_hosts summary=hosts />
                    <StaffCard lang rest="/staff/hosts#maintenance" key="maintenance" title=s.nav_maintenance
                        summary=(s.maintenance_summary)(view.degraded_hosts, view.open_windows) />
                    <StaffCard lang rest="/staff/orders" key="orders" title=s.nav_orders
                        summary=(s.orders_summary)(view.failed_orders, view.confirmed_orders) />
                    <StaffCard lang rest="/staff/support" key="support" title=app::i18n::staff_support(lang).nav summary=app::i18n::staff_support(lang).home_summary.to_owned() />
                    <StaffCard lang rest="/staff/finance" key="finance" title=s.nav_finance
                        summary=(s.finance_summary)(view.open_invoices, view.overdue_invoices, &view.amount_due.format(lang)) />
                    {development.then(|| view! {
                        <StaffCard lang rest="/staff/outbox" key="outbox" title=s.nav_outbox summary=s.outbox_summary.to_owned() />
                    })}
                    <StaffCard lang rest="/staff/audit" key="audit" title=s.nav_audit summary=s.audit_summary.to_owned() />
                </ul>
                <Accounts lang organizations=view.organizations users=view.users />
            </section>
        </Page>
    }
    .into_any()
}

/// Every organization and user, newest first.
#[component]
fn Accounts(
    lang: Lang,
    organizations: Vec<(String, i64, i64)>,
    users: Vec<(String, String, bool, bool)>,
) -> impl IntoView {
    let p = portal(lang);
    let yes_no = move |b: bool| if b { p.yes } else { p.no };
    let orgs = organizations
        .into_iter()
        .map(|(name, members, at)| {
            view! {
                <tr>
                    <th scope="row">{name}</th>
                    <td>{members}</td>
                    <td>{domain::time::format_date(at)}</td>
                </tr>
            }
        })
        .collect_view();
    let users = users
        .into_iter()
        .map(|(email, name, verified, staff)| {
            let key = email.clone();
            view! {
                <tr data-user=key>
                    <th scope="row">{email}</th>
                    <td>{name}</td>
                    <td>{yes_no(verified)}</td>
                    <td>{yes_no(staff)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h2>{p.staff_organizations}</h2>
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(p.staff_organizations)>
            <table>
                <thead>
                    <tr>
                        <th scope="col">{p.account_organization}</th>
                        <th scope="col">{p.staff_members}</th>
                        <th scope="col">{p.staff_created}</th>
                    </tr>
                </thead>
                <tbody>{orgs}</tbody>
            </table>
        </div>
        <h2>{p.staff_users}</h2>
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(p.staff_users)>
            <table>
                <thead>
                    <tr>
                        <th scope="col">{p.email}</th>
                        <th scope="col">{p.name}</th>
                        <th scope="col">{p.staff_verified}</th>
                        <th scope="col">{p.staff_is_staff}</th>
                    </tr>
                </thead>
                <tbody>{users}</tbody>
            </table>
        </div>
    }
}

app::page_view!(StaffHomeView => StaffHomePage(view));
