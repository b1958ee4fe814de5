//! Ordering: the order form (owners and technical members), placing an
//! order, and the organization's orders. The order form is one POST form
//! with two buttons: "update summary" re-renders it with the new price;
//! "place order" places it, idempotently by the key the form carries.

pub mod list;
pub mod quote;

use crate::http::auth::CurrentUser;
use crate::http::page::{
    client_ip, facts_for, lang_of, page, redirect, Member, PageError, PageResult, SameOrigin,
    Signed,
};
use crate::http::routes::{Route, MEMBERS, MONEY, TECHNICAL};
use crate::pages::orders::list::{OrderDetailView, OrderRow, OrdersView};
use crate::startup::AppState;
use app::context::StorefrontFacts;
use app::portal::order::{BillToView, OrderFormView};
use app::portal::{FormError, FormFeedback};
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect};
use backend::billing::Checkout;
use backend::orders::{self, NewOrder, Order, OrderError, OrderState};
use backend::organizations::Role;
use domain::OrderId;
use http::request::Parts;
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::sync::Arc;

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/order", TECHNICAL, order_page),
        Route::post("/{lang}/order", TECHNICAL, order_post),
        Route::get("/{lang}/orders", MEMBERS, orders_page),
        Route::get("/{lang}/orders/{id}", MEMBERS, order_detail),
        Route::post("/{lang}/orders/{id}/pay", TECHNICAL, pay),
    ]
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    plan: String,
    #[serde(default)]
    site: String,
}

/// The order form for the plan and site chosen on the storefront. A post
/// refused before it was read (not from our pages) shows the form again as
/// it was sent. Before the organization's first order an owner gives its
/// billing profile first, and comes back here with the same choice.
async fn order_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    Query(choice): Query<Choice>,
    parts: Parts,
) -> PageResult {
    let refused = parts.extensions.get::<FormFeedback>().is_some();
    if !refused
        && backend::billing::profile::get(&state.db, &m.0.organization_id)
            .await?
            .is_none()
    {
        if let Some(to) = profile_first(&m, &choice.plan, &choice.site) {
            return Ok(redirect(lang_of(&parts), &to));
        }
    }
    let (form, first_visit) = match parts.extensions.get::<FormFeedback>() {
        Some(refused) => (read_form(&refused.values).0, false),
        None => (
            OrderFormView {
                name: format!("{}-{}", choice.plan, choice.site),
                plan: choice.plan,
                site: choice.site,
                image: domain::OsImage::Ubuntu2404.as_str().to_owned(),
                ..OrderFormView::default()
            },
            true,
        ),
    };
    form_page(&state, &current, &m, parts, form, first_visit).await
}

/// Where an owner gives the billing profile before ordering `plan` at
/// `site`, coming back to the order form afterwards. `None` for technical
/// members, who may not edit it: their form says whom to ask.
fn profile_first(m: &Member, plan: &str, site: &str) -> Option<String> {
    MONEY
        .allows(false, Some(m.0.role))
        .then(|| crate::pages::billing::profile::profile_path(plan, site))
}

/// The order form with what `prepare` fills in; 404 for a plan or site
/// that doesn't exist.
async fn form_page(
    state: &AppState,
    current: &CurrentUser,
    m: &Member,
    mut parts: Parts,
    form: OrderFormView,
    first_visit: bool,
) -> PageResult {
    let facts = facts_for(state, &mut parts).await?;
    let form = prepare(state, &facts, current, m, form, first_visit)
        .await?
        .ok_or(PageError::NotFound)?;
    page(state, parts, form).await
}

