//! Ordering: the order form (owners and technical members), placing an
//! order, and the organization's orders. The order form is one POST form
//! with two buttons: "update summary" re-renders it with the new price;
//! "place order" places it, idempotently by the key the form carries.

use app::portal::order::OrderFormView;
use app::portal::orders::{OrderAmounts, OrderDetailView, OrderRow, OrdersView};
use app::portal::{FormError, FormFeedback};
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Extension;
use backend::billing::Checkout;
use backend::orders::{self, NewOrder, Order, OrderError};
use backend::organizations::Role;
use domain::Money;
use http::request::Parts;
use serde::Deserialize;
use std::sync::Arc;

use super::access::{
    client_ip, denied, forbidden_post, lang_of, member_in, not_found, page, redirect, refused,
    trusted, unavailable, ANY_ROLE, MONEY, TECHNICAL,
};
use super::auth::CurrentUser;
use crate::startup::AppState;

#[derive(Deserialize)]
pub struct Choice {
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

pub async fn order_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Query(choice): Query<Choice>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    let form = OrderFormView {
        plan: choice.plan.clone(),
        site: choice.site.clone(),
        name: format!("{}-{}", choice.plan, choice.site),
        image: domain::OsImage::Ubuntu2404.as_str().to_owned(),
        ..OrderFormView::default()
    };
    match prepare(&state, &current, &m.organization_id, form, true).await {
        Ok(Some(form)) => page(&state, parts, form, FormFeedback::default()).await,
        Ok(None) => not_found(&state, parts).await,
        Err(error) => unavailable(&state, parts, error).await,
    }
}

/// Fills in what the form shows around the customer's choices: saved keys,
/// the quote, the billing country remembered for the organization, a fresh
/// idempotency key, and the sites with stock if this one is sold out.
/// `None` for a plan or site that doesn't exist.
async fn prepare(
    state: &AppState,
    current: &CurrentUser,
    organization_id: &str,
    mut form: OrderFormView,
    first_visit: bool,
) -> anyhow::Result<Option<OrderFormView>> {
    let facts = state.facts.current().await?.facts;
    let (Some(plan), Some(site)) = (
        facts.catalog.plan(&form.plan),
        facts.catalog.site(&form.site),
    ) else {
        return Ok(None);
    };
    let keys = backend::ssh_keys::list(&state.db, &current.user.id).await?;
    if first_visit {
        form.key_ids = keys.iter().map(|k| k.id.clone()).collect();
        form.country = orders::billing_country(&state.db, organization_id)
            .await?
            .unwrap_or_default();
    }
    form.keys = keys
        .into_iter()
        .map(|k| (k.id, k.name, k.fingerprint))
        .collect();
    form.addons.retain(|a| facts.catalog.addon(a).is_some());
    let profile = backend::billing::profile::get(&state.db, organization_id).await?;
    if let Some(p) = &profile {
        form.country = p.country.clone();
        form.country_from_profile = true;
    }
    let now = state.clock.now();
    let priced: Vec<String> = form.addons.clone();
    let billed = orders::pricing::Billed {
        country: &form.country,
        vat_id_confirmed: profile
            .as_ref()
            .is_some_and(backend::billing::profile::BillingProfile::vat_id_confirmed),
        seller_country: &state.seller.country,
    };
    // A VAT ID that would be reverse charged if VIES confirmed it: the
    // summary says why VAT is charged.
    form.vat_id_unconfirmed = profile.as_ref().and_then(|p| {
        let (vat_id, said) = p.unconfirmed_vat_id(&state.seller.country)?;
        Some((vat_id.to_owned(), said.as_str().to_owned()))
    });
    form.quote = orders::pricing::quote(&state.db, &facts.catalog, plan, &priced, &billed, now)
        .await?
        .ok();
    let with_outside = domain::Quote::new(
        plan.monthly_price,
        priced
            .iter()
            .filter_map(|id| {
                let price = facts.catalog.addon(id)?.price_for(&plan.id)?;
                Some((id.clone(), price))
            })
            .collect(),
        domain::VatTreatment::OutsideEu,
    );
    form.net = Some(with_outside.net);
    if form.idempotency_key.is_empty() {
        form.idempotency_key = backend::accounts::tokens::random_token()?;
    }
    if form.sold_out.is_none() && !facts.stock.level(&site.code, &plan.id).available() {
        form.sold_out =
            Some(orders::sites_with_stock(&state.db, &state.clock, plan.id.as_str()).await?);
    }
    form.email = current.user.email.clone();
    Ok(Some(form))
}

