//! A server's snapshots (owners and technical members): the advice to take
//! one before touching drivers, the quota, the list, and forms to take one,
//! restore the server from one (confirmed) and delete one (confirmed).
//! Plain forms: no JavaScript needed. A restore lands at the top of the
//! page, where its progress is.

use crate::http::page::{lang_of, Member};
use crate::http::page::{PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::{confirmed, OnServer};
use crate::pages::servers::tabs::Tab;
use crate::startup::AppState;
use app::i18n::operations;
use app::portal::forms::{CsrfField, FieldState};
use app::portal::FormError;
use app::storefront::href;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::servers::snapshots::{self, SnapshotError};
use domain::server::SnapshotState;
use domain::Lang;
use domain::ServerId;
use domain::SnapshotId;
use http::request::Parts;
use http::StatusCode;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRow {
    pub id: domain::SnapshotId,
    pub name: String,
    pub state: SnapshotState,
    pub size_bytes: i64,
    pub created_at: i64,
}

/// "38.5 GB": decimal units, as disks are sold.
pub fn format_size(bytes: i64) -> String {
    if bytes <= 0 {
        return "–".to_owned();
    }
    let gb = bytes as f64 / 1e9;
    if gb >= 1000.0 {
        format!("{:.2} TB", gb / 1000.0)
    } else {
        format!("{gb:.1} GB")
    }
}

#[component]
pub fn Snapshots(
    lang: Lang,
    base: String,
    snapshots: Vec<SnapshotRow>,
    quota: usize,
    /// Whether the server can take or restore one now (running).
    running: bool,
    /// Whether this deployment's Fleet takes snapshots at all.
    offered: bool,
) -> impl IntoView {
    let t = operations(lang);
    let used = snapshots.len();
    let busy = snapshots.iter().any(|s| s.state.busy());
    let progress_url = href(lang, &format!("{base}/snapshots/progress"));
    let rows = snapshots
        .into_iter()
        .map(|s| {
            let ready = s.state == SnapshotState::Ready;
            let deletable = s.state.deletable();
            let restore_id = format!("restore-{}", s.id);
            let delete_id = format!("delete-{}", s.id);
            let (restore_for, delete_for) = (restore_id.clone(), delete_id.clone());
            let (sid, sid2) = (s.id.to_string(), s.id.to_string());
            let (name, name2) = (s.name.clone(), s.name.clone());
            view! {
                <tr data-snapshot=s.name.clone() data-state=s.state.as_str() data-snapshot-id=s.id.to_string()>
                    <th scope="row">{s.name.clone()}</th>
                    <td data-label=t.snapshots_col_size data-live="size">{format_size(s.size_bytes)}</td>
                    <td data-label=t.snapshots_col_state data-live="state">{(t.snapshot_state)(s.state)}</td>
                    <td data-label=t.snapshots_col_taken><time datetime=domain::time::format_iso(s.created_at)>{domain::time::format_datetime(s.created_at)}</time></td>
                    <td class="snapshot-actions">
                        {(ready && running).then(|| view! {
                            <form method="post" action=href(lang, &format!("{base}/snapshots/restore")) class="power-form">
                                <CsrfField />
                                <input type="hidden" name="snapshot" value=sid />
                                <p class="hint">{t.snapshots_restore_warning}</p>
                                <label class="option" for=restore_for>
                                    <input type="checkbox" id=restore_id name="confirm" value="yes" required />
                                    " "{t.snapshots_restore_confirm}
                                </label>
                                <button type="submit" class="secondary">{t.snapshots_restore}" "{name}</button>
                            </form>
                        })}
                        {deletable.then(|| view! {
                            <form method="post" action=href(lang, &format!("{base}/snapshots/delete")) class="power-form">
                                <CsrfField />
                                <input type="hidden" name="snapshot" value=sid2 />
                                <label class="option" for=delete_for>
                                    <input type="checkbox" id=delete_id name="confirm" value="yes" required />
                                    " "{t.snapshots_delete_confirm}
                                </label>
                                <button type="submit" class="secondary">{t.snapshots_delete}" "{name2}</button>
                            </form>
                        })}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h2 id="snapshots">{t.snapshots_title}</h2>
        {if offered {
            view! {
                <aside class="notice advice" aria-label=t.snapshots_advice_title>
                    <strong>{t.snapshots_advice_title}</strong>" "{t.snapshots_advice}
                </aside>
            }
            .into_any()
        } else {
            view! { <p class="notice" data-testid="snapshots-not-offered">{t.snapshots_not_offered}</p> }.into_any()
        }}
        <p data-testid="snapshot-quota">{(t.snapshots_quota)(used, quota)}</p>
        {if used == 0 {
            view! { <p>{t.snapshots_empty}</p> }.into_any()
        } else {
            view! {
                <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(t.snapshots_title)>
                    <table class="snapshots" data-progress-url=progress_url.clone() aria-live="polite">
                        <thead>
                            <tr>
                                <th scope="col">{t.snapshots_col_name}</th>
                                <th scope="col">{t.snapshots_col_size}</th>
                                <th scope="col">{t.snapshots_col_state}</th>
                                <th scope="col">{t.snapshots_col_taken}</th>
                                <th scope="col"><span class="sr-only">{t.snapshots_col_actions}</span></th>
                            </tr>
                        </thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }}
        {(running && used < quota && !busy).then(|| {
            let name_field = FieldState::of("snapshot_name", "snapshot-name", true);
            view! {
            <form method="post" action=href(lang, &format!("{base}/snapshots")) class="choice">
                <CsrfField />
                <div class="field">
                    <label for="snapshot-name">{t.snapshots_name}</label>
                    <input id="snapshot-name" name="name" required maxlength="63" pattern="[A-Za-z0-9._\\-]{1,63}" aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                    {name_field.message(lang)}
                    <p class="hint" id="snapshot-name-hint">{t.snapshots_name_hint}</p>
                </div>
                <button type="submit">{t.snapshots_take}</button>
            </form>
            }
        })}
        <p class="hint">{t.snapshots_wiped_note}</p>
        // While one is being taken, restored or deleted, its row follows
        // (the page is complete without it: a reload shows the same).
        {busy.then(|| view! { <script src="/snapshots.js" defer></script> })}
    }
}

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/snapshots", TECHNICAL, take),
        Route::get(
            "/{lang}/servers/{id}/snapshots/progress",
            TECHNICAL,
            progress,
        ),
        Route::post("/{lang}/servers/{id}/snapshots/restore", TECHNICAL, restore),
        Route::post("/{lang}/servers/{id}/snapshots/delete", TECHNICAL, delete),
    ]
}

/// What `/snapshots.js` reads every two seconds while a snapshot is being
/// taken, restored or deleted: each snapshot's state, in the page's words.
/// Another organization's server, or none, is 404.
async fn progress(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, ServerId)>,
    parts: Parts,
) -> Response {
    let t = operations(lang_of(&parts));
    let org = &m.0.organization_id;
    let listed = match backend::servers::get(&state.db, org, &id).await {
        Ok(Some(_)) => snapshots::list(&state.db, org, &id).await,
        Ok(None) => return StatusCode::NOT_FOUND.into_response(),
        Err(error) => Err(error),
    };
    let Ok(listed) = listed.inspect_err(|error| {
        tracing::error!(error = %format!("{error:#}"), "reading snapshot states failed");
    }) else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    let rows: Vec<_> = listed
        .into_iter()
        .map(|s| {
            serde_json::json!({
                "id": s.id,
                "state": s.state.as_str(),
                "state_label": (t.snapshot_state)(s.state),
                "size": format_size(s.size_bytes),
                "busy": s.state.busy(),
            })
        })
        .collect();
    Json(serde_json::json!({ "snapshots": rows })).into_response()
}

impl From<SnapshotError> for PageError {
    fn from(error: SnapshotError) -> Self {
        match error {
            SnapshotError::NotFound => PageError::NotFound,
            SnapshotError::Server(backend::servers::ServerError::Db(error)) => {
                PageError::Unavailable(error)
            }
            SnapshotError::InvalidName => FormError::SnapshotName.into(),
            SnapshotError::QuotaFull => FormError::SnapshotQuota.into(),
            SnapshotError::Busy | SnapshotError::Server(_) => FormError::SnapshotBusy.into(),
        }
    }
}

#[derive(Deserialize)]
struct Take {
    #[serde(default)]
    name: String,
}

/// A snapshot chosen on the page, with the confirmation checkbox.
#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    snapshot: SnapshotId,
    #[serde(default)]
    confirm: String,
}

/// Refuses when this deployment's Fleet cannot take snapshots.
fn offered(state: &AppState) -> Result<(), PageError> {
    if state.fleet.offers().snapshots {
        Ok(())
    } else {
        Err(FormError::SnapshotsNotOffered.into())
    }
}

async fn take(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Take>,
) -> PageResult {
    offered(&state)?;
    snapshots::take(&state.db, &state.clock, &on.actor(), &on.id, &form.name).await?;
    on.done(Tab::Snapshots, "snapshot")
}

async fn restore(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    offered(&state)?;
    snapshots::restore(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    // The restore's progress is the state line above the tabs.
    on.done(Tab::Snapshots, "restore")
}

async fn delete(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    snapshots::delete(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    on.done(Tab::Snapshots, "delete-snapshot")
}
