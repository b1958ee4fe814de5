//! The order form: name, image, SSH keys and add-ons for a plan at a site,
//! whom it bills (the organization's billing profile, read-only here), and
//! a summary that states the monthly price ex VAT, the VAT and the total.
//! "Update summary" and "Place order" are two buttons of one POST form, so
//! it all works without JavaScript.

use domain::{Lang, Money, OsImage, Plan, Quote, Site};
use leptos::prelude::*;
use leptos::tachys::view::RenderHtml;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice};
use crate::context::use_facts;
use crate::i18n::{content, orders, ui};
use crate::storefront::layout::Page;
use crate::storefront::not_found::{ErrorPage, NotFound};
use crate::storefront::plans::gpu_text;
use crate::storefront::stock::StockBadge;
use crate::storefront::{configure_rest, href};

/// What the browser checks before a server name is sent: one DNS label
/// (the server lower-cases it; `backend::orders::server_name` decides).
pub const SERVER_NAME_PATTERN: &str = "[A-Za-z0-9]([A-Za-z0-9\\-]{0,61}[A-Za-z0-9])?";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OrderFormView {
    pub plan: String,
    pub site: String,
    pub name: String,
    pub image: String,
    pub addons: Vec<String>,
    pub key_ids: Vec<String>,
    pub new_key: String,
    /// The user's saved keys: (id, name, fingerprint).
    pub keys: Vec<(String, String, String)>,
    /// Present once the organization has a billing profile.
    pub quote: Option<Quote>,
    /// Plan and add-ons ex VAT, shown without a billing profile.
    pub net: Option<Money>,
    /// Sent back with the order: a retried submit finds the same order.
    pub idempotency_key: String,
    /// After a sold-out refusal: the sites that still have the plan.
    pub sold_out: Option<Vec<String>>,
    pub email: String,
    /// Whom the order bills: the organization's billing profile, which
    /// sets the country and VAT. `None` until it is given.
    pub bill_to: Option<BillToView>,
    /// Owners may change the profile (billing members too, but they don't
    /// order); technical members are told whom to ask.
    pub can_change_billing: bool,
    /// The billing profile page, coming back to this plan and site.
    pub change_billing: String,
    /// The profile's VAT ID and its VIES status (`invalid`, `unchecked`)
    /// when VIES has not confirmed it, so VAT is charged instead of
    /// reverse charge.
    pub vat_id_unconfirmed: Option<(String, domain::vat::VatIdState)>,
    /// (VAT ID, registered name) when VIES names someone else than the
    /// legal name invoices are addressed to.
    pub vat_id_name_differs: Option<(String, String)>,
}

/// The billing profile as the order form shows it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BillToView {
    pub legal_name: String,
    pub address: String,
    pub postal_code: String,
    pub city: String,
    pub country: String,
    pub vat_id: Option<String>,
}

/// The "who should not buy" points that apply to a plan.
pub fn not_for_ids(plan: &str) -> &'static [&'static str] {
    match plan {
        "g-l40s-x2" => &[
            "from-scratch",
            "per-second",
            "wont-fit",
            "fp64",
            "managed-stack",
        ],
        _ => &["per-second", "wont-fit", "fp64", "managed-stack"],
    }
}