/// The order form's fields; `keys` and `addons` repeat.
fn read_form(body: &[u8]) -> (OrderFormView, String, String) {
    let mut form = OrderFormView::default();
    let (mut csrf, mut intent) = (String::new(), String::new());
    for (name, value) in form_urlencoded::parse(body) {
        let value = value.into_owned();
        match name.as_ref() {
            "plan" => form.plan = value,
            "site" => form.site = value,
            "name" => form.name = value,
            "image" => form.image = value,
            "keys" => form.key_ids.push(value),
            "addons" => form.addons.push(value),
            "new_key" => form.new_key = value,
            "country" => form.country = value,
            "idempotency_key" => form.idempotency_key = value,
            "csrf" => csrf = value,
            "intent" => intent = value,
            _ => {}
        }
    }
    (form, csrf, intent)
}

fn order_error(error: OrderError) -> (FormError, Option<Vec<String>>) {
    match error {
        OrderError::InvalidName => (FormError::ServerName, None),
        OrderError::UnknownPlan
        | OrderError::UnknownSite
        | OrderError::UnknownImage
        | OrderError::UnknownAddon
        | OrderError::UnknownKey => (FormError::Choice, None),
        OrderError::UnknownCountry => (FormError::Country, None),
        OrderError::BadKey => (FormError::SshKey, None),
        OrderError::MissingKey => (FormError::OrderFormExpired, None),
        OrderError::DailyLimit => (FormError::DailyOrderLimit, None),
        OrderError::SoldOut { sites_with_stock } => (FormError::SoldOut, Some(sites_with_stock)),
        OrderError::Db(error) => {
            tracing::error!(error = %format!("{error:#}"), "placing an order failed");
            (FormError::Unavailable, None)
        }
    }
}

