//! The organization's billing profile (owners and billing members): whom
//! invoices are addressed to. Its form is on the billing page and on a page
//! of its own, where the order form sends an owner before the
//! organization's first order; saving from there continues to that order
//! (plan and site kept).

use crate::http::page::{lang_of, page, redirect, refused, Member, PageResult, SameOrigin, Signed};
use crate::http::routes::{Route, MONEY};
use crate::startup::AppState;
use app::i18n::{billing, orders};
use app::portal::forms::{CsrfField, FieldState, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::use_feedback;
use app::portal::{FormError, FormFeedback};
use app::storefront::href;
use app::storefront::layout::Page;
use axum::extract::{Query, State};
use backend::billing::profile::{self, BillingProfile, ProfileError};
use domain::order::COUNTRIES;
use domain::vat::VatIdState;
use domain::Lang;
use domain::OrganizationId;
use http::request::Parts;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ProfileValues {
    pub legal_name: String,
    pub address: String,
    pub postal_code: String,
    pub city: String,
    pub country: String,
    pub vat_id: String,
    pub billing_email: String,
}

/// What VIES said about the saved VAT ID (EU countries only).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct VatIdCheckView {
    pub vat_id: String,
    pub status: VatIdState,
    /// The registered name, where the member state discloses it.
    pub name: Option<String>,
    /// When VIES last answered.
    pub checked_at: Option<i64>,
    /// The profile's country, whose rate applies without reverse charge.
    pub country: String,
    /// Reverse charge hangs on it: an EU country other than the seller's.
    pub decides_vat: bool,
    /// `name` is not the legal name invoices are addressed to.
    pub name_differs: bool,
}

impl VatIdCheckView {
    /// Nothing to look at before ordering: confirmed, to the legal name.
    fn is_clean(&self) -> bool {
        self.status == VatIdState::Valid && !self.name_differs
    }
}

/// The profile's own page.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BillingProfileView {
    pub profile: ProfileValues,
    pub vat_id_check: Option<VatIdCheckView>,
    /// The order this page interrupts (plan and site), to return to.
    pub plan: String,
    pub site: String,
    /// No profile is saved yet.
    pub first: bool,
    /// Saved on the way to the order; VIES's answer is to be read first.
    pub check_before_order: bool,
}

/// The saved VAT ID's standing in VIES and what it means for VAT.
#[component]
fn VatIdCheckNotice(lang: Lang, check: VatIdCheckView) -> impl IntoView {
    let b = billing(lang);
    // Chinese sentences follow each other without a space.
    let sep = match lang {
        Lang::Zh => "",
        Lang::En => " ",
    };
    let country = domain::order::country_name(&check.country, lang);
    let mut sentences = Vec::new();
    match check.status {
        VatIdState::Valid => {
            let date = check
                .checked_at
                .map(domain::time::format_date)
                .unwrap_or_default();
            sentences.push((b.vat_valid)(&check.vat_id, &date));
            if let Some(name) = &check.name {
                sentences.push(if check.name_differs {
                    (b.vat_name_differs)(name)
                } else {
                    (b.vat_registered_to)(name)
                });
            }
            if check.decides_vat {
                sentences.push(b.vat_reverse_charged.to_owned());
            }
        }
        VatIdState::Invalid => {
            sentences.push((b.vat_invalid)(&check.vat_id));
            if check.decides_vat {
                sentences.push((b.vat_charged_until_corrected)(&country));
            }
        }
        VatIdState::Unchecked => {
            sentences.push((b.vat_unchecked)(&check.vat_id));
            sentences.push(if check.decides_vat {
                (b.vat_charged_until_checked)(&country)
            } else {
                b.vat_retried.to_owned()
            });
        }
    }
    let class = if check.is_clean() {
        "notice notice-ok"
    } else {
        "notice"
    };
    view! {
        <p class=class id="vat-status" data-testid="vat-status" data-vat-status=check.status.as_str()>
            <strong>{(b.vat_status)(check.status)}</strong>{sep}{sentences.join(sep)}
        </p>
    }
}