/// Fills in what the form shows around the customer's choices: saved keys,
/// the quote for the organization's billing profile (shown read-only), a
/// fresh idempotency key, and the sites with stock if this one is sold out.
/// `None` for a plan or site that doesn't exist.
async fn prepare(
    state: &AppState,
    facts: &StorefrontFacts,
    current: &CurrentUser,
    m: &Member,
    mut form: OrderFormView,
    first_visit: bool,
) -> anyhow::Result<Option<OrderFormView>> {
    let organization_id = &m.0.organization_id;
    let (Some(plan), Some(site)) = (
        facts.catalog.plan(&form.plan),
        facts.catalog.site(&form.site),
    ) else {
        return Ok(None);
    };
    let keys = backend::ssh_keys::list(&state.db, &current.user.id).await?;
    if first_visit {
        form.key_ids = keys.iter().map(|k| k.id.clone()).collect();
    }
    form.keys = keys
        .into_iter()
        .map(|k| (k.id, k.name, k.fingerprint))
        .collect();
    form.addons.retain(|a| facts.catalog.addon(a).is_some());
    // Billed as placing the order will bill: the billing profile decides the
    // country and VAT.
    let customer = orders::pricing::customer(&state.db, organization_id).await?;
    form.can_change_billing = MONEY.allows(false, Some(m.0.role));
    form.change_billing = crate::pages::billing::profile::profile_path(&form.plan, &form.site);
    if let Some(customer) = &customer {
        let p = &customer.profile;
        form.bill_to = Some(BillToView {
            legal_name: p.legal_name.clone(),
            address: p.address.clone(),
            postal_code: p.postal_code.clone(),
            city: p.city.clone(),
            country: p.country.clone(),
            vat_id: p.vat_id.clone(),
        });
    }
    let summary = orders::pricing::summary(
        &state.db,
        &facts.catalog,
        plan,
        &form.addons,
        customer.as_ref(),
        &state.seller.country,
        state.clock.now(),
    )
    .await?;
    form.quote = summary.quote;
    form.net = Some(summary.net);
    form.vat_id_unconfirmed = summary.vat_id_unconfirmed;
    form.vat_id_name_differs = summary.vat_id_name_differs;
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

/// The order form's fields (`keys` and `addons` repeat) and the button
/// pressed.
fn read_form(fields: &[(String, String)]) -> (OrderFormView, String) {
    let mut form = OrderFormView::default();
    let mut intent = String::new();
    for (name, value) in fields {
        let value = value.clone();
        match name.as_str() {
            "plan" => form.plan = value,
            "site" => form.site = value,
            "name" => form.name = value,
            "image" => form.image = value,
            "keys" => form.key_ids.push(value),
            "addons" => form.addons.push(value),
            "new_key" => form.new_key = value,
            "idempotency_key" => form.idempotency_key = value,
            "intent" => intent = value,
            _ => {}
        }
    }
    (form, intent)
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
        OrderError::NoBillingProfile => (FormError::BillingProfileMissing, None),
        OrderError::SoldOut { sites_with_stock } => (FormError::SoldOut, Some(sites_with_stock)),
        OrderError::Db(error) => {
            tracing::error!(error = %format!("{error:#}"), "placing an order failed");
            (FormError::Unavailable, None)
        }
    }
}

