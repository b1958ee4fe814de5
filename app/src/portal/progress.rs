//! Progress of a server that installs, restores, reboots or is in
//! maintenance, updated in place: an island that reads the server's
//! progress (`/{lang}/servers/{id}/progress`, the same JSON the tests and
//! the crash check read) every two seconds and puts the state, step,
//! percentage and addresses into the page the server rendered. Without
//! JavaScript a reload shows the same.
//!
//! Like the live quote it is one element around server HTML, so it needs
//! none of Leptos' text markers, which portal pages have removed.

use leptos::prelude::*;

pub use crate::storefront::quote::ServerHtml;

/// The `server-live` block. `first` is the block's content as the server
/// rendered it; `url` is the progress JSON.
#[island]
pub fn ServerProgress(url: String, state: String, first: ServerHtml) -> impl IntoView {
    let polled = url.clone();
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        poll::after(1000, polled.clone());
        #[cfg(not(feature = "hydrate"))]
        let _ = &polled;
    });
    view! {
        <div
            class="live"
            id="server-live"
            data-progress-url=url
            data-state=state
            aria-live="polite"
            inner_html=first.0
        ></div>
    }
}

#[cfg(feature = "hydrate")]
mod poll {
    use leptos::wasm_bindgen::JsCast;
    use leptos::web_sys;
    use serde::Deserialize;
    use std::time::Duration;
    use wasm_bindgen_futures::JsFuture;

    /// What `server/src/http/servers.rs` answers, already translated.
    #[derive(Deserialize)]
    struct Progress {
        state_label: String,
        state: String,
        progress: i64,
        step_label: String,
        ipv4: Option<String>,
        ipv6: Option<String>,
        done: bool,
    }

    pub fn after(ms: u64, url: String) {
        leptos::prelude::set_timeout(
            move || leptos::task::spawn_local(tick(url)),
            Duration::from_millis(ms),
        );
    }

    async fn tick(url: String) {
        match read(&url).await {
            // Finished: load the page once more for what only it shows
            // (power actions, the root password button, the events).
            Some(p) if p.done => {
                if let Some(w) = web_sys::window() {
                    let _ = w.location().reload();
                }
            }
            Some(p) => {
                show(&p);
                after(2000, url);
            }
            // Offline or signed out: try again, more slowly.
            None => after(5000, url),
        }
    }

    async fn read(url: &str) -> Option<Progress> {
        let window = web_sys::window()?;
        let response: web_sys::Response = JsFuture::from(window.fetch_with_str(url))
            .await
            .ok()?
            .dyn_into()
            .ok()?;
        if !response.ok() {
            return None;
        }
        let text = JsFuture::from(response.text().ok()?)
            .await
            .ok()?
            .as_string()?;
        serde_json::from_str(&text).ok()
    }

    fn show(p: &Progress) {
        let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
            return;
        };
        let find = |name: &str| {
            doc.query_selector(&format!("[data-live=\"{name}\"]"))
                .ok()
                .flatten()
        };
        let percent = format!("{}%", p.progress);
        for (name, text) in [
            ("state", Some(&p.state_label)),
            ("step", Some(&p.step_label)),
            ("percent", Some(&percent)),
            ("ipv4", p.ipv4.as_ref()),
            ("ipv6", p.ipv6.as_ref()),
        ] {
            if let (Some(el), Some(text)) = (find(name), text) {
                el.set_text_content(Some(text));
            }
        }
        if let Some(bar) = find("progress") {
            let _ = bar.set_attribute("value", &p.progress.to_string());
            bar.set_text_content(Some(&percent));
        }
        if let Some(badge) = find("state") {
            let _ = badge.set_attribute("class", &format!("state-badge state-{}", p.state));
        }
        if let Ok(Some(live)) = doc.query_selector("#server-live") {
            let _ = live.set_attribute("data-state", &p.state);
        }
    }
}
