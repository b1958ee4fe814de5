//! The user's SSH keys (owners and technical members, who order servers):
//! the page that lists them, adding one and deleting one.

use crate::http::page::{
    lang_of, page, redirect, refused, PageError, PageResult, SameOrigin, Signed,
};
use crate::http::routes::{Route, TECHNICAL};
use crate::startup::AppState;
use app::i18n::orders;
use app::portal::forms::{CsrfField, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::notices::SavedNotice;
use app::portal::notices::{code, done_path};
use app::portal::use_feedback;
use app::portal::FormError;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use domain::Lang;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KeysView {
    /// (id, name, fingerprint, added at)
    pub keys: Vec<(String, String, String, i64)>,
}

#[component]
pub fn KeysPage(lang: Lang, view: KeysView) -> impl IntoView {
    let o = orders(lang);
    let feedback = use_feedback();
    let empty = view.keys.is_empty();
    let rows = view
        .keys
        .into_iter()
        .map(|(id, name, fingerprint, at)| {
            let key_attr = fingerprint.clone();
            view! {
                <tr data-key=key_attr>
                    <th scope="row">{name}</th>
                    <td><code class="fingerprint">{fingerprint}</code></td>
                    <td>{domain::time::format_date(at)}</td>
                    <td>
                        <form method="post" action=href(lang, "/keys/delete") class="inline">
                            <CsrfField />
                            <input type="hidden" name="id" value=id />
                            <button type="submit" class="secondary">{o.keys_delete}</button>
                        </form>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=o.keys_title.to_owned() description=o.keys_title.to_owned() rest="/keys".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="keys-title">
                <PortalNav lang />
                <h1 id="keys-title">{o.keys_title}</h1>
                <p class="lead">{o.keys_intro}</p>
                <FormErrorNotice lang />
                <SavedNotice lang />
                {if empty {
                    view! { <p>{o.keys_empty}</p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.keys_title)>
                            <table class="keys">
                                <thead>
                                    <tr>
                                        <th scope="col">{o.keys_name}</th>
                                        <th scope="col">{o.keys_fingerprint}</th>
                                        <th scope="col">{o.keys_added_at}</th>
                                        <th scope="col"><span class="sr-only">{o.keys_delete}</span></th>
                                    </tr>
                                </thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    }
                    .into_any()
                }}
                <h2>{o.keys_add_title}</h2>
                <form method="post" action=href(lang, "/keys/add")>
                    <CsrfField />
                    <div class="field">
                        <label for="key-name">{o.keys_name}</label>
                        <input id="key-name" name="name" value=feedback.value("name") maxlength="100" />
                    </div>
                    <div class="field">
                        <label for="public-key">{o.keys_key}</label>
                        <textarea id="public-key" name="public_key" rows="3" required spellcheck="false" aria-describedby="key-hint">{feedback.value("public_key")}</textarea>
                        <p class="hint" id="key-hint">{o.order_new_key_hint}</p>
                    </div>
                    <button type="submit">{o.keys_add_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(KeysView => KeysPage(view));

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
