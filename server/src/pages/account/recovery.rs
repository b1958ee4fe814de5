//! Confirming an email and resetting a forgotten password. Links in mails
//! open a page with a button: following a link never changes anything.

use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice, Notice};
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn VerifyPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    let token = query("token").unwrap_or_else(|| use_feedback().value("token"));
    view! {
        <Page lang title=p.verify_title.to_owned() description=p.verify_title.to_owned() rest="/verify".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="verify-title">
                <h1 id="verify-title">{p.verify_title}</h1>
                <FormErrorNotice lang />
                <p>{p.verify_body}</p>
                <form method="post" action=href(lang, "/verify")>
                    <CsrfField />
                    <input type="hidden" name="token" value=token />
                    <button type="submit">{p.verify_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn ForgotPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    let sent = query("sent").is_some().then_some(p.forgot_sent);
    view! {
        <Page lang title=p.forgot_title.to_owned() description=p.forgot_body.to_owned() rest="/forgot".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="forgot-title">
                <h1 id="forgot-title">{p.forgot_title}</h1>
                <Notice text=sent />
                <FormErrorNotice lang />
                <p>{p.forgot_body}</p>
                <form method="post" action=href(lang, "/forgot")>
                    <CsrfField />
                    <Field lang label=p.email.to_owned() name="email" kind="email" value=use_feedback().value("email") autocomplete="email" />
                    <button type="submit">{p.forgot_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn ResetPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    let token = query("token").unwrap_or_else(|| use_feedback().value("token"));
    view! {
        <Page lang title=p.reset_title.to_owned() description=p.reset_title.to_owned() rest="/reset".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="reset-title">
                <h1 id="reset-title">{p.reset_title}</h1>
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/reset")>
                    <CsrfField />
                    <input type="hidden" name="token" value=token />
                    <Field
                        lang
                        label=p.reset_new_password.to_owned()
                        name="password"
                        kind="password"
                        autocomplete="new-password"
                        hint=p.password_hint
                    />
                    <button type="submit">{p.reset_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}
