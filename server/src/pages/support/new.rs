//! The form that opens a support request: a category (only those the
//! member's role sees), a subject, the message, the server for a hardware
//! concern, and the scaling-out questions. Without JavaScript every field
//! is there; the scaling-out ones sit in a fieldset saying they are only
//! read for that category.

use crate::pages::support::{
    category_hint, category_name, NewRequestView, BODY_MAX, SCALING_MAX, SUBJECT_MAX, SUBJECT_MIN,
};
use app::i18n::{content, support};
use app::portal::forms::{CsrfField, FieldState, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::{use_feedback, FormFeedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::support::Category;
use domain::Lang;
use leptos::prelude::*;

const REST: &str = "/support/requests/new";

#[component]
pub fn NewRequestPage(lang: Lang, view: NewRequestView) -> impl IntoView {
    let s = support(lang);
    let feedback = use_feedback();
    // A refused form keeps what was typed; a fresh one what the link chose.
    let typed = feedback.error.is_some();
    let category = if typed {
        Category::parse(&feedback.value("category"))
    } else {
        view.category
    };
    let server = if typed {
        feedback.value("server")
    } else {
        view.server.clone()
    };
    let subject_hint = (s.subject_hint)(SUBJECT_MIN, SUBJECT_MAX);
    let body_hint = (s.body_hint)(BODY_MAX);
    let subject_field = FieldState::of("subject", "subject", true);
    let body_field = FieldState::of("body", "body", true);
    view! {
        <Page lang title=s.new_title.to_owned() description=s.new_intro.to_owned() rest=REST.to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="new-request-title">
                <PortalNav lang />
                <p><a href=href(lang, "/support/requests")>{s.back_to_list}</a></p>
                <h1 id="new-request-title">{s.new_title}</h1>
                <p class="lead">{s.new_intro}</p>
                <FormErrorNotice lang />
                <form method="post" action=href(lang, "/support/requests") class="order-form support-form">
                    <CsrfField />
                    <Categories lang offered=view.categories.clone() chosen=category />
                    <div class="field">
                        <label for="subject">{s.field_subject}</label>
                        <input id="subject" name="subject" value=feedback.value("subject") required minlength=SUBJECT_MIN maxlength=SUBJECT_MAX aria-describedby=subject_field.described_by.clone() aria-invalid=subject_field.invalid autofocus=subject_field.autofocus />
                        {subject_field.message(lang)}
                        <p class="hint" id="subject-hint">{subject_hint}</p>
                    </div>
                    <div class="field">
                        <label for="body">{s.field_body}</label>
                        <textarea id="body" name="body" rows="10" required maxlength=BODY_MAX dir="auto" aria-describedby=body_field.described_by.clone() aria-invalid=body_field.invalid autofocus=body_field.autofocus>{feedback.value("body")}</textarea>
                        {body_field.message(lang)}
                        <p class="hint" id="body-hint">{body_hint}</p>
                    </div>
                    {view.categories.contains(&Category::Hardware).then(|| view! { <ServerPicker lang servers=view.servers.clone() chosen=server /> })}
                    {view.categories.contains(&Category::Scaling).then(|| view! { <ScalingQuestions lang feedback=feedback.clone() /> })}
                    <button type="submit">{s.new_submit}</button>
                </form>
            </section>
        </Page>
    }
    .into_any()
}

#[component]
fn Categories(lang: Lang, offered: Vec<Category>, chosen: Option<Category>) -> impl IntoView {
    let s = support(lang);
    // Nothing chosen yet: the first offered, so the form is never sent without one.
    let chosen = chosen
        .filter(|c| offered.contains(c))
        .or(offered.first().copied());
    let options = offered
        .into_iter()
        .map(|c| {
            let id = format!("category-{c}");
            let hint_id = format!("{id}-hint");
            let label_for = id.clone();
            let checked = Some(c) == chosen;
            view! {
                <label class="option" for=label_for>
                    <input type="radio" id=id name="category" value=c.as_str() checked=checked aria-describedby=hint_id.clone() />
                    " "{category_name(lang, c)}
                    <span class="hint" id=hint_id>{category_hint(lang, c)}</span>
                </label>
            }
        })
        .collect_view();
    view! {
        <fieldset class="field">
            <legend>{s.field_category}</legend>
            {options}
        </fieldset>
    }
}

#[component]
fn ServerPicker(
    lang: Lang,
    servers: Vec<(domain::ServerId, String)>,
    chosen: String,
) -> impl IntoView {
    let s = support(lang);
    let empty = servers.is_empty();
    let options = servers
        .into_iter()
        .map(|(id, name)| {
            let selected = id.as_str() == chosen;
            view! { <option value=id.to_string() selected=selected>{name}</option> }
        })
        .collect_view();
    view! {
        <div class="field">
            <label for="server">{s.field_server}</label>
            <select id="server" name="server" aria-describedby="server-hint">
                <option value="">{s.server_none}</option>
                {options}
            </select>
            <p class="hint" id="server-hint">{if empty { s.no_servers } else { s.server_hint }}</p>
        </div>
    }
}

/// A select whose options are their own values (the answers are read by
/// people, in the language they were given in).
fn choice(
    id: &'static str,
    label: &'static str,
    choose: &'static str,
    options: Vec<String>,
    chosen: String,
) -> impl IntoView {
    let options = options
        .into_iter()
        .map(|o| {
            let selected = o == chosen;
            let value = o.clone();
            view! { <option value=value selected=selected>{o}</option> }
        })
        .collect_view();
    view! {
        <label for=id>{label}</label>
        <select id=id name=id>
            <option value="">{choose}</option>
            {options}
        </select>
    }
}

#[component]
fn ScalingQuestions(lang: Lang, feedback: FormFeedback) -> impl IntoView {
    let s = support(lang);
    let cards = ["2", "4", "8", s.cards_more].map(str::to_owned).to_vec();
    let mut workloads: Vec<String> = content(lang)
        .workloads
        .iter()
        .map(|w| w.workload.to_owned())
        .collect();
    workloads.push(s.workload_other.to_owned());
    let timelines = [
        s.timeline_month,
        s.timeline_quarter,
        s.timeline_later,
        s.timeline_unsure,
    ]
    .map(str::to_owned)
    .to_vec();
    view! {
        <fieldset class="field scaling-questions" aria-describedby="scaling-hint">
            <legend>{s.scaling_legend}</legend>
            <p class="hint" id="scaling-hint">{s.scaling_hint}</p>
            {choice("cards", s.field_cards, s.choose, cards, feedback.value("cards"))}
            {choice("workload", s.field_workload, s.choose, workloads, feedback.value("workload"))}
            <label for="model_size">{s.field_model_size}</label>
            <input id="model_size" name="model_size" value=feedback.value("model_size") maxlength=SCALING_MAX aria-describedby="model-size-hint" />
            <p class="hint" id="model-size-hint">{s.model_size_hint}</p>
            {choice("timeline", s.field_timeline, s.choose, timelines, feedback.value("timeline"))}
        </fieldset>
    }
}

app::page_view!(NewRequestView => NewRequestPage(view));
