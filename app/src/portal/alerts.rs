//! The back-in-stock form, offered wherever a plan is sold out (the
//! configure page and the order page, both shown by this crate). Its
//! handler and the unsubscribe page are `server/src/pages/alerts.rs`.

use domain::Lang;
use leptos::prelude::*;

use crate::i18n::{orders, portal};
use crate::storefront::href;

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
