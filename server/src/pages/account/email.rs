//! Confirming a new email address from the link sent to it.

use app::i18n::portal;
use app::portal::forms::{CsrfField, FormErrorNotice};
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;

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
