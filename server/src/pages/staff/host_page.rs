//! A host's own staff page, linked from the hosts list: where it is, what
//! it is sold as, its state, its BMC, and its history (state changes and
//! the Fleet's events, such as a BMC that refused its password or an
//! installer that never reported), newest first.

use crate::http::page::{page, PageError, PageResult};
use crate::http::routes::{Access, Route};
use crate::pages::staff::host_bmc::BmcRow;
use crate::pages::staff::StaffNav;
use crate::startup::AppState;
use app::i18n::{orders, staff, ui};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Path, State};
use backend::inventory::{self, history};
use domain::host::HostState;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HostPageView {
    pub name: String,
    pub site: String,
    pub plan: String,
    pub state: HostState,
    /// `None` for a host the simulated Fleet drives.
    pub bmc: Option<BmcRow>,
    pub events: Vec<HostEventRow>,
    /// The most events the page shows (older ones are on the command line).
    pub limit: i64,
}

/// One line of a host's history, as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostEventRow {
    pub at: i64,
    /// `None` for the event that racked the host.
    pub from_state: Option<HostState>,
    pub to_state: HostState,
    pub actor: String,
    pub reason: String,
}

/// `/staff/hosts/{name}`, the name percent-encoded: host names are the
/// inventory's own, but an address must never be broken by one.
pub fn host_rest(name: &str) -> String {
    let mut rest = String::from("/staff/hosts/");
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            rest.push(char::from(byte));
        } else {
            rest.push_str(&format!("%{byte:02X}"));
        }
    }
    rest
}

#[component]
pub fn HostPage(lang: Lang, view: HostPageView) -> impl IntoView {
    let (s, o, t) = (staff(lang), orders(lang), ui(lang));
    let title = (s.host_title)(&view.name);
    let bmc = match view.bmc.clone() {
        Some(bmc) => bmc_facts(lang, bmc).into_any(),
        None => view! { <p class="empty" data-testid="no-bmc">{s.host_no_bmc}</p> }.into_any(),
    };
    view! {
        <Page lang title=title.clone() description=s.host_intro.to_owned() rest=host_rest(&view.name) noindex=true>
            <section class="section portal-form wide" aria-labelledby="host-title" data-host=view.name.clone()>
                <StaffNav lang />
                <p><a href=href(lang, "/staff/hosts")>{s.host_back}</a></p>
                <h1 id="host-title">{title}</h1>
                <p class="hint">{s.host_intro}</p>
                <dl class="facts">
                    <dt>{t.configure_site}</dt>
                    <dd data-testid="host-site">{view.site.clone()}</dd>
                    <dt>{t.configure_plan}</dt>
                    <dd data-testid="host-plan">{view.plan.clone()}</dd>
                    <dt>{o.col_state}</dt>
                    <dd data-testid="host-state" data-state=view.state.as_str()>{(o.host_state)(view.state)}</dd>
                </dl>
                <h2 id="host-bmc">{s.col_bmc}</h2>
                {bmc}
                <h2 id="host-history">{s.host_history}</h2>
                <p class="hint">{(s.host_history_hint)(view.limit)}</p>
                <History lang events=view.events.clone() />
            </section>
        </Page>
    }
    .into_any()
}

/// The host's BMC as the hosts page shows it, one fact a line; the check
/// button and the form stay on the hosts page, linked.
fn bmc_facts(lang: Lang, b: BmcRow) -> impl IntoView {
    let s = staff(lang);
    let crate::pages::staff::host_bmc::BmcFacts {
        self_signed,
        power,
        gpus,
        checked,
    } = b.facts(lang);
    let on_hosts = href(lang, &format!("/staff/hosts#bmc-{}", b.host));
    view! {
        <dl class="facts" data-testid="host-bmc">
            <dt>{s.bmc_url}</dt>
            <dd><code>{b.url.clone()}</code>{self_signed}</dd>
            <dt>{s.bmc_username}</dt>
            <dd><code>{b.username.clone()}</code></dd>
            <dt>{s.col_serial_console}</dt>
            <dd>{(s.serial_console)(b.serial_console)}</dd>
            <dt>{s.col_model}</dt>
            <dd>{b.model.clone()}</dd>
            <dt>{s.col_serial_number}</dt>
            <dd>{b.serial_number.clone()}</dd>
            <dt>{s.col_bios}</dt>
            <dd>{b.bios_version.clone()}</dd>
            <dt>{s.col_power}</dt>
            <dd>{power}</dd>
            <dt>{s.col_gpus}</dt>
            <dd>{gpus}</dd>
            <dt>{s.col_checked}</dt>
            <dd>{checked}</dd>
        </dl>
        <p><a href=on_hosts>{s.host_bmc_on_hosts}</a></p>
    }
}

