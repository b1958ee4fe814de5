//! The billing profile (owners and billing members): whom invoices are
//! addressed to. Its form is on the billing page and on a page of its own,
//! where the order form sends an owner before the organization's first
//! order; saving from there continues to that order (plan and site kept).

use app::portal::billing_profile::{BillingProfileView, ProfileValues, VatIdCheckView};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Query, State};
use backend::billing::profile::{self, BillingProfile, ProfileError};
use domain::OrganizationId;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::page::{lang_of, page, redirect, refused, Member, PageResult, SameOrigin, Signed};
use super::routes::{Route, MONEY};
use crate::startup::AppState;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/billing/profile", MONEY, profile_page),
        Route::post("/{lang}/billing/profile", MONEY, profile_post),
    ]
}

/// The stored profile (or a first one prefilled from sign-up) as the form
/// shows it, with what VIES said about its VAT ID.
pub(super) async fn profile_values(
    state: &AppState,
    organization_id: &OrganizationId,
    email: &str,
) -> anyhow::Result<(ProfileValues, Option<VatIdCheckView>)> {
    let stored = profile::get_or_start(&state.db, organization_id, email).await?;
    let vat_id_check = backend::billing::vat_ids::eu_vat_id(&stored).and_then(|vat_id| {
        let check = stored.vat_id_check.as_ref()?;
        Some(VatIdCheckView {
            vat_id: vat_id.to_owned(),
            status: check.state,
            name: check.name.clone(),
            checked_at: check.checked_at,
            country: stored.country.clone(),
            decides_vat: stored.vat_id_decides_vat(&state.seller.country),
        })
    });
    let values = ProfileValues {
        legal_name: stored.legal_name,
        address: stored.address,
        postal_code: stored.postal_code,
        city: stored.city,
        country: stored.country,
        vat_id: stored.vat_id.unwrap_or_default(),
        billing_email: stored.billing_email,
    };
    Ok((values, vat_id_check))
}

/// The profile page, on the way to an order (`plan`, `site`) or from the
/// order form's "change billing details".
pub(super) fn profile_path(plan: &str, site: &str) -> String {
    match (order_code(plan), order_code(site)) {
        (Some(plan), Some(site)) => format!("/billing/profile?plan={plan}&site={site}"),
        _ => "/billing/profile".to_owned(),
    }
}

/// A plan id or site code as a link carries it; anything else is dropped
/// rather than put into an address.
fn order_code(raw: &str) -> Option<&str> {
    let ok = (1..=40).contains(&raw.len())
        && raw
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    ok.then_some(raw)
}

#[derive(Deserialize, Default)]
struct OrderChoice {
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

async fn profile_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    Query(choice): Query<OrderChoice>,
    parts: Parts,
) -> PageResult {
    let organization_id = &m.0.organization_id;
    let (profile, vat_id_check) =
        profile_values(&state, organization_id, &current.user.email).await?;
    // A refused save shows the page again: the order it leads to is in
    // the form.
    let (plan, site) = match parts.extensions.get::<FormFeedback>() {
        Some(refused) => (refused.value("plan"), refused.value("site")),
        None => (choice.plan, choice.site),
    };
    let view = BillingProfileView {
        profile,
        vat_id_check,
        plan: order_code(&plan).unwrap_or_default().to_owned(),
        site: order_code(&site).unwrap_or_default().to_owned(),
        first: profile::get(&state.db, organization_id).await?.is_none(),
    };
    page(&state, parts, view).await
}

#[derive(Deserialize)]
struct ProfileForm {
    #[serde(default)]
    legal_name: String,
    #[serde(default)]
    address: String,
    #[serde(default)]
    postal_code: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    country: String,
    #[serde(default)]
    vat_id: String,
    #[serde(default)]
    billing_email: String,
    /// The order the profile was given for, to continue with.
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

async fn profile_post(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    parts: Parts,
    SameOrigin(form): SameOrigin<ProfileForm>,
) -> PageResult {
    let input = BillingProfile {
        legal_name: form.legal_name.clone(),
        address: form.address.clone(),
        postal_code: form.postal_code.clone(),
        city: form.city.clone(),
        country: form.country.clone(),
        vat_id: Some(form.vat_id.clone()),
        billing_email: form.billing_email.clone(),
        vat_id_check: None,
    };
    let saved = profile::save(
        &state.db,
        &state.clock,
        state.vat_ids.as_ref(),
        &m.0.organization_id,
        &current.user.email,
        &input,
    )
    .await;
    let lang = lang_of(&parts);
    let error = match saved {
        Ok(_) => {
            return Ok(match (order_code(&form.plan), order_code(&form.site)) {
                (Some(plan), Some(site)) => {
                    redirect(lang, &format!("/order?plan={plan}&site={site}"))
                }
                _ => redirect(lang, "/billing?done=profile#profile"),
            })
        }
        Err(ProfileError::VatId) => FormError::VatId,
        Err(ProfileError::Email) => FormError::InvalidEmail,
        Err(ProfileError::Missing(_) | ProfileError::Country) => FormError::BillingProfile,
        Err(ProfileError::Db(error)) => return Err(error.into()),
    };
    Err(refused(
        error,
        &[
            ("legal_name", &form.legal_name),
            ("address", &form.address),
            ("postal_code", &form.postal_code),
            ("city", &form.city),
            ("country", &form.country),
            ("vat_id", &form.vat_id),
            ("billing_email", &form.billing_email),
            ("plan", &form.plan),
            ("site", &form.site),
        ],
    ))
}