#[component]
pub fn OrderPage(lang: Lang, form: OrderFormView) -> impl IntoView {
    let Some(facts) = use_facts() else {
        return view! { <ErrorPage lang /> }.into_any();
    };
    let (Some(plan), Some(site)) = (
        facts.catalog.plan(&form.plan).cloned(),
        facts.catalog.site(&form.site).cloned(),
    ) else {
        return view! { <NotFound /> }.into_any();
    };
    let o = orders(lang);
    let t = ui(lang);
    let level = facts.stock.level(&site.code, &plan.id);
    let rest = format!("/order?plan={}&site={}", plan.id, site.code);
    let name_field = super::forms::FieldState::of("name", "name", true);
    let sold_out = form.sold_out.clone().map(|sites| {
        view! { <SoldOut lang plan=plan.clone() sites email=form.email.clone() site=site.clone() /> }
    });
    // Add-ons, whom it bills and the summary: the live quote's first render.
    let addon_ids: Vec<String> = facts
        .catalog
        .addons
        .iter()
        .filter(|a| a.price_for(&plan.id).is_some())
        .map(|a| a.id.clone())
        .collect();
    let live_first = super::order_quote::ServerHtml(
        view! {
            <AddonChoice lang plan=plan.clone() selected=form.addons.clone() />
            <BillTo lang form=form.clone() />
            <Summary lang plan=plan.clone() form=form.clone() />
        }
        .to_html(),
    );
    view! {
        <Page lang title=(o.order_title)(&plan.name) description=o.order_intro.to_owned() rest noindex=true>
            <section class="section portal-form wide order" aria-labelledby="order-title">
                <h1 id="order-title">{(o.order_title)(&plan.name)}</h1>
                <p class="lead">{o.order_intro}</p>
                <FormErrorNotice lang />
                {sold_out}
                <p class="choice-line">
                    <strong>{plan.name.clone()}</strong>
                    {format!(
                        " · {} · {} · {} GB · {} TB NVMe · {} ",
                        gpu_text(&plan),
                        (t.cores)(plan.dedicated_cores),
                        plan.memory_gb,
                        plan.nvme_tb,
                        (t.city_in_country)(site.city.get(lang), site.country.get(lang)),
                    )}
                    <span data-live="stock"><StockBadge level lang /></span>
                    " "
                    <a href=href(lang, &configure_rest(plan.id.as_str(), Some(site.code.as_str())))>{o.order_change_choice}</a>
                </p>
                <form method="post" action=href(lang, "/order") class="order-form">
                    <CsrfField />
                    <input type="hidden" name="plan" value=plan.id.to_string() />
                    <input type="hidden" name="site" value=site.code.to_string() />
                    <input type="hidden" name="idempotency_key" value=form.idempotency_key.clone() />
                    <div class="field">
                        <label for="name">{o.order_name}</label>
                        <input id="name" name="name" value=form.name.clone() required maxlength="63" pattern=SERVER_NAME_PATTERN autocomplete="off" aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                        {name_field.message(lang)}
                        <p class="hint" id="name-hint">{o.order_name_hint}</p>
                    </div>
                    <ImageChoice lang selected=form.image.clone() />
                    <KeyChoice lang form=form.clone() />
                    <super::order_quote::OrderLiveQuote
                        lang
                        plan=plan.id.to_string()
                        site=site.code.to_string()
                        addon_ids=addon_ids
                        first=live_first
                    />
                    <NotFor lang plan=plan.id.to_string() />
                    <p class="notes">{o.order_hold_note}</p>
                    <div class="actions">
                        <button type="submit" name="intent" value="update" class="secondary" formnovalidate>{o.order_recalculate}</button>
                        <button type="submit" name="intent" value="place" data-testid="place-order">{o.order_submit}</button>
                    </div>
                </form>
            </section>
            <script type="module" src="/islands.js"></script>
        </Page>
    }
    .into_any()
}

