//! Maintenance on the server page: a degraded host and its windows, and
//! the customer's answer (owners and technical members): accept a proposed
//! window, or propose another start. The staff hosts page shows the same
//! windows (`pages/staff/maintenance.rs` has staff's forms). Plain forms;
//! times are UTC, as on invoices.

use crate::http::page::{PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::OnServer;
use crate::pages::servers::tabs::Tab;
use crate::startup::AppState;
use app::i18n::operations;
use app::portal::forms::CsrfField;
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::servers::maintenance::{respond, MaintenanceError};
use domain::server::{ProposedBy, WindowState};
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowRow {
    pub id: String,
    pub starts_at: i64,
    pub ends_at: i64,
    pub state: WindowState,
    pub proposed_by: ProposedBy,
    pub note: String,
    /// Staff page only: the host and server names.
    pub host: String,
    pub server: String,
}

/// A window as a server's page shows it (the staff page adds the host and
/// server names).
impl From<backend::servers::maintenance::Window> for WindowRow {
    fn from(w: backend::servers::maintenance::Window) -> WindowRow {
        WindowRow {
            id: w.id,
            starts_at: w.starts_at,
            ends_at: w.ends_at,
            state: w.state,
            proposed_by: w.proposed_by,
            note: w.note,
            host: String::new(),
            server: String::new(),
        }
    }
}

/// `2026-12-01T14:00`, what a datetime-local field shows.
fn local_input(unix: i64) -> String {
    domain::time::format_iso(unix).chars().take(16).collect()
}

#[component]
pub fn ServerMaintenance(
    lang: Lang,
    base: String,
    degraded: Option<String>,
    windows: Vec<WindowRow>,
) -> impl IntoView {
    let t = operations(lang);
    if degraded.is_none() && windows.is_empty() {
        return ().into_any();
    }
    let rows = windows
        .into_iter()
        .map(|w| {
            let open = w.state == WindowState::Proposed && w.proposed_by == ProposedBy::Staff;
            let span = (t.maint_window)(
                &domain::time::format_datetime(w.starts_at),
                &domain::time::format_datetime(w.ends_at),
            );
            let (id, id2) = (w.id.clone(), w.id.clone());
            let suggested = local_input(w.starts_at + 86_400);
            view! {
                <li data-window=w.state.as_str() data-by=w.proposed_by.as_str()>
                    <strong>{span}</strong>" · "{(t.maint_state)(w.state, w.proposed_by)}
                    {(!w.note.is_empty()).then(|| view! { <p>{w.note.clone()}</p> })}
                    {open.then(|| view! {
                        <form method="post" action=href(lang, &format!("{base}/maintenance-accept")) class="inline">
                            <CsrfField />
                            <input type="hidden" name="window" value=id />
                            <button type="submit">{t.maint_accept}</button>
                        </form>
                        <form method="post" action=href(lang, &format!("{base}/maintenance-propose")) class="choice">
                            <CsrfField />
                            <input type="hidden" name="window" value=id2 />
                            <div class="field">
                                <label for="counter-start">{t.maint_counter_label}</label>
                                <input id="counter-start" name="at" type="datetime-local" value=suggested required />
                            </div>
                            <button type="submit" class="secondary">{t.maint_counter_submit}</button>
                        </form>
                    })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="maintenance-title" id="maintenance">
            <h2 id="maintenance-title">{t.maint_title}</h2>
            {degraded.map(|r| view! { <p class="notice" data-testid="host-degraded">{(t.maint_degraded)(&r)}</p> })}
            <ul class="windows">{rows}</ul>
            <p class="hint">{t.maint_sla_note}</p>
        </section>
    }
    .into_any()
}

#[component]
pub fn StaffMaintenance(
    lang: Lang,
    windows: Vec<WindowRow>,
    /// (host, reason, since)
    degraded: Vec<(String, String, i64)>,
) -> impl IntoView {
    let t = operations(lang);
    let o = app::i18n::orders(lang);
    let empty = windows.is_empty();
    let healthy = degraded.is_empty();
    let faults = degraded
        .into_iter()
        .map(|(host, reason, since)| {
            view! {
                <tr data-degraded=host.clone()>
                    <th scope="row"><code>{host.clone()}</code></th>
                    <td>{reason}</td>
                    <td>{domain::time::format_datetime(since)}</td>
                </tr>
            }
        })
        .collect_view();
    let rows = windows
        .into_iter()
        .map(|w| {
            let confirmable = w.state == WindowState::Proposed && w.proposed_by == ProposedBy::Customer;
            let span = (t.maint_window)(
                &domain::time::format_datetime(w.starts_at),
                &domain::time::format_datetime(w.ends_at),
            );
            let id = w.id.clone();
            view! {
                <tr data-window=w.state.as_str()>
                    <td><code>{w.host.clone()}</code></td>
                    <td>{w.server.clone()}</td>
                    <td>{span}</td>
                    <td>{(t.maint_staff_state)(w.state, w.proposed_by)}</td>
                    <td>{confirmable.then(|| view! {
                        <form method="post" action=href(lang, "/staff/hosts/confirm") class="inline">
                            <CsrfField />
                            <input type="hidden" name="window" value=id />
                            <button type="submit">{t.maint_staff_confirm}</button>
                        </form>
                    })}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h2 id="maintenance">{t.maint_staff_degraded_title}</h2>
        {if healthy {
            view! { <p>{t.maint_staff_degraded_none}</p> }.into_any()
        } else {
            view! {
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(t.maint_staff_degraded_title)>
                    <table class="degraded">
                        <thead><tr>
                            <th scope="col">{o.col_host}</th>
                            <th scope="col">{o.hosts_reason}</th>
                            <th scope="col">{t.maint_col_since}</th>
                        </tr></thead>
                        <tbody>{faults}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }}
        <h2>{t.maint_staff_open}</h2>
        {if empty {
            view! { <p>{t.maint_staff_none}</p> }.into_any()
        } else {
            view! {
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(t.maint_staff_open)>
                    <table class="windows">
                        <thead><tr>
                            <th scope="col">{o.col_host}</th>
                            <th scope="col">{t.maint_col_server}</th>
                            <th scope="col">{t.maint_col_window}</th>
                            <th scope="col">{t.maint_col_state}</th>
                            <th scope="col"><span class="sr-only">{t.maint_staff_confirm}</span></th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }}
        <div class="staff-forms">
            <form method="post" action=href(lang, "/staff/hosts/degrade")>
                <h2>{t.maint_staff_degrade}</h2>
                <CsrfField />
                <div class="field">
                    <label for="degrade-name">{o.hosts_name}</label>
                    <input id="degrade-name" name="name" required />
                </div>
                <div class="field">
                    <label for="degrade-reason">{o.hosts_reason}</label>
                    <input id="degrade-reason" name="reason" required maxlength="200" />
                </div>
                <button type="submit">{t.maint_staff_degrade_submit}</button>
            </form>
            <form method="post" action=href(lang, "/staff/hosts/propose")>
                <h2>{t.maint_staff_propose}</h2>
                <CsrfField />
                <div class="field">
                    <label for="propose-name">{o.hosts_name}</label>
                    <input id="propose-name" name="name" required />
                </div>
                <div class="field">
                    <label for="propose-start">{t.maint_staff_start}</label>
                    <input id="propose-start" name="at" type="datetime-local" required />
                </div>
                <div class="field">
                    <label for="propose-hours">{t.maint_staff_hours}</label>
                    <input id="propose-hours" name="hours" type="number" min="1" max="8" value="2" required />
                </div>
                <div class="field">
                    <label for="propose-note">{t.maint_staff_note}</label>
                    <input id="propose-note" name="note" maxlength="200" />
                </div>
                <button type="submit">{t.maint_staff_propose_submit}</button>
            </form>
        </div>
    }
}

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/maintenance-accept", TECHNICAL, accept),
        Route::post(
            "/{lang}/servers/{id}/maintenance-propose",
            TECHNICAL,
            propose,
        ),
    ]
}

impl From<MaintenanceError> for PageError {
    fn from(error: MaintenanceError) -> Self {
        match error {
            MaintenanceError::NotFound => PageError::NotFound,
            MaintenanceError::Db(error) => PageError::Unavailable(error),
            MaintenanceError::BadTime => FormError::MaintenanceTime.into(),
            MaintenanceError::Settled => FormError::MaintenanceSettled.into(),
        }
    }
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    window: String,
    /// The proposed start (UTC), when proposing another.
    #[serde(default)]
    at: String,
}

async fn accept(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Answer>,
) -> PageResult {
    respond(
        &state.db,
        &state.clock,
        &on.actor(),
        &on.id,
        &form.window,
        None,
    )
    .await?;
    on.done(Tab::Overview, "maintenance-accept")
}

async fn propose(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Answer>,
) -> PageResult {
    let start = Some(domain::time::parse_utc(&form.at).unwrap_or(0));
    respond(
        &state.db,
        &state.clock,
        &on.actor(),
        &on.id,
        &form.window,
        start,
    )
    .await?;
    on.done(Tab::Overview, "maintenance-propose")
}
