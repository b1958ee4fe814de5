//! Two-factor authentication: enrolling an authenticator app, the recovery
//! codes (shown once), turning it off, and the second login step.

use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, Field, FormErrorNotice, Notice};
use super::notices::SavedNotice;
use crate::i18n::portal;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TwoFactorView {
    pub enabled: bool,
    /// Base32 secret and its QR code (SVG) while enrolling.
    pub enrolment: Option<(String, String)>,
    /// Just after enrolling: the recovery codes, shown this once.
    pub recovery_codes: Vec<String>,
    /// The current organization requires 2FA.
    pub required: bool,
}

#[component]
pub fn TwoFactorPage(lang: Lang, view: TwoFactorView) -> impl IntoView {
    let p = portal(lang);
    let notice = (view.required && !view.enabled).then_some(p.tfa_required_notice);
    let body = if !view.recovery_codes.is_empty() {
        let codes = view
            .recovery_codes
            .iter()
            .map(|c| view! { <li><code>{c.clone()}</code></li> })
            .collect_view();
        view! {
            <p role="status" data-testid="notice">{p.tfa_enabled_now}</p>
            <h2>{p.tfa_recovery_title}</h2>
            <p>{p.tfa_recovery_body}</p>
            <ol class="recovery-codes" data-testid="recovery-codes">{codes}</ol>
            <p><a class="button" href=href(lang, "/account")>{p.account_title}</a></p>
        }
        .into_any()
    } else if view.enabled {
        view! {
            <p data-testid="tfa-state">{p.tfa_is_on}</p>
            <h2>{p.tfa_disable}</h2>
            <FormErrorNotice lang />
            <form method="post" action=href(lang, "/account/2fa/disable")>
                <CsrfField />
                <Field label=p.account_current_password.to_owned() name="password" kind="password" autocomplete="current-password" />
                <Field label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" hint=p.tfa_code_hint />
                <button type="submit" class="button-secondary">{p.tfa_disable}</button>
            </form>
        }
        .into_any()
    } else {
        let (secret, svg) = view.enrolment.clone().unwrap_or_default();
        view! {
            <p data-testid="tfa-state">{p.tfa_is_off}</p>
            <h2>{p.tfa_enrol}</h2>
            <p>{p.tfa_scan}</p>
            <div class="qr" role="img" aria-label=p.tfa_qr_label inner_html=svg></div>
            <p>{p.tfa_manual}" "<code data-testid="tfa-secret">{secret}</code></p>
            <FormErrorNotice lang />
            <form method="post" action=href(lang, "/account/2fa")>
                <CsrfField />
                <Field label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" />
                <button type="submit">{p.tfa_confirm}</button>
            </form>
        }
        .into_any()
    };
    view! {
        <Page lang title=p.tfa_title.to_owned() description=p.tfa_title.to_owned() rest="/account/2fa".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="tfa-title">
                <super::nav::PortalNav lang />
                <h1 id="tfa-title">{p.tfa_title}</h1>
                <SavedNotice lang />
                <Notice text=notice />
                {body}
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn LoginCodePage(lang: Lang) -> impl IntoView {
    let p = portal(lang);
    view! {
        <Page lang title=p.tfa_login_title.to_owned() description=p.tfa_login_title.to_owned() rest="/login/code".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="code-title">
                <h1 id="code-title">{p.tfa_login_title}</h1>
                <FormErrorNotice lang />
                <p>{p.tfa_login_body}</p>
                <form method="post" action=href(lang, "/login/code")>
                    <CsrfField />
                    <Field label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" hint=p.tfa_code_hint />
                    <button type="submit">{p.login_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(TwoFactorView => TwoFactorPage(view));
