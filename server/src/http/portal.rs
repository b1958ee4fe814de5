//! The portal's form posts. Each identifies the caller, checks the request
//! came from our pages, calls the accounts capability and answers with a
//! redirect (success) or the same page with a translated error.

use app::portal::{FormError, FormFeedback, Viewer};
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use backend::accounts::{self, AccountError, Links, PasswordProblem, SignUp};
use domain::Lang;
use http::request::Parts;
use http::{Method, StatusCode};
use leptos::prelude::provide_context;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

use super::access::PageLang;
use super::auth::{after_login, same_origin, start_login, ClientIp, CurrentUser};
use crate::startup::AppState;

/// Renders the page at this request's address with the error and the
/// fields to show again.
pub async fn render(state: &AppState, mut parts: Parts, feedback: FormFeedback) -> Response {
    let status = feedback.error.map_or(200, |e| e.status());
    parts.method = Method::GET;
    parts.extensions.insert(feedback);
    let site_info = state.site_info.clone();
    let options = state.leptos_options.clone();
    let handler = leptos_axum::render_app_to_stream_with_context(
        move || provide_context(site_info.clone()),
        move || app::shell(options.clone()),
    );
    let mut response = handler(Request::from_parts(parts, Body::empty())).await;
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
    response
}

pub async fn render_error(state: &AppState, req: Request, error: FormError) -> Response {
    let (parts, _) = req.into_parts();
    render(
        state,
        parts,
        FormFeedback {
            error: Some(error),
            values: Vec::new(),
        },
    )
    .await
}

fn form_error(error: AccountError) -> FormError {
    match error {
        AccountError::InvalidEmail => FormError::InvalidEmail,
        AccountError::InvalidName => FormError::InvalidName,
        AccountError::InvalidCompany => FormError::InvalidCompany,
        AccountError::Password(PasswordProblem::TooShort) => FormError::PasswordTooShort,
        AccountError::Password(PasswordProblem::TooLong) => FormError::PasswordTooLong,
        AccountError::Password(PasswordProblem::TooCommon) => FormError::PasswordTooCommon,
        AccountError::BadCredentials => FormError::BadCredentials,
        AccountError::NotVerified => FormError::NotVerified,
        AccountError::Throttled(secs) => FormError::Throttled(secs),
        AccountError::BadLink => FormError::BadLink,
        AccountError::Db(error) => {
            tracing::error!(error = %format!("{error:#}"), "account operation failed");
            FormError::Unavailable
        }
    }
}

struct Post<'a> {
    state: &'a AppState,
    parts: Parts,
    viewer: Viewer,
}

impl Post<'_> {
    /// The page again with an error and the given fields.
    async fn refuse(self, error: FormError, values: &[(&str, &str)]) -> Response {
        let values = values
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        render(
            self.state,
            self.parts,
            FormFeedback {
                error: Some(error),
                values,
            },
        )
        .await
    }

    fn trusted(&self, token: &str) -> bool {
        same_origin(self.state, &self.parts.headers, token, &self.viewer)
    }

    fn links(&self) -> Links {
        Links {
            base_url: self.state.config.public_base_url.clone(),
        }
    }
}

fn to(lang: Lang, rest: &str) -> Response {
    Redirect::to(&format!("/{}{rest}", lang.code())).into_response()
}

#[derive(Deserialize)]
pub struct SignupForm {
    name: String,
    email: String,
    password: String,
    #[serde(default)]
    company: String,
    #[serde(default)]
    lang: String,
    #[serde(default)]
    csrf: String,
}

pub async fn signup(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(ip): Extension<ClientIp>,
    parts: Parts,
    Form(form): Form<SignupForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    let keep = [
        ("name", form.name.as_str()),
        ("email", form.email.as_str()),
        ("company", form.company.as_str()),
        ("lang", form.lang.as_str()),
    ];
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &keep).await;
    }
    if let Err(error) = mail_allowed(&state, &ip.0, &form.email).await {
        return post.refuse(error, &keep).await;
    }
    let input = SignUp {
        email: form.email.clone(),
        password: form.password,
        name: form.name.clone(),
        company: Some(form.company.clone()),
        lang: Lang::from_code(&form.lang).unwrap_or(lang),
    };
    match accounts::sign_up(&state.db, &state.clock, &post.links(), input).await {
        Ok(()) => to(lang, "/signup?sent=1"),
        Err(error) => post.refuse(form_error(error), &keep).await,
    }
}

