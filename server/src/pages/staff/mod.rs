//! The staff area (only staff accounts get its routes): its menu on every
//! staff page, the home (`home`) that links every other staff page: hosts
//! and maintenance (`hosts`, `maintenance`), orders (`orders`), support
//! (`support`), finance (`pages/finance`), the development outbox and the
//! audit log.

pub mod home;
pub mod host_bmc;
pub mod host_page;
pub mod hosts;
pub mod maintenance;
pub mod orders;
pub mod support;

use crate::http::page::{page, PageError, PageResult};
use crate::http::routes::{Access, Route};
use crate::pages::staff::home::StaffHomeView;
use crate::pages::team::audit::AuditView;
use crate::startup::AppState;
use app::i18n::{portal, staff};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

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
    match app::context::lang_of_path(&path) {
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

/// Where a long staff list is: what was looked for, this page (from 1),
/// how many match in all, and how many a page shows.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ListAt {
    pub search: String,
    pub page: usize,
    pub matching: usize,
    pub per_page: usize,
}

impl ListAt {
    /// The page asked for (from 1, at most the last) of all that match.
    pub fn slice<T>(
        matching: Vec<T>,
        search: &str,
        asked: Option<usize>,
        per_page: usize,
    ) -> (Vec<T>, ListAt) {
        let pages = matching.len().div_ceil(per_page).max(1);
        let page = asked.unwrap_or(1).clamp(1, pages);
        let at = ListAt {
            search: search.trim().to_owned(),
            page,
            matching: matching.len(),
            per_page,
        };
        let shown = matching
            .into_iter()
            .skip((page - 1) * per_page)
            .take(per_page)
            .collect();
        (shown, at)
    }

    fn pages(&self) -> usize {
        self.matching.div_ceil(self.per_page.max(1))
    }
}

/// Pages of a long staff list: previous, "page n of m", next. The links
/// keep the list's filters (`query`: encoded, without `page`).
#[component]
pub fn Pager(lang: Lang, at: ListAt, rest: String, query: String) -> impl IntoView {
    let (page, pages) = (at.page, at.pages());
    if pages <= 1 {
        return ().into_any();
    }
    let s = staff(lang);
    let base = href(lang, &rest);
    let link = move |n: usize| {
        if query.is_empty() {
            format!("{base}?page={n}")
        } else {
            format!("{base}?{query}&page={n}")
        }
    };
    let (previous, next) = (link(page.saturating_sub(1)), link(page + 1));
    view! {
        <nav class="pager" aria-label=s.pager_label>
            {(page > 1).then(|| view! { <a href=previous rel="prev">{s.pager_previous}</a> })}
            <span>{(s.pager_of)(page, pages)}</span>
            {(page < pages).then(|| view! { <a href=next rel="next">{s.pager_next}</a> })}
        </nav>
    }
    .into_any()
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
    let development = app::context::use_site_info().development;
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
                {link("/staff/support", app::i18n::staff_support(lang).nav)}
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

app::page_view!(OutboxView => OutboxPage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/staff", Access::Staff, staff_page),
        Route::get("/{lang}/staff/outbox", Access::Staff, outbox_page),
        Route::get("/{lang}/staff/audit", Access::Staff, audit_page),
    ]
}

pub async fn staff_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let counts = backend::staff::overview(&state.db, state.clock.now()).await?;
    let view = StaffHomeView {
        hosts: counts.hosts,
        degraded_hosts: counts.degraded_hosts,
        open_windows: counts.open_windows,
        failed_orders: counts.failed_orders,
        confirmed_orders: counts.confirmed_orders,
        open_invoices: counts.open_invoices,
        overdue_invoices: counts.overdue_invoices,
        amount_due: domain::Money::eur(counts.amount_due_cents),
        organizations: backend::staff::organizations(&state.db).await?,
        users: backend::staff::users(&state.db).await?,
    };
    page(&state, parts, view).await
}

pub async fn outbox_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    // Mail bodies hold working reset, invitation and verification links:
    // reading them is taking over the account, so only a development
    // server (whose mail goes nowhere else) shows them.
    if !state.config.development() {
        return Err(PageError::NotFound);
    }
    let mails = backend::mail::outbox(&state.db, None, 100)
        .await?
        .into_iter()
        .map(|m| (m.created_at, m.to, m.subject, m.body))
        .collect();
    page(&state, parts, OutboxView { mails }).await
}

/// The audit log of every organization, and of actions outside any.
pub async fn audit_page(State(state): State<Arc<AppState>>, parts: Parts) -> PageResult {
    let entries = backend::audit::all(&state.db, 500).await?;
    let view = AuditView {
        entries: crate::pages::team::audit::rows(entries, &[]),
        filters: None,
    };
    page(&state, parts, view).await
}
