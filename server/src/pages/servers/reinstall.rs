//! Reinstalling a server from its power tab (owners and technical
//! members): an image, optionally other saved SSH keys, the name typed to
//! confirm. The backend (`servers::reinstall`) erases and installs on the
//! same host; the page then follows the install's progress.

use crate::http::page::{PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::server_action::OnServer;
use crate::pages::servers::tabs::Tab;
use crate::startup::AppState;
use app::i18n::orders;
use app::portal::forms::{CsrfField, FieldState};
use app::portal::order::ImageChoice;
use app::portal::FormError;
use app::storefront::href;
use axum::extract::State;
use backend::servers::reinstall::{self, Reinstall as Request, ReinstallError};
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One of the member's saved SSH keys, as the form offers it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SavedKey {
    pub id: String,
    pub name: String,
    pub fingerprint: String,
}

#[component]
pub fn ReinstallForm(
    lang: Lang,
    base: String,
    name: String,
    image: String,
    keys: Vec<SavedKey>,
) -> impl IntoView {
    let o = orders(lang);
    let name_field = FieldState::of("reinstall_name", "reinstall-name", false);
    let keys = (!keys.is_empty()).then(|| {
        let boxes = keys
            .into_iter()
            .map(|key| {
                let id = format!("reinstall-key-{}", key.id);
                let label_for = id.clone();
                view! {
                    <label class="option" for=label_for>
                        <input type="checkbox" id=id name="ssh_key_id" value=key.id />
                        " "{key.name}" "<code>{key.fingerprint}</code>
                    </label>
                }
            })
            .collect_view();
        view! {
            <fieldset class="field">
                <legend>{o.order_keys}</legend>
                <p class="hint">{o.reinstall_keys_hint}</p>
                {boxes}
            </fieldset>
        }
    });
    view! {
        <section class="danger-zone" aria-labelledby="reinstall-title">
            <h2 id="reinstall-title">{o.reinstall_title}</h2>
            <p>{o.reinstall_body}</p>
            <form method="post" action=href(lang, &format!("{base}/reinstall"))>
                <CsrfField />
                <ImageChoice lang selected=image />
                {keys}
                <div class="field">
                    <label for="reinstall-name">{(o.reinstall_type_name)(&name)}</label>
                    <input id="reinstall-name" name="reinstall_name" required autocomplete="off" aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                    {name_field.message(lang)}
                </div>
                <button type="submit" class="button-danger">{o.reinstall_submit}</button>
            </form>
        </section>
    }
}

pub fn routes() -> Vec<Route> {
    vec![Route::post(
        "/{lang}/servers/{id}/reinstall",
        TECHNICAL,
        reinstall,
    )]
}

impl From<ReinstallError> for PageError {
    fn from(error: ReinstallError) -> Self {
        match error {
            ReinstallError::Server(error) => error.into(),
            ReinstallError::UnknownKey => FormError::Choice.into(),
        }
    }
}

/// The form's fields, a key box repeated per key ticked.
async fn reinstall(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(fields): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    let field = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map_or("", |(_, v)| v.as_str())
    };
    let key_ids: Vec<String> = fields
        .iter()
        .filter(|(k, _)| k == "ssh_key_id")
        .map(|(_, v)| v.clone())
        .collect();
    let image = domain::OsImage::parse(field("image")).ok_or(FormError::Choice)?;
    let server = backend::servers::get(&state.db, on.organization_id(), &on.id)
        .await?
        .ok_or(PageError::NotFound)?;
    if field("reinstall_name").trim() != server.name {
        return Err(FormError::ReinstallName.into());
    }
    let request = Request {
        image,
        ssh_key_ids: (!key_ids.is_empty()).then_some(key_ids.as_slice()),
    };
    reinstall::reinstall(&state.db, &state.clock, &on.actor(), &on.id, &request).await?;
    on.done(Tab::Power, "reinstall")
}
