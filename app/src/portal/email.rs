//! Confirming a new email address from the link sent to it.

use domain::Lang;
use leptos::prelude::*;

use super::forms::{CsrfField, FormErrorNotice};
use super::{query, use_feedback};
use crate::i18n::portal;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[component]
pub fn ConfirmEmailPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    let token = query("token").unwrap_or_else(|| use_feedback().value("token"));
    view! {
        <Page lang title=p.email_confirm_title.to_owned() description=p.email_confirm_title.to_owned() rest="/email".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="email-title">
                <h1 id="email-title">{p.email_confirm_title}</h1>
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/email")>
                    <CsrfField />
                    <input type="hidden" name="token" value=token />
                    <button type="submit">{p.email_confirm_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}
