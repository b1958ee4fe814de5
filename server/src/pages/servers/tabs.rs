//! The server page's tabs, each at its own address under `/servers/{id}`
//! (Hetzner Cloud's server page is the model): a link to one opens it, a
//! reload stays on it, and a form posts to its tab's address so a refused
//! form is shown again on its own tab (`page::show_failures` renders the
//! longest page address the post's address begins with).

use app::i18n::orders;
use app::storefront::href;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    /// State, addresses, keys, root password, rename, maintenance, events.
    #[default]
    Overview,
    /// Telemetry and availability.
    Graphs,
    Snapshots,
    /// Links to the serial and graphical consoles.
    Console,
    Power,
    Cancellation,
}

impl Tab {
    pub const ALL: [Tab; 6] = [
        Tab::Overview,
        Tab::Graphs,
        Tab::Snapshots,
        Tab::Console,
        Tab::Power,
        Tab::Cancellation,
    ];

    /// What follows `/servers/{id}` in the tab's address.
    pub fn path(self) -> &'static str {
        match self {
            Tab::Overview => "",
            Tab::Graphs => "/graphs",
            Tab::Snapshots => "/snapshots",
            Tab::Console => "/console",
            Tab::Power => "/power",
            Tab::Cancellation => "/cancellation",
        }
    }

    pub fn label(self, lang: Lang) -> &'static str {
        let o = orders(lang);
        match self {
            Tab::Overview => o.tab_overview,
            Tab::Graphs => o.tab_graphs,
            Tab::Snapshots => o.tab_snapshots,
            Tab::Console => o.tab_console,
            Tab::Power => o.tab_power,
            Tab::Cancellation => o.tab_cancellation,
        }
    }
}

/// The row of tabs: links (a page each, so they work without JavaScript),
/// the open one marked `aria-current`.
#[component]
pub fn TabNav(lang: Lang, base: String, open: Tab) -> impl IntoView {
    let o = orders(lang);
    let links = Tab::ALL
        .into_iter()
        .map(|tab| {
            let current = (tab == open).then_some("page");
            view! {
                <li><a href=href(lang, &format!("{base}{}", tab.path())) aria-current=current data-tab=format!("{tab:?}").to_lowercase()>{tab.label(lang)}</a></li>
            }
        })
        .collect_view();
    view! {
        <nav class="server-tabs" aria-label=o.server_tabs>
            <ul>{links}</ul>
        </nav>
    }
}