/// The operating system radio buttons (the order form, a reinstall).
#[component]
pub fn ImageChoice(lang: Lang, selected: String) -> impl IntoView {
    let o = orders(lang);
    let options = OsImage::ALL
        .into_iter()
        .map(|image| {
            let label = match image {
                OsImage::Rescue => o.image_rescue,
                other => other.product_name(),
            };
            let id = format!("image-{}", image.as_str());
            let label_for = id.clone();
            view! {
                <label class="option" for=label_for>
                    <input type="radio" id=id name="image" value=image.as_str() checked=selected == image.as_str() />
                    " "{label}
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="field">
            <legend>{o.order_image}</legend>
            {options}
        </fieldset>
    }
}

#[component]
fn KeyChoice(lang: Lang, form: OrderFormView) -> impl IntoView {
    let o = orders(lang);
    let saved = form
        .keys
        .iter()
        .map(|(id, name, fingerprint)| {
            let input_id = format!("key-{id}");
            let label_for = input_id.clone();
            view! {
                <label class="option" for=label_for>
                    <input type="checkbox" id=input_id name="keys" value=id.clone() checked=form.key_ids.contains(id) />
                    " "{name.clone()}" "<code class="fingerprint">{fingerprint.clone()}</code>
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="field">
            <legend>{o.order_keys}</legend>
            <p class="hint">{o.order_keys_hint}</p>
            {saved}
            <label for="new_key">{o.order_new_key}</label>
            <textarea id="new_key" name="new_key" rows="3" spellcheck="false" aria-describedby="new-key-hint">{form.new_key.clone()}</textarea>
            <p class="hint" id="new-key-hint">{o.order_new_key_hint}</p>
        </fieldset>
    }
}

#[component]
fn AddonChoice(lang: Lang, plan: Plan, selected: Vec<String>) -> impl IntoView {
    let o = orders(lang);
    let t = ui(lang);
    let facts = use_facts();
    let options = facts
        .map(|f| f.catalog.addons.clone())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|addon| {
            let price = addon.price_for(&plan.id)?;
            let id = format!("addon-{}", addon.id);
            let label_for = id.clone();
            Some(view! {
                <label class="option" for=label_for>
                    <input type="checkbox" id=id name="addons" value=addon.id.clone() checked=selected.contains(&addon.id) />
                    " "<strong>{addon.name.get(lang).to_owned()}</strong>
                    {format!(" · {} {}", price.format(lang), t.per_month)}
                    <span class="hint">{addon.description.get(lang).to_owned()}</span>
                </label>
            })
        })
        .collect_view();
    view! {
        <fieldset class="field">
            <legend>{o.order_addons}</legend>
            {options}
        </fieldset>
    }
}

/// Whom the order bills, read-only: invoices go to the billing profile,
/// which an order never changes.
#[component]
fn BillTo(lang: Lang, form: OrderFormView) -> impl IntoView {
    let o = orders(lang);
    let change = form.can_change_billing.then(|| {
        view! { <a href=href(lang, &form.change_billing) data-testid="change-billing">{o.order_change_billing}</a> }
    });
    let Some(p) = form.bill_to else {
        return view! {
            <div class="field bill-to" data-testid="bill-to">
                <p><strong>{o.order_bill_to}</strong></p>
                <p class="notice">{o.order_billing_missing}</p>
                {change}
            </div>
        }
        .into_any();
    };
    let country = domain::order::country_name(&p.country, lang);
    let vat_prefix = crate::i18n::billing(lang).vat_prefix;
    view! {
        <div class="field bill-to" data-testid="bill-to">
            <p><strong>{o.order_bill_to}</strong></p>
            <address>
                {p.legal_name}<br />
                {p.address}<br />
                {format!("{} {}", p.postal_code, p.city)}<br />
                {country}
                {p.vat_id.map(|id| view! { <br />{format!("{vat_prefix} {id}")} })}
            </address>
            <p class="hint">
                {o.order_bill_to_hint}" "
                {if form.can_change_billing {
                    change.into_any()
                } else {
                    o.order_billing_ask.into_any()
                }}
            </p>
        </div>
    }
    .into_any()
}

/// The VAT line's label: the rate, reverse charge or no EU VAT. The order
/// form and a placed order's page both name it so.
pub fn vat_label(lang: Lang, treatment: domain::VatTreatment) -> String {
    let o = orders(lang);
    match treatment {
        domain::VatTreatment::Charged { rate_bp } => (o.sum_vat)(rate_bp),
        domain::VatTreatment::ReverseCharge => o.sum_vat_reverse.to_owned(),
        domain::VatTreatment::OutsideEu => o.sum_vat_outside.to_owned(),
    }
}

#[component]
pub(crate) fn Summary(lang: Lang, plan: Plan, form: OrderFormView) -> impl IntoView {
    let o = orders(lang);
    let t = ui(lang);
    let facts = use_facts();
    let addon_name = move |id: &str| {
        facts
            .as_ref()
            .and_then(|f| f.catalog.addon(id).map(|a| a.name.get(lang).to_owned()))
            .unwrap_or_else(|| id.to_owned())
    };
    let lines = form
        .quote
        .as_ref()
        .map(|q| q.addons.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|(id, price)| view! { <dt>{addon_name(&id)}</dt><dd>{price.format(lang)}</dd> })
        .collect_view();
    let totals = match &form.quote {
        Some(q) => {
            let vat_label = vat_label(lang, q.vat_treatment);
            view! {
                <dt>{o.sum_net}</dt><dd>{q.net.format(lang)}</dd>
                <dt>{vat_label}</dt><dd>{q.vat.format(lang)}</dd>
                <dt class="total">{o.sum_total}</dt><dd class="total" data-testid="order-total">{q.total.format(lang)}</dd>
            }
            .into_any()
        }
        None => view! {
            <dt>{o.sum_net}</dt><dd>{form.net.unwrap_or(plan.monthly_price).format(lang)}</dd>
            <dt>{o.sum_total}</dt><dd>{o.sum_needs_profile}</dd>
        }
        .into_any(),
    };
    view! {
        <div class="summary" id="order-summary">
            <h2>{o.order_summary}</h2>
            <dl>
                <dt>{plan.name.clone()}</dt>
                <dd>{plan.monthly_price.format(lang)}" "{t.per_month}</dd>
                {lines}
                {totals}
            </dl>
            {form.vat_id_unconfirmed.map(|(vat_id, status)| {
                let b = crate::i18n::billing(lang);
                let why = match status {
                    domain::vat::VatIdState::Invalid => (b.order_vat_id_invalid)(&vat_id),
                    domain::vat::VatIdState::Unchecked | domain::vat::VatIdState::Valid => (b.order_vat_id_unchecked)(&vat_id),
                };
                view! { <p class="notes" data-testid="vat-id-unconfirmed">{why}</p> }
            })}
            {form.vat_id_name_differs.map(|(vat_id, name)| {
                let b = crate::i18n::billing(lang);
                view! { <p class="notes" data-testid="vat-id-name-differs">{(b.order_vat_name_differs)(&vat_id, &name)}</p> }
            })}
            <p class="notes">{o.sum_term}</p>
        </div>
    }
}

#[component]
fn NotFor(lang: Lang, plan: String) -> impl IntoView {
    let c = content(lang);
    let ids = not_for_ids(&plan);
    let items = c
        .not_for
        .iter()
        .filter(|n| ids.contains(&n.id))
        .map(|n| view! { <li data-not-for=n.id><strong>{n.title}</strong>" "{n.body}</li> })
        .collect_view();
    view! {
        <div class="not-for">
            <h2>{orders(lang).order_not_for_title}</h2>
            <ul>{items}</ul>
        </div>
    }
}

/// Sold out at the last moment: the sites that still have the plan, and
/// an alert for this one.
#[component]
fn SoldOut(lang: Lang, plan: Plan, site: Site, sites: Vec<String>, email: String) -> impl IntoView {
    let t = ui(lang);
    let o = orders(lang);
    let facts = use_facts();
    let links = sites
        .iter()
        .filter_map(|code| facts.as_ref()?.catalog.site(code).cloned())
        .map(|s| {
            view! {
                <li data-site=s.code.to_string()>
                    <a href=href(lang, &format!("/order?plan={}&site={}", plan.id, s.code))>{s.city.get(lang).to_owned()}</a>
                </li>
            }
        })
        .collect_view();
    view! {
        <div class="alternatives" data-testid="sold-out">
            {if sites.is_empty() {
                view! { <p>{t.configure_no_stock_anywhere}</p> }.into_any()
            } else {
                view! { <p>{t.configure_try_sites}</p><ul class="site-list">{links}</ul> }.into_any()
            }}
            <p>{o.order_alert_offer}</p>
            <super::alerts::AlertForm lang plan=plan.id.to_string() site=site.code.to_string() email />
        </div>
    }
}

crate::page_view!(OrderFormView => OrderPage(form));
