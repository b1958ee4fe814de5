//! Where the cards are: the sites with their notes, and live stock for each
//! site and plan.

use domain::{Catalog, Lang, StockSnapshot};
use leptos::prelude::*;
use std::sync::Arc;

use super::stock::{StockBadge, StockReadAt};
use super::{configure_rest, href};
use crate::i18n::{content, ui};

#[component]
pub fn SitesSection(lang: Lang, catalog: Arc<Catalog>, stock: StockSnapshot) -> impl IntoView {
    let t = ui(lang);
    let c = content(lang);
    let notes = catalog
        .sites
        .iter()
        .map(|site| {
            view! {
                <tr>
                    <th scope="row">{site.city.get(lang).to_owned()}</th>
                    <td data-label=t.col_note>{site.note.get(lang).to_owned()}</td>
                    <td data-label=t.col_use>{site.typical_use.get(lang).to_owned()}</td>
                </tr>
            }
        })
        .collect_view();
    let plan_headers = catalog
        .plans
        .iter()
        .map(|plan| view! { <th scope="col">{plan.name.clone()}</th> })
        .collect_view();
    let stock_rows = catalog
        .sites
        .iter()
        .map(|site| {
            let cells = catalog
                .plans
                .iter()
                .map(|plan| {
                    let level = stock.level(&site.code, &plan.id);
                    let link = level.available().then(|| {
                        href(
                            lang,
                            &configure_rest(plan.id.as_str(), Some(site.code.as_str())),
                        )
                    });
                    view! {
                        <td
                            data-site=site.code.to_string()
                            data-plan=plan.id.to_string()
                            data-stock=level.token()
                            data-label=plan.name.clone()
                        >
                            {match link {
                                Some(link) => {
                                    view! {
                                        <a href=link>
                                            <StockBadge level lang />
                                        </a>
                                    }
                                        .into_any()
                                }
                                None => view! { <StockBadge level lang /> }.into_any(),
                            }}
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">
                        {site.city.get(lang).to_owned()}
                        <span class="country">{site.country.get(lang).to_owned()}</span>
                    </th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <section id="sites" class="section" aria-labelledby="sites-title">
            <h2 id="sites-title">{c.sites_title}</h2>
            <p class="lead">{c.sites_subtitle}</p>
            {c.sites_paras.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
            <div class="table-scroll" role="region" tabindex="0" aria-label=t.stock_caption>
                <table id="stock" class="stock-table phone-cards">
                    <caption>{t.stock_caption}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t.col_site}</th>
                            {plan_headers}
                        </tr>
                    </thead>
                    <tbody>{stock_rows}</tbody>
                </table>
            </div>
            <StockReadAt lang />
            <div class="table-scroll" role="region" tabindex="0" aria-label=t.sites_caption>
                <table class="sites-table phone-cards">
                    <caption>{t.sites_caption}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t.col_site}</th>
                            <th scope="col">{t.col_note}</th>
                            <th scope="col">{t.col_use}</th>
                        </tr>
                    </thead>
                    <tbody>{notes}</tbody>
                </table>
            </div>
        </section>
    }
}
