//! The user's SSH keys (owners and technical members, who order servers).

use app::portal::keys::KeysView;
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, State};
use axum::response::Response;
use axum::{Extension, Form};
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    denied, forbidden_post, lang_of, member_in, not_found, page, redirect, refused, trusted,
    unavailable, TECHNICAL,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

async fn keys_view(state: &AppState, user_id: &str) -> anyhow::Result<KeysView> {
    Ok(KeysView {
        keys: backend::ssh_keys::list(&state.db, user_id)
            .await?
            .into_iter()
            .map(|k| (k.id, k.name, k.fingerprint, k.created_at))
            .collect(),
    })
}

async fn keys_response(
    state: &AppState,
    mut parts: Parts,
    user_id: &str,
    feedback: FormFeedback,
) -> Response {
    if let Ok(uri) = format!("/{}/keys", lang_of(&parts).code()).parse() {
        parts.uri = uri;
    }
    match keys_view(state, user_id).await {
        Ok(view) => page(state, parts, view, feedback).await,
        Err(error) => unavailable(state, parts, error).await,
    }
}

pub async fn keys_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    if member_in(&current, TECHNICAL).is_none() {
        return denied(&state, parts).await;
    }
    keys_response(&state, parts, &current.user.id, FormFeedback::default()).await
}

#[derive(Deserialize)]
pub struct KeyForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    public_key: String,
    #[serde(default)]
    id: String,
}

pub async fn keys_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, action)): Path<(String, String)>,
    parts: Parts,
    Form(form): Form<KeyForm>,
) -> Response {
    let lang = lang_of(&parts);
    if member_in(&current, TECHNICAL).is_none() {
        return denied(&state, parts).await;
    }
    if !trusted(&state, &parts, &form.csrf) {
        return keys_response(&state, parts, &current.user.id, forbidden_post()).await;
    }
    match action.as_str() {
        "add" => {
            let Ok(key) = backend::ssh_keys::parse(&form.public_key) else {
                let feedback = refused(
                    FormError::SshKey,
                    &[("name", &form.name), ("public_key", &form.public_key)],
                );
                return keys_response(&state, parts, &current.user.id, feedback).await;
            };
            let now = state.clock.now();
            match backend::ssh_keys::add(&state.db.pool, &current.user.id, &form.name, &key, now)
                .await
            {
                Ok(()) => redirect(lang, "/keys?done=added"),
                Err(error) => unavailable(&state, parts, error).await,
            }
        }
        "delete" => match backend::ssh_keys::delete(&state.db, &current.user.id, &form.id).await {
            Ok(true) => redirect(lang, "/keys?done=deleted"),
            Ok(false) => not_found(&state, parts).await,
            Err(error) => unavailable(&state, parts, error).await,
        },
        _ => not_found(&state, parts).await,
    }
}
