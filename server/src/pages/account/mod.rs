//! The account forms: sign-up, verification, login, logout, password reset,
//! and the account page's own forms (password, email, deleting the
//! account). Each calls the accounts capability and answers with a redirect
//! (success) or a refusal that shows the form's page again.

pub mod email;
pub mod keys;
pub mod login;
pub mod overview;
pub mod recovery;
pub mod signup;
pub mod tokens;
pub mod two_factor;
pub mod webhooks;

use crate::http::auth::{after_login, start_login};
use crate::http::page::{
    client_ip, plain, redirect, PageError, PageLang, PageResult, SameOrigin, Signed,
};
use crate::http::routes::shows;
use crate::http::routes::{Access, Route};
use crate::pages::account::email::ConfirmEmailPage;
use crate::pages::account::login::LoginPage;
use crate::pages::account::overview::AccountPage;
use crate::pages::account::recovery::{ForgotPage, ResetPage, VerifyPage};
use crate::pages::account::signup::SignupPage;
use crate::startup::AppState;
use app::portal::notices::{code, done_path};
use app::portal::{FormError, FormFeedback};
use axum::extract::State;
use axum::response::{IntoResponse, Redirect};
use backend::accounts::lifecycle::LifecycleError;
use backend::accounts::{self, AccountError, Links, PasswordProblem, SignUp};
use domain::{Lang, UserId};
use http::request::Parts;
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::sync::Arc;
use tower_sessions::Session;

pub fn routes() -> Vec<Route> {
    use Access::{Anyone, SignedIn};
    vec![
        Route::get("/{lang}/login", Anyone, login_page).shows(shows!(LoginPage)),
        Route::post("/{lang}/login", Anyone, login),
        Route::page("/{lang}/signup", Anyone, shows!(SignupPage)),
        Route::post("/{lang}/signup", Anyone, signup),
        Route::page("/{lang}/verify", Anyone, shows!(VerifyPage)),
        Route::post("/{lang}/verify", Anyone, verify),
        Route::page("/{lang}/forgot", Anyone, shows!(ForgotPage)),
        Route::post("/{lang}/forgot", Anyone, forgot),
        Route::page("/{lang}/reset", Anyone, shows!(ResetPage)),
        Route::post("/{lang}/reset", Anyone, reset),
        Route::post("/{lang}/logout", Anyone, logout),
        Route::page("/{lang}/email", Anyone, shows!(ConfirmEmailPage)),
        Route::post("/{lang}/email", Anyone, confirm_email),
        Route::page("/{lang}/account", SignedIn, shows!(AccountPage)),
        Route::post("/{lang}/account/password", SignedIn, change_password),
        Route::post("/{lang}/account/email", SignedIn, change_email),
        Route::post("/{lang}/account/delete", SignedIn, delete_account),
    ]
}

/// The login form. The header's "Log in" is one link for everyone (cached
/// storefront pages cannot know who is signed in), so a signed-in visitor
/// is sent straight to their account.
pub async fn login_page(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    current: Option<Signed>,
    parts: Parts,
) -> PageResult {
    // A refused login form is shown again through this handler (with its
    // feedback): it keeps its error even for someone signed in.
    let shown_again = parts.extensions.get::<FormFeedback>().is_some();
    if current.is_some() && !shown_again {
        return Ok(redirect(lang, "/account"));
    }
    Ok(plain(&state, parts, shows!(LoginPage)).await)
}

impl From<AccountError> for PageError {
    fn from(error: AccountError) -> Self {
        let refusal = match error {
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
            AccountError::Db(error) => return PageError::Unavailable(error),
        };
        refusal.into()
    }
}

/// A form that asks for the current password calls a wrong one that, not
/// "wrong email or password".
fn current_password(error: AccountError) -> PageError {
    match error {
        AccountError::BadCredentials => FormError::WrongCurrentPassword.into(),
        other => other.into(),
    }
}

fn links(state: &AppState) -> Links {
    Links {
        base_url: state.config.public_base_url.clone(),
    }
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
}

pub async fn signup(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    parts: Parts,
    SameOrigin(form): SameOrigin<SignupForm>,
) -> PageResult {
    let keep = [
        ("name", form.name.as_str()),
        ("email", form.email.as_str()),
        ("company", form.company.as_str()),
        ("lang", form.lang.as_str()),
    ];
    let ip = client_ip(&parts).unwrap_or_default();
    mail_allowed(&state, &ip, &form.email)
        .await
        .map_err(|e| e.keeping(&keep))?;
    let input = SignUp {
        email: form.email.clone(),
        password: form.password,
        name: form.name.clone(),
        company: Some(form.company.clone()),
        lang: Lang::from_code(&form.lang).unwrap_or(lang),
    };
    accounts::sign_up(&state.db, &state.clock, &links(&state), input)
        .await
        .map_err(|e| PageError::from(e).keeping(&keep))?;
    Ok(redirect(lang, "/signup?sent=1"))
}

#[derive(Deserialize)]
pub struct LoginForm {
    email: String,
    password: String,
}

pub async fn login(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    session: Session,
    parts: Parts,
    SameOrigin(form): SameOrigin<LoginForm>,
) -> PageResult {
    let keep = [("email", form.email.as_str())];
    let ip = client_ip(&parts).unwrap_or_default();
    let accepted = accounts::log_in(&state.db, &state.clock, &form.email, &form.password, &ip)
        .await
        .map_err(|e| PageError::from(e).keeping(&keep))?;
    let (user, now) = (accepted.user, state.clock.now());
    let next = if accepted.needs_code {
        // The password was right; the session is not logged in until the code is.
        pending_second_step(&session, &user.id, now).await?;
        format!("/{}/login/code", lang.code())
    } else {
        start_login(&session, &user.id, now).await?;
        after_login(&state, &session, &user, lang).await?
    };
    Ok(Redirect::to(&next).into_response())
}

