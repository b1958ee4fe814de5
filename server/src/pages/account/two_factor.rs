//! Two-factor authentication: enrolling an authenticator app, the recovery
//! codes (shown once), the second login step, turning it off, and an
//! owner's requirement for the organization.

use crate::http::auth::{after_login, start_login, CurrentUser};
use crate::http::page::{
    client_ip, plain, redirect, PageError, PageLang, PageResult, SameOrigin, Signed,
};
use crate::http::routes::shows;
use crate::http::routes::{Access, Route};
use crate::startup::AppState;
use app::i18n::portal;
use app::portal::forms::{CsrfField, Field, FormErrorNotice, Notice};
use app::portal::notices::SavedNotice;
use app::portal::notices::{code, done_path};
use app::portal::FormError;
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use axum::response::{IntoResponse, Redirect};
use backend::accounts::two_factor::{self, TwoFactorError};
use backend::accounts::{throttle, user_by_id};
use domain::Lang;
use domain::UserId;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

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
                <Field lang label=p.account_current_password.to_owned() name="password" kind="password" autocomplete="current-password" />
                <Field lang label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" hint=p.tfa_code_hint />
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
                <Field lang label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" />
                <button type="submit">{p.tfa_confirm}</button>
            </form>
        }
        .into_any()
    };
    view! {
        <Page lang title=p.tfa_title.to_owned() description=p.tfa_title.to_owned() rest="/account/2fa".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="tfa-title">
                <app::portal::nav::PortalNav lang />
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
                    <Field lang label=p.tfa_code.to_owned() name="code" autocomplete="one-time-code" hint=p.tfa_code_hint />
                    <button type="submit">{p.login_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(TwoFactorView => TwoFactorPage(view));

pub fn routes() -> Vec<Route> {
    use Access::{Anyone, Enrolling};
    vec![
        Route::get("/{lang}/account/2fa", Enrolling, page),
        Route::post("/{lang}/account/2fa", Enrolling, confirm),
        Route::post("/{lang}/account/2fa/disable", Enrolling, disable),
        Route::get("/{lang}/login/code", Anyone, login_code_page).shows(shows!(LoginCodePage)),
        Route::post("/{lang}/login/code", Anyone, login_code),
    ]
}

/// Session keys: the secret being enrolled, and the user who passed the
/// password step but not yet the code.
const PENDING_SECRET: &str = "totp_pending";
pub const PENDING_USER: &str = "login_pending_user";
pub const PENDING_AT: &str = "login_pending_at";
/// The code step must follow the password step within this time.
const PENDING_SECS: i64 = 300;

impl From<TwoFactorError> for PageError {
    fn from(error: TwoFactorError) -> Self {
        match error {
            TwoFactorError::BadCode => FormError::BadCode.into(),
            TwoFactorError::BadPassword => FormError::WrongCurrentPassword.into(),
            TwoFactorError::Throttled(secs) => FormError::Throttled(secs).into(),
            TwoFactorError::Db(error) => PageError::Unavailable(error),
        }
    }
}

async fn page_view(
    state: &AppState,
    session: &Session,
    current: &CurrentUser,
) -> anyhow::Result<TwoFactorView> {
    let enabled = two_factor::is_enabled(&state.db, &current.user.id).await?;
    let required = match &current.membership {
        Some(m) => two_factor::required_by(&state.db, &m.organization_id).await?,
        None => false,
    };
    let enrolment = if enabled {
        None
    } else {
        // Keep one pending secret per session, so a reload (or the page
        // shown again for a refused code) shows the same QR.
        let secret = match session.get::<String>(PENDING_SECRET).await? {
            Some(secret) => secret,
            None => {
                let fresh = two_factor::begin(&current.user)?.secret;
                session.insert(PENDING_SECRET, &fresh).await?;
                fresh
            }
        };
        let enrolment = two_factor::enrolment_for(&current.user, &secret)?;
        Some((enrolment.secret, enrolment.qr_svg))
    };
    Ok(TwoFactorView {
        enabled,
        enrolment,
        recovery_codes: Vec::new(),
        required,
    })
}

/// The enrolment page; also shows a refused confirmation or disabling
/// again (with that form's feedback).
pub async fn page(
    State(state): State<Arc<AppState>>,
    Signed(current): Signed,
    session: Session,
    parts: Parts,
) -> PageResult {
    let view = page_view(&state, &session, &current).await?;
    crate::http::page::page(&state, parts, view).await
}

#[derive(Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    code: String,
    #[serde(default)]
    password: String,
}

/// Confirms enrolment with a first code; answers with the recovery codes.
pub async fn confirm(
    State(state): State<Arc<AppState>>,
    Signed(current): Signed,
    session: Session,
    parts: Parts,
    SameOrigin(form): SameOrigin<CodeForm>,
) -> PageResult {
    let pending = session
        .get::<String>(PENDING_SECRET)
        .await
        .map_err(anyhow::Error::from)?
        .ok_or(FormError::BadCode)?;
    let codes = two_factor::confirm(
        &state.db,
        &state.clock,
        &current.user,
        &pending,
        &form.code,
        &state.sealer,
    )
    .await?;
    let _ = session.remove::<String>(PENDING_SECRET).await;
    let view = TwoFactorView {
        enabled: true,
        enrolment: None,
        recovery_codes: codes,
        required: false,
    };
    crate::http::page::page(&state, parts, view).await
}

pub async fn disable(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    SameOrigin(form): SameOrigin<CodeForm>,
) -> PageResult {
    two_factor::disable(
        &state.db,
        &state.clock,
        &state.sealer,
        &current.user,
        &form.password,
        &form.code,
    )
    .await?;
    Ok(redirect(
        lang,
        &done_path("/account/2fa", code::TFA_OFF, None),
    ))
}

/// The second login step's page; without a pending login, back to step one.
pub async fn login_code_page(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    session: Session,
    parts: Parts,
) -> PageResult {
    match pending_user(&state, &session).await {
        Some(_) => Ok(plain(&state, parts, shows!(LoginCodePage)).await),
        None => Ok(redirect(lang, "/login")),
    }
}

async fn pending_user(state: &AppState, session: &Session) -> Option<UserId> {
    let user = session.get::<UserId>(PENDING_USER).await.ok().flatten()?;
    let at = session.get::<i64>(PENDING_AT).await.ok().flatten()?;
    (state.clock.now() - at <= PENDING_SECS).then_some(user)
}

pub async fn login_code(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    session: Session,
    parts: Parts,
    SameOrigin(form): SameOrigin<CodeForm>,
) -> PageResult {
    let Some(user_id) = pending_user(&state, &session).await else {
        return Ok(redirect(lang, "/login"));
    };
    let Some(user) = user_by_id(&state.db, &user_id).await? else {
        return Ok(redirect(lang, "/login"));
    };
    let now = state.clock.now();
    // Wrong codes have a count of their own that locks this step; a right
    // password does not reset it.
    let ip = client_ip(&parts);
    two_factor::verify_counted(
        &state.db,
        &state.clock,
        &state.sealer,
        &user,
        &form.code,
        ip.as_deref(),
    )
    .await?;
    let _ = session.remove::<String>(PENDING_USER).await;
    // The whole login succeeded: both counts are forgiven.
    throttle::clear_account(&state.db, &user.email).await?;
    start_login(&session, &user.id, now).await?;
    Ok(Redirect::to(&after_login(&state, &session, &user, lang).await?).into_response())
}
