//! How to reach support: the address from configuration, what to put in
//! the message, and the portal pages that often answer the question first.

use domain::Lang;
use leptos::prelude::*;

use super::href;
use super::layout::Page;
use super::legal::SupportEmail;
use crate::i18n::site;

#[component]
pub fn SupportPage(lang: Lang) -> impl IntoView {
    let s = site(lang);
    view! {
        <Page lang title=s.support_title.to_owned() description=s.support_description.to_owned() rest="/support".to_owned()>
            <article class="section legal" aria-labelledby="legal-title">
                <h1 id="legal-title">{s.support_title}</h1>
                <p class="lead">{s.support_intro}</p>
                <p class="support-email">
                    {s.support_write_to}" "
                    <SupportEmail />
                </p>
                <p class="support-request-link">
                    <a class="button" href=href(lang, "/support/requests/new") data-testid="open-support-request">{crate::i18n::support(lang).storefront_link}</a>
                    <br />
                    <span class="hint">{crate::i18n::support(lang).storefront_link_note}</span>
                </p>
                <h2>{s.support_include_heading}</h2>
                <ul>{s.support_include.iter().map(|item| view! { <li>{*item}</li> }).collect_view()}</ul>
                <p>{s.support_no_promise}</p>
                <h2>{s.support_self_heading}</h2>
                <p>{s.support_self_intro}</p>
                <ul data-testid="support-portal-links">
                    <li><a href=href(lang, "/servers")>{s.support_servers_link}</a></li>
                    <li><a href=href(lang, "/billing")>{s.support_billing_link}</a></li>
                    <li><a href=href(lang, "/account")>{s.support_account_link}</a></li>
                    <li><a href=href(lang, super::api_docs::REST)>{crate::i18n::api_docs(lang).support_link}</a></li>
                </ul>
                <p>
                    {s.support_scale}" "
                    <a href=href(lang, super::sections::SCALE_OUT_FORM) data-testid="scale-out-link">{crate::i18n::support(lang).step_link}</a>
                </p>
            </article>
        </Page>
    }
    .into_any()
}