async fn pending_second_step(session: &Session, user_id: &UserId, now: i64) -> anyhow::Result<()> {
    use crate::pages::account::two_factor::{PENDING_AT, PENDING_USER};
    session.cycle_id().await?;
    session.insert(PENDING_USER, user_id).await?;
    session.insert(PENDING_AT, now).await?;
    Ok(())
}

/// The logout button is in the header of every portal page: a refused
/// logout answers 403 at its own address.
pub async fn logout(
    PageLang(lang): PageLang,
    session: Session,
    SameOrigin(_): SameOrigin<IgnoredAny>,
) -> PageResult {
    // Deletes the record server-side, not just the cookie.
    session.flush().await.map_err(anyhow::Error::from)?;
    Ok(redirect(lang, "/login?done=logout"))
}

#[derive(Deserialize)]
pub struct TokenForm {
    #[serde(default)]
    token: String,
    #[serde(default)]
    password: String,
}

pub async fn verify(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    SameOrigin(form): SameOrigin<TokenForm>,
) -> PageResult {
    accounts::verify_email(&state.db, &state.clock, &form.token).await?;
    Ok(redirect(lang, "/login?done=verified"))
}

#[derive(Deserialize)]
pub struct EmailForm {
    #[serde(default)]
    email: String,
}

pub async fn forgot(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    parts: Parts,
    SameOrigin(form): SameOrigin<EmailForm>,
) -> PageResult {
    let keep = [("email", form.email.as_str())];
    let ip = client_ip(&parts).unwrap_or_default();
    mail_allowed(&state, &ip, &form.email)
        .await
        .map_err(|e| e.keeping(&keep))?;
    accounts::request_reset(&state.db, &state.clock, &links(&state), &form.email)
        .await
        .map_err(|e| PageError::from(e).keeping(&keep))?;
    Ok(redirect(lang, "/forgot?sent=1"))
}

pub async fn reset(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    SameOrigin(form): SameOrigin<TokenForm>,
) -> PageResult {
    accounts::reset_password(&state.db, &state.clock, &form.token, &form.password)
        .await
        .map_err(|e| PageError::from(e).keeping(&[("token", &form.token)]))?;
    Ok(redirect(lang, "/login?done=reset"))
}

#[derive(Deserialize)]
pub struct PasswordForm {
    current: String,
    password: String,
    repeat: String,
}

pub async fn change_password(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    SameOrigin(form): SameOrigin<PasswordForm>,
) -> PageResult {
    if form.password != form.repeat {
        return Err(FormError::PasswordsDiffer.into());
    }
    accounts::change_password(
        &state.db,
        &state.clock,
        &current.user.id,
        &form.current,
        &form.password,
        &current.session_id,
    )
    .await
    .map_err(current_password)?;
    Ok(redirect(lang, &done_path("/account", code::PASSWORD, None)))
}

#[derive(Deserialize)]
pub struct EmailChangeForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    current: String,
}

pub async fn change_email(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    SameOrigin(form): SameOrigin<EmailChangeForm>,
) -> PageResult {
    accounts::lifecycle::request_email_change(
        &state.db,
        &state.clock,
        &links(&state),
        &current.user,
        &form.current,
        &form.email,
    )
    .await
    .map_err(current_password)?;
    Ok(redirect(
        lang,
        &done_path("/account", code::EMAIL_SENT, None),
    ))
}

pub async fn confirm_email(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    SameOrigin(form): SameOrigin<TokenForm>,
) -> PageResult {
    accounts::lifecycle::confirm_email_change(&state.db, &state.clock, &form.token).await?;
    Ok(redirect(lang, "/login?done=email"))
}

#[derive(Deserialize)]
pub struct DeleteForm {
    #[serde(default)]
    current: String,
}

pub async fn delete_account(
    State(state): State<Arc<AppState>>,
    PageLang(lang): PageLang,
    Signed(current): Signed,
    session: Session,
    SameOrigin(form): SameOrigin<DeleteForm>,
) -> PageResult {
    accounts::lifecycle::delete_account(&state.db, &state.clock, &current.user, &form.current)
        .await
        .map_err(|error| match error {
            LifecycleError::LastOwner => FormError::LastOwner.into(),
            LifecycleError::Account(error) => current_password(error),
        })?;
    // The account's sessions are gone from the store; drop the cookie too.
    let _ = session.flush().await;
    Ok(redirect(lang, "/login?done=deleted"))
}

/// Anonymous requests that make us send mail are limited per client address
/// and per recipient, whether or not the address has an account.
async fn mail_allowed(state: &AppState, ip: &str, email: &str) -> Result<(), PageError> {
    use backend::rate_limit::{take, MAIL_PER_ADDRESS, MAIL_PER_RECIPIENT};
    let by_ip = format!("mail-ip:{ip}");
    let by_recipient = format!("mail-to:{}", email.trim().to_lowercase());
    let keys = [
        (by_ip.as_str(), &MAIL_PER_ADDRESS),
        (by_recipient.as_str(), &MAIL_PER_RECIPIENT),
    ];
    take(&state.db, &keys, state.clock.now())
        .await?
        .map_err(|wait| FormError::TooMany(wait).into())
}