/// "Update summary" shows the form again with the new price; "place order"
/// places it. The form's fields repeat, so they are read as pairs. A
/// refused order shows the form as sent, which only this post has, so the
/// page is rendered here rather than by `order_page`.
async fn order_post(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    mut parts: Parts,
    SameOrigin(fields): SameOrigin<Vec<(String, String)>>,
) -> PageResult {
    let lang = lang_of(&parts);
    let (mut form, intent) = read_form(&fields);
    if intent == "update" {
        return form_page(&state, &current, &m, parts, form, false).await;
    }
    let facts = facts_for(&state, &mut parts).await?;
    let new = NewOrder {
        organization_id: m.0.organization_id.clone(),
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
        billing_method: state.billing.method().to_owned(),
        seller_country: state.seller.country.clone(),
    };
    let placed = orders::place(&state.db, &state.clock, &facts.catalog, &new).await;
    // No billing profile yet: the owner gives it and comes back to this
    // plan and site (the rest of the form is typed again).
    if let (Err(OrderError::NoBillingProfile), Some(to)) =
        (&placed, profile_first(&m, &form.plan, &form.site))
    {
        return Ok(redirect(lang, &to));
    }
    let order_id = match placed {
        Ok(placed) => placed.order_id,
        Err(error) => {
            let (error, sold_out) = order_error(error);
            form.sold_out = sold_out;
            parts.extensions.insert(FormFeedback {
                error: Some(error),
                values: vec![("name".to_owned(), form.name.clone())],
            });
            return form_page(&state, &current, &m, parts, form, false).await;
        }
    };
    // A repeated submit lands here too; checkout of a confirmed order
    // changes nothing. The order is placed either way: if the payment
    // provider cannot be reached, its page says so and offers to pay.
    let checkout = match state
        .billing
        .checkout(&state.db, &state.clock, &order_id, &return_to(&state))
        .await
    {
        Ok(checkout) => checkout,
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), order = %order_id, "starting checkout failed");
            return Ok(redirect(
                lang,
                &format!("/orders/{order_id}?checkout=unavailable"),
            ));
        }
    };
    Ok(match checkout {
        Checkout::Confirmed(order) => match (&order.server_id, order.state) {
            (Some(server), OrderState::Confirmed | OrderState::Fulfilled) => {
                redirect(lang, &format!("/servers/{server}?placed=1"))
            }
            _ => redirect(lang, &format!("/orders/{}", order.id)),
        },
        Checkout::Redirect(url) => Redirect::to(&url).into_response(),
    })
}

pub(crate) fn staff_row(order: Order, organization: String) -> OrderRow {
    OrderRow {
        organization: Some(organization),
        ..OrderRow::new(order, true)
    }
}

async fn orders_page(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    parts: Parts,
) -> PageResult {
    let own_only = m.0.role == Role::Technical;
    let placed_by = own_only.then_some(current.user.id.as_str());
    let list = orders::list(&state.db, &m.0.organization_id, placed_by).await?;
    let rows = list
        .into_iter()
        .map(|o| OrderRow::new(o, !own_only))
        .collect();
    page(&state, parts, OrdersView { rows, own_only }).await
}

async fn order_detail(
    State(state): State<Arc<AppState>>,
    m: Member,
    Signed(current): Signed,
    Path((_, id)): Path<(String, OrderId)>,
    parts: Parts,
) -> PageResult {
    let role = m.0.role;
    let order = orders::get(&state.db, &m.0.organization_id, &id)
        .await?
        .filter(|o| role != Role::Technical || o.user_id == current.user.id)
        .ok_or(PageError::NotFound)?;
    let view = OrderDetailView {
        order: OrderRow::new(order, MONEY.allows(false, Some(role))),
        can_open_server: TECHNICAL.allows(false, Some(role)),
    };
    page(&state, parts, view).await
}

fn return_to(state: &AppState) -> String {
    state
        .config
        .public_base_url
        .trim_end_matches('/')
        .to_owned()
}

/// Back to Stripe Checkout for an order still waiting for payment (after
/// "cancel" on Stripe's page, or a lost tab): the same session, since its
/// idempotency key is the order's. The form has no fields of its own.
async fn pay(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, OrderId)>,
    parts: Parts,
    SameOrigin(_): SameOrigin<IgnoredAny>,
) -> PageResult {
    let lang = lang_of(&parts);
    let order = orders::get(&state.db, &m.0.organization_id, &id)
        .await?
        .ok_or(PageError::NotFound)?;
    if order.state != OrderState::Held {
        return Ok(redirect(lang, &format!("/orders/{id}")));
    }
    let checkout = state
        .billing
        .checkout(&state.db, &state.clock, &id, &return_to(&state))
        .await?;
    Ok(match checkout {
        Checkout::Redirect(url) => Redirect::to(&url).into_response(),
        Checkout::Confirmed(_) => redirect(lang, &format!("/orders/{id}")),
    })
}
