//! Opening a support request: the form (the categories the member may
//! open, the organization's servers for hardware concerns, the scaling-out
//! questions) and the post that opens it, or shows the form again with
//! what was typed.

use crate::http::page::{
    client_ip, lang_of, page, redirect, Member, PageError, PageResult, SameOrigin, Signed,
};
use crate::pages::support::{NewRequestView, SupportRefusal, SCALING_MAX};
use crate::startup::AppState;
use app::portal::{FormError, FormFeedback};
use axum::extract::{Query, State};
use backend::organizations::Membership;
use backend::support::{self, Category, NewRequest, ScalingPlan, SupportError};
use http::request::Parts;
use http::{header, Method};
use serde::Deserialize;
use std::sync::Arc;

#[derive(Deserialize, Default)]
pub(crate) struct Prefill {
    #[serde(default)]
    category: String,
    #[serde(default)]
    server: String,
}

/// The form's data for this member: the categories they may open, and the
/// organization's servers for those who see servers.
async fn form_view(
    state: &AppState,
    m: &Membership,
    chosen: Prefill,
) -> Result<NewRequestView, PageError> {
    let categories: Vec<Category> = Category::ALL
        .iter()
        .copied()
        .filter(|c| c.visible_to(m.role))
        .collect();
    let servers = if Category::Hardware.visible_to(m.role) {
        backend::servers::list(&state.db, &m.organization_id)
            .await?
            .into_iter()
            .map(|s| (s.id, s.name))
            .collect()
    } else {
        Vec::new()
    };
    Ok(NewRequestView {
        category: Category::parse(&chosen.category).filter(|c| categories.contains(c)),
        server: chosen.server,
        categories,
        servers,
    })
}

pub(crate) async fn new_form(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Query(chosen): Query<Prefill>,
    parts: Parts,
) -> PageResult {
    let view = form_view(&state, &m, chosen).await?;
    page(&state, parts, view).await
}

#[derive(Deserialize)]
pub(crate) struct NewForm {
    #[serde(default)]
    category: String,
    #[serde(default)]
    subject: String,
    #[serde(default)]
    body: String,
    #[serde(default)]
    server: String,
    #[serde(default)]
    cards: String,
    #[serde(default)]
    workload: String,
    #[serde(default)]
    model_size: String,
    #[serde(default)]
    timeline: String,
}

pub(crate) async fn open(
    State(state): State<Arc<AppState>>,
    Member(m): Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<NewForm>,
) -> PageResult {
    match open_request(&state, &m, &current.user, &parts, &form).await {
        Ok(id) => Ok(redirect(
            lang_of(&parts),
            &format!("/support/requests/{id}?done=opened"),
        )),
        Err(PageError::Refused(error, _)) => form_again(&state, &m, parts, error, &form).await,
        Err(other) => Err(other),
    }
}

async fn open_request(
    state: &AppState,
    m: &Membership,
    user: &backend::accounts::User,
    parts: &Parts,
    form: &NewForm,
) -> Result<String, PageError> {
    let category =
        Category::parse(&form.category).ok_or(FormError::Support(SupportRefusal::Category))?;
    let scaling = (category == Category::Scaling).then(|| ScalingPlan {
        cards: form.cards.clone(),
        workload: form.workload.clone(),
        model_size: form.model_size.clone(),
        timeline: form.timeline.clone(),
    });
    if let Some(plan) = &scaling {
        let answers = [
            &plan.cards,
            &plan.workload,
            &plan.model_size,
            &plan.timeline,
        ];
        if answers
            .iter()
            .any(|a| a.trim().chars().count() > SCALING_MAX)
        {
            return Err(FormError::Support(SupportRefusal::Scaling).into());
        }
    }
    let ip = client_ip(parts);
    let new = NewRequest {
        organization_id: &m.organization_id,
        user_id: &user.id,
        email: &user.email,
        role: m.role,
        lang: lang_of(parts),
        ip: ip.as_deref(),
        category,
        subject: &form.subject,
        body: &form.body,
        server_id: Some(form.server.as_str()).filter(|s| !s.is_empty()),
        scaling,
    };
    let id = support::open(&state.db, &state.clock, &new)
        .await
        .map_err(|e| match e {
            // The server picked is not the organization's.
            SupportError::NotFound => FormError::Support(SupportRefusal::Server).into(),
            other => PageError::from(other),
        })?;
    if category == Category::Hardware {
        // The request stands without the facts; staff see they are missing.
        let attached =
            support::attach_server_facts(&state.db, &state.clock, state.fleet.as_ref(), &id);
        if let Err(error) = attached.await {
            tracing::warn!(error = %format!("{error:#}"), request = %id, "attaching server facts failed");
        }
    }
    Ok(id)
}

/// The form page again (not the list this form posts to), with the error
/// and everything typed.
async fn form_again(
    state: &AppState,
    m: &Membership,
    mut parts: Parts,
    error: FormError,
    form: &NewForm,
) -> PageResult {
    let view = form_view(state, m, Prefill::default()).await?;
    let values = [
        ("category", &form.category),
        ("subject", &form.subject),
        ("body", &form.body),
        ("server", &form.server),
        ("cards", &form.cards),
        ("workload", &form.workload),
        ("model_size", &form.model_size),
        ("timeline", &form.timeline),
    ];
    let feedback = FormFeedback {
        error: Some(error),
        values: values
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).clone()))
            .collect(),
    };
    let address = format!("/{}/support/requests/new", lang_of(&parts).code());
    parts.uri = address
        .parse()
        .map_err(|e| PageError::Unavailable(anyhow::Error::new(e)))?;
    parts.method = Method::GET;
    parts.headers.remove(header::CONTENT_TYPE);
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.extensions.insert(feedback);
    page(state, parts, view).await
}
