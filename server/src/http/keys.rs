//! The user's SSH keys (owners and technical members, who order servers).

use app::portal::keys::KeysView;
use app::portal::notices::{code, done_path};
use app::portal::FormError;
use axum::extract::State;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed};
use super::routes::{Route, TECHNICAL};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/keys", TECHNICAL, keys_page),
        Route::post("/{lang}/keys/add", TECHNICAL, add),
        Route::post("/{lang}/keys/delete", TECHNICAL, delete),
    ]
}

async fn keys_page(
    State(state): State<Arc<AppState>>,
    Signed(current): Signed,
    parts: Parts,
) -> PageResult {
    let keys = backend::ssh_keys::list(&state.db, &current.user.id).await?;
    let view = KeysView {
        keys: keys
            .into_iter()
            .map(|k| (k.id, k.name, k.fingerprint, k.created_at))
            .collect(),
    };
    page(&state, parts, view).await
}

#[derive(Deserialize)]
struct NewKey {
    #[serde(default)]
    name: String,
    #[serde(default)]
    public_key: String,
}

async fn add(
    State(state): State<Arc<AppState>>,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewKey>,
) -> PageResult {
    let key = backend::ssh_keys::parse(&form.public_key).map_err(|_| {
        refused(
            FormError::SshKey,
            &[("name", &form.name), ("public_key", &form.public_key)],
        )
    })?;
    let now = state.clock.now();
    backend::ssh_keys::add(&state.db.pool, &current.user.id, &form.name, &key, now).await?;
    Ok(redirect(
        lang_of(&parts),
        &done_path("/keys", code::KEY_ADDED, None),
    ))
}

#[derive(Deserialize)]
struct Chosen {
    #[serde(default)]
    id: String,
}

async fn delete(
    State(state): State<Arc<AppState>>,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<Chosen>,
) -> PageResult {
    if !backend::ssh_keys::delete(&state.db, &current.user.id, &form.id).await? {
        return Err(PageError::NotFound);
    }
    Ok(redirect(
        lang_of(&parts),
        &done_path("/keys", code::KEY_DELETED, None),
    ))
}
