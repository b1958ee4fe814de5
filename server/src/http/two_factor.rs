//! Two-factor authentication over HTTP: enrolment and recovery codes, the
//! second login step, turning it off, and an owner's requirement.

use app::portal::two_factor::TwoFactorView;
use app::portal::{FormError, FormFeedback, Viewer};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use backend::accounts::two_factor::{self, TwoFactorError};
use backend::accounts::{throttle, user_by_id};
use domain::Lang;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::access::PageLang;
use super::auth::{same_origin, start_login, ClientIp, CurrentUser};
use super::portal::render;
use crate::startup::AppState;

/// Session keys: the secret being enrolled, and the user who passed the
/// password step but not yet the code.
const PENDING_SECRET: &str = "totp_pending";
pub const PENDING_USER: &str = "login_pending_user";
pub const PENDING_AT: &str = "login_pending_at";
/// The code step must follow the password step within this time.
const PENDING_SECS: i64 = 300;

fn failed(error: anyhow::Error) -> FormError {
    tracing::error!(error = %format!("{error:#}"), "two-factor operation failed");
    FormError::Unavailable
}

fn tfa_error(error: TwoFactorError) -> FormError {
    match error {
        TwoFactorError::BadCode => FormError::BadCode,
        TwoFactorError::BadPassword => FormError::WrongCurrentPassword,
        TwoFactorError::Throttled(secs) => FormError::Throttled(secs),
        TwoFactorError::Db(e) => failed(e),
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
        // Keep one pending secret per session, so a reload shows the same QR.
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

async fn show(
    state: &AppState,
    session: &Session,
    current: &CurrentUser,
    mut parts: Parts,
    feedback: FormFeedback,
) -> Response {
    match page_view(state, session, current).await {
        Ok(view) => {
            if let Ok(uri) = format!("/{}/account/2fa", lang_of(&parts).code()).parse::<http::Uri>()
            {
                if parts.uri.path() != uri.path() {
                    parts.uri = uri;
                }
            }
            parts.extensions.insert(view);
            render(state, parts, feedback).await
        }
        Err(error) => {
            render(
                state,
                parts,
                FormFeedback {
                    error: Some(failed(error)),
                    values: Vec::new(),
                },
            )
            .await
        }
    }
}

fn lang_of(parts: &Parts) -> Lang {
    app::context::lang_of_path(parts.uri.path()).unwrap_or_default()
}

pub async fn page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    session: Session,
    parts: Parts,
) -> Response {
    show(&state, &session, &current, parts, FormFeedback::default()).await
}

#[derive(Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    code: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// Confirms enrolment with a first code; answers with the recovery codes.
pub async fn confirm(
    State(state): State<Arc<AppState>>,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    session: Session,
    mut parts: Parts,
    Form(form): Form<CodeForm>,
) -> Response {
    let refuse = |error| FormFeedback {
        error: Some(error),
        values: Vec::new(),
    };
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return show(
            &state,
            &session,
            &current,
            parts,
            refuse(FormError::Forbidden),
        )
        .await;
    }
    let pending = match session.get::<String>(PENDING_SECRET).await {
        Ok(Some(secret)) => secret,
        Ok(None) => {
            return show(
                &state,
                &session,
                &current,
                parts,
                refuse(FormError::BadCode),
            )
            .await
        }
        Err(error) => {
            return show(
                &state,
                &session,
                &current,
                parts,
                refuse(failed(error.into())),
            )
            .await
        }
    };
    match two_factor::confirm(
        &state.db,
        &state.clock,
        &current.user,
        &pending,
        &form.code,
        &state.sealer,
    )
    .await
    {
        Ok(codes) => {
            let _ = session.remove::<String>(PENDING_SECRET).await;
            parts.extensions.insert(TwoFactorView {
                enabled: true,
                enrolment: None,
                recovery_codes: codes,
                required: false,
            });
            render(&state, parts, FormFeedback::default()).await
        }
        Err(error) => show(&state, &session, &current, parts, refuse(tfa_error(error))).await,
    }
}

pub async fn disable(
    State(state): State<Arc<AppState>>,
    Path(lang): Path<String>,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    session: Session,
    parts: Parts,
    Form(form): Form<CodeForm>,
) -> Response {
    let refuse = |error| FormFeedback {
        error: Some(error),
        values: Vec::new(),
    };
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return show(
            &state,
            &session,
            &current,
            parts,
            refuse(FormError::Forbidden),
        )
        .await;
    }
    match two_factor::disable(
        &state.db,
        &state.clock,
        &state.sealer,
        &current.user,
        &form.password,
        &form.code,
    )
    .await
    {
        Ok(()) => Redirect::to(&format!("/{lang}/account/2fa?done=off")).into_response(),
        Err(error) => show(&state, &session, &current, parts, refuse(tfa_error(error))).await,
    }
}

/// The second login step's page; without a pending login, back to step one.
pub async fn login_code_page(
    State(state): State<Arc<AppState>>,
    Path(lang): Path<String>,
    session: Session,
    parts: Parts,
) -> Response {
    match pending_user(&state, &session).await {
        Some(_) => render(&state, parts, FormFeedback::default()).await,
        None => Redirect::to(&format!("/{lang}/login")).into_response(),
    }
}

async fn pending_user(state: &AppState, session: &Session) -> Option<String> {
    let user = session.get::<String>(PENDING_USER).await.ok().flatten()?;
    let at = session.get::<i64>(PENDING_AT).await.ok().flatten()?;
    (state.clock.now() - at <= PENDING_SECS).then_some(user)
}

pub async fn login_code(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(ip): Extension<ClientIp>,
    session: Session,
    parts: Parts,
    Form(form): Form<CodeForm>,
) -> Response {
    let refuse = |error| FormFeedback {
        error: Some(error),
        values: Vec::new(),
    };
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return render(&state, parts, refuse(FormError::Forbidden)).await;
    }
    let Some(user_id) = pending_user(&state, &session).await else {
        return Redirect::to(&format!("/{}/login", lang.code())).into_response();
    };
    let user = match user_by_id(&state.db, &user_id).await {
        Ok(Some(user)) => user,
        Ok(None) => return Redirect::to(&format!("/{}/login", lang.code())).into_response(),
        Err(error) => return render(&state, parts, refuse(failed(error))).await,
    };
    let now = state.clock.now();
    // Wrong codes have a count of their own that locks this step; a right
    // password does not reset it.
    let checked = two_factor::verify_counted(
        &state.db,
        &state.clock,
        &state.sealer,
        &user,
        &form.code,
        Some(&ip.0),
    );
    match checked.await {
        Ok(()) => {
            let _ = session.remove::<String>(PENDING_USER).await;
            // The whole login succeeded: both counts are forgiven.
            if let Err(error) = throttle::clear_account(&state.db, &user.email).await {
                return render(&state, parts, refuse(failed(error))).await;
            }
            match start_login(&session, &user.id, now).await {
                Ok(()) => {
                    Redirect::to(&super::auth::after_login(&session, lang).await).into_response()
                }
                Err(error) => render(&state, parts, refuse(failed(error))).await,
            }
        }
        Err(error) => render(&state, parts, refuse(tfa_error(error))).await,
    }
}
