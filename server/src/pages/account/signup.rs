//! Signing up: the account, its organization, and the confirmation mail.

use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice};
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn SignupPage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    if query("sent").is_some() {
        return view! {
            <Page lang title=p.signup_sent_title.to_owned() description=p.signup_sent_title.to_owned() rest="/signup".to_owned() noindex=true>
                <section class="section portal-form" aria-labelledby="sent-title">
                    <h1 id="sent-title">{p.signup_sent_title}</h1>
                    <p role="status" data-testid="notice">{p.signup_sent_body}</p>
                    <p><a href=href(lang, "/login")>{p.login_title}</a></p>
                </section>
            </Page>
        }
        .into_any();
    }
    let feedback = use_feedback();
    let chosen = Lang::from_code(&feedback.value("lang")).unwrap_or(lang);
    view! {
        <Page lang title=p.signup_title.to_owned() description=p.signup_intro.to_owned() rest="/signup".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="signup-title">
                <h1 id="signup-title">{p.signup_title}</h1>
                <p class="lead">{p.signup_intro}</p>
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/signup")>
                    <CsrfField />
                    <Field lang label=p.name.to_owned() name="name" value=feedback.value("name") autocomplete="name" />
                    <Field lang label=p.email.to_owned() name="email" kind="email" value=feedback.value("email") autocomplete="email" />
                    <Field
                        lang
                        label=p.password.to_owned()
                        name="password"
                        kind="password"
                        autocomplete="new-password"
                        hint=p.password_hint
                    />
                    <Field
                        lang
                        label=format!("{}{}", p.company, p.optional)
                        name="company"
                        value=feedback.value("company")
                        autocomplete="organization"
                        required=false
                    />
                    <div class="field">
                        <label for="lang">{p.language}</label>
                        <select id="lang" name="lang">
                            <option value="zh" selected=chosen == Lang::Zh>"中文"</option>
                            <option value="en" selected=chosen == Lang::En>"English"</option>
                        </select>
                    </div>
                    <button type="submit">{p.signup_submit}</button>
                </form>
                <p><a href=href(lang, "/login")>{p.signup_have_account}</a></p>
            </section>
        </Page>
    }
    .into_any()
}
