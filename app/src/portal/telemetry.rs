//! A server's telemetry as server-rendered SVG: GPU temperature and SM
//! clock over the last 24 hours, corrected ECC errors, and traffic this
//! month against the 250 TB fair-use allowance. No JavaScript; each chart
//! is an image with a title and a text summary for screen readers.

use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::i18n::orders;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TelemetryView {
    pub from: i64,
    pub to: i64,
    /// Per card: (time, °C).
    pub temps: Vec<Vec<(i64, i64)>>,
    /// Per card: (time, MHz).
    pub clocks: Vec<Vec<(i64, i64)>>,
    /// Per card: (corrected errors in total, new in these 24 hours).
    pub ecc: Vec<(i64, i64)>,
    pub traffic_bytes: i64,
    pub fair_use_bytes: i64,
}

const WIDTH: i64 = 600;
const HEIGHT: i64 = 170;
const LEFT: i64 = 48;
const RIGHT: i64 = 590;
const TOP: i64 = 10;
const BOTTOM: i64 = 140;

fn points(series: &[(i64, i64)], from: i64, to: i64, min: i64, max: i64) -> String {
    let span_t = (to - from).max(1);
    let span_v = (max - min).max(1);
    series
        .iter()
        .map(|(t, v)| {
            let x = LEFT + (t - from) * (RIGHT - LEFT) / span_t;
            let y = BOTTOM - (v - min).clamp(0, span_v) * (BOTTOM - TOP) / span_v;
            format!("{x},{y}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[component]
fn LineChart(
    lang: Lang,
    id: &'static str,
    title: &'static str,
    unit: &'static str,
    series: Vec<Vec<(i64, i64)>>,
    from: i64,
    to: i64,
    min: i64,
    max: i64,
) -> impl IntoView {
    let o = orders(lang);
    let title_id = format!("{id}-title");
    let desc_id = format!("{id}-desc");
    let summary = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let lo = s.iter().map(|(_, v)| *v).min().unwrap_or(0);
            let hi = s.iter().map(|(_, v)| *v).max().unwrap_or(0);
            let now = s.last().map_or(0, |(_, v)| *v);
            (o.telemetry_series)(i + 1, lo, hi, now, unit)
        })
        .collect::<Vec<_>>()
        .join(" ");
    let lines = series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            view! { <polyline class=format!("series series-{i}") points=points(s, from, to, min, max) fill="none" /> }
        })
        .collect_view();
    let labelled = format!("{title_id} {desc_id}");
    view! {
        <figure class="chart">
            <svg
                viewBox=format!("0 0 {WIDTH} {HEIGHT}")
                role="img"
                aria-labelledby=labelled
                data-chart=id
                preserveAspectRatio="none"
            >
                <title id=title_id.clone()>{title}</title>
                <desc id=desc_id>{summary.clone()}</desc>
                <line class="axis" x1=LEFT y1=BOTTOM x2=RIGHT y2=BOTTOM />
                <line class="axis" x1=LEFT y1=TOP x2=LEFT y2=BOTTOM />
                <text class="tick" x=LEFT - 6 y=TOP + 8 text-anchor="end">{format!("{max}")}</text>
                <text class="tick" x=LEFT - 6 y=BOTTOM text-anchor="end">{format!("{min}")}</text>
                <text class="tick" x=LEFT y=HEIGHT - 8>{o.telemetry_24h_ago}</text>
                <text class="tick" x=RIGHT y=HEIGHT - 8 text-anchor="end">{o.telemetry_now}</text>
                {lines}
            </svg>
            <figcaption>{format!("{title} ({unit}): {summary}")}</figcaption>
        </figure>
    }
}

/// Terabytes with one decimal, as the allowance is counted (10^12 bytes).
fn terabytes(bytes: i64) -> String {
    format!(
        "{}.{}",
        bytes / 1_000_000_000_000,
        (bytes % 1_000_000_000_000) / 100_000_000_000
    )
}

#[component]
pub fn Telemetry(lang: Lang, view: TelemetryView) -> impl IntoView {
    let o = orders(lang);
    let temp_max = view
        .temps
        .iter()
        .flatten()
        .map(|(_, v)| *v)
        .max()
        .unwrap_or(90)
        .max(90);
    let clock_max = view
        .clocks
        .iter()
        .flatten()
        .map(|(_, v)| *v)
        .max()
        .unwrap_or(2_600)
        .max(2_600);
    let ecc = view
        .ecc
        .iter()
        .enumerate()
        .map(|(i, (total, new))| view! { <li data-ecc=i>{(o.telemetry_ecc)(i + 1, *total, *new)}</li> })
        .collect_view();
    let used = terabytes(view.traffic_bytes);
    let allowance = terabytes(view.fair_use_bytes);
    let percent = view.traffic_bytes * 100 / view.fair_use_bytes.max(1);
    view! {
        <section class="telemetry" aria-labelledby="telemetry-title">
            <h2 id="telemetry-title">{o.telemetry_title}</h2>
            <div class="charts">
                <LineChart lang id="gpu-temp" title=o.telemetry_temp unit="°C" series=view.temps.clone() from=view.from to=view.to min=20 max=temp_max />
                <LineChart lang id="gpu-clock" title=o.telemetry_clock unit="MHz" series=view.clocks.clone() from=view.from to=view.to min=0 max=clock_max />
            </div>
            <h3>{o.telemetry_ecc_title}</h3>
            <ul class="plain">{ecc}</ul>
            <h3>{o.telemetry_traffic_title}</h3>
            <p>
                <label for="traffic">{(o.telemetry_traffic)(&used, &allowance, percent)}</label>
                <meter id="traffic" min="0" max=view.fair_use_bytes.to_string() high=(view.fair_use_bytes * 8 / 10).to_string() value=view.traffic_bytes.to_string() data-testid="traffic">
                    {format!("{percent}%")}
                </meter>
            </p>
        </section>
    }
}
