//! The configurator's live quote: an island that asks the server for the
//! summary of the chosen plan × site whenever a select changes, so price,
//! stock and the next step move without a reload.
//!
//! The server renders the page's summary and the island's updates with the
//! same components from the same storefront facts (exact stock), so the
//! figures cannot disagree. The island swaps whole server-rendered blocks
//! (`inner_html`) rather than hydrating text nodes: storefront pages have
//! Leptos' text markers removed (see the page cache), and a block swap
//! needs none. Without JavaScript the GET form does the same job.

use domain::Lang;
use leptos::prelude::*;

use crate::quote_error::QuoteError;
use serde::{Deserialize, Serialize};

/// Markup the server renders into the page but leaves out of the island's
/// serialized props: the browser already has it in the DOM, and hydration
/// keeps what the server rendered. The page would carry it twice otherwise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerHtml(pub String);

impl Serialize for ServerHtml {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }
}

impl<'de> Deserialize<'de> for ServerHtml {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(ServerHtml::default())
    }
}

/// What the configurator shows for a plan × site, rendered by the server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveQuote {
    pub plan: String,
    pub site: String,
    /// The site select's `<option>`s, each with its stock for the plan.
    pub site_options: String,
    /// The summary block: price, stock, next step or alternatives.
    pub summary: String,
}

/// The quote for a choice, from the facts the server attached to this
/// request (the same read a storefront page makes). Read-only.
#[server(prefix = "/api", endpoint = "quote")]
pub async fn configure_quote(
    lang: Lang,
    plan: String,
    site: String,
) -> Result<LiveQuote, QuoteError> {
    let facts = crate::context::use_facts().ok_or_else(|| QuoteError::Unavailable.answer())?;
    Ok(super::configure::live_quote(
        lang, &facts, &plan, &site, false,
    ))
}

/// The configure form and its summary. The server renders both (`first`,
/// left out of the props); a change of either select asks
/// `configure_quote` and puts its site options and summary in place.
#[island]
pub fn ConfigureQuote(lang: Lang, plan: String, site: String, first: ServerHtml) -> impl IntoView {
    let root = NodeRef::<leptos::html::Div>::new();
    let plan = RwSignal::new(plan);
    let site = RwSignal::new(site);
    // Marks the block once hydrated (effects run only in the browser).
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let show = move |q: LiveQuote| {
        let Some(root) = root.get_untracked() else {
            return;
        };
        for (selector, html) in [("#site", q.site_options), (".summary-slot", q.summary)] {
            if let Ok(Some(el)) = root.query_selector(selector) {
                el.set_inner_html(&html);
            }
        }
    };
    let on_change = move |ev: leptos::ev::Event| {
        let name = event_target::<leptos::web_sys::Element>(&ev).get_attribute("name");
        match name.as_deref() {
            Some("plan") => plan.set(event_target_value(&ev)),
            Some("site") => site.set(event_target_value(&ev)),
            _ => return,
        }
        let (p, s) = (plan.get_untracked(), site.get_untracked());
        leptos::task::spawn_local(async move {
            // A failed read leaves the figures as they are; the button
            // still submits the form.
            if let Ok(q) = configure_quote(lang, p, s).await {
                // An answer for an older choice arrives too late to show.
                if q.plan == plan.get_untracked() && q.site == site.get_untracked() {
                    show(q);
                }
            }
        });
    };
    // One element and no children of Leptos': nothing here depends on the
    // text markers the page cache removes.
    view! {
        <div
            class="live-quote"
            node_ref=root
            data-live=move || live.get().then_some("on")
            on:change=on_change
            inner_html=first.0
        ></div>
    }
}
