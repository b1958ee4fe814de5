//! Back-in-stock alerts: subscribing (anyone, from the form `app` offers
//! where a plan is sold out) and unsubscribing through the mailed link, on
//! a page with a POST button (a GET changes nothing). Subscribing sends
//! mail, so it is limited per client address and per recipient like every
//! such form.

use crate::http::page::{
    client_ip, lang_of, redirect, render, same_origin, PageResult, SameOrigin, Signed,
};
use crate::http::routes::shows;
use crate::http::routes::{Access, Route};
use crate::startup::AppState;
use app::i18n::orders;
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::query;
use app::portal::{FormError, FormFeedback, Viewer};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::State;
use axum::response::IntoResponse;
use axum::Form;
use backend::rate_limit::{self, MAIL_PER_ADDRESS, MAIL_PER_RECIPIENT};
use backend::stock_alerts::{self, AlertError, Subscription};
use domain::Lang;
use http::request::Parts;
use http::StatusCode;
use leptos::prelude::*;
use serde::Deserialize;
use std::sync::Arc;

#[component]
pub fn UnsubscribePage(lang: Lang) -> impl IntoView {
    let o = orders(lang);
    let token = query("token").unwrap_or_default();
    let done = match query("done").as_deref() {
        Some("1") => Some(o.unsub_done),
        Some("0") => Some(o.unsub_unknown),
        _ => None,
    };
    view! {
        <Page lang title=o.unsub_title.to_owned() description=o.unsub_title.to_owned() rest="/alerts/unsubscribe".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="unsub-title">
                <h1 id="unsub-title">{o.unsub_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                {done.is_none().then(|| view! {
                    <p>{o.unsub_body}</p>
                    <form method="post" action=href(lang, "/alerts/unsubscribe")>
                        <CsrfField />
                        <input type="hidden" name="token" value=token.clone() />
                        <button type="submit">{o.unsub_submit}</button>
                    </form>
                })}
            </section>
        </Page>
    }
    .into_any()
}

pub fn routes() -> Vec<Route> {
    use Access::Anyone;
    vec![
        Route::post("/{lang}/alerts", Anyone, subscribe),
        Route::page(
            "/{lang}/alerts/unsubscribe",
            Anyone,
            shows!(UnsubscribePage),
        ),
        Route::post("/{lang}/alerts/unsubscribe", Anyone, unsubscribe),
    ]
}

/// The configure page is a storefront page, not one of the portal's routes
/// that `show_failures` can show again: this form checks its origin itself
/// (not with `SameOrigin`) and renders its own refusals.
#[derive(Deserialize)]
pub struct AlertForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

/// Refusals show the configure page of the same choice with the message.
async fn configure_with(
    state: &AppState,
    mut parts: Parts,
    form: &AlertForm,
    error: FormError,
    values: &[(&str, &str)],
) -> PageResult {
    let lang = lang_of(&parts);
    if let Ok(uri) = format!(
        "/{}/configure?plan={}&site={}",
        lang.code(),
        urlencode(&form.plan),
        urlencode(&form.site)
    )
    .parse()
    {
        parts.uri = uri;
    }
    let versioned = state.facts.current().await?;
    parts.extensions.insert(versioned.facts.clone());
    let feedback = FormFeedback {
        error: Some(error),
        values: values
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
    };
    Ok(render(state, parts, feedback).await)
}

fn urlencode(raw: &str) -> String {
    form_urlencoded::byte_serialize(raw.as_bytes()).collect()
}

/// The form sits on the cached, shared configure page, so it carries no
/// per-session CSRF token: browsers' `Sec-Fetch-Site`/`Origin` decide, and a
/// client sending neither is refused.
pub async fn subscribe(
    State(state): State<Arc<AppState>>,
    current: Option<Signed>,
    parts: Parts,
    Form(form): Form<AlertForm>,
) -> PageResult {
    let lang = lang_of(&parts);
    let viewer = parts
        .extensions
        .get::<Viewer>()
        .cloned()
        .unwrap_or_default();
    if !same_origin(&state, &parts.headers, &form.csrf, &viewer) {
        return configure_with(&state, parts, &form, FormError::Forbidden, &[]).await;
    }
    let ip = client_ip(&parts).unwrap_or_default();
    let recipient = form.email.trim().to_lowercase();
    let keys = [
        (format!("alert-ip:{ip}"), &MAIL_PER_ADDRESS),
        (format!("alert-to:{recipient}"), &MAIL_PER_RECIPIENT),
    ];
    let keys: Vec<(&str, &rate_limit::Limit)> =
        keys.iter().map(|(k, l)| (k.as_str(), *l)).collect();
    if let Err(wait) = rate_limit::take(&state.db, &keys, state.clock.now()).await? {
        return configure_with(&state, parts, &form, FormError::TooMany(wait), &[]).await;
    }
    let catalog = state.facts.current().await?.facts.catalog.clone();
    let user_id = current.map(|Signed(c)| c.user.id);
    let sub = Subscription {
        email: &form.email,
        lang,
        plan: &form.plan,
        site: &form.site,
        user_id: user_id.as_ref(),
        base_url: &state.config.public_base_url,
    };
    match stock_alerts::subscribe(&state.db, &state.clock, &catalog, &sub).await {
        Ok(()) => Ok(redirect(
            lang,
            &format!(
                "/configure?plan={}&site={}&alert=1",
                urlencode(&form.plan),
                urlencode(&form.site)
            ),
        )),
        Err(AlertError::InvalidEmail) => {
            let email = [("email", form.email.as_str())];
            configure_with(&state, parts, &form, FormError::InvalidEmail, &email).await
        }
        Err(AlertError::UnknownChoice) => Ok(StatusCode::NOT_FOUND.into_response()),
        Err(AlertError::Db(error)) => Err(error.into()),
    }
}

#[derive(Deserialize)]
pub struct UnsubscribeForm {
    #[serde(default)]
    token: String,
}

pub async fn unsubscribe(
    State(state): State<Arc<AppState>>,
    parts: Parts,
    SameOrigin(form): SameOrigin<UnsubscribeForm>,
) -> PageResult {
    let lang = lang_of(&parts);
    let done = stock_alerts::unsubscribe(&state.db, &state.clock, &form.token).await?;
    Ok(redirect(
        lang,
        if done {
            "/alerts/unsubscribe?done=1"
        } else {
            "/alerts/unsubscribe?done=0"
        },
    ))
}
