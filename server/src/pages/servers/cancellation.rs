//! A server's cancellation (owners and technical members): scheduling one
//! at a term end (a date, a reason, the name typed, the risk acknowledged),
//! taking it back, or what happened. Which outside system hears first
//! (Stripe) is the backend's decision (`servers::cancellation::request`); it
//! also mails the owners. Both land at the top of the server's page, where
//! the outcome and the new end or renewal date are shown.

use crate::http::page::{PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::{confirmed, Confirm, OnServer};
use crate::pages::servers::tabs::Tab;
use crate::pages::servers::ServerRow;
use crate::startup::AppState;
use app::i18n::orders;
use app::portal::forms::{CsrfField, FieldState};
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::servers::cancellation::{self, CancelError};
use domain::Lang;
use leptos::prelude::*;
use serde::Deserialize;
use std::sync::Arc;

/// What the page says at the top after `done=cancel` or `done=revoke`,
/// read from the server as it is now (so a stale or repeated link says
/// nothing rather than something untrue).
pub fn outcome(lang: Lang, done: &str, server: &ServerRow) -> Option<String> {
    let o = orders(lang);
    match (done, server.cancel_at) {
        ("cancel", Some(at)) => Some((o.server_done_cancel)(&domain::time::format_date(at))),
        ("revoke", None) if server.cancelled_at.is_none() => Some((o.server_done_revoke)(
            &server
                .renews_at
                .map_or_else(|| "–".to_owned(), domain::time::format_date),
        )),
        _ => None,
    }
}

/// Scheduling a cancellation (a date, a reason, the name typed, the risk
/// acknowledged), taking it back, or what happened.
#[component]
pub fn Cancellation(lang: Lang, server: ServerRow) -> impl IntoView {
    let o = orders(lang);
    let base = format!("/servers/{}", server.id);
    // A cancelled server's page says so above its tabs.
    if server.cancelled_at.is_some() {
        return ().into_any();
    }
    if let Some(at) = server.cancel_at {
        return view! {
            <section class="danger-zone" aria-labelledby="cancel-title">
                <h2 id="cancel-title">{o.cancel_title}</h2>
                <p class="notice" data-testid="cancel-scheduled">{(o.cancel_scheduled)(&domain::time::format_date(at))}</p>
                <form method="post" action=href(lang, &format!("{base}/cancellation/revoke"))>
                    <CsrfField />
                    <button type="submit">{o.cancel_revoke}</button>
                </form>
            </section>
        }
        .into_any();
    }
    if server.cancel_dates.is_empty() {
        return view! { <p data-testid="cancel-nothing">{o.cancel_nothing}</p> }.into_any();
    }
    let dates = server
        .cancel_dates
        .iter()
        .enumerate()
        .map(|(n, at)| {
            let date = domain::time::format_date(*at);
            view! { <option value=at.to_string()>{(o.cancel_date_option)(n, &date)}</option> }
        })
        .collect_view();
    let name_field = FieldState::of("confirm_name", "confirm-name", false);
    let reasons = domain::order::CancelReason::ALL
        .iter()
        .map(|r| view! { <option value=r.as_str()>{(o.cancel_reason_label)(*r)}</option> })
        .collect_view();
    view! {
        <section class="danger-zone" aria-labelledby="cancel-title">
            <h2 id="cancel-title">{o.cancel_title}</h2>
            <p>{o.cancel_warning}</p>
            <form method="post" action=href(lang, &format!("{base}/cancellation"))>
                <CsrfField />
                <div class="field">
                    <label for="cancel-at">{o.cancel_date}</label>
                    <select id="cancel-at" name="at">{dates}</select>
                </div>
                <div class="field">
                    <label for="cancel-reason">{o.cancel_reason}</label>
                    <select id="cancel-reason" name="reason">{reasons}</select>
                </div>
                <div class="field">
                    <label for="confirm-name">{(o.cancel_type_name)(&server.name)}</label>
                    <input id="confirm-name" name="confirm_name" required autocomplete="off" aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                    {name_field.message(lang)}
                </div>
                <label class="option" for="understood">
                    <input type="checkbox" id="understood" name="confirm" value="yes" required />
                    " "{o.cancel_understand}
                </label>
                <button type="submit" class="button-danger">{o.cancel_submit}</button>
            </form>
        </section>
    }
    .into_any()
}

pub fn routes() -> Vec<Route> {
    vec![
        Route::post("/{lang}/servers/{id}/cancellation", TECHNICAL, cancel),
        Route::post(
            "/{lang}/servers/{id}/cancellation/revoke",
            TECHNICAL,
            revoke,
        ),
    ]
}

impl From<CancelError> for PageError {
    fn from(error: CancelError) -> Self {
        match error {
            CancelError::Server(error) => error.into(),
            CancelError::NameMismatch => FormError::CancelName.into(),
            CancelError::BadDate | CancelError::BadReason => FormError::Choice.into(),
            CancelError::Billing(error) => {
                tracing::error!(%error, "telling Stripe failed");
                FormError::Unavailable.into()
            }
        }
    }
}

#[derive(Deserialize)]
struct Cancel {
    #[serde(default)]
    at: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    confirm: String,
    #[serde(default)]
    confirm_name: String,
}

async fn cancel(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Cancel>,
) -> PageResult {
    confirmed(&form.confirm)?;
    let request = cancellation::Request {
        // Not a number is not a term end either: refused as one.
        at: form.at.trim().parse::<i64>().unwrap_or(0),
        reason: &form.reason,
        typed_name: &form.confirm_name,
    };
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::request(db, clock, stripe, &on.actor(), &on.id, &request, base_url).await?;
    on.done(Tab::Cancellation, "cancel")
}

async fn revoke(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(_): SameOrigin<Confirm>,
) -> PageResult {
    let (db, clock, stripe) = (&state.db, &state.clock, state.stripe.as_ref());
    let base_url = &state.config.public_base_url;
    cancellation::take_back(db, clock, stripe, &on.actor(), &on.id, base_url).await?;
    on.done(Tab::Cancellation, "revoke")
}
