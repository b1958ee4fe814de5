//! A server's out-of-band console: the serial console in xterm.js or the
//! graphical one in noVNC, both served from our origin (vendor/). The page
//! is rendered here; /console.js asks for a ticket and opens the tunnel.
//! The page's strings travel in data attributes, so the script has no
//! words of its own.

use domain::server::{ConsoleClosed, ConsoleKind};
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::nav::PortalNav;
use crate::i18n::operations;
use crate::storefront::href;
use crate::storefront::layout::Page;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConsoleView {
    pub server_id: domain::ServerId,
    pub server_name: String,
    pub kind: ConsoleKind,
    /// What keeps the console closed, if anything.
    pub unavailable: Option<ConsoleClosed>,
}

/// The tunnel's close codes and what they mean in `lang`, for the page's
/// script: a server state gets the sentence that explains it.
fn close_reasons(lang: domain::Lang) -> String {
    let t = operations(lang);
    let reasons: serde_json::Map<_, _> = ConsoleClosed::ALL
        .iter()
        .map(|why| (why.as_str().into(), (t.console_closed_why)(*why).into()))
        .collect();
    serde_json::Value::Object(reasons).to_string()
}

#[component]
pub fn ConsolePage(lang: Lang, view: ConsoleView) -> impl IntoView {
    let t = operations(lang);
    let serial = view.kind == ConsoleKind::Serial;
    let title = if serial {
        t.console_title_serial
    } else {
        t.console_title_vnc
    };
    let base = format!("/servers/{}", view.server_id);
    let rest = format!("{base}/console/{}", view.kind);
    let tab = |kind: ConsoleKind, label: &'static str| {
        let current = (view.kind == kind).then_some("page");
        view! { <a href=href(lang, &format!("{base}/console/{kind}")) aria-current=current>{label}</a> }
    };
    let tabs = view! {
        <nav class="console-tabs" aria-label=title>
            {tab(ConsoleKind::Serial, t.console_open_serial)}
            {tab(ConsoleKind::Graphical, t.console_open_vnc)}
        </nav>
    };
    let body = match &view.unavailable {
        Some(why) => view! { <p class="notice error" role="alert">{(t.console_closed_why)(*why)}</p> }.into_any(),
        None => view! {
            <noscript><p class="notice">{t.console_needs_js}</p></noscript>
            <div class="console-bar">
                <span id="console-status" role="status" aria-live="polite" class="console-status">{t.console_connecting}</span>
                <button type="button" id="console-reconnect" class="secondary" hidden>{t.console_reconnect}</button>
                <button type="button" id="console-paste" class="secondary">{t.console_paste}</button>
                {(!serial).then(|| view! { <button type="button" id="console-cad" class="secondary">{t.console_cad}</button> })}
            </div>
            <div
                id="console"
                class=if serial { "console-screen serial" } else { "console-screen vnc" }
                data-kind=view.kind.as_str()
                data-ticket-url=href(lang, &rest)
                data-connecting=t.console_connecting
                data-connected=t.console_connected
                data-closed=t.console_closed
                data-reasons=close_reasons(lang)
                data-refused=t.console_refused
                data-paste-denied=t.console_paste_denied
                aria-label=title
            ></div>
            <p class="hint">{if serial { t.console_serial_hint } else { t.console_vnc_hint }}</p>
            {serial.then(|| view! {
                <link rel="stylesheet" href="/vendor/xterm/xterm.css" />
                <script src="/vendor/xterm/xterm.js" defer></script>
                <script src="/vendor/xterm/addon-fit.js" defer></script>
            })}
            <script type="module" src="/console.js"></script>
        }
        .into_any(),
    };
    view! {
        <Page lang title=format!("{title} · {}", view.server_name) description=title.to_owned() rest=rest.clone() noindex=true>
            <section class="section portal-console" aria-labelledby="console-title">
                <PortalNav lang />
                <p><a href=href(lang, &base)>{t.console_back}{" · "}{view.server_name.clone()}</a></p>
                <h1 id="console-title">{title}</h1>
                <p class="lead">{t.console_intro}</p>
                {tabs}
                {body}
            </section>
        </Page>
    }
    .into_any()
}

crate::page_view!(ConsoleView => ConsolePage(view));
