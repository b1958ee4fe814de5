//! Pieces every portal form uses.

use domain::Lang;
use leptos::prelude::*;

use super::{use_feedback, use_viewer};

/// A labelled input; `hint` is tied to it for screen readers.
#[component]
pub fn Field(
    label: String,
    name: &'static str,
    /// The element id when a page has two fields of this name.
    #[prop(optional)]
    id: Option<&'static str>,
    #[prop(default = "text")] kind: &'static str,
    #[prop(optional)] value: String,
    #[prop(optional)] autocomplete: &'static str,
    #[prop(default = true)] required: bool,
    #[prop(optional)] hint: Option<&'static str>,
) -> impl IntoView {
    let id = id.unwrap_or(name);
    let hint_id = format!("{id}-hint");
    let described = hint.map(|_| hint_id.clone());
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                name=name
                type=kind
                value=value
                autocomplete=autocomplete
                required=required
                aria-describedby=described
            />
            {hint.map(|h| view! { <p class="hint" id=hint_id>{h}</p> })}
        </div>
    }
}

/// The error of a refused submission, announced to screen readers.
#[component]
pub fn FormErrorNotice(lang: Lang) -> impl IntoView {
    use_feedback()
        .error
        .map(|e| view! { <p class="notice notice-error" role="alert" data-testid="form-error">{e.message(lang)}</p> })
}

/// A confirmation shown after a redirect.
#[component]
pub fn Notice(text: Option<&'static str>) -> impl IntoView {
    text.map(|t| view! { <p class="notice notice-ok" role="status" data-testid="notice">{t}</p> })
}

#[component]
pub fn CsrfField() -> impl IntoView {
    view! { <input type="hidden" name="csrf" value=use_viewer().csrf_token /> }
}

/// The answer when the viewer's role does not allow a page: "not allowed"
/// (never the not-found text), status 403, with the menu of what the
/// viewer may open.
#[component]
pub fn DeniedPage(lang: Lang, #[prop(into)] rest: String) -> impl IntoView {
    crate::context::set_status(403);
    let p = crate::i18n::portal(lang);
    view! {
        <crate::storefront::layout::Page
            lang
            title=p.denied_title.to_owned()
            description=p.denied_title.to_owned()
            rest=rest
            noindex=true
        >
            <section class="section error-page" aria-labelledby="denied-title" data-testid="denied">
                <super::nav::PortalNav lang />
                <h1 id="denied-title">{p.denied_title}</h1>
                <p>{p.denied_body}</p>
            </section>
        </crate::storefront::layout::Page>
    }
}
