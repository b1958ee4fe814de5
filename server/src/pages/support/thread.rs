//! One support request: what it is about, the scaling-out plan if any, the
//! messages oldest first, and what the member can do next: reply, close,
//! or reopen within 30 days of closing.

use crate::pages::support::{
    category_name, when, with_breaks, MessageView, ScalingView, StateBadge, ThreadView, BODY_MAX,
};
use app::i18n::support;
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::nav::PortalNav;
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::support::{AuthorKind, State};
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn SupportThreadPage(lang: Lang, view: ThreadView) -> impl IntoView {
    let s = support(lang);
    let r = view.request.clone();
    let rest = format!("/support/requests/{}", r.id);
    let [reply, close, reopen] =
        ["reply", "close", "reopen"].map(|what| href(lang, &format!("{rest}/{what}")));
    let done = query("done").and_then(|code| match code.as_str() {
        "opened" => Some(s.done_opened),
        "replied" => Some(s.done_replied),
        "closed" => Some(s.done_closed),
        "reopened" => Some(s.done_reopened),
        _ => None,
    });
    let closed = r.state == State::Closed;
    let server = r.server_name.clone().map(|name| match r.server_id.clone() {
        Some(id) => view! { <a href=href(lang, &format!("/servers/{id}"))>{name}</a> }.into_any(),
        None => view! { <span>{name}</span> }.into_any(),
    });
    let messages = view
        .messages
        .into_iter()
        .map(|m| view! { <Message lang message=m /> })
        .collect_view();
    // Never the subject: leptos_meta writes the title unescaped, so what a
    // customer typed stays out of `<title>`.
    let title = format!("{} · {}", r.reference, s.list_title);
    view! {
        <Page lang title=title description=s.list_title.to_owned() rest=rest.clone() noindex=true>
            <section class="section portal-form wide support-thread" aria-labelledby="request-title">
                <PortalNav lang />
                <p><a href=href(lang, "/support/requests")>{s.back_to_list}</a></p>
                <h1 id="request-title" dir="auto"><code>{r.reference.clone()}</code>" "{r.subject.clone()}</h1>
                <Notice text=done />
                <FormErrorNotice lang />
                <dl class="facts support-facts">
                    <dt>{s.label_category}</dt>
                    <dd>{category_name(lang, r.category)}</dd>
                    <dt>{s.label_state}</dt>
                    <dd><StateBadge lang state=r.state /></dd>
                    {server.map(|link| view! { <dt>{s.label_server}</dt><dd>{link}</dd> })}
                    <dt>{s.label_opened}</dt>
                    <dd>{when(r.created_at)}</dd>
                </dl>
                {view.scaling.map(|plan| view! { <Plan lang plan /> })}
                <h2>{s.messages_title}</h2>
                <ol class="support-messages">{messages}</ol>
                {if closed {
                    view! { <Closed lang closed_at=r.closed_at reopen_until=view.reopen_until action=reopen /> }.into_any()
                } else {
                    view! { <Open lang reply close /> }.into_any()
                }}
            </section>
        </Page>
    }
    .into_any()
}

#[component]
fn Message(lang: Lang, message: MessageView) -> impl IntoView {
    let s = support(lang);
    let author = match message.kind {
        AuthorKind::Staff => s.support_team.to_owned(),
        AuthorKind::System => s.system_author.to_owned(),
        AuthorKind::Customer => message.author,
    };
    let class = format!("support-message from-{}", message.kind);
    view! {
        <li class=class>
            <p class="support-message-meta">
                <span class="sr-only">{s.from}" "</span>
                <strong dir="auto">{author}</strong>
                " · "
                {when(message.created_at)}
            </p>
            <div class="support-message-body" dir="auto">{with_breaks(&message.body)}</div>
        </li>
    }
}

#[component]
fn Plan(lang: Lang, plan: ScalingView) -> impl IntoView {
    let s = support(lang);
    let rows = [
        (s.field_cards, plan.cards),
        (s.field_workload, plan.workload),
        (s.field_model_size, plan.model_size),
        (s.field_timeline, plan.timeline),
    ]
    .into_iter()
    .filter(|(_, v)| !v.is_empty())
    .map(|(label, value)| view! { <dt>{label}</dt><dd dir="auto">{value}</dd> })
    .collect_view();
    view! {
        <h2>{s.plan_title}</h2>
        <dl class="facts support-plan" data-testid="scaling-plan">{rows}</dl>
    }
}

#[component]
fn Open(lang: Lang, reply: String, close: String) -> impl IntoView {
    let s = support(lang);
    let feedback = use_feedback();
    view! {
        <h2 id="reply-title">{s.reply_title}</h2>
        <form method="post" action=reply aria-labelledby="reply-title">
            <CsrfField />
            <div class="field">
                <label for="reply-body" class="sr-only">{s.field_body}</label>
                <textarea id="reply-body" name="body" rows="6" required maxlength=BODY_MAX dir="auto" aria-describedby="reply-hint">{feedback.value("body")}</textarea>
                <p class="hint" id="reply-hint">{(s.body_hint)(BODY_MAX)}</p>
            </div>
            <button type="submit">{s.reply_submit}</button>
        </form>
        <h2 id="close-title">{s.close_title}</h2>
        <form method="post" action=close aria-labelledby="close-title">
            <CsrfField />
            <label class="option" for="close-confirm">
                <input type="checkbox" id="close-confirm" name="confirm" value="yes" required />
                " "{s.close_confirm}
            </label>
            <button type="submit" class="secondary">{s.close_submit}</button>
        </form>
    }
}

#[component]
fn Closed(
    lang: Lang,
    closed_at: Option<i64>,
    reopen_until: Option<i64>,
    action: String,
) -> impl IntoView {
    let s = support(lang);
    let closed_on = closed_at.map(|at| (s.closed_on)(&domain::time::format_date(at)));
    let next = match reopen_until {
        Some(until) => view! {
            <p>{(s.reopen_until)(&domain::time::format_date(until))}</p>
            <form method="post" action=action class="inline">
                <CsrfField />
                <button type="submit" class="secondary">{s.reopen_submit}</button>
            </form>
        }
        .into_any(),
        None => view! {
            <p>
                {s.reopen_expired}" "
                <a href=href(lang, "/support/requests/new")>{s.open_new_link}</a>
            </p>
        }
        .into_any(),
    };
    view! {
        <div class="support-closed" data-testid="support-closed">
            {closed_on.map(|t| view! { <p>{t}</p> })}
            {next}
        </div>
    }
}

app::page_view!(ThreadView => SupportThreadPage(view));