#[derive(Deserialize)]
pub struct LoginForm {
    email: String,
    password: String,
    #[serde(default)]
    csrf: String,
}

pub async fn login(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(ip): Extension<ClientIp>,
    session: Session,
    parts: Parts,
    Form(form): Form<LoginForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    let keep = [("email", form.email.as_str())];
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &keep).await;
    }
    let accepted =
        match accounts::log_in(&state.db, &state.clock, &form.email, &form.password, &ip.0).await {
            Ok(accepted) => accepted,
            Err(error) => return post.refuse(form_error(error), &keep).await,
        };
    let (user, now) = (accepted.user, state.clock.now());
    let result = if accepted.needs_code {
        // The password was right; the session is not logged in until the code is.
        pending_second_step(&session, &user.id, now)
            .await
            .map(|()| format!("/{}/login/code", lang.code()))
    } else {
        match start_login(&session, &user.id, now).await {
            Ok(()) => Ok(after_login(&session, lang).await),
            Err(error) => Err(error),
        }
    };
    match result {
        Ok(next) => Redirect::to(&next).into_response(),
        Err(error) => {
            post.refuse(form_error(AccountError::Db(error)), &keep)
                .await
        }
    }
}

async fn pending_second_step(session: &Session, user_id: &str, now: i64) -> anyhow::Result<()> {
    use super::two_factor::{PENDING_AT, PENDING_USER};
    session.cycle_id().await?;
    session.insert(PENDING_USER, user_id).await?;
    session.insert(PENDING_AT, now).await?;
    Ok(())
}

#[derive(Deserialize)]
pub struct CsrfOnly {
    #[serde(default)]
    csrf: String,
}

pub async fn logout(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    session: Session,
    parts: Parts,
    Form(form): Form<CsrfOnly>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &[]).await;
    }
    // Deletes the record server-side, not just the cookie.
    if let Err(error) = session.flush().await {
        tracing::error!(%error, "ending a session failed");
        return post.refuse(FormError::Unavailable, &[]).await;
    }
    to(lang, "/login?done=logout")
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

pub async fn verify(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    parts: Parts,
    Form(form): Form<TokenForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post
            .refuse(FormError::Forbidden, &[("token", &form.token)])
            .await;
    }
    match accounts::verify_email(&state.db, &state.clock, &form.token).await {
        Ok(_) => to(lang, "/login?done=verified"),
        Err(error) => post.refuse(form_error(error), &[]).await,
    }
}

#[derive(Deserialize)]
pub struct EmailForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    csrf: String,
}

pub async fn forgot(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(ip): Extension<ClientIp>,
    parts: Parts,
    Form(form): Form<EmailForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post
            .refuse(FormError::Forbidden, &[("email", &form.email)])
            .await;
    }
    if let Err(error) = mail_allowed(&state, &ip.0, &form.email).await {
        return post.refuse(error, &[("email", &form.email)]).await;
    }
    match accounts::request_reset(&state.db, &state.clock, &post.links(), &form.email).await {
        Ok(()) => to(lang, "/forgot?sent=1"),
        Err(error) => {
            post.refuse(form_error(error), &[("email", &form.email)])
                .await
        }
    }
}

pub async fn reset(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    parts: Parts,
    Form(form): Form<TokenForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    let keep = [("token", form.token.as_str())];
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &keep).await;
    }
    match accounts::reset_password(&state.db, &state.clock, &form.token, &form.password).await {
        Ok(_) => to(lang, "/login?done=reset"),
        Err(error) => post.refuse(form_error(error), &keep).await,
    }
}

#[derive(Deserialize)]
pub struct PasswordForm {
    current: String,
    password: String,
    repeat: String,
    #[serde(default)]
    csrf: String,
}

