//! The staff support queue: counts per state, filters (a GET form: state,
//! category, site, age), and the requests, the longest waiting for us
//! first (the backend's order).

use crate::pages::staff::support::{
    first_response_text, server_text, thread_rest, waiting_text, QueueView, RequestRow, AGES,
};
use crate::pages::staff::StaffNav;
use app::context::use_facts;
use app::i18n::staff_support;
use app::storefront::href;
use app::storefront::layout::Page;
use domain::support::{Category, State};
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn StaffSupportQueuePage(lang: Lang, view: QueueView) -> impl IntoView {
    let s = staff_support(lang);
    let counts = view
        .counts
        .iter()
        .map(|(state, n)| {
            view! {
                <li data-count=state.as_str()>
                    <span>{(s.state)(*state)}</span>": "<strong>{*n}</strong>
                </li>
            }
        })
        .collect_view();
    let table = if view.rows.is_empty() {
        view! { <p class="empty" data-testid="queue-empty">{s.empty}</p> }.into_any()
    } else {
        queue_table(lang, view.rows.clone(), view.now).into_any()
    };
    view! {
        <Page lang title=s.queue_title.to_owned() description=s.queue_intro.to_owned() rest="/staff/support".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="support-queue-title">
                <StaffNav lang />
                <h1 id="support-queue-title">{s.queue_title}</h1>
                <p class="hint">{s.queue_intro}</p>
                <ul class="support-counts" aria-label=s.counts_label>{counts}</ul>
                <Filters lang view=view.clone() />
                {table}
                <crate::pages::staff::Pager lang at=view.list.clone() rest="/staff/support".to_owned() query=pager_query(&view) />
            </section>
        </Page>
    }
    .into_any()
}

/// The GET form: its choices keep what the address asked for.
#[component]
fn Filters(lang: Lang, view: QueueView) -> impl IntoView {
    let s = staff_support(lang);
    let states = State::ALL
        .iter()
        .map(|&st| view! { <option value=st.as_str() selected=view.filter_state == Some(st)>{(s.state)(st)}</option> })
        .collect_view();
    let categories = Category::ALL
        .iter()
        .map(|&c| view! { <option value=c.as_str() selected=view.filter_category == Some(c)>{(s.category)(c)}</option> })
        .collect_view();
    let sites = use_facts()
        .map(|facts| facts.catalog.sites.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|site| {
            let code = site.code.to_string();
            let label = format!("{} ({code})", site.city.get(lang));
            view! { <option value=code.clone() selected=view.filter_site == code>{label}</option> }
        })
        .collect_view();
    let ages = AGES
        .iter()
        .map(|h| {
            let value = h.to_string();
            view! { <option value=value.clone() selected=view.filter_age == value>{(s.age_older)(*h)}</option> }
        })
        .collect_view();
    view! {
        <form method="get" action=href(lang, "/staff/support") class="choice" aria-label=s.filter_title>
            <div class="field">
                <label for="filter-state">{s.filter_state}</label>
                <select id="filter-state" name="state">
                    <option value="" selected=view.filter_state.is_none()>{s.all_not_closed}</option>
                    {states}
                </select>
            </div>
            <div class="field">
                <label for="filter-category">{s.filter_category}</label>
                <select id="filter-category" name="category">
                    <option value="" selected=view.filter_category.is_none()>{s.all}</option>
                    {categories}
                </select>
            </div>
            <div class="field">
                <label for="filter-site">{s.filter_site}</label>
                <select id="filter-site" name="site">
                    <option value="" selected=view.filter_site.is_empty()>{s.all}</option>
                    {sites}
                </select>
            </div>
            <div class="field">
                <label for="filter-age">{s.filter_age}</label>
                <select id="filter-age" name="age">
                    <option value="" selected=view.filter_age.is_empty()>{s.age_any}</option>
                    {ages}
                </select>
            </div>
            <div class="field">
                <label for="filter-q">{s.filter_search}</label>
                <input id="filter-q" name="q" type="search" value=view.list.search.clone() maxlength="80" />
            </div>
            <button type="submit">{s.filter_submit}</button>
        </form>
    }
}

/// The queue's filters as the pager's links keep them.
fn pager_query(view: &QueueView) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (key, value) in [
        ("state", view.filter_state.map_or("", |s| s.as_str())),
        ("category", view.filter_category.map_or("", |c| c.as_str())),
        ("site", view.filter_site.as_str()),
        ("age", view.filter_age.as_str()),
        ("q", view.list.search.as_str()),
    ] {
        if !value.is_empty() {
            q.append_pair(key, value);
        }
    }
    q.finish()
}

fn queue_table(lang: Lang, rows: Vec<RequestRow>, now: i64) -> impl IntoView {
    let s = staff_support(lang);
    let rows = rows
        .into_iter()
        .map(|row| {
            let waiting = waiting_text(lang, &row, now);
            let first = first_response_text(lang, &row);
            let server = server_text(lang, &row);
            let assignee = row.assignee.clone().unwrap_or_else(|| s.unassigned.to_owned());
            view! {
                <tr data-request=row.id.clone() data-state=row.state.as_str() data-category=row.category.as_str()>
                    <th scope="row"><a href=href(lang, &thread_rest(&row.id))><code>{row.reference.clone()}</code></a></th>
                    <td data-label=s.col_organization>{row.organization.clone()}</td>
                    <td data-label=s.col_subject dir="auto">{row.subject.clone()}</td>
                    <td data-label=s.col_category>{(s.category)(row.category)}</td>
                    <td data-label=s.col_state>{(s.state)(row.state)}</td>
                    <td data-label=s.col_server>{server}</td>
                    <td data-label=s.col_opened>
                        <time datetime=domain::time::format_iso(row.opened_at)>{domain::time::format_datetime(row.opened_at)}</time>
                    </td>
                    <td data-label=s.col_waiting data-testid="waiting">{waiting}</td>
                    <td data-label=s.col_first_response data-testid="first-response">{first}</td>
                    <td data-label=s.col_assignee data-testid="assignee">{assignee}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(s.queue_title)>
            <table class="support-queue phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{s.col_reference}</th>
                        <th scope="col">{s.col_organization}</th>
                        <th scope="col">{s.col_subject}</th>
                        <th scope="col">{s.col_category}</th>
                        <th scope="col">{s.col_state}</th>
                        <th scope="col">{s.col_server}</th>
                        <th scope="col">{s.col_opened}</th>
                        <th scope="col">{s.col_waiting}</th>
                        <th scope="col">{s.col_first_response}</th>
                        <th scope="col">{s.col_assignee}</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

app::page_view!(QueueView => StaffSupportQueuePage(view));
