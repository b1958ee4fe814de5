//! Pieces every portal form uses.

use domain::Lang;
use leptos::prelude::*;

use super::{use_feedback, use_viewer, FormError};

/// The refused submission's error when it is about the field `name`
/// (`FormError::field`).
pub fn error_for(name: &str) -> Option<FormError> {
    use_feedback().error.filter(|e| e.field() == Some(name))
}

/// What a field says about a refusal: `aria-invalid`, the ids that
/// describe it (its hint and, when refused, its error) and whether it
/// takes the focus, so the page opens at the form rather than at its top.
pub struct FieldState {
    pub invalid: Option<&'static str>,
    pub described_by: Option<String>,
    pub autofocus: bool,
    pub error: Option<FormError>,
    pub error_id: String,
}

impl FieldState {
    pub fn of(name: &str, id: &str, hint: bool) -> FieldState {
        FieldState::with(error_for(name), id, hint)
    }

    fn with(error: Option<FormError>, id: &str, hint: bool) -> FieldState {
        let error_id = format!("{id}-error");
        let ids: Vec<String> = [
            hint.then(|| format!("{id}-hint")),
            error.map(|_| error_id.clone()),
        ]
        .into_iter()
        .flatten()
        .collect();
        FieldState {
            invalid: error.map(|_| "true"),
            described_by: (!ids.is_empty()).then(|| ids.join(" ")),
            autofocus: error.is_some(),
            error,
            error_id,
        }
    }

    /// The error beside the field (the notice at the top announces it).
    pub fn message(&self, lang: Lang) -> Option<impl IntoView + use<>> {
        let id = self.error_id.clone();
        self.error
            .map(|e| view! { <p class="field-error" id=id data-testid="field-error">{e.message(lang)}</p> })
    }
}

/// A labelled input; `hint` is tied to it for screen readers. A refusal
/// about it marks it and says why beside it, unless the page has several
/// fields of this name (`id` set): then only the notice at the top does.
#[component]
pub fn Field(
    lang: Lang,
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
    let shared = id.is_some();
    let id = id.unwrap_or(name);
    let hint_id = format!("{id}-hint");
    let error = if shared { None } else { error_for(name) };
    let state = FieldState::with(error, id, hint.is_some());
    let message = state.message(lang);
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
                aria-describedby=state.described_by
                aria-invalid=state.invalid
                autofocus=state.autofocus
            />
            {message}
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

/// A button copying the text of the element with id `target`, turned on by
/// `/copy.js` (include it once on the page): hidden without JavaScript,
/// where the text is selected by hand. `what` names it for screen readers
/// ("Copy IPv4 address") where several sit on one page.
#[component]
pub fn CopyButton(
    lang: Lang,
    #[prop(into)] target: String,
    #[prop(optional, into)] what: Option<String>,
) -> impl IntoView {
    let t = crate::i18n::ui(lang);
    view! {
        <button type="button" class="secondary copy" data-copy=target data-copied=t.copied aria-label=what.map(|w| (t.copy_what)(&w)) hidden>
            {t.copy}
        </button>
    }
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