pub async fn change_password(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    current: Option<Extension<CurrentUser>>,
    parts: Parts,
    Form(form): Form<PasswordForm>,
) -> Response {
    let Some(Extension(current)) = current else {
        return to(lang, "/login?done=login");
    };
    let mut parts = parts;
    // Errors show on the account page, where the form is.
    if let Ok(uri) = format!("/{}/account", lang.code()).parse() {
        parts.uri = uri;
    }
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &[]).await;
    }
    if form.password != form.repeat {
        return post.refuse(FormError::PasswordsDiffer, &[]).await;
    }
    let result = accounts::change_password(
        &state.db,
        &state.clock,
        &current.user.id,
        &form.current,
        &form.password,
        &current.session_id,
    )
    .await;
    match result {
        Ok(()) => to(lang, "/account?done=password"),
        Err(AccountError::BadCredentials) => {
            post.refuse(FormError::WrongCurrentPassword, &[]).await
        }
        Err(error) => post.refuse(form_error(error), &[]).await,
    }
}

#[derive(Deserialize)]
pub struct EmailChangeForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    current: String,
    #[serde(default)]
    csrf: String,
}

/// Errors of account-page forms show on the account page.
fn on_account_page(mut parts: Parts, lang: Lang) -> Parts {
    if let Ok(uri) = format!("/{}/account", lang.code()).parse() {
        parts.uri = uri;
    }
    parts
}

pub async fn change_email(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
    Form(form): Form<EmailChangeForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts: on_account_page(parts, lang),
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &[]).await;
    }
    let links = post.links();
    match accounts::lifecycle::request_email_change(
        &state.db,
        &state.clock,
        &links,
        &current.user,
        &form.current,
        &form.email,
    )
    .await
    {
        Ok(()) => to(lang, "/account?done=email-sent"),
        Err(AccountError::BadCredentials) => {
            post.refuse(FormError::WrongCurrentPassword, &[]).await
        }
        Err(error) => post.refuse(form_error(error), &[]).await,
    }
}

pub async fn confirm_email(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Extension(viewer): Extension<Viewer>,
    parts: Parts,
    Form(form): Form<TokenForm>,
) -> Response {
    let post = Post {
        state: &state,
        parts,
        viewer,
    };
    let keep = [("token", form.token.as_str())];
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &keep).await;
    }
    match accounts::lifecycle::confirm_email_change(&state.db, &state.clock, &form.token).await {
        Ok(_) => to(lang, "/login?done=email"),
        Err(error) => post.refuse(form_error(error), &[]).await,
    }
}

#[derive(Deserialize)]
pub struct DeleteForm {
    #[serde(default)]
    current: String,
    #[serde(default)]
    csrf: String,
}

pub async fn delete_account(
    State(state): State<Arc<AppState>>,
    Path(lang): Path<String>,
    Extension(viewer): Extension<Viewer>,
    Extension(current): Extension<CurrentUser>,
    session: Session,
    parts: Parts,
    Form(form): Form<DeleteForm>,
) -> Response {
    use accounts::lifecycle::LifecycleError;
    let Some(lang) = Lang::from_code(&lang) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let post = Post {
        state: &state,
        parts: on_account_page(parts, lang),
        viewer,
    };
    if !post.trusted(&form.csrf) {
        return post.refuse(FormError::Forbidden, &[]).await;
    }
    match accounts::lifecycle::delete_account(&state.db, &state.clock, &current.user, &form.current)
        .await
    {
        Ok(()) => {
            // The account's sessions are gone from the store; drop the cookie too.
            let _ = session.flush().await;
            to(lang, "/login?done=deleted")
        }
        Err(LifecycleError::LastOwner) => post.refuse(FormError::LastOwner, &[]).await,
        Err(LifecycleError::Account(AccountError::BadCredentials)) => {
            post.refuse(FormError::WrongCurrentPassword, &[]).await
        }
        Err(LifecycleError::Account(error)) => post.refuse(form_error(error), &[]).await,
    }
}

/// Anonymous requests that make us send mail are limited per client address
/// and per recipient, whether or not the address has an account.
async fn mail_allowed(state: &AppState, ip: &str, email: &str) -> Result<(), FormError> {
    use backend::rate_limit::{take, MAIL_PER_ADDRESS, MAIL_PER_RECIPIENT};
    let by_ip = format!("mail-ip:{ip}");
    let by_recipient = format!("mail-to:{}", email.trim().to_lowercase());
    let keys = [
        (by_ip.as_str(), &MAIL_PER_ADDRESS),
        (by_recipient.as_str(), &MAIL_PER_RECIPIENT),
    ];
    match take(&state.db, &keys, state.clock.now()).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(wait)) => Err(FormError::TooMany(wait)),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "rate limit check failed");
            Err(FormError::Unavailable)
        }
    }
}
