//! The long-form sections of the home page, rendered from
//! [`Content`](crate::i18n::content::Content) so both languages share one
//! markup. Purely static: no signals and no event handlers, so every section
//! reads the same with JavaScript switched off (the FAQ opens through
//! `<details>`).
//!
//! Each section is a `<section id=…>` labelled by its heading `…-title`, so
//! the page can link to `#faq` and assistive technology can list regions.

use domain::Lang;
use leptos::prelude::*;

use super::href;
use crate::i18n::content;
use crate::i18n::content::Highlight;

#[component]
pub fn Hero(lang: Lang) -> impl IntoView {
    let c = content(lang);
    view! {
        <section id="hero" class="section hero" aria-labelledby="hero-title">
            <h1 id="hero-title">{c.hero_title}</h1>
            <p class="lead">{c.hero_body}</p>
        </section>
    }
}

#[component]
pub fn PassthroughSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    view! {
        <section id="passthrough" class="section" aria-labelledby="passthrough-title">
            <h2 id="passthrough-title">{c.passthrough_title}</h2>
            <p class="lead">{c.passthrough_intro}</p>
            <p class="callout">{c.passthrough_callout}</p>
            {paragraphs(&c.passthrough_paras)}
            {highlights(&c.passthrough_points)}
        </section>
    }
}

#[component]
pub fn WorkloadsSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    let headers = c
        .workloads_headers
        .iter()
        .map(|header| view! { <th scope="col">{*header}</th> })
        .collect_view();
    let rows = c
        .workloads
        .iter()
        .map(|row| {
            view! {
                <tr>
                    <th scope="row">{row.workload}</th>
                    <td>{row.card}</td>
                    <td>{row.bottleneck}</td>
                </tr>
            }
        })
        .collect_view();
    // The scrolling wrapper is focusable and named so keyboard users can
    // scroll the table on a narrow screen.
    view! {
        <section id="workloads" class="section" aria-labelledby="workloads-title">
            <h2 id="workloads-title">{c.workloads_title}</h2>
            {lead_paragraphs(&c.workloads_intro)}
            <p>{c.workloads_body}</p>
            <div
                class="table-scroll"
                role="region"
                tabindex="0"
                aria-labelledby="workloads-caption"
            >
                <table>
                    <caption id="workloads-caption" class="sr-only">
                        {c.workloads_caption}
                    </caption>
                    <thead>
                        <tr>{headers}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </section>
    }
}

/// Each item carries the anchor `not-for-{id}`, so the order summary can link
/// to the reason that applies.
#[component]
pub fn NotForSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    let items = c
        .not_for
        .iter()
        .map(|item| {
            view! {
                <li class="card" id=format!("not-for-{}", item.id)>
                    <h3>{item.title}</h3>
                    <p>{item.body}</p>
                </li>
            }
        })
        .collect_view();
    view! {
        <section id="not-for" class="section" aria-labelledby="not-for-title">
            <h2 id="not-for-title">{c.not_for_title}</h2>
            {lead_paragraphs(&c.not_for_intro)}
            <ul class="cards">{items}</ul>
        </section>
    }
}

#[component]
pub fn HostSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    view! {
        <section id="host" class="section" aria-labelledby="host-title">
            <h2 id="host-title">{c.host_title}</h2>
            <p class="lead">{c.host_intro}</p>
            <p class="callout">{c.host_summary}</p>
            {highlights(&c.host_items)}
            <p>{c.host_closing}</p>
        </section>
    }
}

