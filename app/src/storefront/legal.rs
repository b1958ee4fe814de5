//! The terms, the privacy notice and the imprint: short texts specific to
//! this product, in both languages, naming the company from configuration.

use domain::Lang;
use leptos::prelude::*;

use super::href;
use super::layout::Page;
use crate::context::use_site_info;
use crate::i18n::site;
use crate::i18n::site::Part;

/// A long text's parts, each under its own heading.
#[component]
fn Parts(parts: &'static [Part]) -> impl IntoView {
    parts
        .iter()
        .map(|part| {
            view! {
                <h2>{part.heading}</h2>
                {part.paras.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
            }
        })
        .collect_view()
}

/// The support address as a mail link.
#[component]
pub fn SupportEmail() -> impl IntoView {
    let email = use_site_info().company.support_email;
    view! { <a href=format!("mailto:{email}") data-testid="support-email">{email.clone()}</a> }
}

#[component]
pub fn TermsPage(lang: Lang) -> impl IntoView {
    let s = site(lang);
    let company = use_site_info().company;
    let rows = s
        .sla_rows
        .iter()
        .map(|(availability, credit)| {
            view! {
                <tr>
                    <th scope="row">{*availability}</th>
                    <td>{*credit}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=s.terms_title.to_owned() description=s.terms_description.to_owned() rest="/terms".to_owned()>
            <article class="section legal" aria-labelledby="legal-title">
                <h1 id="legal-title">{s.terms_title}</h1>
                <p class="lead">{(s.terms_party)(&company.legal_name)}</p>
                <Parts parts=s.terms_parts />
                <h2 id="sla">{s.terms_sla_heading}</h2>
                <p>{s.terms_sla_intro}</p>
                <table class="sla-table">
                    <thead>
                        <tr>
                            <th scope="col">{s.sla_availability}</th>
                            <th scope="col">{s.sla_credit}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
                {s.terms_sla_after.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
                <p>
                    <a href=href(lang, "/privacy")>{s.privacy}</a>
                    " · "
                    <a href=href(lang, "/imprint")>{s.imprint}</a>
                </p>
            </article>
        </Page>
    }
    .into_any()
}

#[component]
pub fn PrivacyPage(lang: Lang) -> impl IntoView {
    let s = site(lang);
    let company = use_site_info().company;
    view! {
        <Page lang title=s.privacy_title.to_owned() description=s.privacy_description.to_owned() rest="/privacy".to_owned()>
            <article class="section legal" aria-labelledby="legal-title">
                <h1 id="legal-title">{s.privacy_title}</h1>
                <p class="lead">{(s.privacy_controller)(&company.legal_name)}</p>
                <Parts parts=s.privacy_parts />
                <p>
                    {s.privacy_contact}" "
                    <SupportEmail />
                </p>
            </article>
        </Page>
    }
    .into_any()
}

#[component]
pub fn ImprintPage(lang: Lang) -> impl IntoView {
    let s = site(lang);
    let company = use_site_info().company;
    view! {
        <Page lang title=s.imprint_title.to_owned() description=s.imprint_description.to_owned() rest="/imprint".to_owned()>
            <article class="section legal" aria-labelledby="legal-title">
                <h1 id="legal-title">{s.imprint_title}</h1>
                <p>{s.imprint_intro}</p>
                <dl class="imprint" data-testid="imprint">
                    <dt>{s.imprint_name}</dt>
                    <dd>{company.legal_name}</dd>
                    <dt>{s.imprint_address}</dt>
                    <dd>{company.address}</dd>
                    <dt>{s.imprint_register}</dt>
                    <dd>{company.register}</dd>
                    <dt>{s.imprint_vat_id}</dt>
                    <dd>{company.vat_id}</dd>
                    <dt>{s.imprint_email}</dt>
                    <dd><SupportEmail /></dd>
                </dl>
            </article>
        </Page>
    }
    .into_any()
}

/// The footer pages' addresses after the language, for the sitemap.
pub const PAGES: [&str; 4] = ["/support", "/terms", "/privacy", "/imprint"];
