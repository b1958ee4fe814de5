//! The user's SSH keys: list, add, delete.

use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice};
use super::nav::PortalNav;
use super::notices::SavedNotice;
use super::use_feedback;
use crate::i18n::orders;
use crate::storefront::href;
use crate::storefront::layout::Page;

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
                        <div class="table-scroll" role="region" tabindex="0" aria-label=o.keys_title>
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

crate::page_view!(KeysView => KeysPage(view));