/// The host's events, newest first: a state change reads "Free →
/// Maintenance", an event that left the state as it was names that state.
#[component]
fn History(lang: Lang, events: Vec<HostEventRow>) -> impl IntoView {
    let (s, o) = (staff(lang), orders(lang));
    if events.is_empty() {
        return view! { <p class="empty">{s.host_history_none}</p> }.into_any();
    }
    let rows = events
        .into_iter()
        .map(|e| {
            let change = match e.from_state {
                Some(from) if from != e.to_state => {
                    format!("{} → {}", (o.host_state)(from), (o.host_state)(e.to_state))
                }
                _ => (o.host_state)(e.to_state).to_owned(),
            };
            view! {
                <tr data-event-to=e.to_state.as_str() data-event-from=e.from_state.map(HostState::as_str)>
                    <th scope="row">
                        <time datetime=domain::time::format_iso(e.at)>{domain::time::format_datetime(e.at)}</time>
                    </th>
                    <td data-label=s.col_change>{change}</td>
                    <td data-label=s.col_actor>{e.actor}</td>
                    <td data-label=s.col_reason>{e.reason}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(s.host_history)>
            <table class="host-history phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{s.col_when}</th>
                        <th scope="col">{s.col_change}</th>
                        <th scope="col">{s.col_actor}</th>
                        <th scope="col">{s.col_reason}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

app::page_view!(HostPageView => HostPage(view));

pub fn routes() -> Vec<Route> {
    vec![Route::get(
        "/{lang}/staff/hosts/{name}",
        Access::Staff,
        host_page,
    )]
}

/// The events a page shows; `server hosts history --limit` reads further.
const HISTORY_LIMIT: i64 = 200;

/// Longer than any name the inventory gives (`fra-g-l40s-x2-001`).
const MAX_NAME: usize = 128;

async fn host_page(
    State(state): State<Arc<AppState>>,
    Path((_, name)): Path<(String, String)>,
    parts: Parts,
) -> PageResult {
    // No host is called that (and PostgreSQL refuses a NUL byte, which
    // would otherwise look like an outage).
    if name.is_empty() || name.len() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(PageError::NotFound);
    }
    let view = host_view(&state, &name).await?.ok_or(PageError::NotFound)?;
    page(&state, parts, view).await
}

/// The page's data; `None` when no host has that name.
async fn host_view(state: &AppState, name: &str) -> anyhow::Result<Option<HostPageView>> {
    let Some(events) = history::of_host(&state.db, name, HISTORY_LIMIT).await? else {
        return Ok(None);
    };
    let Some(host) = inventory::host(&state.db, name).await? else {
        return Ok(None);
    };
    let bmc = backend::inventory::bmc::summary(&state.db, name)
        .await?
        .map(crate::pages::staff::host_bmc::BmcRow::from);
    Ok(Some(HostPageView {
        name: host.name,
        site: host.site.to_string(),
        plan: host.plan.to_string(),
        state: host.state,
        bmc,
        events: events
            .into_iter()
            .map(|e| HostEventRow {
                at: e.at,
                from_state: e.from_state,
                to_state: e.to_state,
                actor: e.actor,
                reason: e.reason,
            })
            .collect(),
        limit: HISTORY_LIMIT,
    }))
}