/// The profile form, with what was typed after a refusal. With `plan` and
/// `site`, saving continues to that order.
#[component]
pub fn ProfileForm(
    lang: Lang,
    profile: ProfileValues,
    vat_check: Option<VatIdCheckView>,
    #[prop(optional)] plan: String,
    #[prop(optional)] site: String,
) -> impl IntoView {
    let b = billing(lang);
    let o = orders(lang);
    let feedback = use_feedback();
    let value = move |name: &str, stored: &str| {
        if feedback.error.is_some() {
            feedback.value(name)
        } else {
            stored.to_owned()
        }
    };
    let p = profile;
    // The hint, a refusal beside it, and what VIES said.
    let vat_field = FieldState::of("vat_id", "vat", true);
    let vat_described = [
        vat_field.described_by.clone(),
        vat_check.as_ref().map(|_| "vat-status".to_owned()),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ");
    let country = value("country", &p.country);
    let group = |eu: bool| {
        COUNTRIES
            .iter()
            .filter(|c| c.eu == eu)
            .map(|c| view! { <option value=c.code selected=country == c.code>{c.name(lang)}</option> })
            .collect_view()
    };
    let ordering = !plan.is_empty() && !site.is_empty();
    view! {
        <form method="post" action=href(lang, "/billing/profile")>
            <CsrfField />
            {ordering.then(|| view! {
                <input type="hidden" name="plan" value=plan.clone() />
                <input type="hidden" name="site" value=site.clone() />
            })}
            <div class="field">
                <label for="legal_name">{b.legal_name}</label>
                <input id="legal_name" name="legal_name" value=value("legal_name", &p.legal_name) required maxlength="200" autocomplete="organization" />
            </div>
            <div class="field">
                <label for="address">{b.address}</label>
                <input id="address" name="address" value=value("address", &p.address) required maxlength="300" autocomplete="street-address" />
            </div>
            <div class="field">
                <label for="postal_code">{b.postal_code}</label>
                <input id="postal_code" name="postal_code" value=value("postal_code", &p.postal_code) required maxlength="20" autocomplete="postal-code" />
            </div>
            <div class="field">
                <label for="city">{b.city}</label>
                <input id="city" name="city" value=value("city", &p.city) required maxlength="100" autocomplete="address-level2" />
            </div>
            <div class="field">
                <label for="country">{b.country}</label>
                <select id="country" name="country" required>
                    <option value="" selected=country.is_empty()>{o.order_country_choose}</option>
                    <optgroup label=o.order_eu>{group(true)}</optgroup>
                    <optgroup label=o.order_non_eu>{group(false)}</optgroup>
                </select>
            </div>
            <div class="field">
                <label for="vat_id">{b.vat_id}</label>
                <input id="vat_id" name="vat_id" value=value("vat_id", &p.vat_id) maxlength="40" aria-describedby=vat_described aria-invalid=vat_field.invalid autofocus=vat_field.autofocus />
                {vat_field.message(lang)}
                <p class="hint" id="vat-hint">{b.vat_id_hint}</p>
                {vat_check.map(|check| view! { <VatIdCheckNotice lang check /> })}
            </div>
            <div class="field">
                <label for="billing_email">{b.billing_email}</label>
                <input id="billing_email" name="billing_email" type="email" value=value("billing_email", &p.billing_email) required autocomplete="email" />
            </div>
            <button type="submit">{if ordering { b.save_and_order } else { b.save }}</button>
        </form>
    }
}

#[component]
pub fn BillingProfilePage(lang: Lang, view: BillingProfileView) -> impl IntoView {
    let b = billing(lang);
    let lead = if view.check_before_order {
        b.profile_check_before_order
    } else if view.first && !view.plan.is_empty() {
        b.profile_first_order
    } else {
        b.profile_page_intro
    };
    // Back to the order the profile was given for, once it is saved.
    let continue_order = (!view.first && !view.plan.is_empty() && !view.site.is_empty()).then(|| {
        let href = format!("/{}/order?plan={}&site={}", lang.code(), view.plan, view.site);
        view! { <p><a class="button" href=href data-testid="continue-order">{b.profile_continue_order}</a></p> }
    });
    view! {
        <Page lang title=b.profile_page_title.to_owned() description=b.profile_page_title.to_owned() rest="/billing/profile".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="profile-title">
                <PortalNav lang />
                <h1 id="profile-title">{b.profile_page_title}</h1>
                <p class="lead" data-testid="profile-lead">{lead}</p>
                <FormErrorNotice lang />
                <ProfileForm lang profile=view.profile vat_check=view.vat_id_check plan=view.plan site=view.site />
                {continue_order}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(BillingProfileView => BillingProfilePage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/billing/profile", MONEY, profile_page),
        Route::post("/{lang}/billing/profile", MONEY, profile_post),
    ]
}

/// The stored profile (or a first one prefilled from sign-up) as the form
/// shows it, with what VIES said about its VAT ID.
pub(crate) async fn profile_values(
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
            name_differs: stored.registered_name_differs().is_some(),
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
pub(crate) fn profile_path(plan: &str, site: &str) -> String {
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
    /// `vat`: just saved, and VIES's answer wants reading before ordering.
    #[serde(default)]
    check: String,
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
        check_before_order: choice.check == "vat",
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
        Ok(saved) => {
            // What VIES said is read before the order, not found on the
            // invoice: a refused or unchecked ID pays VAT, and a registered
            // name that is not the legal name needs a look.
            let needs_a_look = saved.unconfirmed_vat_id(&state.seller.country).is_some()
                || saved.registered_name_differs().is_some();
            return Ok(match (order_code(&form.plan), order_code(&form.site)) {
                (Some(plan), Some(site)) if needs_a_look => redirect(
                    lang,
                    &format!("/billing/profile?plan={plan}&site={site}&check=vat#vat-status"),
                ),
                (Some(plan), Some(site)) => {
                    redirect(lang, &format!("/order?plan={plan}&site={site}"))
                }
                _ => redirect(lang, "/billing?done=profile#profile"),
            });
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
