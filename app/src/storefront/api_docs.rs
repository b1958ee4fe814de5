//! The public API's documentation for people: how to authenticate, the
//! scopes, errors and limits of `/api/v1`, and curl examples of the common
//! tasks. A storefront page like the others: cached, no script.

mod examples;
mod reference;

use domain::Lang;
use leptos::prelude::*;

use super::href;
use super::layout::Page;
use crate::context::use_site_info;
use crate::i18n::api_docs;
use crate::i18n::api_docs::{ApiDocs, Example};

/// This page's address after the language, for the route table, the
/// footer and the sitemap.
pub const REST: &str = "/docs/api";

/// Text with `code` between backticks, as the strings write it.
fn prose(text: &'static str) -> impl IntoView {
    text.split('`')
        .enumerate()
        .filter(|(_, part)| !part.is_empty())
        .map(|(i, part)| {
            if i % 2 == 1 {
                view! { <code>{part}</code> }.into_any()
            } else {
                part.into_any()
            }
        })
        .collect_view()
}

fn paras(list: &'static [&'static str]) -> impl IntoView {
    list.iter()
        .map(|p| view! { <p>{prose(p)}</p> })
        .collect_view()
}

/// A block of commands; it scrolls sideways on a phone (hence focusable,
/// so a keyboard can scroll it too).
fn code_block(text: String) -> impl IntoView {
    view! { <pre class="api-code" tabindex="0"><code>{text}</code></pre> }
}

/// A full address as a link that shows it (and wraps on a phone).
fn url_link(url: String) -> impl IntoView {
    let text = url.clone();
    view! { <a href=url class="api-url">{text}</a> }
}

/// The sections in page order: anchor and heading.
fn sections(t: &ApiDocs) -> [(&'static str, &'static str); 11] {
    [
        ("overview", t.overview_heading),
        ("authentication", t.auth_heading),
        ("scopes", t.scopes_heading),
        ("errors", t.errors_heading),
        ("idempotency", t.idempotency_heading),
        ("pagination", t.pagination_heading),
        ("rate-limits", t.rate_heading),
        ("stock", t.stock_heading),
        ("long-running", t.long_heading),
        ("examples", t.examples_heading),
        ("endpoints", t.endpoints_heading),
    ]
}

/// A worked example under its own anchor: intro, commands, notes.
fn example(id: &'static str, e: &'static Example, code: String) -> impl IntoView {
    view! {
        <h3 id=id>{e.heading}</h3>
        {paras(e.intro)}
        {code_block(code)}
        {paras(e.after)}
    }
}

#[component]
pub fn ApiDocsPage(lang: Lang) -> impl IntoView {
    let t = api_docs(lang);
    let c = &t.comments;
    let api = format!("{}/api/v1", use_site_info().base_url);
    let openapi = format!("{api}/openapi.json");
    let docs_url = format!("{}{}", use_site_info().base_url, href(lang, REST));
    // Shown twice: under stock, and beside the stock-watching example.
    let feed = format!("{api}/stock/feed.atom?plan=g-l40s&site=fra");
    let feed_again = feed.clone();
    let [overview, auth, scopes, errors, idempotency, pagination, rate, stock, long, worked, endpoints] =
        sections(t);
    let toc = sections(t)
        .into_iter()
        .map(|(id, heading)| view! { <li><a href=format!("#{id}")>{heading}</a></li> })
        .collect_view();
    view! {
        <Page lang title=t.title.to_owned() description=t.description.to_owned() rest=REST.to_owned()>
            <article class="section legal api-docs" aria-labelledby="api-title" data-testid="api-docs">
                <h1 id="api-title">{t.title}</h1>
                <p class="lead">{t.lead}</p>
                <nav class="api-toc" aria-label=t.toc_label>
                    <ol>{toc}</ol>
                </nav>

                <h2 id=overview.0>{overview.1}</h2>
                <p>{t.overview_base}" "<code class="api-base" data-testid="api-base">{api.clone()}</code></p>
                {paras(t.overview_paras)}
                <p>{t.overview_openapi}" "<a href="/api/v1/openapi.json" class="api-url">{openapi}</a></p>

                <h2 id=auth.0>{auth.1}</h2>
                <p>
                    {t.auth_tokens_before}" "<a href=href(lang, "/tokens")>{t.auth_tokens_link}</a>" "
                    {t.auth_tokens_after}
                </p>
                {paras(t.auth_paras)}

                <h2 id=scopes.0>{scopes.1}</h2>
                <p>{t.scopes_intro}</p>
                <reference::ScopesTable t />
                {paras(t.scopes_after)}

                <h2 id=errors.0>{errors.1}</h2>
                <p>{t.errors_intro}</p>
                {code_block(examples::error_shape(&docs_url, t.errors_example_message, t.errors_example_detail))}
                <reference::ErrorsTable t />
                {paras(t.errors_after)}

                <h2 id=idempotency.0>{idempotency.1}</h2>
                {paras(t.idempotency_paras)}

                <h2 id=pagination.0>{pagination.1}</h2>
                {paras(t.pagination_paras)}
                {code_block(examples::pagination(c))}

                <h2 id=rate.0>{rate.1}</h2>
                {paras(t.rate_paras)}
                {code_block(examples::RATE_HEADERS.to_owned())}

                <h2 id=stock.0>{stock.1}</h2>
                {paras(t.stock_paras)}
                <p>{t.stock_feed}" "{url_link(feed)}</p>

                <h2 id=long.0>{long.1}</h2>
                {paras(t.long_paras)}

                <h2 id=worked.0>{worked.1}</h2>
                {paras(t.examples_intro)}
                {code_block(examples::setup(&api, lang, c))}
                {example("compose-an-order", &t.compose_example, examples::compose_order(c))}
                {example("order-and-wait", &t.order_example, examples::order_and_wait(c))}
                {example("snapshot-before-upgrade", &t.snapshot_example, examples::snapshot_before_upgrade(c))}
                {example("labels-and-root-password", &t.manage_example, examples::manage_servers(c))}
                {example("watch-stock", &t.watch_example, examples::watch_stock(&api, c))}
                <p>{t.stock_feed}" "{url_link(feed_again)}</p>
                <p>{prose(t.watch_alert)}</p>
                {code_block(examples::stock_alert(c))}
                {example("events-and-webhooks", &t.events_example, examples::events(c))}

                <h2 id=endpoints.0>{endpoints.1}</h2>
                <p>{t.endpoints_intro}</p>
                <reference::EndpointsTable t />
            </article>
        </Page>
    }
    .into_any()
}
