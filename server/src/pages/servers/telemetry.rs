//! A server's telemetry as server-rendered SVG: GPU temperature and SM
//! clock over the last 24 hours, corrected ECC errors, and traffic this
//! month against the 250 TB fair-use allowance. No JavaScript; each chart
//! is an image with a title and a text summary for screen readers.
//!
//! The SVG stretches to its box, so text inside it would shrink with it
//! (12 px became ~5 px on a 360 px phone). The axis labels are therefore
//! HTML around the plot, in the page's own font size.

use app::i18n::orders;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

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

/// The plot's own coordinates; CSS gives it its size on the page.
const WIDTH: i64 = 600;
const HEIGHT: i64 = 150;
const LEFT: i64 = 0;
const RIGHT: i64 = WIDTH;
/// A little room so the highest and lowest lines are not cut in half.
const TOP: i64 = 4;
const BOTTOM: i64 = HEIGHT - 4;

/// A reading's place in the plot's coordinates.
fn place((t, v): (i64, i64), from: i64, to: i64, min: i64, max: i64) -> (i64, i64) {
    let span_t = (to - from).max(1);
    let span_v = (max - min).max(1);
    let x = LEFT + (t - from).clamp(0, span_t) * (RIGHT - LEFT) / span_t;
    let y = BOTTOM - (v - min).clamp(0, span_v) * (BOTTOM - TOP) / span_v;
    (x, y)
}

fn points(series: &[(i64, i64)], from: i64, to: i64, min: i64, max: i64) -> String {
    series
        .iter()
        .map(|r| {
            let (x, y) = place(*r, from, to, min, max);
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
            // The latest reading as a dot (a zero-length line with round
            // caps stays round in a stretched plot): a server delivered a
            // moment ago has one reading, which a line alone can't show.
            let last = s.last().map(|r| place(*r, from, to, min, max));
            view! {
                <polyline class=format!("series series-{i}") points=points(s, from, to, min, max) fill="none" />
                {last.map(|(x, y)| view! { <line class=format!("latest series-{i}") x1=x y1=y x2=x y2=y /> })}
            }
        })
        .collect_view();
    let labelled = format!("{title_id} {desc_id}");
    // The labels repeat what the SVG's description and the caption say,
    // so screen readers skip them.
    view! {
        <figure class="chart">
            <div class="chart-plot">
                <div class="chart-y" aria-hidden="true">
                    <span class="tick">{max}</span>
                    <span class="tick">{min}</span>
                </div>
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
                    {lines}
                </svg>
                <div class="chart-x" aria-hidden="true">
                    <span class="tick">{o.telemetry_24h_ago}</span>
                    <span class="tick">{o.telemetry_now}</span>
                </div>
            </div>
            <figcaption>{(o.telemetry_caption)(title, unit, &summary)}</figcaption>
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