/// The step numbers are decoration: the `<ol>` already numbers the steps for
/// assistive technology.
#[component]
pub fn LongJobsSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    let last = c.long_jobs_steps.len() - 1;
    let steps = c
        .long_jobs_steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            view! {
                <li>
                    <span class="step-number" aria-hidden="true">
                        {step.number}
                    </span>
                    <h3>{step.title}</h3>
                    <p>{step.body}</p>
                    {(i == last).then(|| view! { <ScaleOutLink lang /> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section id="long-jobs" class="section" aria-labelledby="long-jobs-title">
            <h2 id="long-jobs-title">{c.long_jobs_title}</h2>
            <p class="lead">{c.long_jobs_intro}</p>
            <p class="callout">{c.long_jobs_callout}</p>
            <ol class="steps">{steps}</ol>
        </section>
    }
}

/// The last step, "Ask before you scale out", leads to the scaling-out
/// request form. The page is cached and the same for everyone: a visitor
/// who is not signed in is sent to log in or sign up first, and comes back
/// to the form afterwards.
#[component]
fn ScaleOutLink(lang: Lang) -> impl IntoView {
    let s = crate::i18n::support(lang);
    view! {
        <p class="step-link">
            <a href=href(lang, SCALE_OUT_FORM) data-testid="scale-out-link">{s.step_link}</a>
            <br />
            <span class="hint">{s.storefront_link_note}</span>
        </p>
    }
}

/// The support request form with "scaling out" chosen.
pub const SCALE_OUT_FORM: &str = "/support/requests/new?category=scaling";

#[component]
pub fn FailureSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    view! {
        <section id="failure" class="section" aria-labelledby="failure-title">
            <h2 id="failure-title">{c.failure_title}</h2>
            <p class="lead">{c.failure_intro}</p>
            <p class="subtitle">{c.failure_subtitle}</p>
            {paragraphs(&c.failure_paras)}
            {highlights(&c.failure_callouts)}
        </section>
    }
}

#[component]
pub fn FaqSection(lang: Lang) -> impl IntoView {
    let c = content(lang);
    let entries = c
        .faqs
        .iter()
        .map(|faq| {
            view! {
                <details>
                    <summary>{faq.question}</summary>
                    <p>{faq.answer}</p>
                </details>
            }
        })
        .collect_view();
    view! {
        <section id="faq" class="section" aria-labelledby="faq-title">
            <h2 id="faq-title">{c.faq_title}</h2>
            <div class="faq">{entries}</div>
        </section>
    }
}

fn paragraphs(texts: &'static [&'static str]) -> impl IntoView {
    texts
        .iter()
        .map(|text| view! { <p>{*text}</p> })
        .collect_view()
}

fn lead_paragraphs(texts: &'static [&'static str]) -> impl IntoView {
    texts
        .iter()
        .map(|text| view! { <p class="lead">{*text}</p> })
        .collect_view()
}

/// A grid of titled points; the titles sit one level under the section's `<h2>`.
fn highlights(items: &'static [Highlight]) -> impl IntoView {
    let cards = items
        .iter()
        .map(|item| {
            view! {
                <div class="card">
                    <h3>{item.title}</h3>
                    <p>{item.body}</p>
                </div>
            }
        })
        .collect_view();
    view! { <div class="cards">{cards}</div> }
}

// Rendering to HTML needs the server build.
#[cfg(all(test, feature = "ssr"))]
mod tests {
    use super::*;

    fn render(id: &str, lang: Lang) -> String {
        match id {
            "hero" => view! { <Hero lang=lang /> }.to_html(),
            "passthrough" => view! { <PassthroughSection lang=lang /> }.to_html(),
            "workloads" => view! { <WorkloadsSection lang=lang /> }.to_html(),
            "not-for" => view! { <NotForSection lang=lang /> }.to_html(),
            "host" => view! { <HostSection lang=lang /> }.to_html(),
            "long-jobs" => view! { <LongJobsSection lang=lang /> }.to_html(),
            "failure" => view! { <FailureSection lang=lang /> }.to_html(),
            "faq" => view! { <FaqSection lang=lang /> }.to_html(),
            other => panic!("no section {other}"),
        }
    }

    /// Every section must be a landmark its heading names, in both languages.
    #[test]
    fn each_section_is_labelled_by_its_heading() {
        let ids = [
            "hero",
            "passthrough",
            "workloads",
            "not-for",
            "host",
            "long-jobs",
            "failure",
            "faq",
        ];
        for lang in Lang::ALL {
            for id in ids {
                let html = render(id, lang);
                assert!(html.contains(&format!(r#"<section id="{id}""#)), "{html}");
                assert!(html.contains(&format!(r#"aria-labelledby="{id}-title""#)));
                assert!(html.contains(&format!(r#"id="{id}-title""#)));
            }
        }
    }

    #[test]
    fn not_for_items_have_stable_anchors() {
        let html = view! { <NotForSection lang=Lang::En /> }.to_html();
        for id in crate::i18n::content::NOT_FOR_IDS {
            assert!(html.contains(&format!(r#"id="not-for-{id}""#)));
        }
    }
}
