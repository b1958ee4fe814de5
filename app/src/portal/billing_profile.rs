//! The organization's billing profile (owners and billing members): whom
//! invoices are addressed to. Its form sits on the billing page and on a
//! page of its own, which the order form sends an owner to before the
//! first order and which leads back to that order once saved.

use domain::order::COUNTRIES;
use domain::vat::VatIdState;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice};
use super::nav::PortalNav;
use super::use_feedback;
use crate::i18n::{billing, orders};
use crate::storefront::href;
use crate::storefront::layout::Page;

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
}

fn country_name(lang: Lang, code: &str) -> String {
    COUNTRIES
        .iter()
        .find(|c| c.code == code)
        .map_or(code.to_owned(), |c| {
            match lang {
                Lang::Zh => c.zh,
                Lang::En => c.en,
            }
            .to_owned()
        })
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
    let country = country_name(lang, &check.country);
    let mut sentences = Vec::new();
    match check.status {
        VatIdState::Valid => {
            let date = check
                .checked_at
                .map(domain::time::format_date)
                .unwrap_or_default();
            sentences.push((b.vat_valid)(&check.vat_id, &date));
            if let Some(name) = &check.name {
                sentences.push((b.vat_registered_to)(name));
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
    let class = if check.status == VatIdState::Valid {
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
    let vat_described = if vat_check.is_some() {
        "vat-hint vat-status"
    } else {
        "vat-hint"
    };
    let country = value("country", &p.country);
    let group = |eu: bool| {
        COUNTRIES
            .iter()
            .filter(|c| c.eu == eu)
            .map(|c| {
                let name = match lang {
                    Lang::Zh => c.zh,
                    Lang::En => c.en,
                };
                view! { <option value=c.code selected=country == c.code>{name}</option> }
            })
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
                <input id="vat_id" name="vat_id" value=value("vat_id", &p.vat_id) maxlength="40" aria-describedby=vat_described />
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
    let lead = if view.first && !view.plan.is_empty() {
        b.profile_first_order
    } else {
        b.profile_page_intro
    };
    view! {
        <Page lang title=b.profile_page_title.to_owned() description=b.profile_page_title.to_owned() rest="/billing/profile".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="profile-title">
                <PortalNav lang />
                <h1 id="profile-title">{b.profile_page_title}</h1>
                <p class="lead" data-testid="profile-lead">{lead}</p>
                <FormErrorNotice lang />
                <ProfileForm lang profile=view.profile vat_check=view.vat_id_check plan=view.plan site=view.site />
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(BillingProfileView => BillingProfilePage(view));
