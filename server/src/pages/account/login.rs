//! Logging in.

use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice, Notice};
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn LoginPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    let feedback = use_feedback();
    let notice = match query("done").as_deref() {
        Some("verified") => Some(p.login_verified),
        Some("reset") => Some(p.login_reset_done),
        Some("logout") => Some(p.logged_out),
        Some("deleted") => Some(p.deleted),
        Some("email") => Some(p.email_changed),
        _ => None,
    };
    view! {
        <Page lang title=p.login_title.to_owned() description=p.login_title.to_owned() rest="/login".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="login-title">
                <h1 id="login-title">{p.login_title}</h1>
                <Notice text=notice />
                // Sent here from a portal page: a request, not a success.
                {(query("done").as_deref() == Some("login")).then(|| view! {
                    <p class="notice" role="status" data-testid="notice">{p.login_needed}</p>
                })}
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/login")>
                    <CsrfField />
                    <Field lang label=p.email.to_owned() name="email" kind="email" value=feedback.value("email") autocomplete="username" />
                    <Field lang label=p.password.to_owned() name="password" kind="password" autocomplete="current-password" />
                    <button type="submit">{p.login_submit}</button>
                </form>
                <p><a href=href(lang, "/forgot")>{p.login_forgot}</a></p>
                <p><a href=href(lang, "/signup")>{p.login_no_account}</a></p>
            </section>
        </Page>
    }
    .into_any()
}
