//! Back-in-stock alerts: the form offered where a plan is sold out, and the
//! page an unsubscribe link opens (a POST button: a GET changes nothing).

use domain::Lang;
use leptos::prelude::*;

use super::forms::{CsrfField, FormErrorNotice, Notice};
use super::query;
use crate::i18n::{orders, portal};
use crate::storefront::href;
use crate::storefront::layout::Page;

#[component]
pub fn AlertForm(
    lang: Lang,
    plan: String,
    site: String,
    #[prop(optional)] email: String,
) -> impl IntoView {
    let o = orders(lang);
    view! {
        <form method="post" action=href(lang, "/alerts") class="alert-form" data-testid="alert-form">
            <input type="hidden" name="plan" value=plan />
            <input type="hidden" name="site" value=site />
            <p class="hint">{o.alert_body}</p>
            <div class="field">
                <label for="alert-email">{portal(lang).email}</label>
                <input id="alert-email" name="email" type="email" value=email required autocomplete="email" />
            </div>
            <button type="submit">{o.alert_submit}</button>
        </form>
    }
}

#[component]
pub fn UnsubscribePage(lang: Lang) -> impl IntoView {
    let o = orders(lang);
    let token = query("token").unwrap_or_default();
    let done = match query("done").as_deref() {
        Some("1") => Some(o.unsub_done),
        Some("0") => Some(o.unsub_unknown),
        _ => None,
    };
    view! {
        <Page lang title=o.unsub_title.to_owned() description=o.unsub_title.to_owned() rest="/alerts/unsubscribe".to_owned() noindex=true>
            <section class="section portal-form" aria-labelledby="unsub-title">
                <h1 id="unsub-title">{o.unsub_title}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                {done.is_none().then(|| view! {
                    <p>{o.unsub_body}</p>
                    <form method="post" action=href(lang, "/alerts/unsubscribe")>
                        <CsrfField />
                        <input type="hidden" name="token" value=token.clone() />
                        <button type="submit">{o.unsub_submit}</button>
                    </form>
                })}
            </section>
        </Page>
    }
    .into_any()
}
