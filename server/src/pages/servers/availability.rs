//! The SLA on a server's page: this month's availability so far and the
//! credits of past months, with their computation.

use app::i18n::orders;
use domain::Lang;
use leptos::prelude::*;

/// The SLA as the customer sees it: this month so far, and the credits
/// already worked out, with their computation.
#[component]
pub fn Availability(
    lang: Lang,
    availability: (i64, i64),
    sla: Vec<(String, i64, domain::Money, Option<String>)>,
) -> impl IntoView {
    let o = orders(lang);
    let (ppm, down) = availability;
    let any = !sla.is_empty();
    let rows = sla
        .into_iter()
        .map(|(month, ppm, credit, note)| {
            let key = month.clone();
            view! {
                <tr data-sla=key>
                    <th scope="row">{month}</th>
                    <td class="num">{domain::sla::format_ppm(ppm)}</td>
                    <td class="num">{format!("{}%", domain::sla::credit_percent(ppm))}</td>
                    <td class="num">{credit.format(lang)}</td>
                    <td>{note.unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="availability-title">
            <h2 id="availability-title">{o.sla_title}</h2>
            <p data-testid="availability">{(o.sla_this_month)(&domain::sla::format_ppm(ppm), down / 60)}</p>
            <p class="hint">{o.sla_rule}</p>
            {any.then(|| view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=(app::i18n::ui(lang).table_of)(o.sla_title)>
                <table class="sla">
                    <thead>
                        <tr>
                            <th scope="col">{o.sla_month}</th>
                            <th scope="col" class="num">{o.sla_availability}</th>
                            <th scope="col" class="num">{o.sla_share}</th>
                            <th scope="col" class="num">{o.sla_credit}</th>
                            <th scope="col">{o.sla_note}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            })}
        </section>
    }
}
