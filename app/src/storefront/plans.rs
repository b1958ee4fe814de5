//! The plan table: specs, monthly price ex VAT, availability and Configure.

use domain::{Catalog, Lang, Plan, StockSnapshot};
use leptos::prelude::*;

use super::{configure_rest, href};
use crate::i18n::{content, ui};

pub fn gpu_text(plan: &Plan) -> String {
    format!(
        "{} × {} · {} GB",
        plan.gpu_count,
        plan.gpu_model,
        plan.total_vram_gb()
    )
}

/// "In stock at 5 sites" or "Sold out at every site".
pub fn availability_text(
    catalog: &Catalog,
    stock: &StockSnapshot,
    plan: &Plan,
    lang: Lang,
) -> String {
    let sites = catalog
        .sites
        .iter()
        .filter(|s| stock.level(&s.code, &plan.id).available())
        .count() as u32;
    if sites == 0 {
        ui(lang).sold_out_everywhere.to_owned()
    } else {
        (ui(lang).available_at_sites)(sites)
    }
}

#[component]
pub fn PlansTable(
    lang: Lang,
    catalog: std::sync::Arc<Catalog>,
    stock: StockSnapshot,
) -> impl IntoView {
    let t = ui(lang);
    let rows = catalog
        .plans
        .iter()
        .map(|plan| {
            let available = stock.plan_total(&plan.id) > 0;
            view! {
                <tr data-plan=plan.id.to_string() class:popular=plan.most_popular>
                    <th scope="row">
                        <span class="plan-name">{plan.name.clone()}</span>
                        {plan.most_popular.then(|| view! { <span class="badge">{t.most_popular}</span> })}
                        <span class="tagline">{plan.tagline.get(lang).to_owned()}</span>
                    </th>
                    <td data-label=t.col_cores>{plan.dedicated_cores}</td>
                    <td data-label=t.col_memory>{format!("{} GB", plan.memory_gb)}</td>
                    <td data-label=t.col_nvme>{format!("{} TB", plan.nvme_tb)}</td>
                    <td data-label=t.col_gpu>{gpu_text(plan)}</td>
                    <td data-label=t.col_port>{format!("{} Gbit/s", plan.port_gbit)}</td>
                    <td data-label=t.col_price class="price">
                        <strong>{plan.monthly_price.format(lang)}</strong>
                        " "
                        {t.per_month}
                    </td>
                    <td class="action">
                        <a
                            class="button"
                            class:button-muted=!available
                            href=href(lang, &configure_rest(plan.id.as_str(), None))
                            aria-label=(t.configure_plan_label)(&plan.name)
                            data-configure=plan.id.to_string()
                        >
                            {t.configure}
                        </a>
                        <span class="availability">{availability_text(&catalog, &stock, plan, lang)}</span>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=t.plans_caption>
            <table id="plan-table" class="plans">
                <caption>{t.plans_caption}</caption>
                <thead>
                    <tr>
                        <th scope="col">{t.col_plan}</th>
                        <th scope="col">{t.col_cores}</th>
                        <th scope="col">{t.col_memory}</th>
                        <th scope="col">{t.col_nvme}</th>
                        <th scope="col">{t.col_gpu}</th>
                        <th scope="col">{t.col_port}</th>
                        <th scope="col">{t.col_price}</th>
                        <th scope="col"><span class="sr-only">{t.col_action}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        <p class="notes">{t.vat_note}" "{t.traffic_note}</p>
        <p class="host-line">{content(lang).host_line}</p>
    }
}
