//! The organization's audit log (owners only): each entry a sentence in
//! the reader's language ("owner@a.example rebooted a server: lab-1."),
//! servers named rather than shown by id, filtered by who, what and when,
//! and downloadable as CSV with the same filters. Staff read every
//! organization's entries in the staff area with the same table.

use crate::http::page::{lang_of, page, Member, PageResult};
use crate::http::routes::{Route, OWNERS};
use crate::startup::AppState;
use app::i18n::portal;
use app::portal::query;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use backend::audit::Filter;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// How many entries the page shows; the CSV has every match.
const SHOWN: i64 = 200;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditRow {
    pub at: i64,
    pub actor: String,
    pub action: String,
    /// With server ids replaced by the servers' names.
    pub detail: String,
    pub ip: String,
}

/// What the owner's filters offer and hold.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditFilters {
    pub actors: Vec<String>,
    pub actions: Vec<String>,
    pub query: AuditQuery,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditView {
    pub entries: Vec<AuditRow>,
    /// The owner's page has filters and the export; the staff page not.
    pub filters: Option<AuditFilters>,
}

/// The filters as the address carries them (dates as `YYYY-MM-DD`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct AuditQuery {
    #[serde(default)]
    pub who: String,
    #[serde(default)]
    pub what: String,
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
}

impl AuditQuery {
    /// A date that does not parse is no limit (the date inputs send only
    /// dates; a hand-edited address loses nothing but that filter).
    fn filter(&self) -> Filter {
        Filter {
            actor: self.who.trim().to_owned(),
            action: self.what.trim().to_owned(),
            from: domain::time::parse_utc(&self.from),
            // The whole last day.
            until: domain::time::parse_utc(&self.to).map(|day| day + 86_400),
        }
    }

    fn as_query(&self) -> String {
        let mut query = form_urlencoded::Serializer::new(String::new());
        for (key, value) in [
            ("who", &self.who),
            ("what", &self.what),
            ("from", &self.from),
            ("to", &self.to),
        ] {
            if !value.is_empty() {
                query.append_pair(key, value);
            }
        }
        query.finish()
    }
}

/// The words for an audit action code, if it has any.
pub fn action_words(lang: Lang, code: &str) -> Option<&'static str> {
    portal(lang)
        .audit_actions
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, words)| *words)
}

/// An entry as its sentence in `lang`; a code without words reads as the
/// code.
fn sentence(lang: Lang, row: &AuditRow) -> String {
    let did = action_words(lang, &row.action).unwrap_or(&row.action);
    (portal(lang).audit_sentence)(&row.actor, did, &row.detail)
}

/// Entries as rows, each server id in a detail replaced by its name.
pub fn rows(
    entries: Vec<(i64, String, String, String, String)>,
    servers: &[(String, String)],
) -> Vec<AuditRow> {
    entries
        .into_iter()
        .map(|(at, actor, action, detail, ip)| {
            let detail = servers.iter().fold(detail, |detail, (id, name)| {
                detail.replace(id.as_str(), name)
            });
            AuditRow {
                at,
                actor,
                action,
                detail,
                ip,
            }
        })
        .collect()
}

#[component]
fn Filters(lang: Lang, filters: AuditFilters) -> impl IntoView {
    let p = portal(lang);
    let q = filters.query.clone();
    let actors = filters
        .actors
        .iter()
        .map(|a| view! { <option value=a.clone() selected=*a == q.who>{a.clone()}</option> })
        .collect_view();
    let actions = filters
        .actions
        .iter()
        .map(|code| {
            let words = action_words(lang, code).unwrap_or(code).to_owned();
            view! { <option value=code.clone() selected=*code == q.what>{words}</option> }
        })
        .collect_view();
    let export = {
        let query = q.as_query();
        let base = href(lang, "/audit/export");
        if query.is_empty() {
            base
        } else {
            format!("{base}?{query}")
        }
    };
    view! {
        <form class="filters" method="get" action=href(lang, "/audit")>
            <div class="field">
                <label for="audit-who">{p.audit_who}</label>
                <select id="audit-who" name="who">
                    <option value="" selected=q.who.is_empty()>{p.audit_anyone}</option>
                    {actors}
                </select>
            </div>
            <div class="field">
                <label for="audit-what">{p.audit_what}</label>
                <select id="audit-what" name="what">
                    <option value="" selected=q.what.is_empty()>{p.audit_any_action}</option>
                    {actions}
                </select>
            </div>
            <div class="field">
                <label for="audit-from">{p.audit_from}</label>
                <input type="date" id="audit-from" name="from" value=q.from.clone() />
            </div>
            <div class="field">
                <label for="audit-to">{p.audit_to}</label>
                <input type="date" id="audit-to" name="to" value=q.to.clone() />
            </div>
            <button type="submit">{p.audit_show}</button>
            <a href=href(lang, "/audit")>{p.audit_show_all}</a>
        </form>
        <p><a class="button button-secondary" href=export data-testid="audit-export">{p.audit_export}</a></p>
    }
}

