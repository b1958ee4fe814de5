//! Median round trips from our probe cities to each site: a table of every
//! city's nearest site, and a city picker (a plain GET form) for the detail.

use domain::latency::{LatencyRow, LatencySource};
use domain::{Catalog, Lang};
use leptos::prelude::*;
use std::sync::Arc;

use super::href;
use crate::i18n::{content, site, ui};

/// How many cities a phone lists before "show all".
const PHONE_CITIES: usize = 6;

pub fn format_rtt(tenths: u32, lang: Lang) -> String {
    format!("{}.{} {}", tenths / 10, tenths % 10, ui(lang).ms)
}

/// Cities in the order they first appear, each with its rows.
fn by_city(rows: &[LatencyRow]) -> Vec<(&LatencyRow, Vec<&LatencyRow>)> {
    let mut out: Vec<(&LatencyRow, Vec<&LatencyRow>)> = Vec::new();
    for row in rows {
        match out.iter_mut().find(|(first, _)| first.city == row.city) {
            Some((_, all)) => all.push(row),
            None => out.push((row, vec![row])),
        }
    }
    out
}

#[component]
pub fn LatencySection(
    lang: Lang,
    catalog: Arc<Catalog>,
    rows: Arc<Vec<LatencyRow>>,
    /// The chosen city's English name, from `?city=`.
    city: Option<String>,
) -> impl IntoView {
    let t = ui(lang);
    let s = site(lang);
    let c = content(lang);
    let estimated = rows.iter().any(|r| r.source == LatencySource::Estimated);
    let cities = by_city(&rows);
    let chosen = city.and_then(|name| {
        cities
            .iter()
            .find(|(first, _)| first.city.en.eq_ignore_ascii_case(&name))
    });
    let site_name = |code: &domain::SiteCode| {
        catalog
            .site(code.as_str())
            .map_or_else(|| code.to_string(), |s| s.city.get(lang).to_owned())
    };
    let date_header = if estimated {
        t.latency_estimated_date
    } else {
        t.latency_date
    };
    let tag =
        move || estimated.then(|| view! { <span class="tag">{t.latency_estimate_tag}</span> });

    let body = if rows.is_empty() {
        view! { <p class="notice">{t.latency_none_yet}</p> }.into_any()
    } else if let Some((first, all)) = chosen {
        let mut all = all.clone();
        all.sort_by_key(|r| r.median_tenth_ms);
        let lines = all
            .iter()
            .map(|r| {
                view! {
                    <tr data-site=r.site.to_string()>
                        <th scope="row">{site_name(&r.site)}</th>
                        <td data-label=t.latency_rtt>{format_rtt(r.median_tenth_ms, lang)}" "{tag()}</td>
                        <td data-label=date_header>{domain::time::format_date(r.measured_at)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=(t.latency_city_heading)(first.city.get(lang))>
                <table class="latency-table phone-cards" id="latency-city">
                    <caption>{(t.latency_city_heading)(first.city.get(lang))}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t.col_site}</th>
                            <th scope="col">{t.latency_rtt}</th>
                            <th scope="col">{date_header}</th>
                        </tr>
                    </thead>
                    <tbody>{lines}</tbody>
                </table>
            </div>
        }
        .into_any()
    } else {
        fn nearest_of<'a>((first, all): &(&'a LatencyRow, Vec<&'a LatencyRow>)) -> &'a LatencyRow {
            all.iter()
                .min_by_key(|r| r.median_tenth_ms)
                .copied()
                .unwrap_or(*first)
        }
        // On a phone the table shows the best connected few cities; the
        // rest are a tap away (`#latency-all` as the target: no script).
        let mut fastest: Vec<u32> = cities
            .iter()
            .map(|c| nearest_of(c).median_tenth_ms)
            .collect();
        fastest.sort_unstable();
        let shown_on_phones = fastest.get(PHONE_CITIES - 1).copied().unwrap_or(u32::MAX);
        let more = cities.len() > PHONE_CITIES;
        let lines = cities
            .iter()
            .map(|city| {
                let (first, _) = city;
                let nearest = nearest_of(city);
                let class = (nearest.median_tenth_ms > shown_on_phones).then_some("more");
                view! {
                    <tr class=class>
                        <th scope="row">{first.city.get(lang).to_owned()}</th>
                        <td data-label=s.latency_country data-country=first.country_code.clone()>
                            {domain::order::country_name(&first.country_code, lang)}
                        </td>
                        <td data-label=t.latency_nearest>{site_name(&nearest.site)}</td>
                        <td data-label=t.latency_rtt>{format_rtt(nearest.median_tenth_ms, lang)}" "{tag()}</td>
                        <td data-label=date_header>{domain::time::format_date(nearest.measured_at)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=t.latency_caption>
                <table class="latency-table phone-cards" id="latency-all">
                    <caption>{t.latency_caption}</caption>
                    <thead>
                        <tr>
                            <th scope="col">{t.latency_city}</th>
                            <th scope="col">{s.latency_country}</th>
                            <th scope="col">{t.latency_nearest}</th>
                            <th scope="col">{t.latency_rtt}</th>
                            <th scope="col">{date_header}</th>
                        </tr>
                    </thead>
                    <tbody>{lines}</tbody>
                </table>
            </div>
            {more.then(|| view! {
                <p class="latency-show-all"><a href="#latency-all">{(t.latency_show_all)(cities.len())}</a></p>
            })}
        }
        .into_any()
    };

    let chosen_name = chosen
        .map(|(first, _)| first.city.en.clone())
        .unwrap_or_default();
    let options = cities
        .iter()
        .map(|(first, _)| {
            let selected = first.city.en == chosen_name;
            view! {
                <option value=first.city.en.clone() selected=selected>
                    {first.city.get(lang).to_owned()}
                </option>
            }
        })
        .collect_view();
    view! {
        <section id="latency" class="section" aria-labelledby="latency-title">
            <h2 id="latency-title">{c.latency_title}</h2>
            <p class="lead">{c.latency_body}</p>
            {estimated.then(|| view! { <p class="notice">{t.latency_estimated_note}</p> })}
            {(!rows.is_empty())
                .then(|| {
                    view! {
                        <form class="city-picker" method="get" action=format!("{}#latency", href(lang, ""))>
                            <label for="city">{t.latency_pick_city}</label>
                            <select id="city" name="city">
                                <option value="" selected=chosen_name.is_empty()>{t.latency_all_cities}</option>
                                {options}
                            </select>
                            <button type="submit">{t.latency_show}</button>
                        </form>
                    }
                })}
            {body}
        </section>
    }
}
