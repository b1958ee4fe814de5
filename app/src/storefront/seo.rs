//! Structured data for search engines: each plan as a schema.org Product
//! with an Offer whose availability follows live stock.

use domain::{Catalog, Lang, StockSnapshot};
use leptos::prelude::*;
use serde_json::json;

use super::{configure_rest, href};
use crate::i18n::ui;

pub fn products_json(
    catalog: &Catalog,
    stock: &StockSnapshot,
    lang: Lang,
    base_url: &str,
) -> String {
    let products: Vec<_> = catalog
        .plans
        .iter()
        .map(|plan| {
            let availability = if stock.plan_total(&plan.id) > 0 { "InStock" } else { "SoldOut" };
            json!({
                "@context": "https://schema.org",
                "@type": "Product",
                "name": plan.name,
                "description": format!("{} · {}", plan.tagline.get(lang), super::plans::gpu_text(plan)),
                "sku": plan.id.as_str(),
                "brand": { "@type": "Brand", "name": ui(lang).brand },
                "offers": {
                    "@type": "Offer",
                    "url": format!("{base_url}{}", href(lang, &configure_rest(plan.id.as_str(), None))),
                    "price": format!("{}.{:02}", plan.monthly_price.cents / 100, plan.monthly_price.cents % 100),
                    "priceCurrency": plan.monthly_price.currency.code(),
                    "availability": format!("https://schema.org/{availability}"),
                    "priceSpecification": {
                        "@type": "UnitPriceSpecification",
                        "price": format!("{}.{:02}", plan.monthly_price.cents / 100, plan.monthly_price.cents % 100),
                        "priceCurrency": plan.monthly_price.currency.code(),
                        "unitCode": "MON",
                        "valueAddedTaxIncluded": false
                    }
                }
            })
        })
        .collect();
    // `</` inside a script element would end it early.
    serde_json::Value::Array(products)
        .to_string()
        .replace("</", "<\\/")
}

#[component]
pub fn ProductsJsonLd(json: String) -> impl IntoView {
    view! { <script type="application/ld+json" inner_html=json></script> }
}