#[component]
pub fn AuditPage(lang: Lang, view: AuditView) -> impl IntoView {
    let p = portal(lang);
    let full = view.entries.len() as i64 >= SHOWN;
    let rows = view
        .entries
        .iter()
        .map(|row| {
            view! {
                <tr data-action=row.action.clone()>
                    <th scope="row"><time datetime=domain::time::format_iso(row.at)>{domain::time::format_datetime(row.at)}</time></th>
                    <td data-label=p.audit_what>{sentence(lang, row)}</td>
                    <td data-label=p.audit_address>{row.ip.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    let filtered = query("who").is_some() || query("what").is_some();
    let table = if view.entries.is_empty() {
        view! { <p data-testid="audit-none">{p.audit_none}</p> }.into_any()
    } else {
        view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(p.audit_title)>
                <table class="audit phone-cards">
                    <thead>
                        <tr>
                            <th scope="col">{p.audit_when}</th>
                            <th scope="col">{p.audit_what}</th>
                            <th scope="col">{p.audit_address}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            {(full || filtered).then(|| view! { <p class="hint">{(p.audit_newest)(SHOWN as usize)}</p> })}
        }
        .into_any()
    };
    view! {
        <Page lang title=p.audit_title.to_owned() description=p.audit_title.to_owned() rest=crate::pages::staff::switch_rest("/audit") noindex=true>
            <section class="section portal-form wide" aria-labelledby="audit-title">
                // One menu: the staff area's there, the portal's here.
                <crate::pages::staff::StaffNav lang />
                {(!crate::pages::staff::in_staff_area()).then(|| view! { <app::portal::nav::PortalNav lang /> })}
                <h1 id="audit-title">{p.audit_title}</h1>
                {view.filters.map(|filters| view! { <Filters lang filters /> })}
                {table}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(AuditView => AuditPage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/audit", OWNERS, audit_page),
        Route::get("/{lang}/audit/export", OWNERS, export),
    ]
}

async fn audit_page(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Query(query): Query<AuditQuery>,
    parts: Parts,
) -> PageResult {
    let org = &m.organization_id;
    let entries = backend::audit::for_organization(&state.db, org, &query.filter(), SHOWN).await?;
    let servers = backend::servers::names(&state.db, org).await?;
    let (actors, actions) = backend::audit::choices(&state.db, org).await?;
    let view = AuditView {
        entries: rows(entries, &servers),
        filters: Some(AuditFilters {
            actors,
            actions,
            query,
        }),
    };
    page(&state, parts, view).await
}

/// Every entry matching the filters as CSV, in the reader's language (the
/// sentence) and as codes (for scripts): time (UTC, ISO 8601), actor,
/// action code, sentence, detail, address.
async fn export(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Query(query): Query<AuditQuery>,
    parts: Parts,
) -> PageResult {
    let lang = lang_of(&parts);
    let org = &m.organization_id;
    let entries =
        backend::audit::for_organization(&state.db, org, &query.filter(), i64::MAX).await?;
    let servers = backend::servers::names(&state.db, org).await?;
    let mut csv = String::from("time,actor,action,sentence,detail,address\n");
    for row in rows(entries, &servers) {
        csv.push_str(&backend::csv::row(&[
            domain::time::format_iso(row.at),
            row.actor.clone(),
            row.action.clone(),
            sentence(lang, &row),
            row.detail.clone(),
            row.ip.clone(),
        ]));
    }
    Ok((
        [
            (
                http::header::CONTENT_TYPE,
                "text/csv; charset=utf-8".to_owned(),
            ),
            (
                http::header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"audit-log-{}.csv\"", lang.code()),
            ),
        ],
        csv,
    )
        .into_response())
}