pub async fn order_post(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
    body: Bytes,
) -> Response {
    let lang = lang_of(&parts);
    let (form, csrf, intent) = read_form(&body);
    if !trusted(&state, &parts, &csrf) {
        return page(&state, parts, form, forbidden_post()).await;
    }
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    if intent == "update" {
        return match prepare(&state, &current, &m.organization_id, form, false).await {
            Ok(Some(form)) => page(&state, parts, form, FormFeedback::default()).await,
            Ok(None) => not_found(&state, parts).await,
            Err(error) => unavailable(&state, parts, error).await,
        };
    }
    let catalog = match state.facts.current().await {
        Ok(v) => v.facts.catalog.clone(),
        Err(error) => return unavailable(&state, parts, error).await,
    };
    let new = NewOrder {
        organization_id: m.organization_id.clone(),
        user_id: current.user.id.clone(),
        actor: current.user.email.clone(),
        ip: client_ip(&parts),
        idempotency_key: form.idempotency_key.clone(),
        plan: form.plan.clone(),
        site: form.site.clone(),
        server_name: form.name.clone(),
        os_image: form.image.clone(),
        addons: form.addons.clone(),
        ssh_key_ids: form.key_ids.clone(),
        new_key: Some(form.new_key.clone()),
        billing_country: form.country.clone(),
        billing_method: state.billing.method().to_owned(),
        seller_country: state.seller.country.clone(),
    };
    let placed = orders::place(&state.db, &state.clock, &catalog, &new).await;
    let order_id = match placed {
        Ok(placed) => placed.order_id,
        Err(error) => {
            let (error, sold_out) = order_error(error);
            let mut form = form;
            form.sold_out = sold_out;
            let values = [("name", form.name.as_str())];
            let feedback = refused(error, &values);
            return match prepare(&state, &current, &m.organization_id, form, false).await {
                Ok(Some(form)) => page(&state, parts, form, feedback).await,
                Ok(None) => not_found(&state, parts).await,
                Err(error) => unavailable(&state, parts, error).await,
            };
        }
    };
    // A repeated submit lands here too; checkout of a confirmed order
    // changes nothing.
    match state
        .billing
        .checkout(&state.db, &state.clock, &order_id, &return_to(&state))
        .await
    {
        Ok(Checkout::Confirmed(order)) => match (&order.server_id, order.state.as_str()) {
            (Some(server), "confirmed" | "fulfilled") => {
                redirect(lang, &format!("/servers/{server}?placed=1"))
            }
            _ => redirect(lang, &format!("/orders/{}", order.id)),
        },
        Ok(Checkout::Redirect(url)) => {
            axum::response::IntoResponse::into_response(axum::response::Redirect::to(&url))
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}

fn row(order: Order, money: bool) -> OrderRow {
    let eur = Money::eur;
    OrderRow {
        amounts: money.then(|| OrderAmounts {
            plan: eur(order.plan_cents),
            addons: eur(order.addons_cents),
            vat_rate_bp: order.vat_rate_bp,
            vat: eur(order.vat_cents),
            total: eur(order.total_cents),
            billing_country: order.billing_country.clone(),
            billing_method: order.billing_method.clone(),
        }),
        id: order.id,
        plan_id: order.plan_id,
        site_code: order.site_code,
        server_name: order.server_name,
        os_image: order.os_image,
        addons: order.addons,
        state: order.state,
        failure: order.failure,
        placed_by: order.placed_by,
        created_at: order.created_at,
        hold_expires_at: order.hold_expires_at,
        server_id: order.server_id,
        organization: None,
    }
}

pub(crate) fn staff_row(order: Order, organization: String) -> OrderRow {
    OrderRow {
        organization: Some(organization),
        ..row(order, true)
    }
}

pub async fn orders_page(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, ANY_ROLE).cloned() else {
        return denied(&state, parts).await;
    };
    let own_only = m.role == Role::Technical;
    let placed_by = own_only.then_some(current.user.id.as_str());
    match orders::list(&state.db, &m.organization_id, placed_by).await {
        Ok(list) => {
            let rows = list.into_iter().map(|o| row(o, !own_only)).collect();
            page(
                &state,
                parts,
                OrdersView { rows, own_only },
                FormFeedback::default(),
            )
            .await
        }
        Err(error) => unavailable(&state, parts, error).await,
    }
}

pub async fn order_detail(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
) -> Response {
    let Some(m) = member_in(&current, ANY_ROLE).cloned() else {
        return denied(&state, parts).await;
    };
    let order = match orders::get(&state.db, &m.organization_id, &id).await {
        Ok(order) => order,
        Err(error) => return unavailable(&state, parts, error).await,
    };
    let visible = order.filter(|o| m.role != Role::Technical || o.user_id == current.user.id);
    let Some(order) = visible else {
        return not_found(&state, parts).await;
    };
    let view = OrderDetailView {
        order: row(order, MONEY.contains(&m.role)),
        can_open_server: TECHNICAL.contains(&m.role),
    };
    page(&state, parts, view, FormFeedback::default()).await
}

fn return_to(state: &AppState) -> String {
    state
        .config
        .public_base_url
        .trim_end_matches('/')
        .to_owned()
}

#[derive(Deserialize)]
pub struct PayForm {
    #[serde(default)]
    csrf: String,
}

/// Back to Stripe Checkout for an order still waiting for payment (after
/// "cancel" on Stripe's page, or a lost tab): the same session, since its
/// idempotency key is the order's.
pub async fn pay(
    State(state): State<Arc<AppState>>,
    Extension(current): Extension<CurrentUser>,
    Path((_, id)): Path<(String, String)>,
    parts: Parts,
    axum::Form(form): axum::Form<PayForm>,
) -> Response {
    let lang = lang_of(&parts);
    let Some(m) = member_in(&current, TECHNICAL).cloned() else {
        return denied(&state, parts).await;
    };
    if !trusted(&state, &parts, &form.csrf) {
        return redirect(lang, &format!("/orders/{id}"));
    }
    match orders::get(&state.db, &m.organization_id, &id).await {
        Ok(Some(order)) if order.state == "held" => {}
        Ok(Some(_)) => return redirect(lang, &format!("/orders/{id}")),
        Ok(None) => return not_found(&state, parts).await,
        Err(error) => return unavailable(&state, parts, error).await,
    }
    match state
        .billing
        .checkout(&state.db, &state.clock, &id, &return_to(&state))
        .await
    {
        Ok(Checkout::Redirect(url)) => {
            axum::response::IntoResponse::into_response(axum::response::Redirect::to(&url))
        }
        Ok(Checkout::Confirmed(_)) => redirect(lang, &format!("/orders/{id}")),
        Err(error) => unavailable(&state, parts, error).await,
    }
}
