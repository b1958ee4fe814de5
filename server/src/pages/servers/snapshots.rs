//! A server's snapshots (owners and technical members): the advice to take
//! one before touching drivers, the quota, the list, and forms to take one,
//! restore the server from one (confirmed) and delete one (confirmed).
//! Plain forms: no JavaScript needed. A restore lands at the top of the
//! page, where its progress is.

use crate::http::page::{PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::{confirmed, OnServer};
use crate::startup::AppState;
use app::i18n::operations;
use app::portal::forms::{CsrfField, FieldState};
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::servers::snapshots::{self, SnapshotError};
use domain::server::SnapshotState;
use domain::Lang;
use domain::SnapshotId;
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
    /// What a take or delete just did: said here, where its redirect
    /// (`#snapshots`) lands, not at the top of the page.
    done: Option<&'static str>,
) -> impl IntoView {
    let t = operations(lang);
    let used = snapshots.len();
    let busy = snapshots.iter().any(|s| s.state.busy());
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
                <tr data-snapshot=s.name.clone() data-state=s.state.as_str()>
                    <th scope="row">{s.name.clone()}</th>
                    <td data-label=t.snapshots_col_size>{format_size(s.size_bytes)}</td>
                    <td data-label=t.snapshots_col_state>{(t.snapshot_state)(s.state)}</td>
                    <td data-label=t.snapshots_col_taken><time datetime=domain::time::format_iso(s.created_at)>{domain::time::format_datetime(s.created_at)}</time></td>
                    <td class="snapshot-actions">
                        {(ready && running).then(|| view! {
                            <form method="post" action=href(lang, &format!("{base}/restore")) class="power-form">
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
                            <form method="post" action=href(lang, &format!("{base}/delete-snapshot")) class="power-form">
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
        {done.map(|text| view! { <p class="notice notice-ok" role="status" data-testid="notice">{text}</p> })}
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
                    <table class="snapshots">
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
            <form method="post" action=href(lang, &format!("{base}/snapshot")) class="choice">
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
    }
}

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/snapshot", TECHNICAL, take),
        Route::post("/{lang}/servers/{id}/restore", TECHNICAL, restore),
        Route::post("/{lang}/servers/{id}/delete-snapshot", TECHNICAL, delete),
    ]
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
    on.done("snapshot#snapshots")
}

async fn restore(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    offered(&state)?;
    snapshots::restore(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    // The restore's progress is the state line at the top: land there.
    on.done("restore")
}

async fn delete(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    confirmed(&form.confirm)?;
    snapshots::delete(&state.db, &state.clock, &on.actor(), &on.id, &form.snapshot).await?;
    on.done("delete-snapshot#snapshots")
}
