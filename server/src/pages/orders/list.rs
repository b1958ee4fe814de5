//! The organization's orders: a list and one order's detail. Owners and
//! billing members see the amounts; technical members see the orders they
//! placed, without amounts.

use app::context::use_facts;
use app::i18n::orders;
use app::portal::forms::Notice;
use app::portal::nav::PortalNav;
use app::storefront::href;
use app::storefront::layout::Page;
use domain::order::OrderState;
use domain::{Lang, Money};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrderRow {
    pub id: domain::OrderId,
    pub plan_id: String,
    pub site_code: String,
    pub server_name: String,
    pub os_image: String,
    pub addons: Vec<String>,
    pub state: OrderState,
    pub failure: Option<domain::order::OrderFailure>,
    pub placed_by: String,
    pub created_at: i64,
    /// Until when the host is held for payment.
    pub hold_expires_at: Option<i64>,
    pub server_id: Option<domain::ServerId>,
    /// Only for viewers who may see money.
    pub amounts: Option<OrderAmounts>,
    /// Staff lists: the organization's name.
    pub organization: Option<String>,
}

impl OrderRow {
    /// An order as its list and page show it; amounts only for those who see money.
    pub fn new(order: backend::orders::Order, money: bool) -> OrderRow {
        let eur = domain::Money::eur;
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
            plan_id: order.plan_id.to_string(),
            site_code: order.site_code.to_string(),
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
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrderAmounts {
    pub plan: Money,
    pub addons: Money,
    pub vat_rate_bp: i64,
    pub vat: Money,
    pub total: Money,
    pub billing_country: String,
    pub billing_method: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct OrdersView {
    pub rows: Vec<OrderRow>,
    /// The viewer sees only their own orders.
    pub own_only: bool,
}

fn plan_name(plan_id: &str) -> String {
    use_facts()
        .and_then(|f| f.catalog.plan(plan_id).map(|p| p.name.clone()))
        .unwrap_or_else(|| plan_id.to_owned())
}

fn site_name(lang: Lang, code: &str) -> String {
    use_facts()
        .and_then(|f| f.catalog.site(code).map(|s| s.city.get(lang).to_owned()))
        .unwrap_or_else(|| code.to_owned())
}

/// One order row, shared by the organization's list and the staff list.
#[component]
pub fn OrderTableRow(lang: Lang, row: OrderRow, money: bool) -> impl IntoView {
    let o = orders(lang);
    let total = row
        .amounts
        .as_ref()
        .map(|a| a.total.format(lang))
        .unwrap_or_default();
    view! {
        <tr data-order=row.id.to_string() data-state=row.state.as_str()>
            <td><time datetime=domain::time::format_iso(row.created_at)>{domain::time::format_datetime(row.created_at)}</time></td>
            {row.organization.clone().map(|org| view! { <td>{org}</td> })}
            <th scope="row"><a href=href(lang, &format!("/orders/{}", row.id))>{row.server_name.clone()}</a></th>
            <td>{format!("{} · {}", plan_name(&row.plan_id), site_name(lang, &row.site_code))}</td>
            <td>{(o.order_state)(row.state)}</td>
            <td>{row.placed_by.clone()}</td>
            {money.then(|| view! { <td class="num">{total}</td> })}
        </tr>
    }
}

#[component]
pub fn OrdersPage(lang: Lang, view: OrdersView) -> impl IntoView {
    let o = orders(lang);
    let money = !view.own_only;
    let empty = view.rows.is_empty();
    let rows = view
        .rows
        .into_iter()
        .map(|row| view! { <OrderTableRow lang row money /> })
        .collect_view();
    view! {
        <Page lang title=o.orders_title.to_owned() description=o.orders_title.to_owned() rest="/orders".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="orders-title">
                <PortalNav lang />
                <h1 id="orders-title">{o.orders_title}</h1>
                {view.own_only.then(|| view! { <p class="hint">{o.orders_own_note}</p> })}
                {if empty {
                    view! { <p>{o.orders_empty}</p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.orders_title)>
                            <table class="orders">
                                <thead>
                                    <tr>
                                        <th scope="col">{o.orders_placed}</th>
                                        <th scope="col">{o.orders_server}</th>
                                        <th scope="col">{app::i18n::ui(lang).configure_plan}</th>
                                        <th scope="col">{o.orders_state}</th>
                                        <th scope="col">{o.orders_by}</th>
                                        {money.then(|| view! { <th scope="col" class="num">{o.orders_total}</th> })}
                                    </tr>
                                </thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    }
                    .into_any()
                }}
            </section>
        </Page>
    }
    .into_any()
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OrderDetailView {
    pub order: OrderRow,
    /// The viewer may open the server (owners and technical members).
    pub can_open_server: bool,
}

#[component]
pub fn OrderDetailPage(lang: Lang, view: OrderDetailView) -> impl IntoView {
    let o = orders(lang);
    let t = app::i18n::ui(lang);
    let order = view.order;
    let addons = if order.addons.is_empty() {
        o.server_none.to_owned()
    } else {
        let facts = use_facts();
        order
            .addons
            .iter()
            .map(|id| {
                facts
                    .as_ref()
                    .and_then(|f| f.catalog.addon(id).map(|a| a.name.get(lang).to_owned()))
                    .unwrap_or_else(|| id.clone())
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let image = domain::OsImage::parse(&order.os_image).map_or("", |i| match i {
        domain::OsImage::Rescue => o.image_rescue,
        other => other.product_name(),
    });
    let amounts = order.amounts.clone().map(|a| {
        let vat_label = app::portal::order::vat_label(
            lang,
            domain::VatTreatment::of_order(&a.billing_country, a.vat_rate_bp),
        );
        view! {
            <dt>{o.order_billing}</dt>
            <dd>
                {if a.billing_method == "stripe" { o.billing_stripe } else { o.billing_invoice }}
                {format!(" · {}", domain::order::country_name(&a.billing_country, lang))}
            </dd>
            <dt>{o.sum_net}</dt><dd>{Money { cents: a.plan.cents + a.addons.cents, ..a.plan }.format(lang)}</dd>
            <dt>{vat_label}</dt><dd>{a.vat.format(lang)}</dd>
            <dt>{o.sum_total}</dt><dd data-testid="order-total">{a.total.format(lang)}</dd>
        }
    });
    let server_link = order
        .server_id
        .clone()
        .filter(|_| view.can_open_server && order.state != OrderState::Failed)
        .map(|id| view! { <p><a href=href(lang, &format!("/servers/{id}")) class="button">{o.order_view_server}</a></p> });
    let failure = order
        .failure
        .map(|f| view! { <p class="notice notice-error">{(o.order_failure)(f)}</p> });
    let placed = match app::portal::query("checkout").as_deref() {
        Some("done") => Some(o.checkout_done),
        Some("cancelled") => Some(o.checkout_cancelled),
        Some("unavailable") => Some(o.checkout_unavailable),
        _ => app::portal::query("placed").map(|_| o.order_placed_notice),
    };
    let pay = (order.state == OrderState::Held && view.can_open_server).then(|| {
        let until = order
            .hold_expires_at
            .map(domain::time::format_datetime)
            .unwrap_or_default();
        view! {
            <form method="post" action=href(lang, &format!("/orders/{}/pay", order.id))>
                <app::portal::forms::CsrfField />
                <p>{(o.pay_until)(&until)}</p>
                <button type="submit" data-testid="pay">{o.pay_now}</button>
            </form>
        }
    });
    view! {
        <Page lang title=o.order_detail_title.to_owned() description=o.order_detail_title.to_owned() rest=format!("/orders/{}", order.id) noindex=true>
            <section class="section portal-form wide" aria-labelledby="order-title">
                <PortalNav lang />
                <h1 id="order-title">{format!("{} {}", o.order_detail_title, order.server_name)}</h1>
                <Notice text=placed />
                {failure}
                <dl class="facts" data-state=order.state.as_str()>
                    <dt>{o.order_number}</dt><dd><code>{order.id.to_string()}</code></dd>
                    <dt>{o.orders_state}</dt><dd data-testid="order-state">{(o.order_state)(order.state)}</dd>
                    <dt>{o.orders_placed}</dt><dd>{domain::time::format_datetime(order.created_at)}</dd>
                    <dt>{o.orders_by}</dt><dd>{order.placed_by.clone()}</dd>
                    <dt>{t.configure_plan}</dt><dd>{plan_name(&order.plan_id)}</dd>
                    <dt>{t.configure_site}</dt><dd>{site_name(lang, &order.site_code)}</dd>
                    <dt>{o.server_image}</dt><dd>{image}</dd>
                    <dt>{o.server_addons}</dt><dd>{addons}</dd>
                    {amounts}
                </dl>
                {pay}
                {server_link}
            </section>
        </Page>
    }
    .into_any()
}

app::page_view!(OrdersView => OrdersPage(view));

app::page_view!(OrderDetailView => OrderDetailPage(view));
