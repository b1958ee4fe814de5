//! The order page's live quote: an island around the add-ons, whom it
//! bills and the summary. Ticking an add-on asks `order_quote`, which
//! prices the order with the backend's pricing (the organization's billing
//! profile decides country and VAT, as placing the order does) and renders
//! the summary with the page's own component; the island puts it in place,
//! with the site's stock as of that moment. Without JavaScript, "Update
//! summary" posts the form and gets the same.

use domain::Lang;
use leptos::prelude::*;

use crate::quote_error::QuoteError;
use serde::{Deserialize, Serialize};

pub use crate::storefront::quote::ServerHtml;

/// What the server function answers: the summary block and the stock badge
/// of the chosen site, rendered in the page's language.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveOrderQuote {
    pub addons: Vec<String>,
    pub summary: String,
    pub stock: String,
}

/// What the server gives the islands' server functions: the database and
/// clock the backend needs, the seller's country (for VAT) and the caller's
/// organization and role, from the session.
#[cfg(feature = "ssr")]
#[derive(Clone)]
pub struct ServerFnContext {
    pub db: backend::Db,
    pub clock: backend::Clock,
    pub seller_country: String,
    pub caller: Option<(domain::OrganizationId, backend::organizations::Role)>,
}

/// The order's summary for these add-ons. Only roles that may order (owner,
/// technical) get one, for their own organization. Read-only.
#[server(prefix = "/api", endpoint = "order-quote")]
pub async fn order_quote(
    lang: Lang,
    plan: String,
    site: String,
    // No add-on ticked is sent as no field at all.
    #[server(default)] addons: Vec<String>,
) -> Result<LiveOrderQuote, QuoteError> {
    use backend::organizations::Role;
    let cx = use_context::<ServerFnContext>().ok_or_else(|| QuoteError::Unavailable.answer())?;
    let Some((organization_id, Role::Owner | Role::Technical)) = cx.caller.clone() else {
        return Err(QuoteError::NotAllowed.answer());
    };
    let facts = crate::context::use_facts().ok_or_else(|| QuoteError::Unavailable.answer())?;
    let (Some(plan), Some(site)) = (
        facts.catalog.plan(&plan).cloned(),
        facts.catalog.site(&site).cloned(),
    ) else {
        return Err(QuoteError::Unknown.answer());
    };
    fn unavailable(error: impl std::fmt::Display) -> QuoteError {
        leptos::logging::error!("pricing an order failed: {error:#}");
        QuoteError::Unavailable.answer()
    }
    let mut form = super::order::OrderFormView {
        plan: plan.id.to_string(),
        site: site.code.to_string(),
        addons: addons
            .into_iter()
            .filter(|a| facts.catalog.addon(a).is_some())
            .collect(),
        ..Default::default()
    };
    let customer = backend::orders::pricing::customer(&cx.db, &organization_id)
        .await
        .map_err(unavailable)?;
    // The same summary the order form computes.
    let summary = backend::orders::pricing::summary(
        &cx.db,
        &facts.catalog,
        &plan,
        &form.addons,
        customer.as_ref(),
        &cx.seller_country,
        cx.clock.now(),
    )
    .await
    .map_err(unavailable)?;
    form.quote = summary.quote;
    form.net = Some(summary.net);
    form.vat_id_unconfirmed = summary.vat_id_unconfirmed;
    form.vat_id_name_differs = summary.vat_id_name_differs;
    let level = facts.stock.level(&site.code, &plan.id);
    let addons = form.addons.clone();
    let summary = view! { <super::order::Summary lang plan form /> }.to_html();
    let stock = view! { <crate::storefront::stock::StockBadge level lang /> }.to_html();
    Ok(LiveOrderQuote {
        addons,
        summary: summary.replace("<!>", ""),
        stock: stock.replace("<!>", ""),
    })
}

/// The add-ons, whom it bills and the summary (`first`, as the server
/// rendered them). `addon_ids` are the add-ons offered for the plan.
#[island]
pub fn OrderLiveQuote(
    lang: Lang,
    plan: String,
    site: String,
    addon_ids: Vec<String>,
    first: ServerHtml,
) -> impl IntoView {
    let root = NodeRef::<leptos::html::Div>::new();
    let asked = RwSignal::new(Vec::<String>::new());
    // Marks the block once hydrated (effects run only in the browser), so
    // a test knows a change from now on is quoted live.
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let on_change = move |ev: leptos::ev::Event| {
        use leptos::wasm_bindgen::JsCast;
        let target = event_target::<leptos::web_sys::Element>(&ev);
        if target.get_attribute("name").as_deref() != Some("addons") {
            return;
        }
        let Some(el) = root.get_untracked() else {
            return;
        };
        let chosen: Vec<String> = addon_ids
            .iter()
            .filter(|id| {
                el.query_selector(&format!("#addon-{id}"))
                    .ok()
                    .flatten()
                    .and_then(|input| input.dyn_into::<leptos::web_sys::HtmlInputElement>().ok())
                    .is_some_and(|input| input.checked())
            })
            .cloned()
            .collect();
        asked.set(chosen.clone());
        let (plan, site) = (plan.clone(), site.clone());
        leptos::task::spawn_local(async move {
            // A failed read leaves the summary as it is; "Update summary"
            // still works.
            let Ok(q) = order_quote(lang, plan, site, chosen).await else {
                return;
            };
            // An answer for an older choice arrives too late to show.
            if q.addons != asked.get_untracked() {
                return;
            }
            let Some(el) = root.get_untracked() else {
                return;
            };
            if let Ok(Some(summary)) = el.query_selector("#order-summary") {
                summary.set_outer_html(&q.summary);
            }
            let stock = leptos::prelude::document().query_selector("[data-live=\"stock\"]");
            if let Ok(Some(stock)) = stock {
                stock.set_inner_html(&q.stock);
            }
        });
    };
    // One element around server HTML, as the configurator's island.
    view! {
        <div
            class="order-live"
            node_ref=root
            on:change=on_change
            data-live=move || live.get().then_some("on")
            inner_html=first.0
        ></div>
    }
}
