//! The root password on a server's page: shown once (with a copy button
//! that `/copy.js` turns on; without JavaScript it is plain selectable
//! text), the button that reveals it (`pages/servers/mod.rs`), and the
//! confirmed form that has the Fleet set a new one when it was lost (owners
//! and technical members), set by a job and then shown once by the same
//! reveal as the first one.

use crate::http::page::{PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::{confirmed, Confirm, OnServer};
use crate::pages::servers::tabs::Tab;
use crate::pages::servers::ServerRow;
use crate::startup::AppState;
use app::i18n::{operations, orders};
use app::portal::forms::CsrfField;
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::servers::root_password;
use domain::server::EventKind;
use domain::Lang;
use leptos::prelude::*;
use leptos_meta::Meta;
use std::sync::Arc;

/// Where the newest reset stands, from the server's history (newest
/// first).
fn reset_state(events: &[(i64, EventKind, String)]) -> Option<EventKind> {
    events.iter().map(|(_, kind, _)| *kind).find(|k| {
        matches!(
            k,
            EventKind::RootPasswordResetRequested
                | EventKind::RootPasswordReset
                | EventKind::RootPasswordResetFailed
        )
    })
}

/// The password just taken, at the top of the page where the reveal's
/// answer opens.
#[component]
pub fn RevealedPassword(lang: Lang, password: String) -> impl IntoView {
    let o = orders(lang);
    view! {
        <div class="notice notice-ok secret" role="status">
            <h2>{o.server_password_title}</h2>
            <p class="copyable">
                <code id="root-password" data-testid="root-password">{password}</code>
                " "
                <app::portal::forms::CopyButton lang target="root-password" />
            </p>
            <p>{o.server_password_once}</p>
        </div>
    }
}

/// The reveal button, a reset under way or failed, and the reset form.
/// `events` is the server's history, newest first; `revealed` says the
/// password is on this page already.
#[component]
pub fn RootPasswordSection(
    lang: Lang,
    server: ServerRow,
    events: Vec<(i64, EventKind, String)>,
    revealed: bool,
    /// Whether this deployment's Fleet can set a new root password.
    reset_offered: bool,
) -> impl IntoView {
    let o = orders(lang);
    let ops = operations(lang);
    let s = &server;
    let running = s.state == domain::server::ShownState::Running && s.cancelled_at.is_none();
    let base = format!("/servers/{}", s.id);
    let state = reset_state(&events);
    let pending = state == Some(EventKind::RootPasswordResetRequested);
    let failed = state == Some(EventKind::RootPasswordResetFailed);
    let reveal = (running && s.has_secret && !revealed).then(|| {
        view! {
            <form method="post" action=href(lang, &format!("{base}/reveal")) class="inline">
                <CsrfField />
                <button type="submit" class="secondary">{o.server_reveal}</button>
            </form>
        }
    });
    let name = s.name.clone();
    let not_offered = (running && !reset_offered).then(|| {
        view! { <p class="hint" data-testid="root-reset-not-offered">{ops.root_reset_not_offered}</p> }
    });
    let reset = (running && !pending && reset_offered).then(|| {
        view! {
            <details class="root-reset">
                <summary>{ops.root_reset_title}</summary>
                <form method="post" action=href(lang, &format!("{base}/root-password")) class="power-form">
                    <CsrfField />
                    <p>{ops.root_reset_body}</p>
                    <label class="option" for="confirm-root-password">
                        <input type="checkbox" id="confirm-root-password" name="confirm" value="yes" required />
                        " "{(ops.root_reset_confirm)(&name)}
                    </label>
                    <button type="submit" class="secondary">{ops.root_reset_title}</button>
                </form>
            </details>
        }
    });
    view! {
        <div id="root-password-section" class="root-password">
            {running.then(|| view! { <h3>{ops.root_title}</h3> })}
            {reveal}
            // While the Fleet sets it, the page reloads itself (no script
            // needed) so the new password's reveal appears when it is ready.
            {pending.then(|| view! {
                <Meta http_equiv="refresh" content="5" />
                <p class="notice" role="status" data-testid="root-reset-pending">{ops.root_reset_pending}</p>
            })}
            {failed.then(|| view! { <p class="notice notice-error" data-testid="root-reset-failed">{ops.root_reset_failed}</p> })}
            {reset}
            {not_offered}
        </div>
    }
}

pub fn routes() -> Vec<Route> {
    vec![Route::post(
        "/{lang}/servers/{id}/root-password",
        TECHNICAL,
        reset,
    )]
}

async fn reset(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Confirm>,
) -> PageResult {
    confirmed(&form.confirm)?;
    if !state.fleet.offers().root_password_reset {
        return Err(FormError::RootResetNotOffered.into());
    }
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    root_password::request_reset(db, clock, sealer, &on.actor(), &on.id).await?;
    on.done(Tab::Overview, "root-password#root-password-section")
}
